// Status colouring shared by several kinds: what counts as healthy, progressing or failed, in the
// words kubectl prints (Running, CrashLoopBackOff, Completed, …).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { valueAt } from '../../shared/printers/fields';
import { podHealth, type PodHealth } from '../../shared/printers/podHealth';
import type { Tone } from './kindConfig';

const ERROR_STATUSES = /BackOff|Err|Error|Failed|OOMKilled|Invalid|Evicted|NodeLost|Unknown|ContainerStatusUnknown|DeadlineExceeded/;

/** Colour of each pod health: only Running-and-ready is green; everything still to come or wrong stands out. */
export const POD_HEALTH_TONES: Readonly<Record<PodHealth, Tone>> = {
  healthy: 'ok',
  'not-ready': 'warn',
  failing: 'error',
  pending: 'warn',
  terminating: 'warn',
  completed: 'muted',
};

/** Tone of a pod from its STATUS and READY as `kubectl get pods` prints them (a 0/1 Running pod is not green). */
export function podTone(pod: KubeObject, now: Date = new Date()): Tone {
  return POD_HEALTH_TONES[podHealth(pod, now)];
}

/** Tone of a pod STATUS cell alone, when READY is not known. */
export function podStatusTone(status: string): Tone {
  if (status === 'Running' || status === 'Completed' || status === 'Succeeded') return status === 'Running' ? 'ok' : 'muted';
  if (ERROR_STATUSES.test(status)) return 'error';
  if (status === 'Terminating') return 'muted';
  return 'warn';
}

/** `ready/desired` style counts: all ready = ok, none = error (when some are wanted), else warn. */
export function countTone(ready: number, desired: number): Tone {
  if (desired === 0) return 'muted';
  if (ready >= desired) return 'ok';
  return ready === 0 ? 'error' : 'warn';
}

// field readers shared with the printers (missing or mistyped values read as 0 / '' / undefined)
export { numberAt as numberField, stringAt as stringField } from '../../shared/printers/fields';

export function recordField(value: unknown, ...path: string[]): Record<string, unknown> | undefined {
  const found = valueAt(value, ...path);
  return isRecord(found) ? found : undefined;
}

/** spec.selector.matchLabels of workloads (their pods' labels). */
export function matchLabels(object: KubeObject): Record<string, string> | undefined {
  const labels = recordField(object, 'spec', 'selector', 'matchLabels');
  if (!labels) return undefined;
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) if (typeof value === 'string') result[key] = value;
  return result;
}
