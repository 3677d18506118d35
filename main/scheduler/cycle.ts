// One scheduling cycle as a pure function of a pod and a cluster snapshot, after upstream
// pkg/scheduler/schedule_one.go (schedulePod, findNodesThatFitPod, prioritizeNodes, selectHost),
// framework/runtime/framework.go (the extension points; a node is rejected by the first failing
// filter) and framework/types.go FitError.Error(): "0/N nodes are available: <PreFilter message>."
// or "<count> <reason>, …" sorted as strings, then the PostFilter (preemption) message.
// The preemption dry run follows framework/preemption and plugins/defaultpreemption: only nodes
// rejected as Unschedulable (not …AndUnresolvable) are candidates; victims are lower-priority pods.
import type { Pod } from './api';
import { podPriority } from './api';
import { CycleState, isRejected, isSuccess, statusMessage, success, unresolvable, type ClusterView, type NodeInfo, type NodeScore, type PluginStatus } from './framework';
import type { WeightedPlugin } from './registry';
import type { Snapshot } from './snapshot';

export const noNodesAvailableMessage = 'no nodes available to schedule pods';
export const preemptionNotHelpfulReason = 'Preemption is not helpful for scheduling';
export const noPreemptionVictimsReason = 'No preemption victims found for incoming pod';

export interface Diagnosis {
  /** Status of each node a filter rejected. */
  nodeToStatus: Map<string, PluginStatus>;
  /** Status of nodes not in nodeToStatus (set when PreFilter rejected the pod for every node). */
  absentStatus?: PluginStatus;
  preFilterMessage?: string;
  postFilterMessage?: string;
  unschedulablePlugins: Set<string>;
}

export type ScheduleResult =
  | { kind: 'scheduled'; node: string; feasibleNodes: number }
  | { kind: 'unschedulable'; diagnosis: Diagnosis; numAllNodes: number }
  | { kind: 'error'; message: string };

function tagged(status: PluginStatus, plugin: string): PluginStatus {
  return { ...status, plugin };
}

/** PreFilter of every plugin; a Skip marks the plugin's Filter as not needed for this cycle. */
export function runPreFilters(plugins: readonly WeightedPlugin[], state: CycleState, pod: Pod, cluster: ClusterView): PluginStatus {
  for (const { plugin } of plugins) {
    if (!plugin.preFilter) continue;
    const status = plugin.preFilter(state, pod, cluster);
    if (status.code === 'Skip') state.skipFilterPlugins.add(plugin.name);
    else if (!isSuccess(status)) return tagged(status, plugin.name);
  }
  return success();
}

/** Filters in order; the first that does not succeed decides the node's status. */
export function runFilters(plugins: readonly WeightedPlugin[], state: CycleState, pod: Pod, nodeInfo: NodeInfo, cluster: ClusterView): PluginStatus {
  for (const { plugin } of plugins) {
    if (!plugin.filter || state.skipFilterPlugins.has(plugin.name)) continue;
    const status = plugin.filter(state, pod, nodeInfo, cluster);
    if (!isSuccess(status)) return tagged(status, plugin.name);
  }
  return success();
}

export interface FilterOutcome {
  state: CycleState;
  feasible: NodeInfo[];
  diagnosis: Diagnosis;
  /** An internal error of a plugin, which aborts the cycle. */
  error?: string;
}

export function findFeasibleNodes(plugins: readonly WeightedPlugin[], pod: Pod, cluster: ClusterView): FilterOutcome {
  const state = new CycleState();
  const diagnosis: Diagnosis = { nodeToStatus: new Map(), unschedulablePlugins: new Set() };
  const preFilter = runPreFilters(plugins, state, pod, cluster);
  if (!isSuccess(preFilter)) {
    if (!isRejected(preFilter)) return { state, feasible: [], diagnosis, error: statusMessage(preFilter) };
    diagnosis.absentStatus = preFilter;
    diagnosis.preFilterMessage = statusMessage(preFilter);
    if (preFilter.plugin) diagnosis.unschedulablePlugins.add(preFilter.plugin);
    return { state, feasible: [], diagnosis };
  }
  const feasible: NodeInfo[] = [];
  for (const nodeInfo of cluster.nodeInfos) {
    const status = runFilters(plugins, state, pod, nodeInfo, cluster);
    if (isSuccess(status)) {
      feasible.push(nodeInfo);
      continue;
    }
    if (!isRejected(status)) return { state, feasible: [], diagnosis, error: statusMessage(status) };
    diagnosis.nodeToStatus.set(nodeInfo.name, status);
    if (status.plugin) diagnosis.unschedulablePlugins.add(status.plugin);
  }
  return { state, feasible, diagnosis };
}

/** PreScore, Score, NormalizeScore and weights; the total per feasible node. */
export function prioritizeNodes(plugins: readonly WeightedPlugin[], state: CycleState, pod: Pod, feasible: readonly NodeInfo[], cluster: ClusterView): NodeScore[] {
  const totals = feasible.map((nodeInfo) => ({ name: nodeInfo.name, score: 0 }));
  for (const { plugin, weight } of plugins) {
    if (!plugin.score || weight === 0) continue;
    if (plugin.preScore) {
      const status = plugin.preScore(state, pod, feasible, cluster);
      if (status.code === 'Skip' || !isSuccess(status)) continue;
    }
    const scores: NodeScore[] = feasible.map((nodeInfo) => ({ name: nodeInfo.name, score: plugin.score?.(state, pod, nodeInfo, cluster) ?? 0 }));
    plugin.normalizeScore?.(state, pod, scores);
    scores.forEach((entry, index) => {
      totals[index].score += entry.score * weight;
    });
  }
  return totals;
}

/** The highest total; ties broken uniformly at random (reservoir sampling, as upstream). */
export function selectHost(scores: readonly NodeScore[], random: () => number = Math.random): string | undefined {
  let best: NodeScore | undefined;
  let ties = 0;
  for (const entry of scores) {
    if (!best || entry.score > best.score) {
      best = entry;
      ties = 1;
    } else if (entry.score === best.score) {
      ties++;
      if (random() * ties < 1) best = entry;
    }
  }
  return best?.name;
}

export function schedulePod(plugins: readonly WeightedPlugin[], pod: Pod, cluster: ClusterView, random: () => number = Math.random): ScheduleResult {
  if (cluster.nodeInfos.length === 0) return { kind: 'error', message: noNodesAvailableMessage };
  const outcome = findFeasibleNodes(plugins, pod, cluster);
  if (outcome.error !== undefined) return { kind: 'error', message: outcome.error };
  if (outcome.feasible.length === 0) return { kind: 'unschedulable', diagnosis: outcome.diagnosis, numAllNodes: cluster.nodeInfos.length };
  // With one feasible node there is nothing to compare.
  if (outcome.feasible.length === 1) return { kind: 'scheduled', node: outcome.feasible[0].name, feasibleNodes: 1 };
  const scores = prioritizeNodes(plugins, outcome.state, pod, outcome.feasible, cluster);
  const node = selectHost(scores, random) ?? outcome.feasible[0].name;
  return { kind: 'scheduled', node, feasibleNodes: outcome.feasible.length };
}

/** Upstream FitError.Error(). */
export function fitErrorMessage(numAllNodes: number, diagnosis: Diagnosis): string {
  let message = `0/${numAllNodes} nodes are available:`;
  if (diagnosis.preFilterMessage) {
    message += ` ${diagnosis.preFilterMessage}.`;
  } else {
    const histogram = new Map<string, number>();
    for (const status of diagnosis.nodeToStatus.values()) for (const reason of status.reasons) histogram.set(reason, (histogram.get(reason) ?? 0) + 1);
    const absent = numAllNodes - diagnosis.nodeToStatus.size;
    if (absent > 0 && diagnosis.absentStatus) for (const reason of diagnosis.absentStatus.reasons) histogram.set(reason, (histogram.get(reason) ?? 0) + absent);
    const parts = [...histogram].map(([reason, count]) => `${count} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (parts.length > 0) message += ` ${parts.join(', ')}.`;
  }
  if (diagnosis.postFilterMessage) message += ` ${diagnosis.postFilterMessage}`;
  return message;
}

export interface PreemptionCandidate {
  node: string;
  victims: Pod[];
}

export interface PreemptionOutcome {
  /** Set when preemption would let the pod in: the node and the pods to evict. */
  candidate?: PreemptionCandidate;
  /** The PostFilter message ("preemption: …") when it would not; empty when a candidate was found. */
  message: string;
}

function statusOf(diagnosis: Diagnosis, node: string): PluginStatus | undefined {
  return diagnosis.nodeToStatus.get(node) ?? diagnosis.absentStatus;
}

/** Upstream MoreImportantPod: higher priority first, then the one running longer. */
function moreImportant(left: Pod, right: Pod): number {
  const byPriority = podPriority(right) - podPriority(left);
  if (byPriority !== 0) return byPriority;
  const started = (pod: Pod): string => (pod.status as { startTime?: string } | undefined)?.startTime ?? pod.metadata.creationTimestamp ?? '';
  return started(left) < started(right) ? -1 : started(left) > started(right) ? 1 : 0;
}

function selectVictims(plugins: readonly WeightedPlugin[], pod: Pod, nodeInfo: NodeInfo, snapshot: Snapshot): { victims?: Pod[]; status: PluginStatus } {
  const preemptor = podPriority(pod);
  const potential = nodeInfo.pods.map((info) => info.pod).filter((existing) => podPriority(existing) < preemptor);
  if (potential.length === 0) return { status: unresolvable(noPreemptionVictimsReason) };
  const fits = (removed: Set<Pod>): PluginStatus => {
    const view = snapshot.withoutPods(nodeInfo.name, removed);
    const state = new CycleState();
    const preFilter = runPreFilters(plugins, state, pod, view);
    if (!isSuccess(preFilter)) return preFilter;
    const target = view.nodeInfo(nodeInfo.name);
    return target ? runFilters(plugins, state, pod, target, view) : unresolvable(preemptionNotHelpfulReason);
  };
  const removed = new Set(potential);
  const withAllRemoved = fits(removed);
  if (!isSuccess(withAllRemoved)) return { status: withAllRemoved };
  // Reprieve the most important pods first; those that no longer fit alongside stay victims.
  const victims: Pod[] = [];
  for (const candidate of [...potential].sort(moreImportant)) {
    removed.delete(candidate);
    if (!isSuccess(fits(removed))) {
      removed.add(candidate);
      victims.push(candidate);
    }
  }
  return { victims, status: success() };
}

/** DefaultPreemption's PostFilter, as a dry run: which node and victims, or why preemption cannot help. */
export function evaluatePreemption(plugins: readonly WeightedPlugin[], pod: Pod, snapshot: Snapshot, diagnosis: Diagnosis): PreemptionOutcome {
  if (pod.spec?.preemptionPolicy === 'Never') return { message: 'preemption: not eligible due to preemptionPolicy=Never.' };
  const allNodes = snapshot.nodeInfos;
  const potential = allNodes.filter((nodeInfo) => statusOf(diagnosis, nodeInfo.name)?.code === 'Unschedulable');
  const nodeToStatus = new Map<string, PluginStatus>();
  const candidates: PreemptionCandidate[] = [];
  for (const nodeInfo of potential) {
    const { victims, status } = selectVictims(plugins, pod, nodeInfo, snapshot);
    if (victims) candidates.push({ node: nodeInfo.name, victims });
    else nodeToStatus.set(nodeInfo.name, status);
  }
  if (candidates.length === 0) {
    const message = fitErrorMessage(allNodes.length, { nodeToStatus, absentStatus: unresolvable(preemptionNotHelpfulReason), unschedulablePlugins: new Set() });
    return { message: `preemption: ${message}` };
  }
  // Upstream pickOneNodeForPreemption, first criteria: lowest highest-victim priority, then lowest sum, then fewest victims.
  const highest = (candidate: PreemptionCandidate): number => Math.max(...candidate.victims.map(podPriority), Number.MIN_SAFE_INTEGER);
  const sum = (candidate: PreemptionCandidate): number => candidate.victims.reduce((total, victim) => total + podPriority(victim), 0);
  candidates.sort((a, b) => highest(a) - highest(b) || sum(a) - sum(b) || a.victims.length - b.victims.length);
  return { candidate: candidates[0], message: '' };
}
