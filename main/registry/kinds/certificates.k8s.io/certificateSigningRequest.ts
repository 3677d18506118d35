// CertificateSigningRequest (certificates.k8s.io/v1), after
// pkg/registry/certificates/certificates/strategy.go: on create spec.username, uid, groups and
// extra name the requester, whatever the client sent (PrepareForCreate), and the status starts
// empty; the spec is what was asked for and never changes after create (the strategy ignores
// spec updates); the signer writes status.certificate
// through /status; /approval (csrApprovalStrategy, what `kubectl certificate approve|deny` PUT)
// may add or change only the Approved and Denied conditions, filling the timestamps the client
// left out (populateConditionTimestamps).
import { formatTime } from '../../../../shared/kubernetes/time';
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { certificateSigningRequestTable } from '../../../../shared/printers/certificates';
import { validateCertificateSigningRequest, validateCertificateSigningRequestUpdate } from '../../validation/certificates';
import { defineKind, keepStoredStatus, statusSubresource } from '../../strategy';

const approvalTypes = new Set(['Approved', 'Denied']);

function conditionsOf(obj: unknown): Record<string, unknown>[] {
  const status = isRecord(obj) && isRecord(obj.status) ? obj.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
}

/** The stored request with the approval conditions of `incoming` (and its metadata) taken over. */
export function mergeApproval(existing: KubeObject, incoming: KubeObject, now: Date): KubeObject {
  const previous = conditionsOf(existing);
  const stamp = formatTime(now);
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

export const certificateSigningRequestStrategy = defineKind({
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
  shortNames: ['csr'],
  subresources: [
    {
      name: 'approval',
      type: 'update',
      prepareForUpdate: (request, old) => {
        const merged = mergeApproval(old, request, new Date());
        for (const key of Object.keys(request)) delete request[key];
        Object.assign(request, merged);
      },
    },
    statusSubresource(),
  ],
  prepareForCreate: (request, context) => {
    const user = context?.user;
    const spec = isRecord(request.spec) ? request.spec : (request.spec = {});
    for (const field of ['username', 'uid', 'groups', 'extra']) delete spec[field];
    if (user) {
      if (user.name) spec.username = user.name;
      if (user.uid) spec.uid = user.uid;
      if (user.groups.length > 0) spec.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length > 0) spec.extra = structuredClone(user.extra);
    }
    // users cannot create pre-approved requests
    request.status = {};
  },
  prepareForUpdate: (request, old) => {
    keepStoredStatus(request, old);
    request.spec = structuredClone(old.spec);
  },
  validateCreate: validateCertificateSigningRequest,
  validateUpdate: validateCertificateSigningRequestUpdate,
  printer: certificateSigningRequestTable,
});
