// NodeUnschedulable, after upstream pkg/scheduler/framework/plugins/nodeunschedulable: a cordoned
// node (spec.unschedulable) takes only pods that tolerate node.kubernetes.io/unschedulable:NoSchedule.
import { type Pod } from '../api';
import { success, unresolvable, type NodeInfo, type Plugin, type PluginStatus } from '../framework';
import { taintNodeUnschedulable, tolerationsTolerateTaint } from '../../componentHelpers/scheduling/corev1';

export const nodeUnschedulableReason = 'node(s) were unschedulable';

export class NodeUnschedulable implements Plugin {
  readonly name = 'NodeUnschedulable';

  filter(_state: unknown, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    if (!nodeInfo.node.spec?.unschedulable) return success();
    if (tolerationsTolerateTaint(pod.spec?.tolerations, { key: taintNodeUnschedulable, effect: 'NoSchedule' })) return success();
    return unresolvable(nodeUnschedulableReason);
  }
}
