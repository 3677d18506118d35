// What an object costs against a ResourceQuota, after upstream's quota evaluators
// (pkg/quota/v1/evaluator/core/{pods,services,persistent_volume_claims}.go and the generic
// object-count evaluator) and the pod request/limit aggregation of
// staging/src/k8s.io/component-helpers/resource/helpers.go (PodRequests/PodLimits). Shared by the
// ResourceQuota admission plugin and the resource quota controller, so both count alike.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { addQuantities, compareQuantities, newQuantity, parseQuantity, zeroQuantity, type Quantity } from '../../shared/kubernetes/quantity';
import { podQosClass } from './podQos';

export type ResourceList = Map<string, Quantity>;

/** Resource names whose absence on a container fails quota admission (pods evaluator validationSet). */
export const podValidationResources = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];

/** Legacy object-count names (quota's `pods`, `services`, … besides `count/<resource>`). */
const legacyCountNames: Record<string, string> = {
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** `count/pods`, `count/deployments.apps` */
export function countResourceName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

function resourceList(value: unknown): ResourceList {
  const list: ResourceList = new Map();
  if (!isRecord(value)) return list;
  for (const [name, quantity] of Object.entries(value)) {
    const amount = parseQuantity(quantity);
    if (amount) list.set(name, amount);
  }
  return list;
}

function addInto(target: ResourceList, source: ResourceList): void {
  for (const [name, amount] of source) {
    const current = target.get(name);
    target.set(name, current ? addQuantities(current, amount) : amount);
  }
}

function maxInto(target: ResourceList, source: ResourceList): void {
  for (const [name, amount] of source) {
    const current = target.get(name);
    if (!current || compareQuantities(amount, current) > 0) target.set(name, amount);
  }
}

function containersOf(spec: Record<string, unknown>, key: 'containers' | 'initContainers'): Record<string, unknown>[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function containerResources(container: Record<string, unknown>, which: 'requests' | 'limits'): ResourceList {
  return resourceList(isRecord(container.resources) ? container.resources[which] : undefined);
}

/**
 * PodRequests / PodLimits: the sum over regular containers and sidecars (restartable init
 * containers), or the largest init container (plus the sidecars started before it) when bigger.
 */
export function podResourceTotals(spec: unknown, which: 'requests' | 'limits'): ResourceList {
  const total: ResourceList = new Map();
  if (!isRecord(spec)) return total;
  for (const container of containersOf(spec, 'containers')) addInto(total, containerResources(container, which));
  const sidecars: ResourceList = new Map();
  const initPeak: ResourceList = new Map();
  for (const container of containersOf(spec, 'initContainers')) {
    const resources = containerResources(container, which);
    if (container.restartPolicy === 'Always') {
      addInto(total, resources);
      addInto(sidecars, resources);
      maxInto(initPeak, new Map(sidecars));
    } else {
      const running = new Map(sidecars);
      addInto(running, resources);
      maxInto(initPeak, running);
    }
  }
  maxInto(total, initPeak);
  return total;
}

/** upstream QuotaV1Pod: terminal pods and pods past their deletion grace no longer use compute quota. */
export function podCountsForQuota(pod: KubeObject, now: Date): boolean {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (deletion && grace !== undefined) {
    if (now.getTime() > Date.parse(deletion) + grace * 1000) return false;
  }
  return true;
}

/** podComputeUsageHelper: the compute names a pod's requests and limits count under. */
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const usage: ResourceList = new Map([['pods', newQuantity(1)]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const request = requests.get(name);
    if (request) {
      usage.set(name, request);
      usage.set(`requests.${name}`, request);
    }
    const limit = limits.get(name);
    if (limit) usage.set(`limits.${name}`, limit);
  }
  for (const [name, request] of requests) {
    if (name.startsWith('hugepages-')) usage.set(`requests.${name}`, request);
    else if (name.includes('/') && !name.startsWith('kubernetes.io/')) usage.set(`requests.${name}`, request);
  }
  return usage;
}

export function podUsage(pod: KubeObject, now: Date): ResourceList {
  const usage: ResourceList = new Map([['count/pods', newQuantity(1)]]);
  if (!podCountsForQuota(pod, now)) return usage;
  addInto(usage, podComputeUsage(podResourceTotals(pod.spec, 'requests'), podResourceTotals(pod.spec, 'limits')));
  return usage;
}

function serviceUsage(service: KubeObject): ResourceList {
  const spec = isRecord(service.spec) ? service.spec : {};
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : [];
  const usage: ResourceList = new Map([
    ['count/services', newQuantity(1)],
    ['services', newQuantity(1)],
    ['services.loadbalancers', zeroQuantity()],
    ['services.nodeports', zeroQuantity()],
  ]);
  if (spec.type === 'NodePort') usage.set('services.nodeports', newQuantity(ports.length));
  if (spec.type === 'LoadBalancer') {
    // Without node port allocation only explicit node ports count (upstream looks at intent).
    const count = spec.allocateLoadBalancerNodePorts === false ? ports.filter((port) => typeof port.nodePort === 'number' && port.nodePort !== 0).length : ports.length;
    usage.set('services.nodeports', newQuantity(count));
    usage.set('services.loadbalancers', newQuantity(1));
  }
  return usage;
}

function claimUsage(claim: KubeObject): ResourceList {
  const spec = isRecord(claim.spec) ? claim.spec : {};
  const usage: ResourceList = new Map([
    ['count/persistentvolumeclaims', newQuantity(1)],
    ['persistentvolumeclaims', newQuantity(1)],
  ]);
  const className = typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
  if (className) usage.set(`${className}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, newQuantity(1));
  const requests = resourceList(isRecord(spec.resources) ? spec.resources.requests : undefined);
  let storage = requests.get('storage');
  // An expansion in progress is charged at the larger of requested and allocated size.
  const allocated = resourceList(isRecord(claim.status) ? claim.status.allocatedResources : undefined).get('storage');
  if (allocated && (!storage || compareQuantities(allocated, storage) > 0)) storage = allocated;
  if (storage) {
    usage.set('requests.storage', storage);
    if (className) usage.set(`${className}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
  }
  return usage;
}

/** Everything `obj` (of `group`/`resource`) counts under. */
export function objectUsage(group: string, resource: string, obj: KubeObject, now: Date): ResourceList {
  if (group === '' && resource === 'pods') return podUsage(obj, now);
  if (group === '' && resource === 'services') return serviceUsage(obj);
  if (group === '' && resource === 'persistentvolumeclaims') return claimUsage(obj);
  const usage: ResourceList = new Map([[countResourceName(group, resource), newQuantity(1)]]);
  if (group === '' && legacyCountNames[resource]) usage.set(legacyCountNames[resource], newQuantity(1));
  return usage;
}

/** The (group, resource) whose objects a quota resource name counts; undefined when unknown. */
export function resourceCountedBy(name: string): { group: string; resource: string } | undefined {
  if (name.startsWith('count/')) {
    const qualified = name.slice('count/'.length);
    const dot = qualified.indexOf('.');
    return dot < 0 ? { group: '', resource: qualified } : { group: qualified.slice(dot + 1), resource: qualified.slice(0, dot) };
  }
  if (name === 'pods' || name === 'cpu' || name === 'memory' || name === 'ephemeral-storage' || name.startsWith('requests.') && name !== 'requests.storage' || name.startsWith('limits.')) return { group: '', resource: 'pods' };
  if (name === 'services' || name.startsWith('services.')) return { group: '', resource: 'services' };
  if (name === 'persistentvolumeclaims' || name === 'requests.storage' || name.includes(STORAGE_CLASS_SUFFIX)) return { group: '', resource: 'persistentvolumeclaims' };
  for (const legacy of Object.keys(legacyCountNames)) if (name === legacy) return { group: '', resource: legacy };
  return undefined;
}

/** Whether a quota's scopes (spec.scopes and spec.scopeSelector) select this pod (upstream podMatchesScopeFunc). */
export function quotaMatchesObject(quota: KubeObject, group: string, resource: string, obj: KubeObject): boolean {
  const scopes = quotaScopes(quota);
  if (scopes.length === 0) return true;
  if (group !== '' || resource !== 'pods') return false;
  const spec = isRecord(obj.spec) ? obj.spec : {};
  for (const scope of scopes) {
    if (!podMatchesScope(spec, scope)) return false;
  }
  return true;
}

interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

function quotaScopes(quota: KubeObject): ScopeRequirement[] {
  const spec = isRecord(quota.spec) ? quota.spec : {};
  const out: ScopeRequirement[] = [];
  if (Array.isArray(spec.scopes)) for (const scope of spec.scopes) if (typeof scope === 'string') out.push({ scopeName: scope, operator: 'Exists', values: [] });
  const selector = isRecord(spec.scopeSelector) ? spec.scopeSelector : {};
  if (Array.isArray(selector.matchExpressions)) {
    for (const expression of selector.matchExpressions) {
      if (!isRecord(expression) || typeof expression.scopeName !== 'string') continue;
      out.push({ scopeName: expression.scopeName, operator: String(expression.operator ?? ''), values: Array.isArray(expression.values) ? expression.values.map(String) : [] });
    }
  }
  return out;
}

function podMatchesScope(spec: Record<string, unknown>, scope: ScopeRequirement): boolean {
  const terminating = typeof spec.activeDeadlineSeconds === 'number';
  switch (scope.scopeName) {
    case 'Terminating':
      return terminating;
    case 'NotTerminating':
      return !terminating;
    case 'BestEffort':
      return podQosClass(spec) === 'BestEffort';
    case 'NotBestEffort':
      return podQosClass(spec) !== 'BestEffort';
    case 'PriorityClass': {
      const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      switch (scope.operator) {
        case 'Exists':
          return className !== '';
        case 'DoesNotExist':
          return className === '';
        case 'In':
          return scope.values.includes(className);
        case 'NotIn':
          return !scope.values.includes(className);
        default:
          return false;
      }
    }
    case 'CrossNamespacePodAffinity':
      return hasCrossNamespaceAffinity(spec);
    default:
      return false;
  }
}

function hasCrossNamespaceAffinity(spec: Record<string, unknown>): boolean {
  const affinity = isRecord(spec.affinity) ? spec.affinity : {};
  for (const key of ['podAffinity', 'podAntiAffinity']) {
    const group = isRecord(affinity[key]) ? affinity[key] : {};
    const terms = [
      ...(Array.isArray(group.requiredDuringSchedulingIgnoredDuringExecution) ? group.requiredDuringSchedulingIgnoredDuringExecution : []),
      ...(Array.isArray(group.preferredDuringSchedulingIgnoredDuringExecution) ? group.preferredDuringSchedulingIgnoredDuringExecution.map((term) => (isRecord(term) ? term.podAffinityTerm : undefined)) : []),
    ];
    for (const term of terms) {
      if (isRecord(term) && ((Array.isArray(term.namespaces) && term.namespaces.length > 0) || term.namespaceSelector !== undefined)) return true;
    }
  }
  return false;
}

/** The quota's hard limits (spec.hard) as amounts. */
export function quotaHard(quota: KubeObject): ResourceList {
  return resourceList(isRecord(quota.spec) ? quota.spec.hard : undefined);
}

/**
 * status.used for `hard`: the sum over `objects` (each with its group/resource) of every name the
 * quota tracks; names nothing uses are 0, as upstream reports them.
 */
export function quotaUsed(quota: KubeObject, objects: { group: string; resource: string; items: KubeObject[] }[], now: Date): ResourceList {
  const hard = quotaHard(quota);
  const used: ResourceList = new Map();
  for (const name of hard.keys()) used.set(name, zeroQuantity());
  for (const { group, resource, items } of objects) {
    for (const item of items) {
      if (!quotaMatchesObject(quota, group, resource, item)) continue;
      for (const [name, amount] of objectUsage(group, resource, item, now)) {
        const current = used.get(name);
        if (!current) continue;
        // Sums start at zero (DecimalSI) but print in the first contribution's format, as upstream quota.Add.
        used.set(name, current.nanos === 0n && current.format === 'DecimalSI' ? { nanos: amount.nanos, format: amount.format } : addQuantities(current, amount));
      }
    }
  }
  return used;
}
