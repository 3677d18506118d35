// Helpers every workload controller needs, after upstream pkg/controller/controller_utils.go and
// apimachinery's metav1 helpers: label-selector matching, controller references, pods from
// templates, and pod readiness/availability.
import { randomInt } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { getCondition, isConditionTrue } from '../../shared/kubernetes/conditions';
import { parseTime } from '../../shared/kubernetes/time';

export type { LabelSelector, LabelSelectorRequirement } from '../../shared/kubernetes/labelSelector';
export { selectorMatches, selectorToString } from '../../shared/kubernetes/labelSelector';

/** The controller owner reference of an object, if any. */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return (obj.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
}

export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const ref = controllerOf(obj);
  return ref !== undefined && ref.uid === owner.metadata.uid;
}

/** metav1.NewControllerRef */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

const suffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** upstream names.SimpleNameGenerator suffix (5 characters), for names the controller picks itself. */
export function randomSuffix(length = 5): string {
  let suffix = '';
  for (let i = 0; i < length; i++) suffix += suffixAlphabet[randomInt(suffixAlphabet.length)];
  return suffix;
}

/**
 * A pod for a controller, after upstream GetPodFromTemplate: the template's labels, annotations,
 * finalizers and spec, a controller reference to the owner, and either a fixed name or
 * `generateName: <prefix>-`.
 */
export function podFromTemplate(template: unknown, owner: KubeObject, options: { generateNamePrefix?: string; name?: string; extraLabels?: Record<string, string> } = {}): KubeObject {
  const source = isRecord(template) ? template : {};
  const meta = isRecord(source.metadata) ? source.metadata : {};
  const metadata: KubeObject['metadata'] = {
    namespace: owner.metadata.namespace,
    labels: { ...(isRecord(meta.labels) ? (meta.labels as Record<string, string>) : {}), ...(options.extraLabels ?? {}) },
    ownerReferences: [controllerRef(owner)],
  };
  if (isRecord(meta.annotations)) metadata.annotations = { ...(meta.annotations as Record<string, string>) };
  if (Array.isArray(meta.finalizers)) metadata.finalizers = meta.finalizers.map(String);
  if (options.name) metadata.name = options.name;
  else metadata.generateName = `${options.generateNamePrefix ?? owner.metadata.name}-`;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: structuredClone(isRecord(source.spec) ? source.spec : {}) };
}

export function podPhase(pod: KubeObject): string {
  return isRecord(pod.status) && typeof pod.status.phase === 'string' ? pod.status.phase : '';
}

/** upstream IsPodActive: not terminal and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

export function isPodReady(pod: KubeObject): boolean {
  return isConditionTrue(pod, 'Ready');
}

/** upstream IsPodAvailable: Ready for at least minReadySeconds. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: Date): boolean {
  const ready = getCondition(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = parseTime(ready.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 <= now.getTime();
}

export function specOf(obj: KubeObject): Record<string, unknown> {
  return isRecord(obj.spec) ? obj.spec : {};
}

export function statusOf(obj: KubeObject): Record<string, unknown> {
  return isRecord(obj.status) ? obj.status : {};
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
