// ClientApiError: a non-2xx reply seen by the client, carrying the server's metav1.Status. Helpers
// mirror upstream k8s.io/apimachinery/pkg/api/errors (IsNotFound, IsConflict, …), which check the
// Status reason first and fall back to the HTTP code.
import { isRecord, type Status, type StatusDetails } from '../../shared/kubernetes/types';

const reasonForCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class ClientApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(readonly status: Status) {
    super(status.message ?? `the server responded with status ${status.code}`);
    this.name = 'ClientApiError';
    this.code = status.code;
    this.reason = status.reason ?? '';
    this.details = status.details;
  }
}

/** Builds a Status from a reply body, using it as is when it is a Status, else synthesising one from the code. */
export function statusFromResponse(code: number, body: unknown): Status {
  if (isRecord(body) && body.kind === 'Status') {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: isRecord(body.metadata) ? body.metadata : {},
      status: body.status === 'Success' ? 'Success' : 'Failure',
      code: typeof body.code === 'number' && body.code !== 0 ? body.code : code,
    };
    if (typeof body.message === 'string') status.message = body.message;
    if (typeof body.reason === 'string') status.reason = body.reason;
    if (isRecord(body.details)) status.details = body.details;
    return status;
  }
  const text = typeof body === 'string' && body.trim() !== '' ? body.trim() : undefined;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    reason: reasonForCode[code] ?? 'Unknown',
    message: text ?? `the server responded with status ${code}`,
  };
}

function hasReason(error: unknown, reason: string, code: number): boolean {
  if (!(error instanceof ClientApiError)) return false;
  if (error.reason !== '' && error.reason !== 'Unknown') return error.reason === reason;
  return error.code === code;
}

export function isNotFound(error: unknown): boolean {
  return hasReason(error, 'NotFound', 404);
}

export function isConflict(error: unknown): boolean {
  return hasReason(error, 'Conflict', 409);
}

export function isAlreadyExists(error: unknown): boolean {
  return error instanceof ClientApiError && error.reason === 'AlreadyExists';
}

export function isInvalid(error: unknown): boolean {
  return hasReason(error, 'Invalid', 422);
}

export function isForbidden(error: unknown): boolean {
  return hasReason(error, 'Forbidden', 403);
}

/** 410: `Expired` (too old resourceVersion, expired continue token) or `Gone`. Informers relist on it. */
export function isResourceExpired(error: unknown): boolean {
  return error instanceof ClientApiError && (error.code === 410 || error.reason === 'Expired' || error.reason === 'Gone');
}

export function isTooManyRequests(error: unknown): boolean {
  return hasReason(error, 'TooManyRequests', 429);
}
