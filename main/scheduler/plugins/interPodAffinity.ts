// InterPodAffinity, after upstream pkg/scheduler/framework/plugins/interpodaffinity (filtering.go,
// scoring.go):
// - Filter: the pod's required affinity needs, in the node's topology domain, a pod matching all of
//   its terms (or, when no pod anywhere matches, the pod matching its own terms: the first of a
//   group); its required anti-affinity forbids a domain holding a matching pod; and existing pods'
//   required anti-affinity towards the incoming pod forbids their domains too;
// - Score: preferred terms of the pod towards existing pods and of existing pods towards the pod
//   (plus their required affinity, at hard weight 1) add or subtract weights per domain,
//   normalised between the lowest and highest node.
// A term without namespaces or namespaceSelector means the owning pod's namespace; a
// namespaceSelector of {} means every namespace.
import { selectorIsEmpty, selectorMatches } from '../../../shared/kubernetes/labelSelector';
import type { Pod } from '../api';
import { maxNodeScore, skip, success, unresolvable, unschedulable, type AffinityTerm, type ClusterView, type CycleState, type NodeInfo, type NodeScore, type Plugin, type PluginStatus, type WeightedAffinityTerm } from '../framework';
import { podInfoOf } from '../nodeInfo';
import { type Labels } from '../selectors';

export const affinityRulesReason = "node(s) didn't match pod affinity rules";
export const antiAffinityRulesReason = "node(s) didn't match pod anti-affinity rules";
export const existingAntiAffinityRulesReason = "node(s) didn't satisfy existing pods anti-affinity rules";

const hardPodAffinityWeight = 1;
const preFilterKey = 'PreFilterInterPodAffinity';
const preScoreKey = 'PreScoreInterPodAffinity';

/** Whether the term selects the pod; `namespaceLabels` are the labels of the pod's namespace. */
export function termMatches(term: AffinityTerm, pod: Pod, namespaceLabels: Labels | undefined): boolean {
  const namespace = pod.metadata.namespace ?? '';
  const inNamespace = term.namespaces.has(namespace) || (!!term.namespaceSelector && selectorMatches(term.namespaceSelector, namespaceLabels ?? {}));
  return inNamespace && selectorMatches(term.selector, pod.metadata.labels);
}

/** Upstream mergeAffinityTermNamespacesIfNotEmpty: resolve a non-empty namespaceSelector to names now. */
function resolveNamespaces<T extends AffinityTerm>(term: T, cluster: ClusterView): T {
  if (!term.namespaceSelector || selectorIsEmpty(term.namespaceSelector)) return term;
  return { ...term, namespaces: new Set([...term.namespaces, ...cluster.namespacesMatching(term.namespaceSelector)]), namespaceSelector: null };
}

function matchesAllTerms(terms: readonly AffinityTerm[], pod: Pod, cluster: ClusterView): boolean {
  if (terms.length === 0) return false;
  return terms.every((term) => termMatches(term, pod, cluster.namespaceLabels(pod.metadata.namespace ?? '')));
}

function pairKey(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

function increment(counts: Map<string, number>, nodeInfo: NodeInfo, topologyKey: string, by: number): void {
  const value = nodeInfo.labels[topologyKey];
  if (value === undefined) return;
  const key = pairKey(topologyKey, value);
  counts.set(key, (counts.get(key) ?? 0) + by);
}

interface FilterState {
  pod: Pod;
  affinityTerms: AffinityTerm[];
  antiAffinityTerms: AffinityTerm[];
  existingAntiAffinityCounts: Map<string, number>;
  affinityCounts: Map<string, number>;
  antiAffinityCounts: Map<string, number>;
}

export class InterPodAffinity implements Plugin {
  readonly name = 'InterPodAffinity';

  preFilter(state: CycleState, pod: Pod, cluster: ClusterView): PluginStatus {
    const info = podInfoOf(pod);
    const affinityTerms = info.requiredAffinityTerms.map((term) => resolveNamespaces(term, cluster));
    const antiAffinityTerms = info.requiredAntiAffinityTerms.map((term) => resolveNamespaces(term, cluster));
    const namespaceLabels = cluster.namespaceLabels(pod.metadata.namespace ?? '');
    const existingAntiAffinityCounts = new Map<string, number>();
    const affinityCounts = new Map<string, number>();
    const antiAffinityCounts = new Map<string, number>();
    for (const nodeInfo of cluster.nodeInfos) {
      for (const existing of nodeInfo.podsWithRequiredAntiAffinity) {
        for (const term of existing.requiredAntiAffinityTerms) {
          if (termMatches(term, pod, namespaceLabels)) increment(existingAntiAffinityCounts, nodeInfo, term.topologyKey, 1);
        }
      }
      if (affinityTerms.length === 0 && antiAffinityTerms.length === 0) continue;
      for (const existing of nodeInfo.pods) {
        if (matchesAllTerms(affinityTerms, existing.pod, cluster)) for (const term of affinityTerms) increment(affinityCounts, nodeInfo, term.topologyKey, 1);
        const existingNamespaceLabels = cluster.namespaceLabels(existing.pod.metadata.namespace ?? '');
        for (const term of antiAffinityTerms) if (termMatches(term, existing.pod, existingNamespaceLabels)) increment(antiAffinityCounts, nodeInfo, term.topologyKey, 1);
      }
    }
    if (existingAntiAffinityCounts.size === 0 && affinityTerms.length === 0 && antiAffinityTerms.length === 0) return skip();
    state.write(preFilterKey, { pod, affinityTerms, antiAffinityTerms, existingAntiAffinityCounts, affinityCounts, antiAffinityCounts } satisfies FilterState);
    return success();
  }

  filter(state: CycleState, _pod: Pod, nodeInfo: NodeInfo, cluster: ClusterView): PluginStatus {
    const filterState = state.read<FilterState>(preFilterKey);
    if (!filterState) return success();
    if (!this.satisfiesAffinity(filterState, nodeInfo, cluster)) return unresolvable(affinityRulesReason);
    for (const term of filterState.antiAffinityTerms) {
      const value = nodeInfo.labels[term.topologyKey];
      if (value !== undefined && (filterState.antiAffinityCounts.get(pairKey(term.topologyKey, value)) ?? 0) > 0) return unschedulable(antiAffinityRulesReason);
    }
    if (filterState.existingAntiAffinityCounts.size > 0) {
      for (const [key, value] of Object.entries(nodeInfo.labels)) {
        if ((filterState.existingAntiAffinityCounts.get(pairKey(key, value)) ?? 0) > 0) return unschedulable(existingAntiAffinityRulesReason);
      }
    }
    return success();
  }

  private satisfiesAffinity(filterState: FilterState, nodeInfo: NodeInfo, cluster: ClusterView): boolean {
    let podsExist = true;
    for (const term of filterState.affinityTerms) {
      const value = nodeInfo.labels[term.topologyKey];
      // Every topology key of the terms must exist on the node.
      if (value === undefined) return false;
      if ((filterState.affinityCounts.get(pairKey(term.topologyKey, value)) ?? 0) <= 0) podsExist = false;
    }
    if (podsExist) return true;
    // The first pod of a group with affinity to itself may go anywhere its topology keys exist.
    return filterState.affinityCounts.size === 0 && matchesAllTerms(filterState.affinityTerms, filterState.pod, cluster);
  }

  preScore(state: CycleState, pod: Pod, _feasibleNodes: readonly NodeInfo[], cluster: ClusterView): PluginStatus {
    const info = podInfoOf(pod);
    const preferredAffinity = info.preferredAffinityTerms.map((term) => resolveNamespaces(term, cluster));
    const preferredAntiAffinity = info.preferredAntiAffinityTerms.map((term) => resolveNamespaces(term, cluster));
    const hasPreferred = preferredAffinity.length > 0 || preferredAntiAffinity.length > 0;
    if (!hasPreferred && !cluster.nodeInfos.some((nodeInfo) => nodeInfo.podsWithAffinity.length > 0)) return skip();
    const namespaceLabels = cluster.namespaceLabels(pod.metadata.namespace ?? '');
    const scores = new Map<string, number>();
    const add = (terms: readonly WeightedAffinityTerm[], target: Pod, targetNamespaceLabels: Labels | undefined, nodeInfo: NodeInfo, sign: number): void => {
      for (const term of terms) if (termMatches(term, target, targetNamespaceLabels)) increment(scores, nodeInfo, term.topologyKey, sign * term.weight);
    };
    for (const nodeInfo of cluster.nodeInfos) {
      const existingPods = hasPreferred ? nodeInfo.pods : nodeInfo.podsWithAffinity;
      for (const existing of existingPods) {
        const existingNamespaceLabels = cluster.namespaceLabels(existing.pod.metadata.namespace ?? '');
        add(preferredAffinity, existing.pod, existingNamespaceLabels, nodeInfo, 1);
        add(preferredAntiAffinity, existing.pod, existingNamespaceLabels, nodeInfo, -1);
        add(existing.requiredAffinityTerms.map((term) => ({ ...term, weight: hardPodAffinityWeight })), pod, namespaceLabels, nodeInfo, 1);
        add(existing.preferredAffinityTerms, pod, namespaceLabels, nodeInfo, 1);
        add(existing.preferredAntiAffinityTerms, pod, namespaceLabels, nodeInfo, -1);
      }
    }
    state.write(preScoreKey, scores);
    return success();
  }

  score(state: CycleState, _pod: Pod, nodeInfo: NodeInfo): number {
    const scores = state.read<Map<string, number>>(preScoreKey);
    if (!scores) return 0;
    let total = 0;
    for (const [key, value] of Object.entries(nodeInfo.labels)) total += scores.get(pairKey(key, value)) ?? 0;
    return total;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    let minimum = Number.MAX_SAFE_INTEGER;
    let maximum = Number.MIN_SAFE_INTEGER;
    for (const entry of scores) {
      minimum = Math.min(minimum, entry.score);
      maximum = Math.max(maximum, entry.score);
    }
    const spread = maximum - minimum;
    for (const entry of scores) entry.score = spread > 0 ? Math.trunc((maxNodeScore * (entry.score - minimum)) / spread) : 0;
    return success();
  }
}
