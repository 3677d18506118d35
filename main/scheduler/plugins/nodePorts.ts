// NodePorts, after upstream pkg/scheduler/framework/plugins/nodeports and framework.HostPortInfo:
// a host port is taken per (hostIP, protocol, port); 0.0.0.0 (the default) conflicts with every IP.
import type { Pod } from '../api';
import { skip, success, unschedulable, type CycleState, type HostPort, type NodeInfo, type Plugin, type PluginStatus } from '../framework';
import { podHostPorts } from '../nodeInfo';

export const nodePortsReason = "node(s) didn't have free ports for the requested pod ports";

const preFilterKey = 'PreFilterNodePorts';

export function hostPortsConflict(wanted: readonly HostPort[], used: readonly HostPort[]): boolean {
  return wanted.some((port) => used.some((taken) => taken.port === port.port && taken.protocol === port.protocol && (taken.ip === port.ip || taken.ip === '0.0.0.0' || port.ip === '0.0.0.0')));
}

export class NodePorts implements Plugin {
  readonly name = 'NodePorts';

  preFilter(state: CycleState, pod: Pod): PluginStatus {
    const ports = podHostPorts(pod);
    if (ports.length === 0) return skip();
    state.write(preFilterKey, ports);
    return success();
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const ports = state.read<HostPort[]>(preFilterKey) ?? podHostPorts(pod);
    return hostPortsConflict(ports, nodeInfo.usedPorts) ? unschedulable(nodePortsReason) : success();
  }
}
