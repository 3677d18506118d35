// TaintToleration, after upstream pkg/scheduler/framework/plugins/tainttoleration: Filter rejects a
// node with a NoSchedule/NoExecute taint the pod does not tolerate (the reason names no taint, as
// upstream since v1.34, so taint values are not disclosed); Score counts untolerated
// PreferNoSchedule taints, fewer being better (normalised in reverse).
import type { Pod, Toleration } from '../api';
import { arrayOf } from '../api';
import { defaultNormalizeScore, success, unresolvable, type CycleState, type NodeInfo, type NodeScore, type Plugin, type PluginStatus } from '../framework';
import { findUntoleratedTaint, tolerationsTolerateTaint } from '../../componentHelpers/scheduling/corev1';

export const untoleratedTaintReason = 'node(s) had untolerated taint(s)';

const preScoreKey = 'PreScoreTaintToleration';

export class TaintToleration implements Plugin {
  readonly name = 'TaintToleration';

  filter(_state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    if (!findUntoleratedTaint(nodeInfo.taints, pod.spec?.tolerations)) return success();
    return unresolvable(untoleratedTaintReason);
  }

  preScore(state: CycleState, pod: Pod): PluginStatus {
    // A toleration without an effect tolerates every effect, PreferNoSchedule included.
    const tolerations = arrayOf(pod.spec?.tolerations).filter((toleration) => !toleration.effect || toleration.effect === 'PreferNoSchedule');
    state.write(preScoreKey, tolerations);
    return success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const tolerations = state.read<Toleration[]>(preScoreKey) ?? arrayOf(pod.spec?.tolerations);
    return nodeInfo.taints.filter((taint) => taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint)).length;
  }

  normalizeScore(_state: CycleState, _pod: Pod, scores: NodeScore[]): PluginStatus {
    defaultNormalizeScore(scores, true);
    return success();
  }
}
