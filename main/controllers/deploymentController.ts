// DeploymentController: rolls Deployments out through ReplicaSets, after upstream
// pkg/controller/deployment (deployment_controller.go, sync.go, rolling.go, recreate.go,
// progress.go). It only manages ReplicaSets — the ReplicaSet controller turns them into pods:
// - ReplicaSets matching the selector are adopted, non-matching owned ones released, and those of
//   other controllers left alone, so Deployments with overlapping selectors never fight;
// - the new ReplicaSet `<deployment>-<pod-template-hash>` carries the hash in its labels, selector
//   and template; revision, desired-replicas and max-replicas annotations as upstream;
// - RollingUpdate grows the new ReplicaSet within maxSurge and shrinks old ones within
//   maxUnavailable (unhealthy replicas first); Recreate scales old ones to 0, waits until their pods
//   are gone, then creates the new one; resizes during a rollout are spread proportionally;
// - paused Deployments only scale; revisionHistoryLimit prunes old ReplicaSets with no replicas;
// - status counts, the Available and Progressing conditions, and the progress deadline (with a
//   requeue at the moment the deadline would pass) as `kubectl rollout status` reads them.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient, ResourceClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { objectKey, splitKey } from '../client/informer';
import { resources } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { controllerOf, podPhase, resolveControllerRef, selectorMatches, specOf, statusOf } from './controllerUtils';
import {
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  activeReplicaSets,
  bySizeNewer,
  bySizeOlder,
  byCreationTimestamp,
  byRevision,
  calculateStatus,
  canonicalJson,
  computeHash,
  conditionsOf,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  desiredReplicasAnnotation,
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  getCondition,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newCondition,
  newReplicaSetReplicas,
  progressDeadlineSeconds,
  proportionFor,
  reasons,
  removeCondition,
  replicasAnnotationsNeedUpdate,
  replicasOf,
  revisionHistoryLimit,
  serializeStatus,
  setCondition,
  setDeploymentRevision,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  statusNumber,
  strategyOf,
  totalReplicas,
  totalStatus,
  type DeploymentStatus,
} from './deploymentUtil';

export type DeploymentControllerOptions = ControllerOptions;

/** pods of the Deployment grouped by the uid of the ReplicaSet controlling them (upstream getPodMapForDeployment) */
type PodMap = Map<string, KubeObject[]>;

export class DeploymentController extends QueueController {
  private readonly deployments = this.factory.informerFor(resources.deployments);
  private readonly replicaSets = this.factory.informerFor(resources.replicasets);
  private readonly pods = this.factory.informerFor(resources.pods);

  constructor(client: ApiClient, factory: SharedInformerFactory, options: DeploymentControllerOptions = {}) {
    super(client, factory, { name: 'deployment', component: 'deployment-controller', workers: 5 }, options);

    this.enqueueChanges(this.deployments);
    this.handle(this.replicaSets, {
      onAdd: (rs) => this.replicaSetChanged(undefined, rs),
      onUpdate: (old, rs) => this.replicaSetChanged(old, rs),
      onDelete: (rs) => this.enqueueController(rs),
    });
    this.handle(this.pods, {
      onUpdate: (old, pod) => {
        if (podPhase(old) !== podPhase(pod)) this.podGone(pod);
      },
      onDelete: (pod) => this.podGone(pod),
    });
  }

  // ---- event handlers: they only enqueue keys ----

  private enqueueController(rs: KubeObject): void {
    const ref = controllerOf(rs);
    const deployment = ref ? resolveControllerRef(this.deployments, rs.metadata.namespace, ref, 'Deployment', 'apps') : undefined;
    if (deployment) this.enqueue(deployment);
  }

  /** upstream addReplicaSet/updateReplicaSet: the owner, or for an orphan every Deployment that could adopt it. */
  private replicaSetChanged(old: KubeObject | undefined, rs: KubeObject): void {
    if (old && old.metadata.resourceVersion === rs.metadata.resourceVersion) return;
    const oldRef = old ? controllerOf(old) : undefined;
    const ref = controllerOf(rs);
    if (old && oldRef && oldRef.uid !== ref?.uid) this.enqueueController(old);
    if (ref) {
      this.enqueueController(rs);
      return;
    }
    const labelsChanged = !old || canonicalJson(old.metadata.labels ?? {}) !== canonicalJson(rs.metadata.labels ?? {});
    if (labelsChanged || oldRef) {
      for (const deployment of this.deployments.listByNamespace(rs.metadata.namespace ?? '')) {
        if (selectorMatches(specOf(deployment).selector, rs.metadata.labels)) this.queue.add(objectKey(deployment));
      }
    }
  }

  /** upstream deletePod: a Recreate rollout waits for the old pods to be gone. */
  private podGone(pod: KubeObject): void {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'ReplicaSet') return;
    const rs = this.replicaSets.get(pod.metadata.namespace, ref.name);
    if (!rs || rs.metadata.uid !== ref.uid) return;
    const deploymentRef = controllerOf(rs);
    if (!deploymentRef || deploymentRef.kind !== 'Deployment') return;
    const deployment = this.deployments.get(rs.metadata.namespace, deploymentRef.name);
    if (deployment && deployment.metadata.uid === deploymentRef.uid && strategyOf(deployment).type === 'Recreate') this.queue.add(objectKey(deployment));
  }

  // ---- reconcile (upstream syncDeployment) ----

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const cached = this.deployments.get(namespace, name);
    if (!cached) return;
    const deployment = structuredClone(cached);
    deployment.apiVersion = 'apps/v1';
    deployment.kind = 'Deployment';
    const selector = specOf(deployment).selector;
    if (isRecord(selector) && canonicalJson(selector) === canonicalJson({})) {
      this.recorder.event(deployment, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if (numberOrZero(statusOf(deployment).observedGeneration) < (deployment.metadata.generation ?? 0)) {
        deployment.status = { ...statusOf(deployment), observedGeneration: deployment.metadata.generation };
        await this.client.resource(resources.deployments).updateStatus(deployment);
      }
      return;
    }
    const replicaSets = await this.claimReplicaSets(deployment);
    if (deployment.metadata.deletionTimestamp) {
      await this.syncStatusOnly(deployment, replicaSets);
      return;
    }
    await this.checkPausedConditions(deployment);
    if (specOf(deployment).paused === true) {
      await this.sync(deployment, replicaSets);
      return;
    }
    if (await this.isScalingEvent(deployment, replicaSets)) {
      await this.sync(deployment, replicaSets);
      return;
    }
    if (strategyOf(deployment).type === 'Recreate') await this.rolloutRecreate(deployment, replicaSets, this.podMapFor(deployment, replicaSets));
    else await this.rolloutRolling(deployment, replicaSets);
  }

  private now(): Date {
    return new Date(this.clock.now());
  }

  private get replicaSetClient(): ResourceClient {
    return this.client.resource(resources.replicasets);
  }

  private get deploymentClient(): ResourceClient {
    return this.client.resource(resources.deployments);
  }

  /** Writes the Deployment's status and keeps the local copy's resourceVersion current. */
  private async updateStatus(deployment: KubeObject, status: DeploymentStatus): Promise<void> {
    deployment.status = serializeStatus(status);
    const updated = await this.deploymentClient.updateStatus(deployment);
    deployment.metadata.resourceVersion = updated.metadata.resourceVersion;
  }

  /**
   * Upstream writes the revision annotation along with the status (the Deployment status strategy
   * keeps metadata); a metadata-only patch of the main resource does the same on any server, and
   * does not bump the generation.
   */
  private async saveRevision(deployment: KubeObject, revision: string): Promise<void> {
    if (!setDeploymentRevision(deployment, revision)) return;
    const patched = await this.deploymentClient.patch(deployment.metadata.namespace, deployment.metadata.name ?? '', { metadata: { annotations: { [REVISION_ANNOTATION]: revision } } }, 'merge');
    deployment.metadata.resourceVersion = patched.metadata.resourceVersion;
  }

  // ---- ownership (upstream getReplicaSetsForDeployment / ClaimReplicaSets) ----

  private async claimReplicaSets(deployment: KubeObject): Promise<KubeObject[]> {
    const selector = specOf(deployment).selector;
    const claimed: KubeObject[] = [];
    let adoptionChecked = false;
    for (const cached of this.replicaSets.listByNamespace(deployment.metadata.namespace ?? '')) {
      const ref = controllerOf(cached);
      const matches = selectorMatches(selector, cached.metadata.labels);
      if (ref) {
        if (ref.uid !== deployment.metadata.uid) continue;
        if (matches) {
          claimed.push(cached);
          continue;
        }
        if (deployment.metadata.deletionTimestamp) continue;
        await this.ignoreGone(async () => {
          const released = structuredClone(cached);
          released.metadata.ownerReferences = (released.metadata.ownerReferences ?? []).filter((owner) => owner.uid !== deployment.metadata.uid);
          await this.replicaSetClient.update(released);
        });
        continue;
      }
      if (deployment.metadata.deletionTimestamp || !matches || cached.metadata.deletionTimestamp) continue;
      if (!adoptionChecked) {
        // upstream RecheckDeletionTimestamp: never adopt for a Deployment that is gone or going.
        const fresh = await this.deploymentClient.get(deployment.metadata.namespace, deployment.metadata.name ?? '');
        if (fresh.metadata.uid !== deployment.metadata.uid) throw new Error(`original Deployment ${objectKey(deployment)} is gone: got uid ${fresh.metadata.uid ?? ''}, wanted ${deployment.metadata.uid ?? ''}`);
        if (fresh.metadata.deletionTimestamp) throw new Error(`${objectKey(deployment)} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
        adoptionChecked = true;
      }
      await this.ignoreGone(async () => {
        const adopted = structuredClone(cached);
        adopted.metadata.ownerReferences = [...(adopted.metadata.ownerReferences ?? []), { apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name ?? '', uid: deployment.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
        claimed.push(await this.replicaSetClient.update(adopted));
      });
    }
    return claimed;
  }

  private async ignoreGone(action: () => Promise<void>): Promise<void> {
    try {
      await action();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private podMapFor(deployment: KubeObject, replicaSets: KubeObject[]): PodMap {
    const map: PodMap = new Map(replicaSets.map((rs) => [rs.metadata.uid ?? '', []]));
    for (const pod of this.pods.listByNamespace(deployment.metadata.namespace ?? '')) {
      if (!selectorMatches(specOf(deployment).selector, pod.metadata.labels)) continue;
      const ref = controllerOf(pod);
      if (ref) map.get(ref.uid)?.push(pod);
    }
    return map;
  }

  // ---- sync.go ----

  private async syncStatusOnly(deployment: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    await this.syncDeploymentStatus([...oldReplicaSets, newReplicaSet], newReplicaSet, deployment);
  }

  /** Scaling events and paused Deployments: resize without advancing the rollout. */
  private async sync(deployment: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    await this.scale(deployment, newReplicaSet, oldReplicaSets);
    if (specOf(deployment).paused === true) await this.cleanupDeployment(oldReplicaSets, deployment);
    await this.syncDeploymentStatus([...oldReplicaSets, newReplicaSet], newReplicaSet, deployment);
  }

  /** Progressing is Unknown/DeploymentPaused while paused, DeploymentResumed after (unless timed out). */
  private async checkPausedConditions(deployment: KubeObject): Promise<void> {
    if (progressDeadlineSeconds(deployment) === undefined) return;
    const condition = getCondition(deployment.status, 'Progressing');
    if (condition?.reason === reasons.timedOut) return;
    const pausedConditionExists = condition?.reason === reasons.paused;
    const paused = specOf(deployment).paused === true;
    const status = currentStatus(deployment);
    if (paused && !pausedConditionExists) setCondition(status, newCondition('Progressing', 'Unknown', reasons.paused, 'Deployment is paused', this.now()));
    else if (!paused && pausedConditionExists) setCondition(status, newCondition('Progressing', 'Unknown', reasons.resumed, 'Deployment is resumed', this.now()));
    else return;
    await this.updateStatus(deployment, status);
  }

  private async allReplicaSetsAndSyncRevision(deployment: KubeObject, replicaSets: KubeObject[], createIfNotExisted: boolean): Promise<{ newReplicaSet: KubeObject | undefined; oldReplicaSets: KubeObject[] }> {
    const existingNew = findNewReplicaSet(deployment, replicaSets);
    const oldReplicaSets = findOldReplicaSets(existingNew, replicaSets);
    const newReplicaSet = await this.getNewReplicaSet(deployment, replicaSets, oldReplicaSets, createIfNotExisted);
    return { newReplicaSet, oldReplicaSets };
  }

  /** upstream getNewReplicaSet: syncs the existing new ReplicaSet's annotations, or creates it. */
  private async getNewReplicaSet(deployment: KubeObject, replicaSets: KubeObject[], oldReplicaSets: KubeObject[], createIfNotExisted: boolean): Promise<KubeObject | undefined> {
    const existing = findNewReplicaSet(deployment, replicaSets);
    const newRevision = maxRevision(oldReplicaSets) + 1;
    const minReadySeconds = numberOrZero(specOf(deployment).minReadySeconds);
    if (existing) {
      const copy = structuredClone(existing);
      const annotationsUpdated = setNewReplicaSetAnnotations(deployment, copy, newRevision, true);
      if (annotationsUpdated || numberOrZero(specOf(copy).minReadySeconds) !== minReadySeconds) {
        copy.spec = { ...specOf(copy), minReadySeconds };
        const updated = await this.replicaSetClient.update(copy);
        // Later steps of this sync read the list again; they must see this write, not the cache.
        replicaSets[replicaSets.indexOf(existing)] = updated;
        return updated;
      }
      await this.saveRevision(deployment, copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
      if (progressDeadlineSeconds(deployment) !== undefined && !getCondition(deployment.status, 'Progressing')) {
        const status = currentStatus(deployment);
        setCondition(status, newCondition('Progressing', 'True', reasons.foundNewReplicaSet, `Found new replica set "${copy.metadata.name ?? ''}"`, this.now()));
        await this.updateStatus(deployment, status);
      }
      return copy;
    }
    if (!createIfNotExisted) return undefined;

    const template = structuredClone(isRecord(specOf(deployment).template) ? specOf(deployment).template : {}) as Record<string, unknown>;
    const collisionCount = typeof statusOf(deployment).collisionCount === 'number' ? (statusOf(deployment).collisionCount as number) : undefined;
    const hash = computeHash(template, collisionCount);
    const templateMetadata = isRecord(template.metadata) ? template.metadata : {};
    const labels = { ...(isRecord(templateMetadata.labels) ? (templateMetadata.labels as Record<string, string>) : {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    template.metadata = { ...templateMetadata, labels };
    const selector = structuredClone(isRecord(specOf(deployment).selector) ? specOf(deployment).selector : {}) as Record<string, unknown>;
    selector.matchLabels = { ...(isRecord(selector.matchLabels) ? selector.matchLabels : {}), [POD_TEMPLATE_HASH_LABEL]: hash };
    const name = `${deployment.metadata.name ?? ''}-${hash}`;
    const newReplicaSet: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: deployment.metadata.namespace,
        labels: { ...labels },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name ?? '', uid: deployment.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas: 0, minReadySeconds, selector, template },
    };
    const newReplicas = newReplicaSetReplicas(deployment, [...oldReplicaSets, newReplicaSet], newReplicaSet);
    (newReplicaSet.spec as Record<string, unknown>).replicas = newReplicas;
    setNewReplicaSetAnnotations(deployment, newReplicaSet, newRevision, false);

    let created: KubeObject;
    let alreadyExists = false;
    try {
      created = await this.replicaSetClient.create(newReplicaSet);
    } catch (error) {
      if (isAlreadyExists(error)) {
        alreadyExists = true;
        const found = this.replicaSets.get(deployment.metadata.namespace, name) ?? (await this.replicaSetClient.get(deployment.metadata.namespace, name));
        const ref = controllerOf(found);
        if (ref?.uid === deployment.metadata.uid && equalIgnoreHash(specOf(deployment).template, specOf(found).template)) {
          created = found;
        } else {
          // A different template hashed to the same name: bump collisionCount so the next hash differs.
          const status = currentStatus(deployment);
          status.collisionCount = (collisionCount ?? 0) + 1;
          await this.updateStatus(deployment, status);
          throw error;
        }
      } else {
        const message = `Failed to create new replica set "${name}": ${error instanceof Error ? error.message : String(error)}`;
        if (progressDeadlineSeconds(deployment) !== undefined) {
          const status = currentStatus(deployment);
          setCondition(status, newCondition('Progressing', 'False', reasons.failedReplicaSetCreate, message, this.now()));
          await this.updateStatus(deployment, status).catch(() => undefined);
        }
        this.recorder.event(deployment, 'Warning', reasons.failedReplicaSetCreate, message);
        throw error;
      }
    }
    if (!alreadyExists && newReplicas > 0) this.recorder.event(deployment, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name ?? ''} from 0 to ${newReplicas}`);
    await this.saveRevision(deployment, String(newRevision));
    if (!alreadyExists && progressDeadlineSeconds(deployment) !== undefined) {
      const status = currentStatus(deployment);
      setCondition(status, newCondition('Progressing', 'True', reasons.newReplicaSet, `Created new replica set "${created.metadata.name ?? ''}"`, this.now()));
      await this.updateStatus(deployment, status);
    }
    return created;
  }

  /** upstream scale: resizes during a rollout go to the single active ReplicaSet, or proportionally. */
  private async scale(deployment: KubeObject, newReplicaSet: KubeObject | undefined, oldReplicaSets: KubeObject[]): Promise<void> {
    const desired = replicasOf(deployment);
    const activeOrLatest = findActiveOrLatest(newReplicaSet, oldReplicaSets);
    if (activeOrLatest) {
      if (replicasOf(activeOrLatest) === desired) return;
      await this.scaleReplicaSetAndRecordEvent(activeOrLatest, desired, deployment);
      return;
    }
    if (isSaturated(deployment, newReplicaSet)) {
      for (const old of activeReplicaSets(oldReplicaSets)) await this.scaleReplicaSetAndRecordEvent(old, 0, deployment);
      return;
    }
    if (!isRollingUpdate(deployment)) return;
    const all = activeReplicaSets([...oldReplicaSets, newReplicaSet]);
    const allowedSize = desired > 0 ? desired + maxSurge(deployment) : 0;
    const toAdd = allowedSize - totalReplicas(all);
    if (toAdd > 0) all.sort(bySizeNewer);
    else if (toAdd < 0) all.sort(bySizeOlder);
    let added = 0;
    const sizes = new Map<string, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const proportion = proportionFor(rs, deployment, toAdd, added);
        sizes.set(rs.metadata.name ?? '', replicasOf(rs) + proportion);
        added += proportion;
      } else {
        sizes.set(rs.metadata.name ?? '', replicasOf(rs));
      }
    }
    for (let i = 0; i < all.length; i++) {
      const rs = all[i];
      const rsName = rs.metadata.name ?? '';
      // Leftovers go to the largest ReplicaSet.
      if (i === 0 && toAdd !== 0) sizes.set(rsName, Math.max(0, (sizes.get(rsName) ?? 0) + toAdd - added));
      await this.scaleReplicaSet(rs, sizes.get(rsName) ?? 0, deployment);
    }
  }

  private async scaleReplicaSetAndRecordEvent(rs: KubeObject, newScale: number, deployment: KubeObject): Promise<{ scaled: boolean; replicaSet: KubeObject }> {
    if (replicasOf(rs) === newScale) return { scaled: false, replicaSet: rs };
    return this.scaleReplicaSet(rs, newScale, deployment);
  }

  private async scaleReplicaSet(rs: KubeObject, newScale: number, deployment: KubeObject): Promise<{ scaled: boolean; replicaSet: KubeObject }> {
    const oldScale = replicasOf(rs);
    const sizeNeedsUpdate = oldScale !== newScale;
    const desired = replicasOf(deployment);
    const max = desired + maxSurge(deployment);
    if (!sizeNeedsUpdate && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, replicaSet: rs };
    const copy = structuredClone(rs);
    copy.apiVersion = 'apps/v1';
    copy.kind = 'ReplicaSet';
    copy.spec = { ...specOf(copy), replicas: newScale };
    setReplicasAnnotations(copy, desired, max);
    const updated = await this.replicaSetClient.update(copy);
    if (sizeNeedsUpdate) {
      const operation = oldScale < newScale ? 'up' : 'down';
      this.recorder.event(deployment, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${updated.metadata.name ?? ''} from ${oldScale} to ${newScale}`);
    }
    return { scaled: sizeNeedsUpdate, replicaSet: updated };
  }

  /** upstream isScalingEvent: some active ReplicaSet was annotated for a different size than wanted now. */
  private async isScalingEvent(deployment: KubeObject, replicaSets: KubeObject[]): Promise<boolean> {
    const { newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    for (const rs of activeReplicaSets([...oldReplicaSets, newReplicaSet])) {
      const desired = desiredReplicasAnnotation(rs);
      if (desired !== undefined && desired !== replicasOf(deployment)) return true;
    }
    return false;
  }

  /** upstream cleanupDeployment: keeps revisionHistoryLimit old ReplicaSets, deleting only empty ones. */
  private async cleanupDeployment(oldReplicaSets: KubeObject[], deployment: KubeObject): Promise<void> {
    const limit = revisionHistoryLimit(deployment);
    if (limit === undefined) return;
    const cleanable = oldReplicaSets.filter((rs) => !rs.metadata.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, diff)) {
      if (statusNumber(rs, 'replicas') !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > statusNumber(rs, 'observedGeneration') || rs.metadata.deletionTimestamp) continue;
      await this.ignoreGone(async () => {
        await this.replicaSetClient.delete(rs.metadata.namespace, rs.metadata.name ?? '');
      });
    }
  }

  private async syncDeploymentStatus(allReplicaSets: (KubeObject | undefined)[], newReplicaSet: KubeObject | undefined, deployment: KubeObject): Promise<void> {
    const status = calculateStatus(allReplicaSets, newReplicaSet, deployment, this.now());
    if (sameStatus(deployment, status)) return;
    await this.updateStatus(deployment, status);
  }

  // ---- rolling.go ----

  private async rolloutRolling(deployment: KubeObject, replicaSets: KubeObject[]): Promise<void> {
    const { newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, true);
    if (!newReplicaSet) return;
    const all = [...oldReplicaSets, newReplicaSet];
    if (await this.reconcileNewReplicaSet(all, newReplicaSet, deployment)) {
      await this.syncRolloutStatus(all, newReplicaSet, deployment);
      return;
    }
    if (await this.reconcileOldReplicaSets(all, activeReplicaSets(oldReplicaSets), newReplicaSet, deployment)) {
      await this.syncRolloutStatus(all, newReplicaSet, deployment);
      return;
    }
    if (deploymentComplete(deployment, currentStatus(deployment))) await this.cleanupDeployment(oldReplicaSets, deployment);
    await this.syncRolloutStatus(all, newReplicaSet, deployment);
  }

  private async reconcileNewReplicaSet(all: KubeObject[], newReplicaSet: KubeObject, deployment: KubeObject): Promise<boolean> {
    const desired = replicasOf(deployment);
    if (replicasOf(newReplicaSet) === desired) return false;
    if (replicasOf(newReplicaSet) > desired) return (await this.scaleReplicaSetAndRecordEvent(newReplicaSet, desired, deployment)).scaled;
    return (await this.scaleReplicaSetAndRecordEvent(newReplicaSet, newReplicaSetReplicas(deployment, all, newReplicaSet), deployment)).scaled;
  }

  private async reconcileOldReplicaSets(all: KubeObject[], oldReplicaSets: KubeObject[], newReplicaSet: KubeObject, deployment: KubeObject): Promise<boolean> {
    if (totalReplicas(oldReplicaSets) === 0) return false;
    const minAvailable = replicasOf(deployment) - maxUnavailable(deployment);
    const newUnavailable = replicasOf(newReplicaSet) - statusNumber(newReplicaSet, 'availableReplicas');
    // Never go below minAvailable, counting the new ReplicaSet's unavailable pods as gone already.
    const maxScaledDown = totalReplicas(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    const cleaned = await this.cleanupUnhealthyReplicas(oldReplicaSets, deployment, maxScaledDown);
    const scaledDown = await this.scaleDownOldReplicaSetsForRollingUpdate([...cleaned.replicaSets, newReplicaSet], cleaned.replicaSets, deployment);
    return cleaned.count + scaledDown > 0;
  }

  /** Old replicas that are not available go first: removing them costs no availability. */
  private async cleanupUnhealthyReplicas(oldReplicaSets: KubeObject[], deployment: KubeObject, maxCleanup: number): Promise<{ replicaSets: KubeObject[]; count: number }> {
    const sorted = [...oldReplicaSets].sort(byCreationTimestamp);
    let total = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (total >= maxCleanup) break;
      const rs = sorted[i];
      const replicas = replicasOf(rs);
      const available = statusNumber(rs, 'availableReplicas');
      if (replicas === 0 || replicas === available) continue;
      const count = Math.min(maxCleanup - total, replicas - available);
      const newReplicas = replicas - count;
      if (newReplicas > replicas) throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${objectKey(rs)} ${replicas} -> ${newReplicas}`);
      sorted[i] = (await this.scaleReplicaSetAndRecordEvent(rs, newReplicas, deployment)).replicaSet;
      total += count;
    }
    return { replicaSets: sorted, count: total };
  }

  private async scaleDownOldReplicaSetsForRollingUpdate(all: KubeObject[], oldReplicaSets: KubeObject[], deployment: KubeObject): Promise<number> {
    const minAvailable = replicasOf(deployment) - maxUnavailable(deployment);
    const available = totalStatus(all, 'availableReplicas');
    if (available <= minAvailable) return 0;
    const toScaleDown = available - minAvailable;
    let total = 0;
    for (const rs of [...oldReplicaSets].sort(byCreationTimestamp)) {
      if (total >= toScaleDown) break;
      if (replicasOf(rs) === 0) continue;
      const count = Math.min(replicasOf(rs), toScaleDown - total);
      await this.scaleReplicaSetAndRecordEvent(rs, replicasOf(rs) - count, deployment);
      total += count;
    }
    return total;
  }

  // ---- recreate.go ----

  private async rolloutRecreate(deployment: KubeObject, replicaSets: KubeObject[], podMap: PodMap): Promise<void> {
    let { newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    let all: (KubeObject | undefined)[] = [...oldReplicaSets, newReplicaSet];
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldReplicaSets)) {
      if ((await this.scaleReplicaSetAndRecordEvent(rs, 0, deployment)).scaled) scaledDown = true;
    }
    if (scaledDown || oldPodsRunning(newReplicaSet, oldReplicaSets, podMap)) {
      await this.syncRolloutStatus(all, newReplicaSet, deployment);
      return;
    }
    if (!newReplicaSet) {
      ({ newReplicaSet, oldReplicaSets } = await this.allReplicaSetsAndSyncRevision(deployment, replicaSets, true));
      all = [...oldReplicaSets, newReplicaSet];
    }
    if (newReplicaSet) await this.scaleReplicaSetAndRecordEvent(newReplicaSet, replicasOf(deployment), deployment);
    if (deploymentComplete(deployment, currentStatus(deployment))) await this.cleanupDeployment(oldReplicaSets, deployment);
    await this.syncRolloutStatus(all, newReplicaSet, deployment);
  }

  // ---- progress.go ----

  private async syncRolloutStatus(all: (KubeObject | undefined)[], newReplicaSet: KubeObject | undefined, deployment: KubeObject): Promise<void> {
    const now = this.now();
    const status = calculateStatus(all, newReplicaSet, deployment, now);
    const hasDeadline = progressDeadlineSeconds(deployment) !== undefined;
    if (!hasDeadline) removeCondition(status, 'Progressing');
    const current = getCondition(deployment.status, 'Progressing');
    const isComplete = status.replicas === status.updatedReplicas && current?.reason === reasons.newReplicaSetAvailable;
    if (hasDeadline && !isComplete) {
      const subject = newReplicaSet ? `ReplicaSet "${newReplicaSet.metadata.name ?? ''}"` : `Deployment "${deployment.metadata.name ?? ''}"`;
      if (deploymentComplete(deployment, status)) {
        setCondition(status, newCondition('Progressing', 'True', reasons.newReplicaSetAvailable, `${subject} has successfully progressed.`, now));
      } else if (deploymentProgressing(deployment, status)) {
        // Progress refreshes lastUpdateTime even with the same reason, unlike setCondition.
        const condition = newCondition('Progressing', 'True', reasons.replicaSetUpdated, `${subject} is progressing.`, now);
        if (current) {
          if (current.status === 'True') condition.lastTransitionTime = current.lastTransitionTime;
          removeCondition(status, 'Progressing');
        }
        setCondition(status, condition);
      } else if (deploymentTimedOut(deployment, status, now)) {
        setCondition(status, newCondition('Progressing', 'False', reasons.timedOut, `${subject} has timed out progressing.`, now));
      }
    }
    const failure = replicaFailure(all, newReplicaSet);
    if (failure) setCondition(status, failure);
    else removeCondition(status, 'ReplicaFailure');
    if (sameStatus(deployment, status)) {
      this.requeueStuckDeployment(deployment, status, now);
      return;
    }
    await this.updateStatus(deployment, status);
  }

  /** Comes back when the progress deadline would pass, since nothing else may wake the Deployment. */
  private requeueStuckDeployment(deployment: KubeObject, status: DeploymentStatus, now: Date): void {
    const deadline = progressDeadlineSeconds(deployment);
    const current = getCondition(deployment.status, 'Progressing');
    if (deadline === undefined || !current) return;
    if (deploymentComplete(deployment, status) || current.reason === reasons.timedOut) return;
    const lastUpdate = Date.parse(current.lastUpdateTime ?? '');
    if (!Number.isFinite(lastUpdate)) return;
    const after = lastUpdate + deadline * 1000 - now.getTime();
    if (after < 1000) this.queue.addRateLimited(objectKey(deployment));
    else this.queue.addAfter(objectKey(deployment), after + 1000);
  }
}

function numberOrZero(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** The Deployment's current status as a typed copy (to set conditions on). */
function currentStatus(deployment: KubeObject): DeploymentStatus {
  const status = statusOf(deployment);
  const copy: DeploymentStatus = { conditions: conditionsOf(status) };
  for (const field of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'] as const) {
    if (typeof status[field] === 'number') copy[field] = status[field] as number;
  }
  return copy;
}

function sameStatus(deployment: KubeObject, status: DeploymentStatus): boolean {
  return canonicalJson(serializeStatus(currentStatus(deployment))) === canonicalJson(serializeStatus(status));
}

/** upstream oldPodsRunning: any old ReplicaSet still reports pods, or a pod of one is not terminal. */
function oldPodsRunning(newReplicaSet: KubeObject | undefined, oldReplicaSets: KubeObject[], podMap: PodMap): boolean {
  if (totalStatus(oldReplicaSets, 'replicas') > 0) return true;
  for (const [uid, pods] of podMap) {
    if (newReplicaSet && newReplicaSet.metadata.uid === uid) continue;
    for (const pod of pods) {
      const phase = podPhase(pod);
      if (phase !== 'Failed' && phase !== 'Succeeded') return true;
    }
  }
  return false;
}

/** upstream getReplicaFailures: the new ReplicaSet's ReplicaFailure condition, else an old one's. */
function replicaFailure(all: (KubeObject | undefined)[], newReplicaSet: KubeObject | undefined): ReturnType<typeof conditionsOf>[number] | undefined {
  const failureOf = (rs: KubeObject | undefined) => {
    if (!rs) return undefined;
    const found = conditionsOf(statusOf(rs)).find((condition) => condition.type === 'ReplicaFailure');
    if (!found) return undefined;
    // upstream ReplicaSetToDeploymentCondition: lastUpdateTime follows lastTransitionTime.
    return { type: 'ReplicaFailure', status: found.status, reason: found.reason, message: found.message, lastUpdateTime: found.lastTransitionTime, lastTransitionTime: found.lastTransitionTime };
  };
  return failureOf(newReplicaSet) ?? all.map(failureOf).find((condition) => condition !== undefined);
}
