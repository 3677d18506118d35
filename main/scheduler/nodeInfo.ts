// Building NodeInfo and PodInfo from API objects, after upstream pkg/scheduler/framework/types.go
// (NewNodeInfo, AddPod, calculateResource) and k8s.io/component-helpers/resource (PodRequests):
// a pod requests max(sum of app containers + sidecars, largest init container step) plus overhead;
// pod-level resources, when set, win for cpu and memory. Requests default to limits, as API
// defaulting would have done. Nodes that are not Ready get the NoSchedule taint the node lifecycle
// controller would have added, so TaintToleration rejects them as upstream does.
import { parseMilliValue, parseValue } from '../../shared/kubernetes/quantity';
import { getCondition } from '../../shared/kubernetes/conditions';
import type { Container, LabelSelector, Node, Pod, PodAffinityTerm, Taint, WeightedPodAffinityTerm } from './api';
import { arrayOf } from './api';
import { emptyResource, type AffinityTerm, type HostPort, type NodeInfo, type PodInfo, type Resource, type WeightedAffinityTerm } from './framework';
import { taintNodeNotReady, taintNodeUnreachable } from '../componentHelpers/scheduling/corev1';

/** Upstream schedutil.DefaultMilliCPURequest / DefaultMemoryRequest, used for scoring only. */
export const defaultMilliCPURequest = 100;
export const defaultMemoryRequest = 200 * 1024 * 1024;

function addQuantity(resource: Resource, name: string, quantity: unknown): void {
  switch (name) {
    case 'cpu':
      resource.milliCPU += parseMilliValue(quantity);
      break;
    case 'memory':
      resource.memory += parseValue(quantity);
      break;
    case 'ephemeral-storage':
      resource.ephemeralStorage += parseValue(quantity);
      break;
    case 'pods':
      resource.allowedPodNumber += parseValue(quantity);
      break;
    default:
      // Upstream IsScalarResourceName: extended (domain/name), hugepages-*, attachable-volumes-*.
      if (name.includes('/') || name.startsWith('hugepages-') || name.startsWith('attachable-volumes-')) {
        resource.scalar[name] = (resource.scalar[name] ?? 0) + parseValue(quantity);
      }
  }
}

export function resourceFromList(list: Record<string, unknown> | undefined): Resource {
  const resource = emptyResource();
  for (const [name, quantity] of Object.entries(list ?? {})) addQuantity(resource, name, quantity);
  return resource;
}

function addResource(target: Resource, source: Resource): void {
  target.milliCPU += source.milliCPU;
  target.memory += source.memory;
  target.ephemeralStorage += source.ephemeralStorage;
  target.allowedPodNumber += source.allowedPodNumber;
  for (const [name, value] of Object.entries(source.scalar)) target.scalar[name] = (target.scalar[name] ?? 0) + value;
}

function maxResource(target: Resource, source: Resource): void {
  target.milliCPU = Math.max(target.milliCPU, source.milliCPU);
  target.memory = Math.max(target.memory, source.memory);
  target.ephemeralStorage = Math.max(target.ephemeralStorage, source.ephemeralStorage);
  for (const [name, value] of Object.entries(source.scalar)) target.scalar[name] = Math.max(target.scalar[name] ?? 0, value);
}

function cloneResource(resource: Resource): Resource {
  return { ...resource, scalar: { ...resource.scalar } };
}

function containerRequests(container: Container, nonZero: boolean): Resource {
  const requests: Record<string, unknown> = { ...(container.resources?.limits ?? {}), ...(container.resources?.requests ?? {}) };
  const resource = resourceFromList(requests);
  if (nonZero) {
    if (!('cpu' in requests)) resource.milliCPU = defaultMilliCPURequest;
    if (!('memory' in requests)) resource.memory = defaultMemoryRequest;
  }
  return resource;
}

/** What the pod asks of a node (upstream resource.PodRequests); `nonZero` fills the scoring defaults. */
export function podRequests(pod: Pod, nonZero = false): Resource {
  const spec = pod.spec ?? {};
  const total = emptyResource();
  for (const container of arrayOf(spec.containers)) addResource(total, containerRequests(container, nonZero));
  const sidecars = emptyResource();
  const initMax = emptyResource();
  for (const container of arrayOf(spec.initContainers)) {
    const requests = containerRequests(container, nonZero);
    if (container.restartPolicy === 'Always') {
      // A sidecar keeps running next to the app containers and after later init containers.
      addResource(total, requests);
      addResource(sidecars, requests);
      maxResource(initMax, sidecars);
    } else {
      const step = cloneResource(requests);
      addResource(step, sidecars);
      maxResource(initMax, step);
    }
  }
  maxResource(total, initMax);
  const podLevel = spec.resources?.requests;
  if (podLevel) {
    if ('cpu' in podLevel) total.milliCPU = parseMilliValue(podLevel.cpu);
    if ('memory' in podLevel) total.memory = parseValue(podLevel.memory);
  }
  if (spec.overhead) addResource(total, resourceFromList(spec.overhead));
  total.allowedPodNumber = 0;
  return total;
}

export function podHostPorts(pod: Pod): HostPort[] {
  const ports: HostPort[] = [];
  for (const container of arrayOf(pod.spec?.containers)) {
    for (const port of arrayOf(container.ports)) {
      if (typeof port.hostPort !== 'number' || port.hostPort <= 0) continue;
      ports.push({ ip: port.hostIP || '0.0.0.0', protocol: port.protocol || 'TCP', port: port.hostPort });
    }
  }
  return ports;
}

function affinityTerm(pod: Pod, term: PodAffinityTerm): AffinityTerm {
  const explicit = arrayOf(term.namespaces);
  const namespaces = new Set<string>(explicit.length === 0 && (term.namespaceSelector === undefined || term.namespaceSelector === null) ? [pod.metadata.namespace ?? ''] : explicit);
  return { namespaces, namespaceSelector: term.namespaceSelector, selector: term.labelSelector, topologyKey: term.topologyKey ?? '' };
}

function weightedTerms(pod: Pod, terms: WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] {
  return arrayOf(terms)
    .filter((term) => term && term.podAffinityTerm)
    .map((term) => ({ ...affinityTerm(pod, term.podAffinityTerm), weight: typeof term.weight === 'number' ? term.weight : 0 }));
}

const podInfos = new WeakMap<Pod, PodInfo>();

/** The pod with its affinity terms parsed; cached per object (informer objects are replaced, never changed). */
export function podInfoOf(pod: Pod): PodInfo {
  const cached = podInfos.get(pod);
  if (cached) return cached;
  const affinity = pod.spec?.affinity;
  const info: PodInfo = {
    pod,
    requiredAffinityTerms: arrayOf(affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution).map((term) => affinityTerm(pod, term)),
    requiredAntiAffinityTerms: arrayOf(affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution).map((term) => affinityTerm(pod, term)),
    preferredAffinityTerms: weightedTerms(pod, affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
    preferredAntiAffinityTerms: weightedTerms(pod, affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution),
  };
  podInfos.set(pod, info);
  return info;
}

/** Taints the node lifecycle controller keeps on a node whose Ready condition is not True (TaintNodesByCondition). */
export function effectiveTaints(node: Node): Taint[] {
  const taints = arrayOf(node.spec?.taints).filter((taint) => taint && typeof taint.key === 'string');
  const ready = getCondition(node, 'Ready');
  if (ready?.status === 'True') return taints;
  // A node that never reported is registered by the kubelet with the not-ready taint; Unknown means unreachable.
  const key = ready?.status === 'Unknown' ? taintNodeUnreachable : taintNodeNotReady;
  if (taints.some((taint) => taint.key === key && taint.effect === 'NoSchedule')) return taints;
  return [...taints, { key, effect: 'NoSchedule' }];
}

export function newNodeInfo(node: Node, pods: readonly Pod[] = []): NodeInfo {
  const allocatable = resourceFromList(node.status?.allocatable ?? node.status?.capacity);
  const info: NodeInfo = {
    name: node.metadata.name ?? '',
    node,
    labels: node.metadata.labels ?? {},
    taints: effectiveTaints(node),
    pods: [],
    podsWithAffinity: [],
    podsWithRequiredAntiAffinity: [],
    requested: emptyResource(),
    nonZeroRequested: emptyResource(),
    allocatable,
    usedPorts: [],
  };
  for (const pod of pods) addPodToNodeInfo(info, pod);
  return info;
}

export function addPodToNodeInfo(info: NodeInfo, pod: Pod): void {
  const podInfo = podInfoOf(pod);
  info.pods.push(podInfo);
  if (podInfo.requiredAffinityTerms.length > 0 || podInfo.requiredAntiAffinityTerms.length > 0 || podInfo.preferredAffinityTerms.length > 0 || podInfo.preferredAntiAffinityTerms.length > 0) {
    info.podsWithAffinity.push(podInfo);
  }
  if (podInfo.requiredAntiAffinityTerms.length > 0) info.podsWithRequiredAntiAffinity.push(podInfo);
  addResource(info.requested, podRequests(pod));
  addResource(info.nonZeroRequested, podRequests(pod, true));
  info.usedPorts.push(...podHostPorts(pod));
}

/** A selector is "set" when it has a requirement; used to tell default-spreading selectors apart. */
export function selectorHasRequirements(selector: LabelSelector | undefined): boolean {
  return !!selector && (Object.keys(selector.matchLabels ?? {}).length > 0 || arrayOf(selector.matchExpressions).length > 0);
}
