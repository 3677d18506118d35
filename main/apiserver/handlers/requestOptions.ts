// What a request asks for beyond its path (upstream endpoints/handlers/rest.go and the
// metav1 option types): CreateOptions/UpdateOptions/PatchOptions (dryRun, fieldValidation,
// fieldManager), DeleteOptions from the query or the body, label and field selectors, and the body
// itself, decoded from JSON, YAML or protobuf within the size limit.
import { isRecord } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { decodeBody, MAX_BODY_BYTES } from '../content';
import type { DeleteOptions, FieldValidation, WriteOptions } from '../resourceStore';
import { parseFieldSelector, parseLabelSelector, validateFieldSelector, type FieldRequirement, type LabelRequirement } from '../selectors';
import type { ApiRequest } from './request';

export const patchContentTypes = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** CreateOptions / UpdateOptions / PatchOptions of a write. */
export function writeOptions(request: ApiRequest): WriteOptions {
  const query = request.query;
  const dryRun = query.getAll('dryRun');
  for (const value of dryRun) if (value !== 'All') throw ApiError.invalid('CreateOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${value}": supported values: "All"` }]);
  const validation = query.get('fieldValidation') ?? 'Warn';
  if (validation !== 'Ignore' && validation !== 'Warn' && validation !== 'Strict') {
    throw ApiError.badRequest(`fieldValidation parameter ${validation} is not a valid option: must be one of Ignore, Warn, or Strict`);
  }
  const fieldManager = query.get('fieldManager') ?? undefined;
  if (fieldManager !== undefined && fieldManager.length > 128) throw ApiError.invalid('CreateOptions', 'meta.k8s.io', '', [{ type: 'FieldValueTooLong', field: 'fieldManager', detail: 'Too long: may not be more than 128 bytes' }]);
  const user = request.user;
  const impersonator = request.impersonator;
  return { dryRun: dryRun.length > 0, fieldValidation: validation as FieldValidation, fieldManager, userAgent: request.headers['user-agent'], ...(user ? { user } : {}), ...(impersonator ? { impersonator } : {}), warnings: [] };
}

/** DeleteOptions from the query and the body (a DeleteOptions object). */
export function deleteOptions(request: ApiRequest): DeleteOptions {
  let body: Record<string, unknown> = {};
  const hasBody = request.parsedBody !== undefined || (request.body !== undefined && request.body.length > 0);
  if (hasBody) {
    const decoded = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), request.headers['content-type']);
    if (!isRecord(decoded)) throw ApiError.badRequest('the body of a delete request must be a DeleteOptions object');
    body = decoded;
  }
  const query = request.query;
  const options: DeleteOptions = { dryRun: false };
  // who deletes, for the object history
  if (request.user) options.user = request.user;
  if (request.impersonator) options.impersonator = request.impersonator;
  if (request.headers['user-agent'] !== undefined) options.userAgent = request.headers['user-agent'];
  const grace = query.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
  if (grace !== undefined && grace !== null) {
    const value = Number(grace);
    if (!Number.isInteger(value)) throw ApiError.badRequest(`gracePeriodSeconds: Invalid value: "${String(grace)}"`);
    options.gracePeriodSeconds = Math.max(0, value);
  }
  const propagation = query.get('propagationPolicy') ?? body.propagationPolicy;
  if (propagation !== undefined && propagation !== null) {
    if (propagation !== 'Orphan' && propagation !== 'Background' && propagation !== 'Foreground') {
      throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'propagationPolicy', detail: `Unsupported value: "${String(propagation)}": supported values: "Foreground", "Background", "Orphan", "nil"` }]);
    }
    options.propagationPolicy = propagation;
  }
  const orphan = query.get('orphanDependents') ?? body.orphanDependents;
  if (orphan !== undefined && orphan !== null) {
    if (orphan !== true && orphan !== false && orphan !== 'true' && orphan !== 'false') throw ApiError.badRequest(`orphanDependents: Invalid value: "${String(orphan)}"`);
    if (options.propagationPolicy) {
      throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueInvalid', field: 'propagationPolicy', detail: `Invalid value: "${options.propagationPolicy}": orphanDependents and deletionPropagation cannot be both set` }]);
    }
    options.orphanDependents = orphan === true || orphan === 'true';
  }
  if (isRecord(body.preconditions)) {
    const { uid, resourceVersion } = body.preconditions;
    options.preconditions = { uid: typeof uid === 'string' ? uid : undefined, resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : undefined };
  }
  const dryRun = [...query.getAll('dryRun'), ...(Array.isArray(body.dryRun) ? body.dryRun : [])];
  for (const value of dryRun) if (value !== 'All') throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${String(value)}": supported values: "All"` }]);
  options.dryRun = dryRun.length > 0;
  return options;
}

/** labelSelector and fieldSelector; field selectors may only name the kind's selectable fields. */
export function selectors(def: KindStrategy, query: URLSearchParams): { labels: LabelRequirement[]; fields: FieldRequirement[] } {
  const labels = parseLabelSelector(query.get('labelSelector') ?? '');
  const fields = parseFieldSelector(query.get('fieldSelector') ?? '');
  if (fields.length) {
    const allowed = new Set(['metadata.name', 'metadata.namespace']);
    for (const key of selectableFieldNames(def)) allowed.add(key);
    validateFieldSelector(fields, allowed, def.kind);
  }
  return { labels, fields };
}

function selectableFieldNames(def: KindStrategy): string[] {
  try {
    return Object.keys(def.selectableFields({ metadata: {} }));
  } catch {
    return [];
  }
}

/** The request body, decoded by its content type. */
export function readBody(request: ApiRequest): unknown {
  if (request.parsedBody !== undefined) return request.parsedBody;
  const body = request.body ?? Buffer.alloc(0);
  if (body.length > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  return decodeBody(body, request.headers['content-type']);
}

/** A patch document of one of the patch media types (apply configurations are YAML or JSON). */
export function readPatchBody(request: ApiRequest, contentType: string): unknown {
  if (!patchContentTypes.includes(contentType)) {
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${patchContentTypes.join(', ')}`);
  }
  if (request.parsedBody !== undefined) return request.parsedBody;
  const body = request.body ?? Buffer.alloc(0);
  if (body.length > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
  return decodeBody(body, contentType === 'application/apply-patch+yaml' ? 'application/yaml' : 'application/json');
}

export function requireVerb(def: KindStrategy, verb: string): void {
  if (!def.verbs.includes(verb)) throw ApiError.methodNotAllowed();
}

/** metadata.name of a body, or '' */
export function nameOf(body: unknown): string {
  return isRecord(body) && isRecord(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : '';
}
