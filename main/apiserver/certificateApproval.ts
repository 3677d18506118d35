// The `approval` subresource of CertificateSigningRequests (pkg/registry/certificates/
// certificates/strategy.go csrApprovalStrategy): a PUT there may add or change only the Approved
// and Denied conditions; spec, the issued certificate and every other condition stay as stored.
// Condition timestamps the client left out are filled like upstream's populateConditionTimestamps.
// `kubectl certificate approve|deny` send exactly this PUT.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { ApiError } from './apiError';
import { json, type ApiServer, type SubresourceHandler } from './apiServer';
import { decodeBody } from './content';
import { nowTimestamp } from './objectMeta';

const approvalTypes = new Set(['Approved', 'Denied']);

function conditionsOf(obj: unknown): Record<string, unknown>[] {
  const status = isRecord(obj) && isRecord(obj.status) ? obj.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
}

/** The stored object with the approval conditions of `incoming` (and its metadata) taken over. */
export function mergeApproval(existing: KubeObject, incoming: KubeObject, now: Date): KubeObject {
  const previous = conditionsOf(existing);
  const stamp = nowTimestamp(now);
  const approvals = conditionsOf(incoming)
    .filter((condition) => approvalTypes.has(String(condition.type)))
    .map((condition) => {
      const before = previous.find((candidate) => candidate.type === condition.type);
      const next = { ...condition };
      if (next.lastUpdateTime === undefined || next.lastUpdateTime === null) next.lastUpdateTime = stamp;
      if (next.lastTransitionTime === undefined || next.lastTransitionTime === null) {
        next.lastTransitionTime = before && before.status === next.status && before.lastTransitionTime ? before.lastTransitionTime : stamp;
      }
      return next;
    });
  const kept = previous.filter((condition) => !approvalTypes.has(String(condition.type)));
  const status = isRecord(existing.status) ? { ...existing.status } : {};
  const conditions = [...kept, ...approvals];
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  return { ...structuredClone(existing), metadata: { ...incoming.metadata }, status };
}

export function certificateApprovalHandler(api: ApiServer): SubresourceHandler {
  return (request, { def, name, rest }) => {
    if (rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    if (request.method === 'GET') return json(200, api.objects.get(def, '', name));
    if (request.method !== 'PUT') throw ApiError.methodNotAllowed();
    const body = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), request.headers['content-type']);
    const options = { dryRun: request.query.getAll('dryRun').length > 0, fieldValidation: 'Ignore' as const, fieldManager: request.query.get('fieldManager') ?? undefined, warnings: [] };
    const incoming = api.objects.decodeObject(def, body, options);
    const existing = api.objects.get(def, '', name);
    const desired = mergeApproval(existing, incoming, new Date());
    const result = api.objects.update(def, '', name, desired, options, 'status');
    return json(200, result.object);
  };
}
