// NodeName, after upstream pkg/scheduler/framework/plugins/nodename: a pod that names a node in
// spec.nodeName fits only that node.
import type { Pod } from '../api';
import { success, unresolvable, type NodeInfo, type Plugin, type PluginStatus } from '../framework';

export const nodeNameReason = "node(s) didn't match the requested node name";

export class NodeName implements Plugin {
  readonly name = 'NodeName';

  filter(_state: unknown, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const wanted = pod.spec?.nodeName;
    if (!wanted || wanted === nodeInfo.name) return success();
    return unresolvable(nodeNameReason);
  }
}
