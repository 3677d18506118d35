// Whether a shell can be opened in a pod's container now — the one rule behind every Shell button
// (the detail header, each container row, the list's row menu and the palette). A shell is an exec
// into the container's running process namespace: kubectl refuses a pod whose phase is Succeeded or
// Failed ("cannot exec into a container in a completed pod", kubectl/pkg/cmd/exec/exec.go), and the
// container runtime refuses a container that is not running (Docker: "container … is not running";
// CRI runtimes the same). So the rule is: the pod has not completed and the container's status says
// running. A container in CrashLoopBackOff is waiting between runs, so its Shell is disabled, with
// the reason as the button's hint. Pure.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { containersOf, defaultContainer } from './podContainers';

export interface ExecAvailability {
  /** the container the shell opens in (the given one, else the pod's default container) */
  container?: string;
  enabled: boolean;
  /** why not, when disabled (shown as the button's hint) */
  reason?: string;
}

function statusOf(pod: KubeObject, container: string): Record<string, unknown> | undefined {
  const status = isRecord(pod.status) ? pod.status : {};
  for (const field of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const list = status[field];
    if (!Array.isArray(list)) continue;
    for (const item of list) if (isRecord(item) && item.name === container) return item;
  }
  return undefined;
}

/** Whether `container` (default: the pod's default container) of `pod` can be exec'd into now, and why not. */
export function execAvailability(pod: KubeObject, container?: string): ExecAvailability {
  const target = container ?? defaultContainer(pod);
  if (!target || !containersOf(pod).some((candidate) => candidate.name === target)) return { container: target, enabled: false, reason: target ? `the pod has no container ${target}` : 'the pod has no containers' };
  const phase = isRecord(pod.status) && typeof pod.status.phase === 'string' ? pod.status.phase : '';
  if (phase === 'Succeeded' || phase === 'Failed') return { container: target, enabled: false, reason: `cannot exec into a container in a completed pod; current phase is ${phase}` };
  const state = statusOf(pod, target)?.state;
  if (isRecord(state) && isRecord(state.running)) return { container: target, enabled: true };
  if (isRecord(state) && isRecord(state.waiting)) {
    const reason = typeof state.waiting.reason === 'string' && state.waiting.reason ? state.waiting.reason : '';
    return { container: target, enabled: false, reason: `container ${target} is not running${reason ? ` (waiting: ${reason})` : ''}` };
  }
  if (isRecord(state) && isRecord(state.terminated)) {
    const reason = typeof state.terminated.reason === 'string' && state.terminated.reason ? state.terminated.reason : 'terminated';
    const exitCode = typeof state.terminated.exitCode === 'number' ? `, exit code ${state.terminated.exitCode}` : '';
    return { container: target, enabled: false, reason: `container ${target} is not running (${reason}${exitCode})` };
  }
  return { container: target, enabled: false, reason: `container ${target} has not started` };
}
