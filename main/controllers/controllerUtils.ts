// Helpers every workload controller needs, after upstream pkg/controller/controller_utils.go and
// apimachinery's metav1 helpers: ControllerExpectations, slow-start batches, label-selector
// matching, controller references (and resolving them through an informer), pods from templates,
// and pod readiness/availability.
import { randomInt } from 'node:crypto';
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { getCondition, isConditionTrue } from '../../shared/kubernetes/conditions';
import { selectorMatches } from '../../shared/kubernetes/labelSelector';
import { parseTime } from '../../shared/kubernetes/time';
import { realClock, type Clock } from '../client/clock';
import type { Informer } from '../client/informer';

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

/**
 * upstream resolveControllerRef: the object of `kind` (in `group`) a controller reference points
 * to, when the informer holds that very object (same uid); undefined otherwise.
 */
export function resolveControllerRef(informer: Informer, namespace: string | undefined, ref: OwnerReference, kind: string, group: string): KubeObject | undefined {
  const slash = ref.apiVersion.indexOf('/');
  if (ref.kind !== kind || (slash < 0 ? '' : ref.apiVersion.slice(0, slash)) !== group) return undefined;
  const owner = informer.get(namespace, ref.name);
  return owner && owner.metadata.uid === ref.uid ? owner : undefined;
}

/**
 * The controllers of `kind` a change to `object` concerns, as upstream's pod event handlers find
 * them: the one its controller reference names (when it resolves), else, for an orphan, every one
 * in its namespace that may adopt it (by default: whose selector matches its labels).
 */
export function controllersFor(owners: Informer, object: KubeObject, kind: string, group: string, mayAdopt?: (owner: KubeObject) => boolean): KubeObject[] {
  const ref = controllerOf(object);
  if (ref) {
    const owner = resolveControllerRef(owners, object.metadata.namespace, ref, kind, group);
    return owner ? [owner] : [];
  }
  const adopts = mayAdopt ?? ((owner: KubeObject) => selectorMatches(specOf(owner).selector, object.metadata.labels));
  return owners.listByNamespace(object.metadata.namespace ?? '').filter(adopts);
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

/** upstream SlowStartInitialBatchSize */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/**
 * upstream slowStartBatch: calls `action(0)` … `action(count - 1)` in batches of 1, 2, 4, … run
 * concurrently; after a batch with a failure the remaining batches are skipped. Returns the
 * successes and the first error.
 */
export async function slowStartBatch(count: number, initialBatchSize: number, action: (index: number) => Promise<unknown>): Promise<{ successes: number; error?: unknown }> {
  let done = 0;
  let successes = 0;
  for (let batchSize = Math.min(count, initialBatchSize); batchSize > 0; batchSize = Math.min(2 * batchSize, count - done)) {
    const first = done;
    const results = await Promise.allSettled(Array.from({ length: batchSize }, (_unused, offset) => action(first + offset)));
    const failures = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    successes += batchSize - failures.length;
    if (failures.length > 0) return { successes, error: failures[0].reason };
    done += batchSize;
  }
  return { successes };
}

/** upstream ExpectationsTimeout: expectations older than this are ignored (a lost watch event must not stall a controller forever). */
const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Expectation {
  add: number;
  del: number;
  at: number;
  /** Keys (`namespace/name`) of the pods deleted and not yet seen going (UIDTrackingControllerExpectations). */
  deleting: Set<string>;
}

/**
 * upstream ControllerExpectations with UIDTrackingControllerExpectations' deletions: what a
 * controller expects its informer to report after it created or deleted pods. Until every expected
 * create and delete has been observed (or the expectation is five minutes old), the controller
 * must not act on its possibly stale cache again. Deletions are tracked per pod, so a pod seen
 * twice (deletionTimestamp, then the delete) counts once.
 */
export class ControllerExpectations {
  private readonly expectations = new Map<string, Expectation>();

  constructor(private readonly clock: Clock = realClock) {}

  /** True when nothing is pending for the controller (or what was pending is too old to trust). */
  satisfied(controllerKey: string): boolean {
    const expectation = this.expectations.get(controllerKey);
    if (!expectation) return true;
    if (expectation.add <= 0 && expectation.del <= 0) return true;
    return this.clock.now() - expectation.at > EXPECTATIONS_TIMEOUT_MS;
  }

  /** SetExpectations: replaces what was expected. */
  setExpectations(controllerKey: string, creations: number, deletedPodKeys: string[]): void {
    this.expectations.set(controllerKey, { add: creations, del: deletedPodKeys.length, at: this.clock.now(), deleting: new Set(deletedPodKeys) });
  }

  expectCreations(controllerKey: string, count: number): void {
    this.setExpectations(controllerKey, count, []);
  }

  expectDeletions(controllerKey: string, podKeys: string[]): void {
    this.setExpectations(controllerKey, 0, podKeys);
  }

  /** RaiseExpectations: adds to what is still expected. */
  raiseExpectations(controllerKey: string, creations: number, deletedPodKeys: string[]): void {
    const current = this.expectations.get(controllerKey);
    if (!current) {
      this.setExpectations(controllerKey, creations, deletedPodKeys);
      return;
    }
    current.add += creations;
    for (const podKey of deletedPodKeys) {
      if (current.deleting.has(podKey)) continue;
      current.deleting.add(podKey);
      current.del++;
    }
    current.at = this.clock.now();
  }

  creationObserved(controllerKey: string): void {
    const expectation = this.expectations.get(controllerKey);
    if (expectation) expectation.add--;
  }

  /** Counts a deletion once per pod, whether it is seen as a deletionTimestamp or as the final delete. */
  deletionObserved(controllerKey: string, podKey: string): void {
    const expectation = this.expectations.get(controllerKey);
    if (expectation?.deleting.delete(podKey)) expectation.del--;
  }

  delete(controllerKey: string): void {
    this.expectations.delete(controllerKey);
  }

  /** Pending creates and deletes, for tests and diagnostics. */
  pending(controllerKey: string): { add: number; del: number } | undefined {
    const expectation = this.expectations.get(controllerKey);
    return expectation ? { add: expectation.add, del: expectation.del } : undefined;
  }
}
