// Versions served by conversion (a kind whose strategy declares `conversion`, such as
// autoscaling/v1 HorizontalPodAutoscalers over the stored autoscaling/v2 objects), as the upstream
// apiserver converts between a request's version and the storage version: requests are forwarded
// to the stored version's path with their bodies converted, and replies (objects, lists, watch
// events, Table rows) converted back. Patches other than apply are applied to the requested
// version of the current object, then written as the stored version. Admission sees the request as
// the version the client addressed (ApiRequest.convertedFrom).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { Conversion, KindStrategy } from '../../registry/strategy';
import { subresourceOf } from '../../registry/strategy';
import { apiVersionOf } from '../../registry/resources';
import { ApiError } from '../apiError';
import { decodeBody, mediaType } from '../content';
import { applyPatchDocument } from '../patch/patchDocument';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore } from '../resourceStore';
import { APPLY_PATCH } from './patching';
import { notFoundPath } from './replies';
import type { ApiReply, ApiRequest, ApiResponse } from './request';

export interface ConversionContext {
  registry: ResourceRegistry;
  objects: ResourceStore;
  /** the API server's own request handling, which the converted request goes through */
  handle(request: ApiRequest): Promise<ApiResponse>;
}

function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function readBody(request: ApiRequest, contentType?: string): unknown {
  if (request.parsedBody !== undefined) return request.parsedBody;
  return decodeBody(request.body ?? Buffer.alloc(0), contentType ?? request.headers['content-type']);
}

/** Converts whatever a reply of the stored version or a watch event holds (object, list, Table rows). */
function convertValue(value: unknown, def: KindStrategy, storage: KindStrategy, conversion: Conversion): unknown {
  if (!isRecord(value)) return value;
  const storedVersion = apiVersionOf(storage);
  if (value.kind === storage.kind && value.apiVersion === storedVersion) return conversion.fromStorage(value as KubeObject);
  if (value.kind === storage.listKind && Array.isArray(value.items)) {
    return { ...value, apiVersion: apiVersionOf(def), items: value.items.map((item) => (isRecord(item) ? conversion.fromStorage(item as KubeObject) : item)) };
  }
  if (value.kind === 'Table' && Array.isArray(value.rows)) {
    return { ...value, rows: value.rows.map((row) => (isRecord(row) && isRecord(row.object) ? { ...row, object: convertValue(row.object, def, storage, conversion) } : row)) };
  }
  return value;
}

function convertReply(reply: ApiResponse, convert: (value: unknown) => unknown): ApiResponse {
  if ('watch' in reply) {
    const transform = reply.transform;
    return { ...reply, transform: (object, type) => convert(transform(object, type)) };
  }
  if ('stream' in reply) return reply;
  const contentType = reply.headers['Content-Type'] ?? '';
  if (!contentType.startsWith('application/json') || typeof reply.body !== 'string') return reply;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return reply;
  }
  const converted: ApiReply = { ...reply, body: JSON.stringify(convert(parsed)) };
  return converted;
}

/** Serves a request to `def`, a version that converts to and from its stored version. */
export async function serveConverted(context: ConversionContext, request: ApiRequest, def: KindStrategy, conversion: Conversion, target: { namespace: string; name?: string; rest: string[] }): Promise<ApiResponse> {
  const { namespace, name, rest } = target;
  const subresource = rest.length === 1 ? subresourceOf(def, rest[0]) : undefined;
  if (rest.length > 1 || (rest.length === 1 && subresource?.type !== 'update')) throw notFoundPath();
  const storage = context.registry.lookup(def.group, conversion.storageVersion, def.resource);
  if (!storage) throw notFoundPath();
  const requested = apiVersionOf(def);
  const prefix = def.group ? `/apis/${def.group}/${def.version}/` : `/api/${def.version}/`;
  const storagePrefix = def.group ? `/apis/${def.group}/${conversion.storageVersion}/` : `/api/${conversion.storageVersion}/`;
  const path = request.path.replace(prefix, storagePrefix);
  // Replies are rewritten as JSON, so the forwarded request never asks for protobuf.
  const accept = request.headers['accept'];
  const headers = { ...request.headers, accept: accept && accept.includes('protobuf') && !accept.includes('as=Table') ? 'application/json' : accept };
  const convert = (value: unknown) => convertValue(value, def, storage, conversion);
  const forward = async (overrides: Partial<ApiRequest>): Promise<ApiResponse> => convertReply(await context.handle({ ...request, path, headers, body: undefined, convertedFrom: def, ...overrides }), convert);
  switch (request.method) {
    case 'GET':
    case 'DELETE':
      return forward({ body: request.body, parsedBody: request.parsedBody });
    case 'POST':
    case 'PUT': {
      const body = readBody(request);
      if (!isRecord(body)) throw ApiError.badRequest(`the body of the request must be an ${requested} ${def.kind} object`);
      if (body.apiVersion !== undefined && body.apiVersion !== requested) throw ApiError.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${requested})`);
      return forward({ parsedBody: conversion.toStorage(body), headers: { ...headers, 'content-type': 'application/json' } });
    }
    case 'PATCH': {
      const contentType = mediaType(request.headers['content-type']);
      if (contentType === APPLY_PATCH) {
        const patch = readBody(request, 'application/yaml');
        if (!isRecord(patch)) throw ApiError.badRequest('error decoding YAML: the applied configuration must be an object');
        return forward({ parsedBody: conversion.toStorage(patch, true) });
      }
      const patch = readBody(request, 'application/json');
      if (name === undefined) throw ApiError.methodNotAllowed();
      for (let attempt = 0; ; attempt++) {
        const current = context.objects.get(storage, namespace, name);
        const patched = applyPatchDocument(contentType, conversion.fromStorage(current), patch, requested, def.kind);
        if (!isRecord(patched)) throw ApiError.badRequest('the patch did not produce an object');
        const desired = conversion.toStorage(patched);
        const metadata = recordOf(desired.metadata);
        const explicitVersion = metadata.resourceVersion !== current.metadata.resourceVersion;
        if (!explicitVersion) metadata.resourceVersion = current.metadata.resourceVersion;
        const reply = await forward({ method: 'PUT', parsedBody: desired, headers: { ...headers, 'content-type': 'application/json' } });
        if (reply.status === 409 && !explicitVersion && attempt < 5) continue;
        return reply;
      }
    }
    default:
      throw ApiError.methodNotAllowed();
  }
}
