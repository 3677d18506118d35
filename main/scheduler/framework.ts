// The scheduling framework's types, after upstream pkg/scheduler/framework (interface.go, types.go,
// cycle_state.go): a plugin implements some of the extension points PreFilter, Filter, PreScore,
// Score and NormalizeScore and answers with a Status, never by throwing. NodeInfo is the scheduler's
// view of one node: the Node, the pods on it (bound or assumed), what they request and the host
// ports they hold. A CycleState carries what PreFilter/PreScore computed to later points of the same
// scheduling cycle.
import type { Labels } from './selectors';
import type { LabelSelector, Node, Pod, Taint } from './api';

export type StatusCode = 'Success' | 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Error' | 'Skip';

export interface PluginStatus {
  code: StatusCode;
  reasons: string[];
  /** Name of the plugin that returned it (filled by the framework). */
  plugin?: string;
}

export const maxNodeScore = 100;

export function success(): PluginStatus {
  return { code: 'Success', reasons: [] };
}

export function skip(): PluginStatus {
  return { code: 'Skip', reasons: [] };
}

export function unschedulable(...reasons: string[]): PluginStatus {
  return { code: 'Unschedulable', reasons };
}

export function unresolvable(...reasons: string[]): PluginStatus {
  return { code: 'UnschedulableAndUnresolvable', reasons };
}

export function errorStatus(message: string): PluginStatus {
  return { code: 'Error', reasons: [message] };
}

export function isSuccess(status: PluginStatus): boolean {
  return status.code === 'Success';
}

/** Unschedulable or UnschedulableAndUnresolvable: the pod does not fit, as opposed to an internal error. */
export function isRejected(status: PluginStatus): boolean {
  return status.code === 'Unschedulable' || status.code === 'UnschedulableAndUnresolvable';
}

/** Upstream Status.Message(): the reasons joined by ", ". */
export function statusMessage(status: PluginStatus): string {
  return status.reasons.join(', ');
}

/** Compute resources in the units the scheduler compares: millicores, bytes, pod slots. */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  allowedPodNumber: number;
  /** Extended resources (nvidia.com/gpu, hugepages-2Mi, …) in whole units. */
  scalar: Record<string, number>;
}

export function emptyResource(): Resource {
  return { milliCPU: 0, memory: 0, ephemeralStorage: 0, allowedPodNumber: 0, scalar: {} };
}

export interface HostPort {
  ip: string;
  protocol: string;
  port: number;
}

export interface AffinityTerm {
  /** Namespaces the term selects explicitly (the pod's own when none is given and no namespaceSelector). */
  namespaces: Set<string>;
  /** Null/undefined matches no namespace; `{}` matches all. */
  namespaceSelector: LabelSelector | null | undefined;
  selector: LabelSelector | null | undefined;
  topologyKey: string;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

/** A pod with its affinity terms parsed once (upstream framework.PodInfo). */
export interface PodInfo {
  pod: Pod;
  requiredAffinityTerms: AffinityTerm[];
  requiredAntiAffinityTerms: AffinityTerm[];
  preferredAffinityTerms: WeightedAffinityTerm[];
  preferredAntiAffinityTerms: WeightedAffinityTerm[];
}

export interface NodeInfo {
  name: string;
  node: Node;
  labels: Labels;
  /** spec.taints plus the not-ready/unreachable NoSchedule taint the node lifecycle controller would add. */
  taints: Taint[];
  pods: PodInfo[];
  podsWithAffinity: PodInfo[];
  podsWithRequiredAntiAffinity: PodInfo[];
  /** Sum of the pods' requests. */
  requested: Resource;
  /** Like requested, but containers without cpu/memory requests count the upstream defaults (100m, 200Mi). */
  nonZeroRequested: Resource;
  allocatable: Resource;
  usedPorts: HostPort[];
}

/** What plugins may read beyond the one node they look at (upstream SharedLister plus a few listers). */
export interface ClusterView {
  nodeInfos: readonly NodeInfo[];
  nodeInfo(name: string): NodeInfo | undefined;
  /** Labels of a namespace, or undefined when it is not known. */
  namespaceLabels(namespace: string): Labels | undefined;
  /** Names of all known namespaces whose labels match the selector. */
  namespacesMatching(selector: LabelSelector): string[];
  /** The selector of the services/controllers that own the pod, for default topology spreading (undefined: none). */
  defaultSpreadSelector(pod: Pod): LabelSelector | undefined;
}

/** Data one plugin computes for later extension points of the same cycle (upstream CycleState). */
export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Plugins whose PreFilter returned Skip: their Filter is not run. */
  readonly skipFilterPlugins = new Set<string>();
  /** Plugins whose PreScore returned Skip: their Score is not run. */
  readonly skipScorePlugins = new Set<string>();

  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }

  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
}

export interface NodeScore {
  name: string;
  score: number;
}

export interface Plugin {
  readonly name: string;
  preFilter?(state: CycleState, pod: Pod, cluster: ClusterView): PluginStatus;
  filter?(state: CycleState, pod: Pod, nodeInfo: NodeInfo, cluster: ClusterView): PluginStatus;
  preScore?(state: CycleState, pod: Pod, feasibleNodes: readonly NodeInfo[], cluster: ClusterView): PluginStatus;
  /** 0…maxNodeScore after normalisation; raw scores may use any scale when normalizeScore is given. */
  score?(state: CycleState, pod: Pod, nodeInfo: NodeInfo, cluster: ClusterView): number;
  normalizeScore?(state: CycleState, pod: Pod, scores: NodeScore[]): PluginStatus;
}

/** Upstream helper.DefaultNormalizeScore: scale to 0…max by the highest score, optionally reversed. */
export function defaultNormalizeScore(scores: NodeScore[], reverse: boolean): void {
  let highest = 0;
  for (const entry of scores) highest = Math.max(highest, entry.score);
  if (highest === 0) {
    if (reverse) for (const entry of scores) entry.score = maxNodeScore;
    return;
  }
  for (const entry of scores) {
    let score = Math.trunc((maxNodeScore * entry.score) / highest);
    if (reverse) score = maxNodeScore - score;
    entry.score = score;
  }
}
