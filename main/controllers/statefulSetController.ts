// StatefulSetController: stable, ordered pods with their own storage, after upstream
// pkg/controller/statefulset (stateful_set.go, stateful_set_control.go, stateful_pod_control.go,
// stateful_set_utils.go):
// - pods `<set>-<ordinal>` (ordinals from spec.ordinals.start) with labels
//   statefulset.kubernetes.io/pod-name, apps.kubernetes.io/pod-index and controller-revision-hash,
//   spec.hostname = pod name and spec.subdomain = spec.serviceName;
// - volumeClaimTemplates become PVCs `<template>-<set>-<ordinal>`, created before the pod and wired in
//   as the pod's volumes; persistentVolumeClaimRetentionPolicy is enforced by owner references on the
//   PVCs (the set for whenDeleted=Delete, a scaled-down pod for whenScaled=Delete; the garbage
//   collector does the deleting);
// - OrderedReady creates ordinal i only when 0..i-1 are Running and Ready (and available for
//   minReadySeconds) and deletes the highest ordinal first, one at a time; Parallel does not wait;
// - ControllerRevisions record each template (currentRevision/updateRevision, collisionCount,
//   revisionHistoryLimit); RollingUpdate deletes out-of-date pods from the highest ordinal down to
//   `partition`, one at a time, waiting for each to be available again; OnDelete leaves them;
// - failed or succeeded pods are deleted and recreated; orphans matching the selector are adopted;
// - events SuccessfulCreate/SuccessfulDelete ("create Pod web-0 in StatefulSet web successful",
//   "create Claim www-web-0 Pod web-0 in StatefulSet web success") and their Failed* forms.
// Not modelled: the MaxUnavailableStatefulSet feature gate (one pod at a time, as the default) and
// the stale-PVC check (a claim owned by an earlier pod of the same name).
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { controllerOf, controllerRef, controllersFor, isControlledBy, isPodAvailable, isPodReady, numberOr, podFromTemplate, podPhase, resolveControllerRef, selectorMatches, specOf, statusOf } from './controllerUtils';
import { ControllerHistory, applyRevision, findEqualRevisions, newControllerRevision, nextRevision, sortRevisions, templatePatch, equalRevision, type ControllerRevision } from './controllerHistory';

export const STATEFULSET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
export const STATEFULSET_REVISION_LABEL = 'controller-revision-hash';

export type StatefulSetControllerOptions = ControllerOptions;

interface RetentionPolicy {
  whenDeleted: string;
  whenScaled: string;
}

interface SetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

/** A replica slot: the pod from the cache, or the pod the controller would create there. */
interface Slot {
  pod: KubeObject;
  created: boolean;
}

const ordinalPattern = /^(.*)-(\d+)$/;

/** getParentNameAndOrdinal: `web-2` → { parent: 'web', ordinal: 2 }; -1 when the name has no ordinal. */
export function parentAndOrdinal(podName: string | undefined): { parent: string; ordinal: number } {
  const match = ordinalPattern.exec(podName ?? '');
  if (!match) return { parent: '', ordinal: -1 };
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) ? { parent: match[1], ordinal } : { parent: '', ordinal: -1 };
}

export function ordinalOf(pod: KubeObject): number {
  return parentAndOrdinal(pod.metadata.name).ordinal;
}

function startOrdinal(set: KubeObject): number {
  const ordinals = specOf(set).ordinals;
  return isRecord(ordinals) ? numberOr(ordinals.start, 0) : 0;
}

function replicasOf(set: KubeObject): number {
  return numberOr(specOf(set).replicas, 1);
}

function podInOrdinalRange(pod: KubeObject, set: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  const start = startOrdinal(set);
  return ordinal >= start && ordinal < start + replicasOf(set);
}

function isMemberOf(set: KubeObject, pod: KubeObject): boolean {
  return parentAndOrdinal(pod.metadata.name).parent === set.metadata.name;
}

export function podNameFor(set: KubeObject, ordinal: number): string {
  return `${set.metadata.name ?? ''}-${ordinal}`;
}

interface ClaimTemplate {
  metadata?: { name?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
}

function claimTemplatesOf(set: KubeObject): ClaimTemplate[] {
  const templates = specOf(set).volumeClaimTemplates;
  return Array.isArray(templates) ? (templates.filter(isRecord) as ClaimTemplate[]) : [];
}

export function claimNameFor(set: KubeObject, templateName: string, ordinal: number): string {
  return `${templateName}-${set.metadata.name ?? ''}-${ordinal}`;
}

function retentionPolicyOf(set: KubeObject): RetentionPolicy {
  const policy = specOf(set).persistentVolumeClaimRetentionPolicy;
  const value = isRecord(policy) ? policy : {};
  return { whenDeleted: value.whenDeleted === 'Delete' ? 'Delete' : 'Retain', whenScaled: value.whenScaled === 'Delete' ? 'Delete' : 'Retain' };
}

function selectorMatchLabels(set: KubeObject): Record<string, string> {
  const selector = specOf(set).selector;
  return isRecord(selector) && isRecord(selector.matchLabels) ? (selector.matchLabels as Record<string, string>) : {};
}

/** getPersistentVolumeClaims: the claims a pod of the set needs, keyed by template (= volume) name. */
export function claimsFor(set: KubeObject, ordinal: number): Map<string, KubeObject> {
  const claims = new Map<string, KubeObject>();
  for (const template of claimTemplatesOf(set)) {
    const templateName = template.metadata?.name ?? '';
    const metadata: KubeObject['metadata'] = {
      name: claimNameFor(set, templateName, ordinal),
      namespace: set.metadata.namespace,
      labels: { ...(template.metadata?.labels ?? {}), ...selectorMatchLabels(set) },
    };
    if (template.metadata?.annotations) metadata.annotations = { ...template.metadata.annotations };
    claims.set(templateName, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata, spec: structuredClone(template.spec ?? {}) });
  }
  return claims;
}

/** updateStorage: the claim volumes first (replacing template volumes of the same name), then the rest. */
function withClaimVolumes(set: KubeObject, pod: KubeObject, ordinal: number): void {
  const claims = claimsFor(set, ordinal);
  if (claims.size === 0) return;
  const spec = specOf(pod);
  const current = Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
  const volumes: unknown[] = [];
  for (const [name, claim] of claims) volumes.push({ name, persistentVolumeClaim: { claimName: claim.metadata.name } });
  for (const volume of current) if (!claims.has(String(volume.name))) volumes.push(volume);
  pod.spec = { ...spec, volumes };
}

/** newStatefulSetPod + initIdentity + updateStorage, labelled with the revision it was made from. */
export function newStatefulSetPod(set: KubeObject, ordinal: number, revisionName: string): KubeObject {
  const name = podNameFor(set, ordinal);
  const pod = podFromTemplate(specOf(set).template, set, { name });
  pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [STATEFULSET_POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [STATEFULSET_REVISION_LABEL]: revisionName };
  const spec = specOf(pod);
  spec.hostname = name;
  const serviceName = specOf(set).serviceName;
  if (typeof serviceName === 'string' && serviceName !== '') spec.subdomain = serviceName;
  pod.spec = spec;
  withClaimVolumes(set, pod, ordinal);
  return pod;
}

function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  const labels = pod.metadata.labels ?? {};
  return ordinal >= 0 && isMemberOf(set, pod) && pod.metadata.namespace === set.metadata.namespace && labels[STATEFULSET_POD_NAME_LABEL] === pod.metadata.name && labels[POD_INDEX_LABEL] === String(ordinal);
}

function revisionOfPod(pod: KubeObject): string {
  return pod.metadata.labels?.[STATEFULSET_REVISION_LABEL] ?? '';
}

function isTerminating(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

function isRunningAndReady(pod: KubeObject): boolean {
  return podPhase(pod) === 'Running' && isPodReady(pod);
}

function hasOwnerRef(obj: KubeObject, owner: KubeObject): boolean {
  return (obj.metadata.ownerReferences ?? []).some((ref) => ref.uid === owner.metadata.uid);
}

/**
 * updateClaimOwnerRefForSetAndPod: the owner references a claim should carry under the set's
 * retention policy, or undefined when they already do.
 */
export function retentionOwnerReferences(claim: KubeObject, set: KubeObject, pod: KubeObject): OwnerReference[] | undefined {
  const policy = retentionPolicyOf(set);
  const scaledDown = !podInOrdinalRange(pod, set);
  let wantSet = false;
  let wantPod = false;
  if (policy.whenDeleted === 'Delete' && !(policy.whenScaled === 'Delete' && scaledDown)) wantSet = true;
  if (policy.whenScaled === 'Delete' && scaledDown) wantPod = true;
  const refs = claim.metadata.ownerReferences ?? [];
  const hasSet = hasOwnerRef(claim, set);
  const hasPod = hasOwnerRef(claim, pod);
  // A pod without a uid is one not created yet: the claim cannot point at it.
  if (!pod.metadata.uid) wantPod = false;
  if (hasSet === wantSet && (hasPod === wantPod || !pod.metadata.uid)) return undefined;
  let next = refs.filter((ref) => ref.uid !== set.metadata.uid && (!pod.metadata.uid || ref.uid !== pod.metadata.uid));
  if (wantSet) next = [...next, { apiVersion: set.apiVersion ?? 'apps/v1', kind: set.kind ?? 'StatefulSet', name: set.metadata.name ?? '', uid: set.metadata.uid ?? '' }];
  if (wantPod) next = [...next, { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' }];
  return next;
}

function statusEquals(current: Record<string, unknown>, next: SetStatus): boolean {
  const fields: (keyof SetStatus)[] = ['observedGeneration', 'replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'currentRevision', 'updateRevision', 'collisionCount'];
  for (const field of fields) {
    const have = current[field] ?? (typeof next[field] === 'number' ? 0 : '');
    if (have !== next[field]) return false;
  }
  return true;
}

export class StatefulSetController extends QueueController {
  private readonly sets = this.factory.informerFor(resources.statefulsets);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly claims = this.factory.informerFor(resources.persistentvolumeclaims);
  private readonly revisions = this.factory.informerFor(resources.controllerrevisions);
  private readonly history: ControllerHistory;

  constructor(client: ApiClient, factory: SharedInformerFactory, options: StatefulSetControllerOptions = {}) {
    super(client, factory, { name: 'statefulset', component: 'statefulset-controller', workers: 2 }, options);
    this.history = new ControllerHistory(client, this.revisions);

    this.enqueueChanges(this.sets);
    this.handle(this.pods, {
      onAdd: (pod) => this.enqueueForPod(pod),
      onUpdate: (old, pod) => {
        this.enqueueForPod(pod);
        const before = controllerOf(old);
        if (before && before.uid !== controllerOf(pod)?.uid) this.enqueueOwner(old.metadata.namespace, before);
      },
      onDelete: (pod) => this.enqueueForPod(pod),
    });
    const enqueueRevisionOwner = (revision: KubeObject) => {
      const owner = controllerOf(revision);
      if (owner) this.enqueueOwner(revision.metadata.namespace, owner);
    };
    this.handle(this.revisions, { onAdd: enqueueRevisionOwner, onDelete: enqueueRevisionOwner });
  }

  private enqueueOwner(namespace: string | undefined, ref: OwnerReference): void {
    const set = resolveControllerRef(this.sets, namespace, ref, 'StatefulSet', 'apps');
    if (set) this.enqueue(set);
  }

  private enqueueForPod(pod: KubeObject): void {
    // An orphan: every set that could adopt it should look at it.
    for (const set of controllersFor(this.sets, pod, 'StatefulSet', 'apps', (candidate) => isMemberOf(candidate, pod) && selectorMatches(specOf(candidate).selector, pod.metadata.labels))) this.enqueue(set);
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.sets.getByKey(key);
    if (!cached) return;
    const set = structuredClone(cached);
    const selector = specOf(set).selector;
    if (!isRecord(selector)) return;
    const pods = await this.claimPods(set, selector);
    const revisions = sortRevisions(this.history.listRevisions(set, selector));
    const { currentRevision, updateRevision, collisionCount } = await this.revisionsFor(set, revisions);
    let status: SetStatus | undefined;
    let failure: unknown;
    try {
      status = await this.updateStatefulSet(set, currentRevision, updateRevision, collisionCount, pods);
    } catch (error) {
      failure = error;
    }
    if (status) await this.writeStatus(set, status);
    await this.truncateHistory(set, pods, revisions, currentRevision, updateRevision);
    if (failure) throw failure;
    const minReadySeconds = numberOr(specOf(set).minReadySeconds, 0);
    if (status && minReadySeconds > 0 && status.availableReplicas !== replicasOf(set)) this.queue.addAfter(key, minReadySeconds * 1000);
  }

  /** getPodsForStatefulSet + ClaimPods: own pods that still match, adopt matching orphans, release the rest. */
  private async claimPods(set: KubeObject, selector: Record<string, unknown>): Promise<KubeObject[]> {
    const claimed: KubeObject[] = [];
    const podsApi = this.client.resource(resources.pods);
    for (const pod of this.pods.listByNamespace(set.metadata.namespace ?? '')) {
      const matches = isMemberOf(set, pod) && selectorMatches(selector, pod.metadata.labels);
      const ref = controllerOf(pod);
      if (ref) {
        if (ref.uid !== set.metadata.uid) continue;
        if (matches) {
          claimed.push(pod);
        } else if (!pod.metadata.deletionTimestamp) {
          const ownerReferences = (pod.metadata.ownerReferences ?? []).filter((owner) => owner.uid !== set.metadata.uid);
          await podsApi.patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { ownerReferences, uid: pod.metadata.uid } }, 'merge').catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
        }
        continue;
      }
      if (!matches || pod.metadata.deletionTimestamp || set.metadata.deletionTimestamp) continue;
      const ownerReferences = [...(pod.metadata.ownerReferences ?? []), controllerRef(set)];
      try {
        claimed.push(await podsApi.patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { ownerReferences, uid: pod.metadata.uid } }, 'merge'));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    return claimed;
  }

  /** getStatefulSetRevisions: find or create the update revision; the current one is status.currentRevision. */
  private async revisionsFor(set: KubeObject, revisions: ControllerRevision[]): Promise<{ currentRevision: ControllerRevision; updateRevision: ControllerRevision; collisionCount: number }> {
    let collisionCount = numberOr(statusOf(set).collisionCount, 0);
    const template = specOf(set).template;
    const templateLabels = isRecord(template) && isRecord(template.metadata) && isRecord(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
    const candidate = newControllerRevision(set, templateLabels, templatePatch(set), nextRevision(revisions), collisionCount);
    if (set.metadata.annotations) candidate.metadata.annotations = { ...set.metadata.annotations };
    const equal = findEqualRevisions(revisions, candidate);
    let updateRevision: ControllerRevision;
    if (equal.length > 0 && equalRevision(revisions[revisions.length - 1], equal[equal.length - 1])) {
      updateRevision = revisions[revisions.length - 1];
    } else if (equal.length > 0) {
      // Going back to an earlier template: that revision becomes the newest.
      updateRevision = await this.history.updateRevisionNumber(equal[equal.length - 1], candidate.revision ?? 1);
    } else {
      const created = await this.history.createControllerRevision(set, candidate, collisionCount);
      updateRevision = created.revision;
      collisionCount = created.collisionCount;
    }
    const currentName = statusOf(set).currentRevision;
    const currentRevision = revisions.find((revision) => revision.metadata.name === currentName) ?? updateRevision;
    return { currentRevision, updateRevision, collisionCount };
  }

  private isAvailable(pod: KubeObject, minReadySeconds: number): boolean {
    return isRunningAndReady(pod) && isPodAvailable(pod, minReadySeconds, new Date(this.clock.now()));
  }

  private computeStatus(base: SetStatus, minReadySeconds: number, slots: Slot[], condemned: KubeObject[]): SetStatus {
    const status: SetStatus = { ...base, replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0 };
    const all: Slot[] = [...slots, ...condemned.map((pod) => ({ pod, created: true }))];
    for (const { pod, created } of all) {
      if (!created) continue;
      status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas++;
        if (this.isAvailable(pod, minReadySeconds)) status.availableReplicas++;
      }
      if (!isTerminating(pod)) {
        const revision = revisionOfPod(pod);
        if (revision === base.currentRevision) status.currentReplicas++;
        if (revision === base.updateRevision) status.updatedReplicas++;
      }
    }
    return status;
  }

  /** updateStatefulSet: converge the pods one step (monotonic) or all at once (Parallel); returns the status. */
  private async updateStatefulSet(set: KubeObject, currentRevision: ControllerRevision, updateRevision: ControllerRevision, collisionCount: number, pods: KubeObject[]): Promise<SetStatus> {
    const currentSet = applyRevision(set, currentRevision);
    const updateSet = applyRevision(set, updateRevision);
    const spec = specOf(set);
    const minReadySeconds = numberOr(spec.minReadySeconds, 0);
    const base: SetStatus = {
      observedGeneration: set.metadata.generation ?? 0,
      replicas: 0,
      readyReplicas: 0,
      currentReplicas: 0,
      updatedReplicas: 0,
      availableReplicas: 0,
      currentRevision: currentRevision.metadata.name ?? '',
      updateRevision: updateRevision.metadata.name ?? '',
      collisionCount,
    };
    const start = startOrdinal(set);
    const count = replicasOf(set);
    const byOrdinal = new Map<number, KubeObject>();
    const condemned: KubeObject[] = [];
    for (const pod of pods) {
      const ordinal = ordinalOf(pod);
      if (podInOrdinalRange(pod, set)) byOrdinal.set(ordinal, pod);
      else if (ordinal >= 0) condemned.push(pod);
    }
    const strategy = isRecord(spec.updateStrategy) ? spec.updateStrategy : {};
    const strategyType = strategy.type === 'OnDelete' ? 'OnDelete' : 'RollingUpdate';
    const rollingUpdate = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    const partition = numberOr(rollingUpdate.partition, 0);
    const currentReplicasBefore = numberOr(statusOf(set).currentReplicas, 0);
    const slots: Slot[] = [];
    for (let ordinal = start; ordinal < start + count; ordinal++) {
      const existing = byOrdinal.get(ordinal);
      if (existing) {
        slots.push({ pod: existing, created: true });
        continue;
      }
      // newVersionedStatefulSetPod: during a rolling update, ordinals below the partition (or the
      // current replica count) are recreated at the current revision, the others at the update one.
      const atCurrent = strategyType === 'RollingUpdate' && ordinal - start < (isRecord(strategy.rollingUpdate) ? partition : currentReplicasBefore);
      slots.push({ pod: atCurrent ? newStatefulSetPod(currentSet, ordinal, base.currentRevision) : newStatefulSetPod(updateSet, ordinal, base.updateRevision), created: false });
    }
    condemned.sort((left, right) => ordinalOf(right) - ordinalOf(left));
    let firstUnhealthy: KubeObject | undefined;
    for (const slot of slots) {
      if (!slot.created || !this.isAvailable(slot.pod, minReadySeconds)) {
        firstUnhealthy = slot.pod;
        break;
      }
    }
    if (!firstUnhealthy) {
      for (let i = condemned.length - 1; i >= 0; i--) {
        if (!this.isAvailable(condemned[i], minReadySeconds)) {
          firstUnhealthy = condemned[i];
          break;
        }
      }
    }
    const finish = () => this.computeStatus(base, minReadySeconds, slots, condemned);
    if (set.metadata.deletionTimestamp) return finish();
    const monotonic = spec.podManagementPolicy !== 'Parallel';
    const errors: unknown[] = [];

    for (const slot of slots) {
      try {
        if (await this.processReplica(set, updateSet, monotonic, slot, minReadySeconds)) {
          if (monotonic) return finish();
        }
      } catch (error) {
        if (monotonic) throw error;
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];

    for (const pod of condemned) {
      try {
        await this.fixClaimOwners(updateSet, pod);
      } catch (error) {
        if (monotonic) throw error;
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];

    for (const pod of condemned) {
      if (isTerminating(pod)) {
        if (monotonic) return finish();
        continue;
      }
      if (monotonic && pod !== firstUnhealthy && !this.isAvailable(pod, minReadySeconds)) return finish();
      await this.deletePod(set, pod);
      if (monotonic) return finish();
    }

    const status = finish();
    if (strategyType === 'OnDelete') return status;
    // Rolling update: the highest ordinal not at the update revision goes first, one at a time.
    for (let index = slots.length - 1; index >= Math.max(0, partition); index--) {
      const { pod, created } = slots[index];
      if (created && revisionOfPod(pod) !== base.updateRevision && !isTerminating(pod)) {
        await this.deletePod(set, pod);
        status.currentReplicas--;
        return status;
      }
      if (!created || !this.isAvailable(pod, minReadySeconds)) return status;
    }
    return status;
  }

  /** processReplica: returns true when the monotonic walk must stop here. */
  private async processReplica(set: KubeObject, updateSet: KubeObject, monotonic: boolean, slot: Slot, minReadySeconds: number): Promise<boolean> {
    const { pod } = slot;
    const phase = podPhase(pod);
    if (slot.created && (phase === 'Failed' || phase === 'Succeeded')) {
      // The pod comes back under the same name once this one is gone.
      if (!isTerminating(pod)) await this.deletePod(set, pod);
      return true;
    }
    if (!slot.created) {
      await this.createPod(set, pod);
      return monotonic;
    }
    if (phase === 'Pending') await this.createMissingClaims(set, pod);
    if (isTerminating(pod) && monotonic) return true;
    if (!this.isAvailable(pod, minReadySeconds) && monotonic) return true;
    if (!identityMatches(set, pod)) {
      const ordinal = ordinalOf(pod);
      await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { labels: { [STATEFULSET_POD_NAME_LABEL]: pod.metadata.name, [POD_INDEX_LABEL]: String(ordinal) } } }, 'merge');
    }
    await this.createMissingClaims(set, pod);
    await this.fixClaimOwners(updateSet, pod);
    return false;
  }

  private async createPod(set: KubeObject, pod: KubeObject): Promise<void> {
    await this.createMissingClaims(set, pod);
    try {
      await this.client.resource(resources.pods).create(pod);
    } catch (error) {
      // A pod of that name exists already: the cache has not caught up yet.
      if (isAlreadyExists(error)) return;
      this.recorder.event(set, 'Warning', 'FailedCreate', `create Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${errorText(error)}`);
      throw error;
    }
    this.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} successful`);
  }

  /** createPersistentVolumeClaims: every claim the pod needs, with the retention policy's owners. */
  private async createMissingClaims(set: KubeObject, pod: KubeObject): Promise<void> {
    const claimsApi = this.client.resource(resources.persistentvolumeclaims);
    for (const claim of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = this.claims.get(claim.metadata.namespace, claim.metadata.name ?? '');
      if (existing) {
        if (existing.metadata.deletionTimestamp) throw new Error(`pvc ${claim.metadata.name ?? ''} is being deleted`);
        continue;
      }
      const owners = retentionOwnerReferences(claim, set, pod);
      if (owners && owners.length > 0) claim.metadata.ownerReferences = owners;
      try {
        await claimsApi.create(claim);
      } catch (error) {
        if (isAlreadyExists(error)) continue;
        this.recorder.event(set, 'Warning', 'FailedCreate', `create Claim ${claim.metadata.name ?? ''} for Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${errorText(error)}`);
        throw error;
      }
      this.recorder.event(set, 'Normal', 'SuccessfulCreate', `create Claim ${claim.metadata.name ?? ''} Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} success`);
    }
  }

  /** ClaimsMatchRetentionPolicy / UpdatePodClaimForRetentionPolicy for one pod's claims. */
  private async fixClaimOwners(set: KubeObject, pod: KubeObject): Promise<void> {
    for (const wanted of claimsFor(set, ordinalOf(pod)).values()) {
      const claim = this.claims.get(wanted.metadata.namespace, wanted.metadata.name ?? '');
      if (!claim || claim.metadata.deletionTimestamp) continue;
      const owners = retentionOwnerReferences(claim, set, pod);
      if (!owners) continue;
      try {
        await this.client.resource(resources.persistentvolumeclaims).patch(claim.metadata.namespace, claim.metadata.name ?? '', { metadata: { ownerReferences: owners.length > 0 ? owners : null } }, 'merge');
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }

  private async deletePod(set: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.client.resource(resources.pods).delete(pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
    } catch (error) {
      if (isNotFound(error)) return;
      this.recorder.event(set, 'Warning', 'FailedDelete', `delete Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} failed error: ${errorText(error)}`);
      throw error;
    }
    this.recorder.event(set, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name ?? ''} in StatefulSet ${set.metadata.name ?? ''} successful`);
  }

  /** updateStatefulSetStatus: completes a finished rolling update, then writes the status if it changed. */
  private async writeStatus(set: KubeObject, status: SetStatus): Promise<void> {
    const strategy = specOf(set).updateStrategy;
    const isRolling = !(isRecord(strategy) && strategy.type === 'OnDelete');
    if (isRolling && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
      status.currentReplicas = status.updatedReplicas;
      status.currentRevision = status.updateRevision;
    }
    if (statusEquals(statusOf(set), status)) return;
    // Fields upstream marks omitempty are removed rather than written as zero.
    const patch: Record<string, unknown> = {
      observedGeneration: status.observedGeneration || null,
      replicas: status.replicas,
      readyReplicas: status.readyReplicas || null,
      currentReplicas: status.currentReplicas || null,
      updatedReplicas: status.updatedReplicas || null,
      currentRevision: status.currentRevision || null,
      updateRevision: status.updateRevision || null,
      collisionCount: status.collisionCount,
      availableReplicas: status.availableReplicas,
    };
    try {
      await this.client.resource(resources.statefulsets).patchStatus(set.metadata.namespace, set.metadata.name ?? '', { status: patch }, 'merge');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  /** truncateHistory: keep revisionHistoryLimit revisions besides the current, update and live ones. */
  private async truncateHistory(set: KubeObject, pods: KubeObject[], revisions: ControllerRevision[], currentRevision: ControllerRevision, updateRevision: ControllerRevision): Promise<void> {
    const live = new Set<string>([currentRevision.metadata.name ?? '', updateRevision.metadata.name ?? '']);
    for (const pod of pods) live.add(revisionOfPod(pod));
    const history = revisions.filter((revision) => !live.has(revision.metadata.name ?? ''));
    const limit = numberOr(specOf(set).revisionHistoryLimit, 10);
    for (const revision of history.slice(0, Math.max(0, history.length - limit))) {
      try {
        await this.history.deleteRevision(revision);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when the pod belongs to the set (used by tests and other controllers). */
export function isStatefulSetPod(set: KubeObject, pod: KubeObject): boolean {
  return isControlledBy(pod, set) && isMemberOf(set, pod);
}
