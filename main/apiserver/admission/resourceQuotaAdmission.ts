// The ResourceQuota admission plugin (plugin/pkg/admission/resourcequota/controller.go CheckRequest
// with the pod evaluator's Constraints from pkg/quota/v1/evaluator/core/pods.go): a create (or an
// update that grows a Service's or claim's usage) is refused with 403 when it would take any
// matching quota in the namespace past spec.hard —
// `exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2` — or when a quota
// constrains cpu/memory that a container leaves unset — `failed quota: q: must specify limits.cpu for: c`.
// Usage is counted from the stored objects at admission time (what the quota controller would
// record in status.used), so back-to-back creates cannot both slip under the limit.
import type { Quantity } from '../../../shared/kubernetes/quantity';
import { addQuantities, compareQuantities, formatQuantity, parseQuantity, subtractQuantities } from '../../../shared/kubernetes/quantity';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { ResourceList } from '../../registry/resourceQuotaUsage';
import { objectUsage, podValidationResources, quotaHard, quotaMatchesObject, quotaUsed, resourceCountedBy } from '../../registry/resourceQuotaUsage';
import { forbidden } from './admissionErrors';

export interface QuotaRequest {
  operation: 'CREATE' | 'UPDATE';
  group: string;
  resource: string;
  obj: KubeObject;
  old?: KubeObject;
}

export interface QuotaSources {
  /** the ResourceQuotas of a namespace */
  quotas(namespace: string): readonly KubeObject[];
  /** the stored objects of a kind in a namespace */
  objects(group: string, resource: string, namespace: string): KubeObject[];
  now(): Date;
}

/** Kinds whose updates can change usage (upstream evaluators that handle Update). */
const usageChangesOnUpdate = new Set(['services', 'persistentvolumeclaims']);

/** Throws a 403 ApiError when the request does not fit the namespace's quotas. */
export function admitResourceQuota(request: QuotaRequest, sources: QuotaSources): void {
  const { group, resource, obj } = request;
  const namespace = obj.metadata.namespace;
  if (!namespace) return;
  if (request.operation === 'UPDATE' && !(group === '' && usageChangesOnUpdate.has(resource))) return;
  const quotas = sources.quotas(namespace).filter((quota) => quotaMatchesObject(quota, group, resource, obj));
  if (quotas.length === 0) return;
  quotas.sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
  const name = obj.metadata.name ?? '';
  const now = sources.now();

  if (group === '' && resource === 'pods' && request.operation === 'CREATE') {
    for (const quota of quotas) {
      const missing = podConstraintViolation(obj, [...quotaHard(quota).keys()]);
      if (missing) throw forbidden({ group, resource }, name, [`failed quota: ${quota.metadata.name ?? ''}: ${missing}`]);
    }
  }

  const delta = requestedUsage(request, now);
  if (delta.size === 0) return;
  let stored: KubeObject[] | undefined;
  for (const quota of quotas) {
    const hard = quotaHard(quota);
    const requested: ResourceList = new Map([...delta].filter(([key]) => hard.has(key)));
    if (requested.size === 0) continue;
    stored ??= sources.objects(group, resource, namespace);
    const used = quotaUsed(quota, [{ group, resource, items: stored }], now);
    const exceeded: string[] = [];
    for (const [key, amount] of requested) {
      const limit = hard.get(key);
      const current = used.get(key);
      if (limit && current && compareQuantities(addQuantities(current, amount), limit) > 0) exceeded.push(key);
    }
    if (exceeded.length) {
      const show = (list: ResourceList) => prettyPrint(list, exceeded);
      throw forbidden({ group, resource }, name, [`exceeded quota: ${quota.metadata.name ?? ''}, requested: ${show(requested)}, used: ${show(used)}, limited: ${show(hard)}`]);
    }
  }
}

/** The usage the request adds: all of a new object's, or what an update grows. */
function requestedUsage(request: QuotaRequest, now: Date): ResourceList {
  const next = objectUsage(request.group, request.resource, request.obj, now);
  if (request.operation === 'CREATE' || !request.old) return next;
  const before = objectUsage(request.group, request.resource, request.old, now);
  const grown: ResourceList = new Map();
  for (const [key, amount] of next) {
    const previous = before.get(key);
    const difference: Quantity = previous ? subtractQuantities(amount, previous) : amount;
    if (difference.nanos > 0n) grown.set(key, difference);
  }
  return grown;
}

/**
 * The pod evaluator's Constraints: when a quota tracks cpu or memory, every container must state
 * the matching request or limit. Undefined when nothing is missing.
 */
export function podConstraintViolation(pod: KubeObject, hardNames: string[]): string | undefined {
  const required = hardNames.filter((name) => podValidationResources.includes(name) && resourceCountedBy(name)?.resource === 'pods');
  if (required.length === 0) return undefined;
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].filter(isRecord);
  const missing = new Map<string, Set<string>>();
  for (const container of containers) {
    const resources = isRecord(container.resources) ? container.resources : {};
    const provided = containerUsageNames(resources.requests, resources.limits);
    for (const name of required) {
      if (provided.has(name)) continue;
      const names = missing.get(name) ?? new Set<string>();
      names.add(String(container.name ?? ''));
      missing.set(name, names);
    }
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((name) => `${name} for: ${[...(missing.get(name) ?? [])].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

function containerUsageNames(requests: unknown, limits: unknown): Set<string> {
  const names = new Set<string>();
  for (const key of ['cpu', 'memory']) {
    if (isRecord(requests) && parseQuantity(requests[key])) {
      names.add(key);
      names.add(`requests.${key}`);
    }
    if (isRecord(limits) && parseQuantity(limits[key])) names.add(`limits.${key}`);
  }
  return names;
}

/** upstream prettyPrint: `name=quantity` pairs sorted by name, comma-joined. */
function prettyPrint(list: ResourceList, names: string[]): string {
  return [...names]
    .sort()
    .filter((name) => list.has(name))
    .map((name) => `${name}=${formatQuantity(list.get(name) as Quantity)}`)
    .join(',');
}
