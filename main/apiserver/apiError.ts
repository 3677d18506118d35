// ApiError: an error that maps 1:1 to a Kubernetes metav1.Status reply. Messages follow upstream
// staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go so kubectl prints the same text.
import type { Status, StatusCause } from '../../shared/kubernetes/types';
import type { FieldError } from '../registry/fieldErrors';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'Timeout'
  | 'InternalError'
  | 'ServiceUnavailable';

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: Status['details'],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toStatus(): Status {
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.code };
    if (this.details) status.details = this.details;
    return status;
  }

  /** `deployments.apps "web" not found` */
  static notFound(qualifiedResource: GroupResource, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${formatGroupResource(qualifiedResource)} "${name}" not found`, { name, group: qualifiedResource.group, kind: qualifiedResource.resource });
  }

  static alreadyExists(qualifiedResource: GroupResource, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${formatGroupResource(qualifiedResource)} "${name}" already exists`, { name, group: qualifiedResource.group, kind: qualifiedResource.resource });
  }

  static conflict(qualifiedResource: GroupResource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${formatGroupResource(qualifiedResource)} "${name}": ${why}`, { name, group: qualifiedResource.group, kind: qualifiedResource.resource });
  }

  /** 422 with field causes; message as upstream NewInvalid: `Pod "x" is invalid: [a: Required value, b: …]`. */
  static invalid(kind: string, group: string, name: string, errors: FieldError[]): ApiError {
    const causes: StatusCause[] = errors.map((e) => ({ reason: e.type, message: e.detail, field: e.field }));
    const parts = errors.map((e) => `${e.field}: ${e.detail}`);
    const list = parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
    return new ApiError(422, 'Invalid', `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${list}`, { name, group, kind, causes });
  }

  static badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  }

  static methodNotAllowed(message = 'the server does not allow this method on the requested resource'): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message);
  }

  static unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml (got ${contentType})`);
  }

  static expired(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  }

  static unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  }

  static internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`);
  }
}

export interface GroupResource {
  group: string;
  resource: string;
}

/** `pods`, `deployments.apps` */
export function formatGroupResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}
