// ReplicaSetController: keeps `spec.replicas` pods of a ReplicaSet running, after upstream
// pkg/controller/replicaset/replica_set.go (with replica_set_utils.go and the pod helpers of
// pkg/controller/controller_utils.go and controller_ref_manager.go):
// - claims pods: adopts matching orphans and releases owned pods whose labels no longer match;
// - creates pods from the template (generateName `<rs>-`) in slow-start batches 1, 2, 4, … that stop
//   at the first error, or deletes the pods ranked first by upstream's ActivePodsWithRanks;
// - ControllerExpectations: after creating or deleting pods it waits until the informer has seen
//   them before managing replicas again, so a burst of events never creates twice;
// - status (replicas, fullyLabeled, ready, available with minReadySeconds, observedGeneration and
//   the ReplicaFailure condition) through /status, requeued after minReadySeconds for availability;
// - events SuccessfulCreate/SuccessfulDelete/FailedCreate/FailedDelete with upstream messages.
// The same controller runs on core/v1 ReplicationControllers (`ReplicatedKind`, the ReplicationManager
// of replicationManager.ts), as upstream's pkg/controller/replication wraps this one.
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime, parseTime } from '../../shared/kubernetes/time';
import { findCondition, getCondition, removeCondition, statusConditions } from '../../shared/kubernetes/conditions';
import { labelSetMatches, selectorIsEmpty, type LabelSelector } from '../../shared/kubernetes/labelSelector';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { ClientApiError, isInvalid, isNotFound } from '../client/errors';
import { objectKey, splitKey, type Informer, type SharedInformerFactory } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import { ControllerExpectations, controllerOf, isPodActive, isPodAvailable, isPodReady, numberOr, podFromTemplate, podPhase, resolveControllerRef, selectorMatches, SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, specOf, statusOf } from './controllerUtils';

/**
 * The kind a ReplicaSetController manages: what differs between apps/v1 ReplicaSets and core/v1
 * ReplicationControllers (upstream's informer and clientset adapters in pkg/controller/replication).
 */
export interface ReplicatedKind {
  resource: GroupVersionResource;
  group: string;
  apiVersion: string;
  kind: string;
  /** The work queue's name and the event source, as upstream names them. */
  queueName: string;
  component: string;
  /** spec.selector as a LabelSelector; undefined when absent. */
  selectorOf(obj: KubeObject): LabelSelector | undefined;
}

export const replicaSetKind: ReplicatedKind = {
  resource: resources.replicasets,
  group: 'apps',
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  queueName: 'replicaset',
  component: 'replicaset-controller',
  selectorOf: (rs) => (isRecord(specOf(rs).selector) ? (specOf(rs).selector as LabelSelector) : undefined),
};

/** A ReplicationController's selector is a plain label map: its LabelSelector is those labels (upstream's conversion to a ReplicaSet). */
export const replicationControllerKind: ReplicatedKind = {
  resource: resources.replicationcontrollers,
  group: '',
  apiVersion: 'v1',
  kind: 'ReplicationController',
  queueName: 'replicationmanager',
  component: 'replication-controller',
  selectorOf: (rc) => {
    const selector = specOf(rc).selector;
    return isRecord(selector) ? { matchLabels: selector as Record<string, string> } : undefined;
  },
};
/** upstream BurstReplicas: the most pods one sync creates or deletes. */
const BURST_REPLICAS = 500;
/** upstream statusUpdateRetries */
const STATUS_UPDATE_RETRIES = 1;
const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

const phaseOrdinal: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function nodeNameOf(pod: KubeObject): string {
  const nodeName = specOf(pod).nodeName;
  return typeof nodeName === 'string' ? nodeName : '';
}

/** The Ready condition's lastTransitionTime of a ready pod, else undefined (upstream podReadyTime). */
function podReadyTime(pod: KubeObject): number | undefined {
  if (!isPodReady(pod)) return undefined;
  return parseTime(getCondition(pod, 'Ready')?.lastTransitionTime);
}

function creationTime(pod: KubeObject): number | undefined {
  const time = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
  return Number.isFinite(time) ? time : undefined;
}

/** The most restarts of any container, sidecars (restartable init containers) included. */
function maxContainerRestarts(pod: KubeObject): number {
  const status = statusOf(pod);
  let most = 0;
  for (const container of Array.isArray(status.containerStatuses) ? status.containerStatuses : []) {
    if (isRecord(container)) most = Math.max(most, numberOr(container.restartCount, 0));
  }
  const initContainers = Array.isArray(specOf(pod).initContainers) ? (specOf(pod).initContainers as unknown[]).filter(isRecord) : [];
  const sidecars = new Set(initContainers.filter((container) => container.restartPolicy === 'Always').map((container) => String(container.name)));
  for (const container of Array.isArray(status.initContainerStatuses) ? status.initContainerStatuses : []) {
    if (isRecord(container) && sidecars.has(String(container.name))) most = Math.max(most, numberOr(container.restartCount, 0));
  }
  return most;
}

/** upstream GetDeletionCostFromPodAnnotations: an int32, 0 when absent or invalid. */
function deletionCost(pod: KubeObject): number {
  const text = pod.metadata.annotations?.[POD_DELETION_COST];
  if (text === undefined || !/^[+-]?\d+$/.test(text.trim())) return 0;
  const value = Number(text.trim());
  return value >= -2147483648 && value <= 2147483647 ? value : 0;
}

/** upstream logarithmicRankDiff: compares how long ago two instants were on a log2 scale (in nanoseconds). */
function logarithmicRankDiff(first: number, second: number, now: number): number {
  const rank = (time: number): number => {
    const nanoseconds = (now - time) * 1e6;
    return nanoseconds > 0 ? Math.floor(Math.log2(nanoseconds)) : -1;
  };
  return rank(first) - rank(second);
}

/** Negative when `first` should be deleted first: newer (or unknown) instants go first, on the logarithmic scale. */
function compareTimes(first: number | undefined, second: number | undefined, now: number, firstUid: string, secondUid: string): number {
  if (first === second) return 0;
  if (first === undefined || second === undefined) return first === undefined ? -1 : 1;
  const difference = logarithmicRankDiff(first, second, now);
  if (difference === 0) return firstUid < secondUid ? -1 : firstUid > secondUid ? 1 : 0;
  return difference;
}

interface RankedPod {
  pod: KubeObject;
  /** Active related pods on the same node (upstream getPodsRankedByRelatedPodsOnSameNode). */
  colocated: number;
}

/**
 * upstream ActivePodsWithRanks.Less (LogarithmicScaleDown and PodDeletionCost on, as by default):
 * negative when `a` should be deleted before `b`.
 */
function comparePodsForDeletion(a: RankedPod, b: RankedPod, now: number): number {
  const nodeA = nodeNameOf(a.pod);
  const nodeB = nodeNameOf(b.pod);
  // 1. unscheduled before scheduled
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  // 2. Pending < Unknown < Running
  const phaseA = phaseOrdinal[podPhase(a.pod)] ?? 0;
  const phaseB = phaseOrdinal[podPhase(b.pod)] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  // 3. not ready before ready
  const readyA = isPodReady(a.pod);
  const readyB = isPodReady(b.pod);
  if (readyA !== readyB) return readyA ? 1 : -1;
  // 4. lower pod-deletion-cost first
  const costA = deletionCost(a.pod);
  const costB = deletionCost(b.pod);
  if (costA !== costB) return costA - costB;
  // 5. doubled up on a node before alone
  if (a.colocated !== b.colocated) return b.colocated - a.colocated;
  const uidA = a.pod.metadata.uid ?? '';
  const uidB = b.pod.metadata.uid ?? '';
  // 6. ready for less time before ready for longer
  if (readyA && readyB) {
    const order = compareTimes(podReadyTime(a.pod), podReadyTime(b.pod), now, uidA, uidB);
    if (order !== 0) return order;
  }
  // 7. more restarts first
  const restartsA = maxContainerRestarts(a.pod);
  const restartsB = maxContainerRestarts(b.pod);
  if (restartsA !== restartsB) return restartsB - restartsA;
  // 8. newer before older
  return compareTimes(creationTime(a.pod), creationTime(b.pod), now, uidA, uidB);
}

/**
 * upstream getPodsToDelete: the `count` pods to delete, preferring those earliest in their life.
 * `relatedPods` are the active pods of every ReplicaSet with the same controller (a Deployment's
 * sets), used to prefer pods doubled up on a node.
 */
export function podsToDelete(pods: KubeObject[], relatedPods: KubeObject[], count: number, now: number): KubeObject[] {
  if (count >= pods.length) return pods.slice(0, count);
  const podsOnNode = new Map<string, number>();
  for (const pod of relatedPods) {
    if (isPodActive(pod)) podsOnNode.set(nodeNameOf(pod), (podsOnNode.get(nodeNameOf(pod)) ?? 0) + 1);
  }
  const ranked: RankedPod[] = pods.map((pod) => ({ pod, colocated: podsOnNode.get(nodeNameOf(pod)) ?? 0 }));
  ranked.sort((a, b) => comparePodsForDeletion(a, b, now));
  return ranked.slice(0, count).map((entry) => entry.pod);
}

function replicasOf(rs: KubeObject): number {
  return numberOr(specOf(rs).replicas, 1);
}

function minReadySecondsOf(rs: KubeObject): number {
  return numberOr(specOf(rs).minReadySeconds, 0);
}

function templateLabelsOf(rs: KubeObject): Record<string, string> {
  const template = specOf(rs).template;
  const metadata = isRecord(template) && isRecord(template.metadata) ? template.metadata : {};
  return isRecord(metadata.labels) ? (metadata.labels as Record<string, string>) : {};
}

/** upstream calculateStatus: counts over the active pods the set owns; a failed manageReplicas sets ReplicaFailure. */
export function calculateReplicaSetStatus(rs: KubeObject, pods: KubeObject[], manageError: unknown, now: number): Record<string, unknown> {
  const status: Record<string, unknown> = structuredClone(statusOf(rs));
  const templateLabels = templateLabelsOf(rs);
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (labelSetMatches(templateLabels, pod.metadata.labels)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReadySecondsOf(rs), new Date(now))) available++;
    }
  }
  const conditions = statusConditions(status);
  const failure = findCondition(conditions, 'ReplicaFailure');
  if (manageError !== undefined && !failure) {
    const diff = pods.length - replicasOf(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const message = manageError instanceof Error ? manageError.message : String(manageError);
    status.conditions = [...conditions, { type: 'ReplicaFailure', status: 'True', lastTransitionTime: formatTime(now), reason, message }];
  } else if (manageError === undefined && failure) {
    const rest = removeCondition(conditions, 'ReplicaFailure');
    if (rest.length > 0) status.conditions = rest;
    else delete status.conditions;
  }
  status.replicas = pods.length;
  status.fullyLabeledReplicas = fullyLabeled;
  status.readyReplicas = ready;
  status.availableReplicas = available;
  return status;
}

function hasStatusCause(error: unknown, type: string): boolean {
  return error instanceof ClientApiError && (error.details?.causes ?? []).some((cause) => cause.type === type);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---- the controller ----

export interface ReplicaSetControllerOptions extends ControllerOptions {
  /** The most pods one sync creates or deletes (upstream BurstReplicas, 500). */
  burstReplicas?: number;
}

export class ReplicaSetController extends QueueController {
  /** the ReplicaSets (or ReplicationControllers) this controller manages */
  private readonly replicaSets: Informer;
  private readonly pods = this.factory.informerFor(resources.pods);
  readonly expectations = new ControllerExpectations(this.clock);
  private readonly burstReplicas: number;

  constructor(client: ApiClient, factory: SharedInformerFactory, options: ReplicaSetControllerOptions = {}, private readonly managed: ReplicatedKind = replicaSetKind) {
    super(client, factory, { name: managed.queueName, component: managed.component, workers: 5 }, options);
    this.replicaSets = factory.informerFor(managed.resource);
    this.burstReplicas = options.burstReplicas ?? BURST_REPLICAS;
    this.enqueueChanges(this.replicaSets, (rs) => this.expectations.delete(objectKey(rs)));
    this.handle(this.pods, {
      onAdd: (pod) => this.addPod(pod),
      onUpdate: (old, pod) => this.updatePod(old, pod),
      onDelete: (pod) => this.deletePod(pod),
    });
  }

  // ---- event handlers: they only enqueue keys and record what was observed ----

  /** The ReplicaSet a controller reference points to, if it still is that object (upstream resolveControllerRef). */
  private resolveControllerRef(namespace: string | undefined, ref: OwnerReference): KubeObject | undefined {
    return resolveControllerRef(this.replicaSets, namespace, ref, this.managed.kind, this.managed.group);
  }

  /** The set's selector, or undefined: an absent selector matches nothing. */
  private selectorOf(rs: KubeObject): LabelSelector | undefined {
    return this.managed.selectorOf(rs);
  }

  /** Sets in the pod's namespace whose selector matches it (upstream GetPodReplicaSets, which skips empty selectors: they match nothing here). */
  private replicaSetsMatching(pod: KubeObject): KubeObject[] {
    return this.replicaSets
      .listByNamespace(pod.metadata.namespace ?? '')
      .filter((rs) => !selectorIsEmpty(this.selectorOf(rs)) && selectorMatches(this.selectorOf(rs), pod.metadata.labels));
  }

  private addPod(pod: KubeObject): void {
    // A pod that is already going (seen on a restart) counts as a deletion, not a creation.
    if (pod.metadata.deletionTimestamp) {
      this.deletePod(pod);
      return;
    }
    const ref = controllerOf(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata.namespace, ref);
      if (!rs) return;
      this.expectations.creationObserved(objectKey(rs));
      this.enqueue(rs);
      return;
    }
    // An orphan: the sets that match it may want to adopt it.
    for (const rs of this.replicaSetsMatching(pod)) this.enqueue(rs);
  }

  private updatePod(old: KubeObject, pod: KubeObject): void {
    // Periodic relists resend unchanged objects; nothing to do for those.
    if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
    if (pod.metadata.deletionTimestamp) {
      // A graceful deletion started: replace the pod now rather than when the kubelet finishes.
      this.deletePod(pod);
      if (labelsChanged) this.deletePod(old);
      return;
    }
    const ref = controllerOf(pod);
    const oldRef = controllerOf(old);
    const refChanged = JSON.stringify(ref) !== JSON.stringify(oldRef);
    if (refChanged && oldRef) {
      const oldSet = this.resolveControllerRef(old.metadata.namespace, oldRef);
      if (oldSet) this.enqueue(oldSet);
    }
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata.namespace, ref);
      if (!rs) return;
      this.enqueue(rs);
      // Availability changes with time, not with an event: look again once minReadySeconds have passed
      // (plus a second, as upstream, against rounding).
      const minReadySeconds = minReadySecondsOf(rs);
      if (!isPodReady(old) && isPodReady(pod) && minReadySeconds > 0) this.queue.addAfter(objectKey(rs), (minReadySeconds + 1) * 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rs of this.replicaSetsMatching(pod)) this.enqueue(rs);
  }

  private deletePod(pod: KubeObject): void {
    const ref = controllerOf(pod);
    if (!ref) return;
    const rs = this.resolveControllerRef(pod.metadata.namespace, ref);
    if (!rs) return;
    const key = objectKey(rs);
    this.expectations.deletionObserved(key, objectKey(pod));
    this.queue.add(key);
  }

  // ---- reconcile ----

  /** upstream syncReplicaSet: claim pods, manage replicas if expectations allow, then write status. */
  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.replicaSets.get(namespace, name);
    if (!cached) {
      this.expectations.delete(key);
      return;
    }
    // Objects in a list carry no apiVersion/kind; owner references and events need them.
    const rs: KubeObject = { ...cached, apiVersion: this.managed.apiVersion, kind: this.managed.kind };
    const needsSync = this.expectations.satisfied(key);
    const active = this.pods.listByNamespace(namespace ?? '').filter(isPodActive);
    const owned = await this.claimPods(rs, active);

    let manageError: unknown;
    if (needsSync && !rs.metadata.deletionTimestamp) {
      try {
        await this.manageReplicas(key, rs, owned);
      } catch (error) {
        manageError = error;
      }
    }
    const now = this.clock.now();
    const status = calculateReplicaSetStatus(rs, owned, manageError, now);
    const updated = await this.updateStatus(rs, status);
    const updatedStatus = statusOf(updated);
    const replicas = replicasOf(updated);
    // A last line of defence against clock skew: look again once pods may have become available.
    if (manageError === undefined && minReadySecondsOf(updated) > 0 && updatedStatus.readyReplicas === replicas && updatedStatus.availableReplicas !== replicas) {
      this.queue.addAfter(key, minReadySecondsOf(updated) * 1000);
    }
    if (manageError !== undefined) throw manageError;
  }

  /**
   * upstream PodControllerRefManager.ClaimPods: the active pods this set owns after adopting
   * matching orphans and releasing owned pods that no longer match.
   */
  private async claimPods(rs: KubeObject, pods: KubeObject[]): Promise<KubeObject[]> {
    const selector = this.selectorOf(rs);
    const matches = (pod: KubeObject) => !selectorIsEmpty(selector) && selectorMatches(selector, pod.metadata.labels);
    const claimed: KubeObject[] = [];
    const errors: unknown[] = [];
    let adoptable: Promise<void> | undefined;
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (ref) {
        if (ref.uid !== rs.metadata.uid) continue;
        if (matches(pod)) {
          claimed.push(pod);
          continue;
        }
        // A set being deleted keeps its pods, so that the garbage collector can act on them.
        if (rs.metadata.deletionTimestamp) continue;
        try {
          await this.releasePod(rs, pod);
        } catch (error) {
          errors.push(error);
        }
        continue;
      }
      if (rs.metadata.deletionTimestamp || !matches(pod) || pod.metadata.deletionTimestamp) continue;
      try {
        // Adopting needs a fresh read: the cache may not show that the set was just deleted (upstream #42639).
        adoptable ??= this.recheckNotDeleted(rs);
        await adoptable;
        const adopted = await this.adoptPod(rs, pod);
        if (adopted) claimed.push(adopted);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
    return claimed;
  }

  private async recheckNotDeleted(rs: KubeObject): Promise<void> {
    const fresh = await this.client.resource(this.managed.resource).get(rs.metadata.namespace, rs.metadata.name ?? '');
    if (fresh.metadata.uid !== rs.metadata.uid) throw new Error(`original ${this.managed.kind} ${rs.metadata.namespace}/${rs.metadata.name} is gone: got uid ${fresh.metadata.uid}, wanted ${rs.metadata.uid}`);
    if (fresh.metadata.deletionTimestamp) throw new Error(`${rs.metadata.namespace}/${rs.metadata.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
  }

  /**
   * Adds the controller reference with a JSON patch that first tests the pod's uid and current owner
   * references, so a pod adopted meanwhile by someone else (or recreated) is left alone.
   */
  private async adoptPod(rs: KubeObject, pod: KubeObject): Promise<KubeObject | undefined> {
    const existing = pod.metadata.ownerReferences;
    const ours: OwnerReference = { apiVersion: this.managed.apiVersion, kind: this.managed.kind, name: rs.metadata.name ?? '', uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
    const patch: unknown[] = [{ op: 'test', path: '/metadata/uid', value: pod.metadata.uid }];
    if (existing) patch.push({ op: 'test', path: '/metadata/ownerReferences', value: existing });
    patch.push({ op: 'add', path: '/metadata/ownerReferences', value: [...(existing ?? []), ours] });
    try {
      return await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', patch, 'json');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Removes this set's reference from a pod that stopped matching (upstream releasePod). */
  private async releasePod(rs: KubeObject, pod: KubeObject): Promise<void> {
    const existing = pod.metadata.ownerReferences ?? [];
    const remaining = existing.filter((ref) => ref.uid !== rs.metadata.uid);
    const patch: unknown[] = [
      { op: 'test', path: '/metadata/uid', value: pod.metadata.uid },
      { op: 'test', path: '/metadata/ownerReferences', value: existing },
      remaining.length > 0 ? { op: 'replace', path: '/metadata/ownerReferences', value: remaining } : { op: 'remove', path: '/metadata/ownerReferences' },
    ];
    try {
      await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', patch, 'json');
    } catch (error) {
      // Gone, or changed under us (a failed test): the pod's next update brings it back here.
      if (isNotFound(error) || isInvalid(error)) return;
      throw error;
    }
  }

  /** upstream manageReplicas: one step toward spec.replicas, bounded by burstReplicas. */
  private async manageReplicas(key: string, rs: KubeObject, pods: KubeObject[]): Promise<void> {
    const diff = pods.length - replicasOf(rs);
    if (diff < 0) {
      const count = Math.min(-diff, this.burstReplicas);
      this.expectations.expectCreations(key, count);
      const { successes, error } = await slowStartBatch(count, SLOW_START_INITIAL_BATCH_SIZE, () => this.createPod(rs));
      // Pods never attempted will not be observed: stop expecting them, the next sync retries.
      for (let skipped = count - successes; skipped > 0; skipped--) this.expectations.creationObserved(key);
      if (error !== undefined) throw error;
    } else if (diff > 0) {
      const count = Math.min(diff, this.burstReplicas);
      const chosen = podsToDelete(pods, this.relatedPods(rs), count, this.clock.now());
      this.expectations.expectDeletions(key, chosen.map(objectKey));
      const results = await Promise.allSettled(chosen.map((pod) => this.deletePodOf(key, rs, pod)));
      const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /** upstream RealPodControl.CreatePods */
  private async createPod(rs: KubeObject): Promise<void> {
    const pod = podFromTemplate(specOf(rs).template, rs, { generateNamePrefix: rs.metadata.name });
    if (Object.keys(pod.metadata.labels ?? {}).length === 0) throw new Error('unable to create pods, no labels');
    let created: KubeObject;
    try {
      created = await this.client.resource(resources.pods).create(pod);
    } catch (error) {
      // A terminating namespace refuses every pod; that is no failure of the set.
      if (hasStatusCause(error, 'NamespaceTerminating')) return;
      this.recorder.event(rs, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(error)}`);
      throw error;
    }
    this.recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
  }

  /** upstream RealPodControl.DeletePod, with the expectation given back when the delete fails. */
  private async deletePodOf(key: string, rs: KubeObject, pod: KubeObject): Promise<void> {
    const name = pod.metadata.name ?? '';
    try {
      await this.client.resource(resources.pods).delete(pod.metadata.namespace, name);
    } catch (error) {
      this.expectations.deletionObserved(key, objectKey(pod));
      if (isNotFound(error)) return;
      this.recorder.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(error)}`);
      throw new Error(`unable to delete pods: ${errorMessage(error)}`);
    }
    this.recorder.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
  }

  /** Pods of every set with the same controller as this one (upstream getIndirectlyRelatedPods). */
  private relatedPods(rs: KubeObject): KubeObject[] {
    const owner = controllerOf(rs);
    const sets = owner ? this.replicaSets.listByNamespace(rs.metadata.namespace ?? '').filter((other) => controllerOf(other)?.uid === owner.uid) : [rs];
    const seen = new Set<string>();
    const related: KubeObject[] = [];
    const pods = this.pods.listByNamespace(rs.metadata.namespace ?? '');
    for (const set of sets) {
      const selector = this.selectorOf(set);
      if (selectorIsEmpty(selector)) continue;
      for (const pod of pods) {
        const uid = pod.metadata.uid ?? objectKey(pod);
        if (seen.has(uid) || !selectorMatches(selector, pod.metadata.labels)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }

  /** upstream updateReplicaSetStatus: skip when nothing changed, else PUT /status with one GET-and-retry. */
  private async updateStatus(rs: KubeObject, status: Record<string, unknown>): Promise<KubeObject> {
    const current = statusOf(rs);
    const same =
      numberOr(current.replicas, 0) === status.replicas &&
      numberOr(current.fullyLabeledReplicas, 0) === status.fullyLabeledReplicas &&
      numberOr(current.readyReplicas, 0) === status.readyReplicas &&
      numberOr(current.availableReplicas, 0) === status.availableReplicas &&
      rs.metadata.generation === current.observedGeneration &&
      JSON.stringify(current.conditions ?? []) === JSON.stringify(status.conditions ?? []);
    if (same) return rs;
    const desired = { ...status, observedGeneration: rs.metadata.generation };
    const client = this.client.resource(this.managed.resource);
    let target: KubeObject = rs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await client.updateStatus({ ...structuredClone(target), apiVersion: this.managed.apiVersion, kind: this.managed.kind, status: desired });
      } catch (error) {
        if (attempt >= STATUS_UPDATE_RETRIES) throw error;
        target = await client.get(rs.metadata.namespace, rs.metadata.name ?? '');
      }
    }
  }
}
