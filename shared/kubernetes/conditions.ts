// Status conditions, the one shape every kind's `status.conditions` shares (metav1.Condition and
// the per-kind PodCondition, NodeCondition, DeploymentCondition, JobCondition… of k8s.io/api,
// which differ only in which time fields they carry), with the helpers of
// staging/src/k8s.io/apimachinery/pkg/api/meta/conditions.go: find, set (the transition time
// moves only when the status does) and remove.
import { isRecord } from './types';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
  /** PodCondition, JobCondition */
  lastProbeTime?: string | null;
  /** DeploymentCondition */
  lastUpdateTime?: string | null;
  /** NodeCondition */
  lastHeartbeatTime?: string | null;
  /** metav1.Condition */
  observedGeneration?: number;
}

/** Copies of the well-formed entries (a string type and status) of a status block's `conditions`. */
export function statusConditions(status: unknown): Condition[] {
  if (!isRecord(status) || !Array.isArray(status.conditions)) return [];
  return status.conditions.filter((entry): entry is Condition => isRecord(entry) && typeof entry.type === 'string' && typeof entry.status === 'string').map((entry) => ({ ...entry }));
}

/** The conditions of an object's `status`. */
export function conditionsOf(object: unknown): Condition[] {
  return isRecord(object) ? statusConditions(object.status) : [];
}

/** meta.FindStatusCondition */
export function findCondition(conditions: readonly Condition[], type: string): Condition | undefined {
  return conditions.find((condition) => condition.type === type);
}

/** The object's condition of this type, if it has one. */
export function getCondition(object: unknown, type: string): Condition | undefined {
  return findCondition(conditionsOf(object), type);
}

/** meta.IsStatusConditionTrue */
export function isConditionTrue(object: unknown, type: string): boolean {
  return getCondition(object, type)?.status === 'True';
}

/** The transition time a condition with `status` carries: the previous one's while the status stays, else `now`. */
export function transitionTime(previous: Condition | undefined, status: string, now: string): string {
  return previous && previous.status === status && typeof previous.lastTransitionTime === 'string' ? previous.lastTransitionTime : now;
}

/**
 * meta.SetStatusCondition: the condition replaces the one of its type in place (or is appended);
 * its lastTransitionTime is the previous one's while the status stays, else its own or `now`.
 */
export function setCondition(conditions: readonly Condition[], condition: Condition, now: string): Condition[] {
  const index = conditions.findIndex((existing) => existing.type === condition.type);
  const previous = index >= 0 ? conditions[index] : undefined;
  const next: Condition = { ...condition, lastTransitionTime: previous && previous.status === condition.status ? transitionTime(previous, condition.status, now) : (condition.lastTransitionTime ?? now) };
  if (index < 0) return [...conditions, next];
  return conditions.map((existing, position) => (position === index ? next : existing));
}

/** meta.RemoveStatusCondition */
export function removeCondition(conditions: readonly Condition[], type: string): Condition[] {
  return conditions.filter((condition) => condition.type !== type);
}
