// NodeResourcesBalancedAllocation, after upstream
// pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go: favours nodes whose cpu and
// memory would be used in similar proportions: score = (1 − standard deviation of the requested
// fractions) × 100. Pods that request nothing (best effort) are not scored.
import type { Pod } from '../api';
import { skip, success, maxNodeScore, type CycleState, type NodeInfo, type Plugin, type PluginStatus, type Resource } from '../framework';
import { podRequests } from '../nodeInfo';

const preScoreKey = 'PreScoreNodeResourcesBalancedAllocation';

export function balancedAllocationScore(request: Resource, nodeInfo: NodeInfo): number {
  const fractions: number[] = [];
  const add = (requested: number, capacity: number): void => {
    if (capacity > 0) fractions.push(Math.min(1, requested / capacity));
  };
  add(nodeInfo.requested.milliCPU + request.milliCPU, nodeInfo.allocatable.milliCPU);
  add(nodeInfo.requested.memory + request.memory, nodeInfo.allocatable.memory);
  let deviation = 0;
  if (fractions.length === 2) {
    deviation = Math.abs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.length > 2) {
    const mean = fractions.reduce((sum, value) => sum + value, 0) / fractions.length;
    deviation = Math.sqrt(fractions.reduce((sum, value) => sum + (value - mean) ** 2, 0) / fractions.length);
  }
  return Math.trunc((1 - deviation) * maxNodeScore);
}

export class NodeResourcesBalancedAllocation implements Plugin {
  readonly name = 'NodeResourcesBalancedAllocation';

  preScore(state: CycleState, pod: Pod): PluginStatus {
    const request = podRequests(pod);
    if (request.milliCPU === 0 && request.memory === 0) return skip();
    state.write(preScoreKey, request);
    return success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    return balancedAllocationScore(state.read<Resource>(preScoreKey) ?? podRequests(pod), nodeInfo);
  }
}
