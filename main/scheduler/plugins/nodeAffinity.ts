// NodeAffinity, after upstream pkg/scheduler/framework/plugins/nodeaffinity: Filter requires
// spec.nodeSelector and the required node-affinity terms (terms OR-ed, expressions AND-ed); Score
// sums the weights of the preferred terms the node matches, normalised to 0…100.
import type { Pod, PreferredSchedulingTerm } from '../api';
import { arrayOf } from '../api';
import { defaultNormalizeScore, skip, success, unresolvable, type CycleState, type NodeInfo, type NodeScore, type Plugin, type PluginStatus } from '../framework';
import { nodeSelectorTermMatches, podMatchesNodeSelectorAndAffinity } from '../../componentHelpers/scheduling/corev1';

export const nodeAffinityReason = "node(s) didn't match Pod's node affinity/selector";

const preScoreKey = 'PreScoreNodeAffinity';

function preferredTerms(pod: Pod): PreferredSchedulingTerm[] {
  // Upstream drops terms of weight 0 and empty preferences: they can never add to a score.
  return arrayOf(pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution).filter(
    (term) => term && typeof term.weight === 'number' && term.weight !== 0 && term.preference && (arrayOf(term.preference.matchExpressions).length > 0 || arrayOf(term.preference.matchFields).length > 0),
  );
}

export class NodeAffinity implements Plugin {
  readonly name = 'NodeAffinity';

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    return podMatchesNodeSelectorAndAffinity(pod, nodeInfo.node) ? success() : unresolvable(nodeAffinityReason);
  }

  preScore(state: CycleState, pod: Pod): PluginStatus {
    const terms = preferredTerms(pod);
    if (terms.length === 0) return skip();
    state.write(preScoreKey, terms);
    return success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const terms = state.read<PreferredSchedulingTerm[]>(preScoreKey) ?? preferredTerms(pod);
    let total = 0;
    for (const term of terms) if (nodeSelectorTermMatches(term.preference, nodeInfo.node)) total += term.weight;
    return total;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    defaultNormalizeScore(scores, false);
    return success();
  }
}
