// A pod's health as a person reads `kubectl get pods`: from the STATUS and READY cells that
// summarizePod computes (upstream printPod), so the UI's colours and counts can never disagree with
// kubectl. Only "Running" with every container ready is healthy, and "Completed" is done; a Running
// pod that is not ready (0/1, a failing readiness probe), one still starting, one terminating and
// every waiting or terminated reason (CrashLoopBackOff, ImagePullBackOff, ErrImagePull,
// CreateContainerConfigError, Error, OOMKilled, Init:…, Unknown) are not.
import { summarizePod, type PodSummary } from './pod';

export type PodHealth = 'healthy' | 'not-ready' | 'failing' | 'pending' | 'terminating' | 'completed';

/** Every health, in the order the overview shows them. */
export const POD_HEALTHS: readonly PodHealth[] = ['healthy', 'not-ready', 'failing', 'pending', 'terminating', 'completed'];

/** What each health is called on screen. */
export const POD_HEALTH_LABELS: Readonly<Record<PodHealth, string>> = {
  healthy: 'Running',
  'not-ready': 'Not ready',
  failing: 'Failing',
  pending: 'Pending',
  terminating: 'Terminating',
  completed: 'Completed',
};

// STATUS values of a pod on its way up: scheduling, pulling/creating, init containers running
const STARTING = /^(Pending|ContainerCreating|PodInitializing|SchedulingGated|Init:\d+\/\d+|Init:ContainerCreating|Init:PodInitializing)$/;

/** `ready/total` → both counts (0/0 when the cell does not parse). */
export function readyCounts(ready: string): { ready: number; total: number } {
  const match = /^(\d+)\/(\d+)$/.exec(ready);
  return match ? { ready: Number(match[1]), total: Number(match[2]) } : { ready: 0, total: 0 };
}

/** The health of a pod from its printed STATUS and READY. */
export function healthOfSummary(summary: Pick<PodSummary, 'status' | 'ready'>): PodHealth {
  const { status } = summary;
  if (status === 'Terminating') return 'terminating';
  if (status === 'Completed' || status === 'Succeeded') return 'completed';
  if (status === 'Running') {
    const { ready, total } = readyCounts(summary.ready);
    return total > 0 && ready === total ? 'healthy' : 'not-ready';
  }
  if (status === 'NotReady') return 'not-ready';
  if (STARTING.test(status)) return 'pending';
  return 'failing';
}

/** The health of a pod object, through the same summary `kubectl get pods` prints. */
export function podHealth(pod: unknown, now: Date = new Date()): PodHealth {
  return healthOfSummary(summarizePod(pod, now));
}
