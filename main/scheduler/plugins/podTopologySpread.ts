// PodTopologySpread, after upstream pkg/scheduler/framework/plugins/podtopologyspread (filtering.go,
// scoring.go, common.go):
// - DoNotSchedule constraints filter: on the node's domain, matching pods + the pod itself − the
//   smallest count over all eligible domains must not exceed maxSkew (the minimum is 0 while fewer
//   than minDomains domains exist); a node without the topology key is unresolvable;
// - ScheduleAnyway constraints score: fewer matching pods in the node's domain is better, each
//   constraint weighted by log(number of domains + 2); pods without constraints get the system
//   defaults (hostname maxSkew 3, zone maxSkew 5) over the selector of their services and owners;
// - nodes count as eligible domains per nodeAffinityPolicy (default Honor: must match the pod's
//   nodeSelector/required affinity) and nodeTaintsPolicy (default Ignore); terminating pods and
//   pods of other namespaces are not counted.
import { selectorMatches } from '../../../shared/kubernetes/labelSelector';
import type { LabelSelector, Pod } from '../api';
import { arrayOf, labelHostname, labelZone, labelsOf } from '../api';
import { maxNodeScore, skip, success, unresolvable, unschedulable, type ClusterView, type CycleState, type NodeInfo, type NodeScore, type Plugin, type PluginStatus, type PodInfo } from '../framework';
import { withMatchLabelKeys } from '../selectors';
import { findUntoleratedTaint, podMatchesNodeSelectorAndAffinity } from '../../componentHelpers/scheduling/corev1';

export const topologySpreadReason = "node(s) didn't match pod topology spread constraints";
export const topologySpreadMissingLabelReason = `${topologySpreadReason} (missing required label)`;

export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector | null | undefined;
  minDomains: number;
  nodeAffinityPolicy: string;
  nodeTaintsPolicy: string;
}

/** The pod's constraints for one whenUnsatisfiable action, with matchLabelKeys merged into the selector. */
export function spreadConstraints(pod: Pod, action: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
  return arrayOf(pod.spec?.topologySpreadConstraints)
    .filter((constraint) => constraint && constraint.whenUnsatisfiable === action && typeof constraint.topologyKey === 'string')
    .map((constraint) => ({
      maxSkew: typeof constraint.maxSkew === 'number' ? constraint.maxSkew : 1,
      topologyKey: constraint.topologyKey,
      selector: withMatchLabelKeys(constraint.labelSelector, constraint.matchLabelKeys, labelsOf(pod)),
      minDomains: typeof constraint.minDomains === 'number' && constraint.minDomains > 0 ? constraint.minDomains : 1,
      nodeAffinityPolicy: constraint.nodeAffinityPolicy ?? 'Honor',
      nodeTaintsPolicy: constraint.nodeTaintsPolicy ?? 'Ignore',
    }));
}

function defaultConstraints(pod: Pod, cluster: ClusterView): SpreadConstraint[] {
  const selector = cluster.defaultSpreadSelector(pod);
  if (!selector) return [];
  const base = { selector, minDomains: 1, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore' };
  return [
    { ...base, maxSkew: 3, topologyKey: labelHostname },
    { ...base, maxSkew: 5, topologyKey: labelZone },
  ];
}

function nodeHasAllKeys(nodeInfo: NodeInfo, constraints: readonly SpreadConstraint[]): boolean {
  return constraints.every((constraint) => Object.prototype.hasOwnProperty.call(nodeInfo.labels, constraint.topologyKey));
}

function nodeIncluded(pod: Pod, nodeInfo: NodeInfo, constraint: SpreadConstraint): boolean {
  if (constraint.nodeAffinityPolicy === 'Honor' && !podMatchesNodeSelectorAndAffinity(pod, nodeInfo.node)) return false;
  if (constraint.nodeTaintsPolicy === 'Honor' && findUntoleratedTaint(nodeInfo.taints, pod.spec?.tolerations)) return false;
  return true;
}

export function countMatchingPods(pods: readonly PodInfo[], selector: LabelSelector | null | undefined, namespace: string | undefined): number {
  let count = 0;
  for (const { pod } of pods) {
    if (pod.metadata.deletionTimestamp || pod.metadata.namespace !== namespace) continue;
    if (selectorMatches(selector, pod.metadata.labels)) count++;
  }
  return count;
}

interface FilterState {
  constraints: SpreadConstraint[];
  /** Per constraint: matching pods per topology value of every eligible domain. */
  counts: Map<string, number>[];
}

interface ScoreState {
  constraints: SpreadConstraint[];
  ignoredNodes: Set<string>;
  counts: Map<string, number>[];
  weights: number[];
}

const preFilterKey = 'PreFilterPodTopologySpread';
const preScoreKey = 'PreScorePodTopologySpread';

export class PodTopologySpread implements Plugin {
  readonly name = 'PodTopologySpread';

  preFilter(state: CycleState, pod: Pod, cluster: ClusterView): PluginStatus {
    const constraints = spreadConstraints(pod, 'DoNotSchedule');
    if (constraints.length === 0) return skip();
    const counts = constraints.map(() => new Map<string, number>());
    for (const nodeInfo of cluster.nodeInfos) {
      if (!nodeHasAllKeys(nodeInfo, constraints)) continue;
      constraints.forEach((constraint, index) => {
        if (!nodeIncluded(pod, nodeInfo, constraint)) return;
        const value = nodeInfo.labels[constraint.topologyKey];
        counts[index].set(value, (counts[index].get(value) ?? 0) + countMatchingPods(nodeInfo.pods, constraint.selector, pod.metadata.namespace));
      });
    }
    state.write(preFilterKey, { constraints, counts } satisfies FilterState);
    return success();
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const filterState = state.read<FilterState>(preFilterKey);
    if (!filterState) return success();
    const podLabels = labelsOf(pod);
    for (const [index, constraint] of filterState.constraints.entries()) {
      if (!Object.prototype.hasOwnProperty.call(nodeInfo.labels, constraint.topologyKey)) return unresolvable(topologySpreadMissingLabelReason);
      const counts = filterState.counts[index];
      const selfMatch = selectorMatches(constraint.selector, podLabels) ? 1 : 0;
      let minimum = Number.MAX_SAFE_INTEGER;
      if (counts.size < constraint.minDomains) minimum = 0;
      else for (const count of counts.values()) minimum = Math.min(minimum, count);
      const matching = counts.get(nodeInfo.labels[constraint.topologyKey]) ?? 0;
      if (matching + selfMatch - minimum > constraint.maxSkew) return unschedulable(topologySpreadReason);
    }
    return success();
  }

  preScore(state: CycleState, pod: Pod, feasibleNodes: readonly NodeInfo[], cluster: ClusterView): PluginStatus {
    const explicit = arrayOf(pod.spec?.topologySpreadConstraints).length > 0;
    const constraints = explicit ? spreadConstraints(pod, 'ScheduleAnyway') : defaultConstraints(pod, cluster);
    if (constraints.length === 0 || cluster.nodeInfos.length === 0) return skip();
    // System defaults don't require every key, so nodes without a zone label still spread by hostname.
    const requireAllKeys = explicit;
    const ignoredNodes = new Set<string>();
    const counts = constraints.map(() => new Map<string, number>());
    for (const nodeInfo of feasibleNodes) {
      if (requireAllKeys && !nodeHasAllKeys(nodeInfo, constraints)) {
        ignoredNodes.add(nodeInfo.name);
        continue;
      }
      constraints.forEach((constraint, index) => {
        if (constraint.topologyKey === labelHostname) return;
        const value = nodeInfo.labels[constraint.topologyKey];
        if (value !== undefined && !counts[index].has(value)) counts[index].set(value, 0);
      });
    }
    const weights = constraints.map((constraint, index) => {
      const size = constraint.topologyKey === labelHostname ? feasibleNodes.length - ignoredNodes.size : counts[index].size;
      return Math.log(size + 2);
    });
    for (const nodeInfo of cluster.nodeInfos) {
      if (requireAllKeys && !nodeHasAllKeys(nodeInfo, constraints)) continue;
      constraints.forEach((constraint, index) => {
        if (constraint.topologyKey === labelHostname || !nodeIncluded(pod, nodeInfo, constraint)) return;
        const value = nodeInfo.labels[constraint.topologyKey];
        const current = counts[index].get(value);
        if (current === undefined) return;
        counts[index].set(value, current + countMatchingPods(nodeInfo.pods, constraint.selector, pod.metadata.namespace));
      });
    }
    state.write(preScoreKey, { constraints, ignoredNodes, counts, weights } satisfies ScoreState);
    return success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const scoreState = state.read<ScoreState>(preScoreKey);
    if (!scoreState || scoreState.ignoredNodes.has(nodeInfo.name)) return 0;
    let score = 0;
    scoreState.constraints.forEach((constraint, index) => {
      const value = nodeInfo.labels[constraint.topologyKey];
      if (value === undefined) return;
      const count = constraint.topologyKey === labelHostname ? countMatchingPods(nodeInfo.pods, constraint.selector, pod.metadata.namespace) : (scoreState.counts[index].get(value) ?? 0);
      score += count * scoreState.weights[index] + (constraint.maxSkew - 1);
    });
    return Math.round(score);
  }

  normalizeScore(state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    const scoreState = state.read<ScoreState>(preScoreKey);
    if (!scoreState) return success();
    let minimum = Number.MAX_SAFE_INTEGER;
    let maximum = 0;
    for (const entry of scores) {
      if (scoreState.ignoredNodes.has(entry.name)) continue;
      minimum = Math.min(minimum, entry.score);
      maximum = Math.max(maximum, entry.score);
    }
    for (const entry of scores) {
      if (scoreState.ignoredNodes.has(entry.name)) entry.score = 0;
      else if (maximum === 0) entry.score = maxNodeScore;
      else entry.score = Math.trunc((maxNodeScore * (maximum + minimum - entry.score)) / maximum);
    }
    return success();
  }
}
