// The overview's pure aggregations: pods counted by health as kubectl's STATUS and READY read
// (shared/printers/podHealth) and by phase, workloads whose ready count is below
// the desired one, each node's requested vs allocatable CPU and memory (as `kubectl describe node`
// sums "Allocated resources": non-terminated pods bound to the node, a pod's request being
// max(sum of app containers, largest init container) plus overhead — upstream
// k8s.io/component-helpers/resource PodRequests), and the newest Warning events.
import { isConditionTrue } from '../../../shared/kubernetes/conditions';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { parseMilliValue, parseValue } from '../../../shared/kubernetes/quantity';
import { podHealth, type PodHealth } from '../../../shared/printers/podHealth';

export const POD_PHASES = ['Running', 'Pending', 'Succeeded', 'Failed', 'Unknown'] as const;
export type PodPhase = (typeof POD_PHASES)[number];

export function podPhaseOf(pod: KubeObject): PodPhase {
  const phase = isRecord(pod.status) ? pod.status.phase : undefined;
  return typeof phase === 'string' && (POD_PHASES as readonly string[]).includes(phase) ? (phase as PodPhase) : phase === undefined ? 'Pending' : 'Unknown';
}

export function countPodPhases(pods: Iterable<KubeObject>): Record<PodPhase, number> {
  const counts: Record<PodPhase, number> = { Running: 0, Pending: 0, Succeeded: 0, Failed: 0, Unknown: 0 };
  for (const pod of pods) counts[podPhaseOf(pod)]++;
  return counts;
}

/** Pods counted by health (kubectl's STATUS and READY): a crash loop or a 0/1 pod is never counted as Running. */
export function countPodHealth(pods: Iterable<KubeObject>, now: Date = new Date()): Record<PodHealth, number> {
  const counts: Record<PodHealth, number> = { healthy: 0, 'not-ready': 0, failing: 0, pending: 0, terminating: 0, completed: 0 };
  for (const pod of pods) counts[podHealth(pod, now)]++;
  return counts;
}

export interface NotReadyWorkload {
  /** store key of the kind (`deployments.apps`) */
  kindKey: string;
  kind: string;
  namespace: string;
  name: string;
  ready: number;
  desired: number;
  /** the workload itself (its diagnosis names the reason) */
  object: KubeObject;
}

function numberAt(value: unknown, ...path: string[]): number | undefined {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return typeof current === 'number' ? current : undefined;
}

/** ready/desired as kubectl's READY column reads them; DaemonSets count scheduled nodes. */
export function readiness(kind: string, object: KubeObject): { ready: number; desired: number } {
  if (kind === 'DaemonSet') return { ready: numberAt(object.status, 'numberReady') ?? 0, desired: numberAt(object.status, 'desiredNumberScheduled') ?? 0 };
  // spec.replicas defaults to 1 for Deployments and StatefulSets (upstream defaulting)
  return { ready: numberAt(object.status, 'readyReplicas') ?? 0, desired: numberAt(object.spec, 'replicas') ?? 1 };
}

/** Workloads with fewer ready than desired, sorted by namespace then name; objects being deleted are left out. */
export function notReadyWorkloads(groups: { kindKey: string; kind: string; items: Iterable<KubeObject> }[]): NotReadyWorkload[] {
  const result: NotReadyWorkload[] = [];
  for (const group of groups) {
    for (const object of group.items) {
      if (object.metadata.deletionTimestamp) continue;
      const { ready, desired } = readiness(group.kind, object);
      if (ready < desired) result.push({ kindKey: group.kindKey, kind: group.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '', ready, desired, object });
    }
  }
  return result.sort((left, right) => left.namespace.localeCompare(right.namespace) || left.name.localeCompare(right.name) || left.kind.localeCompare(right.kind));
}

export interface ResourceAmounts {
  /** millicores */
  cpu: number;
  /** bytes */
  memory: number;
}

function requestsOf(container: unknown): ResourceAmounts {
  const requests = isRecord(container) && isRecord(container.resources) && isRecord(container.resources.requests) ? container.resources.requests : {};
  return { cpu: parseMilliValue(requests.cpu), memory: parseValue(requests.memory) };
}

/** A pod's effective request: max(sum of containers, each init container) + overhead. */
export function podRequests(pod: KubeObject): ResourceAmounts {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const total: ResourceAmounts = { cpu: 0, memory: 0 };
  for (const container of Array.isArray(spec.containers) ? spec.containers : []) {
    const requests = requestsOf(container);
    total.cpu += requests.cpu;
    total.memory += requests.memory;
  }
  for (const container of Array.isArray(spec.initContainers) ? spec.initContainers : []) {
    const requests = requestsOf(container);
    total.cpu = Math.max(total.cpu, requests.cpu);
    total.memory = Math.max(total.memory, requests.memory);
  }
  if (isRecord(spec.overhead)) {
    total.cpu += parseMilliValue(spec.overhead.cpu);
    total.memory += parseValue(spec.overhead.memory);
  }
  return total;
}

export interface NodeLoad {
  name: string;
  ready: boolean;
  unschedulable: boolean;
  allocatable: ResourceAmounts;
  requested: ResourceAmounts;
  pods: number;
  /** status.allocatable.pods */
  podCapacity: number;
  /** from metrics.k8s.io when it answers */
  usage?: ResourceAmounts;
}

/** Each node with the requests of the non-terminated pods bound to it, sorted by name. */
export function nodeLoads(nodes: Iterable<KubeObject>, pods: Iterable<KubeObject>, usage?: Map<string, ResourceAmounts>): NodeLoad[] {
  const byNode = new Map<string, NodeLoad>();
  for (const node of nodes) {
    const allocatable = isRecord(node.status) && isRecord(node.status.allocatable) ? node.status.allocatable : {};
    const name = node.metadata.name ?? '';
    byNode.set(name, {
      name,
      ready: isConditionTrue(node, 'Ready'),
      unschedulable: isRecord(node.spec) && node.spec.unschedulable === true,
      allocatable: { cpu: parseMilliValue(allocatable.cpu), memory: parseValue(allocatable.memory) },
      requested: { cpu: 0, memory: 0 },
      pods: 0,
      podCapacity: parseValue(allocatable.pods),
      ...(usage?.has(name) ? { usage: usage.get(name) } : {}),
    });
  }
  for (const pod of pods) {
    const nodeName = isRecord(pod.spec) ? pod.spec.nodeName : undefined;
    if (typeof nodeName !== 'string') continue;
    const load = byNode.get(nodeName);
    const phase = podPhaseOf(pod);
    if (!load || phase === 'Succeeded' || phase === 'Failed') continue;
    const requests = podRequests(pod);
    load.requested.cpu += requests.cpu;
    load.requested.memory += requests.memory;
    load.pods++;
  }
  return [...byNode.values()].sort((left, right) => left.name.localeCompare(right.name));
}

/** NodeMetrics list items → usage by node name (cpu in millicores, memory in bytes). */
export function nodeUsageOf(items: unknown): Map<string, ResourceAmounts> {
  const usage = new Map<string, ResourceAmounts>();
  if (!Array.isArray(items)) return usage;
  for (const item of items) {
    if (!isRecord(item) || !isRecord(item.metadata) || typeof item.metadata.name !== 'string' || !isRecord(item.usage)) continue;
    usage.set(item.metadata.name, { cpu: parseMilliValue(item.usage.cpu), memory: parseValue(item.usage.memory) });
  }
  return usage;
}

/** 0..1 (or more when overcommitted); 0 when nothing is allocatable. */
export function fraction(used: number, allocatable: number): number {
  return allocatable > 0 ? used / allocatable : 0;
}

export function formatCpu(millicores: number): string {
  return millicores === 0 ? '0' : millicores >= 1000 && millicores % 100 === 0 ? `${millicores / 1000}` : `${millicores}m`;
}

export function formatMemory(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let index = 0;
  while (value >= 1024 && index < units.length - 1) {
    value /= 1024;
    index++;
  }
  return `${value >= 100 || index === 0 ? Math.round(value) : value.toFixed(1)} ${units[index]}`;
}

export interface WarningEvent {
  key: string;
  namespace: string;
  reason: string;
  message: string;
  count: number;
  /** when it last happened (ms since the epoch) */
  time: number;
  involved?: { apiVersion?: string; kind?: string; namespace?: string; name: string };
}

/** When an event last happened: lastTimestamp, else eventTime, series.lastObservedTime, firstTimestamp, creation. */
export function eventTime(event: KubeObject): number {
  const record: Record<string, unknown> = event;
  const series = isRecord(record.series) ? record.series.lastObservedTime : undefined;
  for (const candidate of [record.lastTimestamp, series, record.eventTime, record.firstTimestamp, event.metadata.creationTimestamp]) {
    if (typeof candidate !== 'string') continue;
    const parsed = Date.parse(candidate);
    if (!Number.isNaN(parsed)) return parsed;
  }
  return 0;
}

/** The newest `limit` Warning events, newest first. One linear pass with a small sorted buffer. */
export function recentWarnings(events: Iterable<KubeObject>, limit = 20): WarningEvent[] {
  const newest: WarningEvent[] = [];
  for (const event of events) {
    const record: Record<string, unknown> = event;
    if (record.type !== 'Warning') continue;
    const time = eventTime(event);
    if (newest.length === limit && time <= newest[newest.length - 1].time) continue;
    const involved = isRecord(record.involvedObject) ? record.involvedObject : isRecord(record.regarding) ? record.regarding : undefined;
    const warning: WarningEvent = {
      key: `${event.metadata.namespace ?? ''}/${event.metadata.name ?? ''}`,
      namespace: event.metadata.namespace ?? '',
      reason: typeof record.reason === 'string' ? record.reason : '',
      message: typeof record.message === 'string' ? record.message : typeof record.note === 'string' ? record.note : '',
      count: typeof record.count === 'number' ? record.count : 1,
      time,
      ...(involved && typeof involved.name === 'string'
        ? {
            involved: {
              name: involved.name,
              ...(typeof involved.apiVersion === 'string' ? { apiVersion: involved.apiVersion } : {}),
              ...(typeof involved.kind === 'string' ? { kind: involved.kind } : {}),
              ...(typeof involved.namespace === 'string' ? { namespace: involved.namespace } : {}),
            },
          }
        : {}),
    };
    let index = newest.length;
    while (index > 0 && newest[index - 1].time < time) index--;
    newest.splice(index, 0, warning);
    if (newest.length > limit) newest.pop();
  }
  return newest;
}
