// PatchError: the one error type the patch functions throw. It is an ApiError, so the HTTP layer can
// reply with it as is. Codes, reasons and messages follow how upstream's PATCH handler
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go) wraps library errors:
// - a patch body that cannot be decoded → 400 BadRequest with the decoder's message;
// - a JSON patch that does not apply → 422 via NewGenericServerResponse, whose message is the fixed
//   "the server rejected our request due to an error in our request" (the json-patch library text,
//   e.g. `replace operation does not apply: doc is missing path: /spec/x: missing value`, is
//   dropped by upstream; we keep it in `detail` for logs and tests);
// - strategic merge patch format errors → 400 (interpretStrategicMergePatchError), and its
//   other errors (e.g. `map: map[image:x] does not contain declared merge key: name`) reach the
//   client as a plain 500 Status without a reason, which kubectl prints as `Error from server: …`.
import type { Status } from '../../../shared/kubernetes/types';
import { ApiError, type StatusReason } from '../apiError';

/** The message upstream's NewGenericServerResponse gives every 422 it builds. */
export const unprocessablePatchMessage = 'the server rejected our request due to an error in our request';

/** The most operations upstream accepts in one JSON patch (maxJSONPatchOperations). */
export const maxJsonPatchOperations = 10000;

export class PatchError extends ApiError {
  /** The underlying library message (equal to `message` except for 422s, where upstream hides it). */
  readonly detail: string;
  /** False for upstream's reason-less 500 replies; `toStatus()` then omits `reason`. */
  readonly hasReason: boolean;

  constructor(code: number, reason: StatusReason | undefined, message: string, detail = message) {
    super(code, reason ?? 'InternalError', message);
    this.name = 'PatchError';
    this.detail = detail;
    this.hasReason = reason !== undefined;
  }

  override toStatus(): Status {
    const status = super.toStatus();
    if (!this.hasReason) delete status.reason;
    return status;
  }

  /** 400: the patch document itself is malformed (cannot be decoded, bad directive format). */
  static malformed(message: string): PatchError {
    return new PatchError(400, 'BadRequest', message);
  }

  /** 422 with upstream's fixed message; `detail` keeps what went wrong. */
  static unprocessable(detail: string): PatchError {
    return new PatchError(422, 'Invalid', unprocessablePatchMessage, detail);
  }

  /** 500 without a reason: what upstream replies for errors it does not classify. */
  static unclassified(message: string): PatchError {
    return new PatchError(500, undefined, message);
  }

  /** 413: more than maxJsonPatchOperations operations. */
  static tooManyOperations(count: number): PatchError {
    const detail = `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${count}`;
    return new PatchError(413, 'RequestEntityTooLarge', `Request entity too large: ${detail}`, detail);
  }
}
