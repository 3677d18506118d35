// Reply writers every handler and plugin uses (upstream endpoints/handlers/responsewriters): JSON
// bodies, Status errors, objects shaped as the client accepts them (object, Table,
// PartialObjectMetadata) with `Warning` headers, and the Success Status of actions. A leaf module.
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { negotiate } from '../content';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../tables';
import type { ApiReply, ApiRequest } from './request';

export function json(status: number, body: unknown, contentType = 'application/json'): ApiReply {
  return { status, headers: { 'Content-Type': contentType }, body: JSON.stringify(body) };
}

export function errorReply(error: unknown): ApiReply {
  if (error instanceof ApiError) return json(error.code, error.toStatus());
  const message = error instanceof Error ? error.message : String(error);
  console.error('kubedesk: internal error:', error);
  return json(500, ApiError.internal(message).toStatus());
}

/** An object in the shape the request accepts (object, Table row, PartialObjectMetadata). */
export function objectReply(status: number, obj: KubeObject, request: ApiRequest, def: KindStrategy, warnings: string[]): ApiReply {
  const negotiated = negotiate(request.headers['accept']);
  let body: unknown = obj;
  if (negotiated.shape === 'table') {
    body = toTable(def, [obj], { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: { resourceVersion: obj.metadata.resourceVersion }, tableVersion: negotiated.tableVersion });
  } else if (negotiated.shape === 'partialMetadata') {
    body = partialObjectMetadata(obj);
  }
  return withWarnings(json(status, body), warnings);
}

/** `Warning: 299 - "…"` headers, as upstream's warning recorder writes them. */
export function withWarnings(reply: ApiReply, warnings: string[]): ApiReply {
  if (warnings.length) reply.headers['Warning'] = warnings.map((warning) => `299 - ${JSON.stringify(warning)}`).join(', ');
  return reply;
}

/** The Status an action answers with (a binding, an eviction). */
export function successStatus(code = 201): ApiReply {
  return json(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code });
}

/** 404 for a path the server does not serve. */
export function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
