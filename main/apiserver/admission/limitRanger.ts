// The LimitRanger admission plugin (plugin/pkg/admission/limitranger/admission.go): on pod create
// the namespace's LimitRanges default each container's requests and limits (default,
// defaultRequest — recorded in the kubernetes.io/limit-ranger annotation), then min, max and
// maxLimitRequestRatio are enforced per Container and per Pod, and min/max storage per
// PersistentVolumeClaim. Violations answer 403 `pods "x" is forbidden: <messages>` with upstream's texts.
import type { Quantity } from '../../../shared/kubernetes/quantity';
import { exactMilliValue, exactValue, formatQuantity, parseQuantity } from '../../../shared/kubernetes/quantity';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { podResourceTotals, type ResourceList } from '../../registry/resourceQuotaUsage';
import { forbidden } from './admissionErrors';

const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';
/** resource.MaxMilliValue: beyond it upstream compares whole units. */
const MAX_MILLI_VALUE = 9223372036854775n;

interface LimitItem {
  type: string;
  min: [string, unknown][];
  max: [string, unknown][];
  ratio: [string, unknown][];
  defaults: Record<string, unknown>;
  defaultRequest: Record<string, unknown>;
}

function entries(value: unknown): [string, unknown][] {
  return isRecord(value) ? Object.entries(value) : [];
}

/**
 * The items of a LimitRange with API defaulting applied (pkg/apis/core/v1 SetDefaults_LimitRangeItem):
 * a Container max is the default limit, a default limit is the default request, a min is the
 * default request — so ranges created before defaulting existed behave alike.
 */
function limitItems(limitRange: KubeObject): LimitItem[] {
  const spec = isRecord(limitRange.spec) ? limitRange.spec : {};
  const limits = Array.isArray(spec.limits) ? spec.limits.filter(isRecord) : [];
  return limits.map((limit) => {
    const item: LimitItem = {
      type: String(limit.type ?? ''),
      min: entries(limit.min),
      max: entries(limit.max),
      ratio: entries(limit.maxLimitRequestRatio),
      defaults: isRecord(limit.default) ? { ...limit.default } : {},
      defaultRequest: isRecord(limit.defaultRequest) ? { ...limit.defaultRequest } : {},
    };
    if (item.type === 'Container') {
      for (const [name, value] of item.max) if (!(name in item.defaults)) item.defaults[name] = value;
      for (const [name, value] of Object.entries(item.defaults)) if (!(name in item.defaultRequest)) item.defaultRequest[name] = value;
      for (const [name, value] of item.min) if (!(name in item.defaultRequest)) item.defaultRequest[name] = value;
    }
    return item;
  });
}

function containerLists(spec: Record<string, unknown>): { list: Record<string, unknown>[]; label: string }[] {
  const pick = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isRecord) : []);
  return [
    { list: pick('containers'), label: 'container' },
    { list: pick('initContainers'), label: 'init container' },
  ];
}

/** Mutating half: default requests and limits of a new pod's containers from each LimitRange. */
export function applyLimitRangeDefaults(pod: KubeObject, limitRanges: readonly KubeObject[]): void {
  if (!isRecord(pod.spec)) return;
  for (const limitRange of limitRanges) {
    const defaults: Record<string, unknown> = {};
    const defaultRequests: Record<string, unknown> = {};
    for (const item of limitItems(limitRange)) {
      if (item.type !== 'Container') continue;
      Object.assign(defaults, item.defaults);
      Object.assign(defaultRequests, item.defaultRequest);
    }
    const notes: string[] = [];
    for (const { list, label } of containerLists(pod.spec)) {
      for (const container of list) {
        const resources = isRecord(container.resources) ? container.resources : (container.resources = {});
        const limits = isRecord(resources.limits) ? resources.limits : (resources.limits = {});
        const requests = isRecord(resources.requests) ? resources.requests : (resources.requests = {});
        const setLimits: string[] = [];
        const setRequests: string[] = [];
        for (const [name, value] of Object.entries(defaults)) {
          if (!(name in limits)) {
            limits[name] = value;
            setLimits.push(name);
          }
        }
        for (const [name, value] of Object.entries(defaultRequests)) {
          if (!(name in requests)) {
            requests[name] = value;
            setRequests.push(name);
          }
        }
        if (Object.keys(limits).length === 0) delete resources.limits;
        if (Object.keys(requests).length === 0) delete resources.requests;
        if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${label} ${String(container.name ?? '')}`);
        if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${label} ${String(container.name ?? '')}`);
      }
    }
    if (notes.length) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

function quantities(value: unknown): ResourceList {
  const list: ResourceList = new Map();
  for (const [name, quantity] of entries(value)) {
    const amount = parseQuantity(quantity);
    if (amount) list.set(name, amount);
  }
  return list;
}

/** requestLimitEnforcedValues: milli-units when they fit, else whole units. */
function comparable(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const zero: Quantity = { nanos: 0n, format: 'DecimalSI' };
  const values = [request ?? zero, limit ?? zero, enforced];
  const fitsMilli = values.every((amount) => exactValue(amount) <= MAX_MILLI_VALUE);
  const [r, l, e] = values.map((amount) => (fitsMilli ? exactMilliValue(amount) : exactValue(amount)));
  return [r, l, e];
}

function minConstraint(type: string, name: string, enforcedValue: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const enforced = parseQuantity(enforcedValue);
  if (!enforced) return undefined;
  const request = requests.get(name);
  const limit = limits.get(name);
  const [observedRequest, observedLimit, bound] = comparable(request, limit, enforced);
  if (!request) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No request is specified`;
  if (observedRequest < bound) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(request)}`;
  if (limit && observedLimit < bound) return `minimum ${name} usage per ${type} is ${formatQuantity(enforced)}, but limit is ${formatQuantity(limit)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforcedValue: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const enforced = parseQuantity(enforcedValue);
  if (!enforced) return undefined;
  const request = requests.get(name);
  const limit = limits.get(name);
  const [observedRequest, observedLimit, bound] = comparable(request, limit, enforced);
  if (!limit) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No limit is specified`;
  if (observedLimit > bound) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but limit is ${formatQuantity(limit)}`;
  if (request && observedRequest > bound) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(request)}`;
  return undefined;
}

/** maxRequestConstraint: for claims, whose limits are not user input. */
function maxRequestConstraint(type: string, name: string, enforcedValue: unknown, requests: ResourceList): string | undefined {
  const enforced = parseQuantity(enforcedValue);
  if (!enforced) return undefined;
  const request = requests.get(name);
  const [observedRequest, , bound] = comparable(request, undefined, enforced);
  if (!request) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}.  No request is specified`;
  if (observedRequest > bound) return `maximum ${name} usage per ${type} is ${formatQuantity(enforced)}, but request is ${formatQuantity(request)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforcedValue: unknown, requests: ResourceList, limits: ResourceList): string | undefined {
  const enforced = parseQuantity(enforcedValue);
  if (!enforced) return undefined;
  const request = requests.get(name);
  const limit = limits.get(name);
  const [observedRequest, observedLimit] = comparable(request, limit, enforced);
  const shown = formatQuantity(enforced);
  if (!request || observedRequest === 0n) return `${name} max limit to request ratio per ${type} is ${shown}, but no request is specified or request is 0`;
  if (!limit || observedLimit === 0n) return `${name} max limit to request ratio per ${type} is ${shown}, but no limit is specified or limit is 0`;
  const ratio = Number(observedLimit) / Number(observedRequest);
  const fitsMilli = exactValue(enforced) <= MAX_MILLI_VALUE;
  const observed = fitsMilli ? ratio * 1000 : ratio;
  const bound = Number(fitsMilli ? exactMilliValue(enforced) : exactValue(enforced));
  if (observed > bound) return `${name} max limit to request ratio per ${type} is ${shown}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}

function checkItem(item: LimitItem, type: string, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  for (const [name, value] of item.min) push(errors, minConstraint(type, name, value, requests, limits));
  for (const [name, value] of item.max) push(errors, maxConstraint(type, name, value, requests, limits));
  for (const [name, value] of item.ratio) push(errors, ratioConstraint(type, name, value, requests, limits));
}

function push(errors: string[], message: string | undefined): void {
  if (message) errors.push(message);
}

/** Validating half for pods: the violation messages of every LimitRange, in upstream's order. */
export function podLimitViolations(pod: KubeObject, limitRanges: readonly KubeObject[]): string[] {
  const errors: string[] = [];
  const spec = isRecord(pod.spec) ? pod.spec : {};
  for (const limitRange of limitRanges) {
    for (const item of limitItems(limitRange)) {
      if (item.type === 'Container') {
        for (const { list } of [containerLists(spec)[0], containerLists(spec)[1]]) {
          for (const container of list) {
            const resources = isRecord(container.resources) ? container.resources : {};
            checkItem(item, 'Container', quantities(resources.requests), quantities(resources.limits), errors);
          }
        }
      }
      if (item.type === 'Pod') checkItem(item, 'Pod', podResourceTotals(spec, 'requests'), podResourceTotals(spec, 'limits'), errors);
    }
    // upstream stops at the first LimitRange that rejects
    if (errors.length) break;
  }
  return errors;
}

/** Validating half for PersistentVolumeClaims (min/max of requested storage). */
export function claimLimitViolations(claim: KubeObject, limitRanges: readonly KubeObject[]): string[] {
  const errors: string[] = [];
  const spec = isRecord(claim.spec) ? claim.spec : {};
  const requests = quantities(isRecord(spec.resources) ? spec.resources.requests : undefined);
  for (const limitRange of limitRanges) {
    for (const item of limitItems(limitRange)) {
      if (item.type !== 'PersistentVolumeClaim') continue;
      for (const [name, value] of item.min) push(errors, minConstraint('PersistentVolumeClaim', name, value, requests, new Map()));
      for (const [name, value] of item.max) push(errors, maxRequestConstraint('PersistentVolumeClaim', name, value, requests));
    }
    if (errors.length) break;
  }
  return errors;
}

/** Rejects with `<resource> "<name>" is forbidden: …` when there are violations. */
export function enforceLimitViolations(resource: string, name: string, violations: string[]): void {
  if (violations.length) throw forbidden({ group: '', resource }, name, violations);
}
