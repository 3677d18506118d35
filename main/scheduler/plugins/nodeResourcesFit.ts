// NodeResourcesFit, after upstream pkg/scheduler/framework/plugins/noderesources (fit.go,
// least_allocated.go): Filter checks the pod count and every requested resource against
// allocatable minus what the node's pods already request ("Insufficient cpu", "Too many pods");
// a request larger than the whole node is UnschedulableAndUnresolvable, since preemption cannot
// help. Score is LeastAllocated over cpu and memory (weight 1 each), counting the default requests
// of containers that set none.
import type { Pod } from '../api';
import { success, type CycleState, type NodeInfo, type Plugin, type PluginStatus, type Resource, maxNodeScore } from '../framework';
import { podRequests } from '../nodeInfo';

const preFilterKey = 'PreFilterNodeResourcesFit';
const preScoreKey = 'PreScoreNodeResourcesFit';

export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
  unresolvable: boolean;
}

/** Upstream fitsRequest: every resource the pod cannot get on this node, in upstream order. */
export function insufficientResources(request: Resource, nodeInfo: NodeInfo): InsufficientResource[] {
  const result: InsufficientResource[] = [];
  const allocatable = nodeInfo.allocatable;
  const requested = nodeInfo.requested;
  if (nodeInfo.pods.length + 1 > allocatable.allowedPodNumber) {
    result.push({ resourceName: 'pods', reason: 'Too many pods', requested: 1, used: nodeInfo.pods.length, capacity: allocatable.allowedPodNumber, unresolvable: false });
  }
  const check = (name: string, wanted: number, free: number, used: number, capacity: number): void => {
    if (wanted > 0 && wanted > free - used) result.push({ resourceName: name, reason: `Insufficient ${name}`, requested: wanted, used, capacity, unresolvable: wanted > capacity });
  };
  check('cpu', request.milliCPU, allocatable.milliCPU, requested.milliCPU, allocatable.milliCPU);
  check('memory', request.memory, allocatable.memory, requested.memory, allocatable.memory);
  check('ephemeral-storage', request.ephemeralStorage, allocatable.ephemeralStorage, requested.ephemeralStorage, allocatable.ephemeralStorage);
  for (const [name, wanted] of Object.entries(request.scalar)) {
    const capacity = allocatable.scalar[name] ?? 0;
    check(name, wanted, capacity, requested.scalar[name] ?? 0, capacity);
  }
  return result;
}

/** Upstream leastRequestedScore: the share left free, 0…100; 0 when over capacity or no capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc(((capacity - requested) * maxNodeScore) / capacity);
}

export class NodeResourcesFit implements Plugin {
  readonly name = 'NodeResourcesFit';

  preFilter(state: CycleState, pod: Pod): PluginStatus {
    state.write(preFilterKey, podRequests(pod));
    return success();
  }

  filter(state: CycleState, pod: Pod, nodeInfo: NodeInfo): PluginStatus {
    const request = state.read<Resource>(preFilterKey) ?? podRequests(pod);
    const missing = insufficientResources(request, nodeInfo);
    if (missing.length === 0) return success();
    return { code: missing.some((entry) => entry.unresolvable) ? 'UnschedulableAndUnresolvable' : 'Unschedulable', reasons: missing.map((entry) => entry.reason) };
  }

  preScore(state: CycleState, pod: Pod): PluginStatus {
    state.write(preScoreKey, podRequests(pod, true));
    return success();
  }

  score(state: CycleState, pod: Pod, nodeInfo: NodeInfo): number {
    const request = state.read<Resource>(preScoreKey) ?? podRequests(pod, true);
    const cpu = leastRequestedScore(nodeInfo.nonZeroRequested.milliCPU + request.milliCPU, nodeInfo.allocatable.milliCPU);
    const memory = leastRequestedScore(nodeInfo.nonZeroRequested.memory + request.memory, nodeInfo.allocatable.memory);
    return Math.trunc((cpu + memory) / 2);
  }
}
