// DaemonSetController: one pod per eligible node, after upstream pkg/controller/daemon
// (daemon_controller.go, update.go, util/daemonset_util.go):
// - a node is eligible when the pod would fit it by nodeName, nodeSelector, required node affinity
//   and NoSchedule/NoExecute taints (NodeShouldRunDaemonPod); a pod already there keeps running while
//   every NoExecute taint is tolerated (so a new NoSchedule taint does not evict it);
// - pods get the default daemon tolerations (not-ready and unreachable NoExecute; disk-, memory- and
//   pid-pressure and unschedulable NoSchedule; network-unavailable for hostNetwork pods) and are bound
//   through required node affinity `matchFields metadata.name In [<node>]`, which the scheduler honours;
// - ControllerRevisions hold each template; pods carry controller-revision-hash (and
//   pod-template-generation when the deprecated.daemonset.template.generation annotation is set);
// - RollingUpdate with maxUnavailable (delete old pods, at most that many nodes unavailable) or with
//   maxSurge (start the new pod first, delete the old one once the new one is available); OnDelete;
// - failed daemon pods are deleted (FailedDaemonPod) with a per-node back-off, surplus pods on a node
//   are deleted keeping the oldest; orphans matching the selector are adopted;
// - ControllerExpectations (creates and deletes not yet seen by the informer) stop a second sync
//   from acting on a stale cache;
// - status numbers as updateDaemonSetStatus; events SuccessfulCreate "Created pod: x",
//   SuccessfulDelete "Deleted pod: x", FailedCreate/FailedDelete, SelectingAll.
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { selectorIsEmpty } from '../../shared/kubernetes/labelSelector';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import type { SharedInformerFactory } from '../client/informer';
import { objectKey } from '../client/informer';
import { resources } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { ControllerExpectations, controllerOf, controllerRef, controllersFor, isPodAvailable, isPodReady, numberOr, podFromTemplate, podPhase, resolveControllerRef, selectorMatches, SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, specOf, statusOf } from './controllerUtils';
import { ControllerHistory, controllerRevisionName, hashControllerRevision, revisionNumber, sortRevisions, stableStringify, templatePatch, type ControllerRevision } from './controllerHistory';
import { findUntoleratedTaint, podMatchesNodeSelectorAndAffinity, type SchedulingPod, type Taint, type Toleration, tolerationsTolerateTaint } from '../componentHelpers/scheduling/corev1';

/** apps.DefaultDaemonSetUniqueLabelKey */
export const DAEMONSET_HASH_LABEL = 'controller-revision-hash';
/** extensions.DaemonSetTemplateGenerationKey (deprecated, still written upstream) */
export const DAEMONSET_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';
const failedPodBackoffInitialMs = 1000;
const failedPodBackoffMaxMs = 15 * 60 * 1000;

export type DaemonSetControllerOptions = ControllerOptions;

/** AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates, so node conditions do not evict it. */
export function defaultDaemonTolerations(hostNetwork: boolean): Toleration[] {
  const tolerations: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) tolerations.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return tolerations;
}

function sameToleration(left: Toleration, right: Toleration): boolean {
  return (left.key ?? '') === (right.key ?? '') && (left.operator ?? '') === (right.operator ?? '') && (left.value ?? '') === (right.value ?? '') && (left.effect ?? '') === (right.effect ?? '');
}

/** The pod spec with the default daemon tolerations added (existing equal ones are kept as they are). */
export function withDaemonTolerations(spec: Record<string, unknown>): Record<string, unknown> {
  const tolerations = (Array.isArray(spec.tolerations) ? spec.tolerations.filter(isRecord) : []) as Toleration[];
  const merged = [...tolerations];
  for (const toleration of defaultDaemonTolerations(spec.hostNetwork === true)) {
    if (!merged.some((existing) => sameToleration(existing, toleration))) merged.push(toleration);
  }
  return { ...spec, tolerations: merged };
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: required node affinity that names exactly this node. */
export function withNodeNameAffinity(spec: Record<string, unknown>, nodeName: string): Record<string, unknown> {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const affinity = isRecord(spec.affinity) ? structuredClone(spec.affinity) : {};
  const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required = isRecord(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : {};
  // The controller already checked the user's terms against the node; only the node name remains.
  required.nodeSelectorTerms = [term];
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = required;
  affinity.nodeAffinity = nodeAffinity;
  return { ...spec, affinity };
}

/** GetTargetNodeName: spec.nodeName, or the single node a pod's matchFields affinity names. */
export function targetNodeName(pod: KubeObject): string | undefined {
  const spec = specOf(pod);
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') return spec.nodeName;
  const affinity = isRecord(spec.affinity) ? spec.affinity : {};
  const nodeAffinity = isRecord(affinity.nodeAffinity) ? affinity.nodeAffinity : {};
  const required = isRecord(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution) ? nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : {};
  const terms = Array.isArray(required.nodeSelectorTerms) ? required.nodeSelectorTerms.filter(isRecord) : [];
  for (const term of terms) {
    const fields = Array.isArray(term.matchFields) ? term.matchFields.filter(isRecord) : [];
    for (const field of fields) {
      if (field.key === 'metadata.name' && field.operator === 'In' && Array.isArray(field.values) && field.values.length === 1) return String(field.values[0]);
    }
  }
  return undefined;
}

/**
 * NodeShouldRunDaemonPod: `shouldRun` — a daemon pod belongs on the node; `shouldContinueRunning` —
 * one already there may stay (every NoExecute taint is tolerated).
 */
export function nodeShouldRunDaemonPod(node: KubeObject, ds: KubeObject): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const template = isRecord(specOf(ds).template) ? (specOf(ds).template as Record<string, unknown>) : {};
  const podSpec = withDaemonTolerations(isRecord(template.spec) ? template.spec : {});
  const nodeName = node.metadata.name ?? '';
  if (typeof podSpec.nodeName === 'string' && podSpec.nodeName !== '' && podSpec.nodeName !== nodeName) return { shouldRun: false, shouldContinueRunning: false };
  const pod = { metadata: {}, spec: podSpec } as SchedulingPod;
  if (!podMatchesNodeSelectorAndAffinity(pod, node)) return { shouldRun: false, shouldContinueRunning: false };
  const nodeSpec = specOf(node);
  const taints = (Array.isArray(nodeSpec.taints) ? nodeSpec.taints.filter(isRecord) : []) as unknown as Taint[];
  const tolerations = podSpec.tolerations as Toleration[];
  if (findUntoleratedTaint(taints, tolerations)) {
    const shouldContinueRunning = taints.filter((taint) => taint.effect === 'NoExecute').every((taint) => tolerationsTolerateTaint(tolerations, taint));
    return { shouldRun: false, shouldContinueRunning };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** intstr.GetScaledValueFromIntOrPercent rounding up; an integer stays as it is. */
export function scaledValue(value: unknown, total: number, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const match = /^(\d+)%$/.exec(value);
    if (match) return Math.ceil((Number(match[1]) * total) / 100);
    if (/^\d+$/.test(value)) return Number(value);
  }
  return fallback;
}

function templateGeneration(ds: KubeObject): string | undefined {
  return ds.metadata.annotations?.[templateGenerationAnnotation];
}

/** IsPodUpdated: the pod carries the current hash, or the current template generation. */
function isPodUpdated(pod: KubeObject, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata.labels ?? {};
  return (hash !== '' && labels[DAEMONSET_HASH_LABEL] === hash) || (generation !== undefined && labels[DAEMONSET_TEMPLATE_GENERATION_LABEL] === generation);
}

/** podByCreationTimestampAndPhase: running pods before pending ones, then oldest first. */
function byCreationAndPhase(left: KubeObject, right: KubeObject): number {
  const leftRunning = podPhase(left) === 'Running' ? 0 : 1;
  const rightRunning = podPhase(right) === 'Running' ? 0 : 1;
  if (leftRunning !== rightRunning) return leftRunning - rightRunning;
  const byTime = (left.metadata.creationTimestamp ?? '').localeCompare(right.metadata.creationTimestamp ?? '');
  return byTime !== 0 ? byTime : (left.metadata.name ?? '').localeCompare(right.metadata.name ?? '');
}

function isTerminal(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

interface DaemonSetStatusNumbers {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
  observedGeneration: number;
}

export class DaemonSetController extends QueueController {
  private readonly daemonSets = this.factory.informerFor(resources.daemonsets);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly nodes = this.factory.informerFor(resources.nodes);
  private readonly revisions = this.factory.informerFor(resources.controllerrevisions);
  private readonly history: ControllerHistory;
  private readonly expectations = new ControllerExpectations(this.clock);
  private readonly failedPodBackoff = new Map<string, { delayMs: number; until: number }>();

  constructor(client: ApiClient, factory: SharedInformerFactory, options: DaemonSetControllerOptions = {}) {
    super(client, factory, { name: 'daemonset', component: 'daemonset-controller', workers: 2 }, options);
    this.history = new ControllerHistory(client, this.revisions);

    this.enqueueChanges(this.daemonSets, (ds) => this.expectations.delete(objectKey(ds)));
    this.handle(this.pods, {
      onAdd: (pod) => {
        // A pod that is already going (seen on a restart) counts as a deletion, not a creation.
        if (pod.metadata.deletionTimestamp) this.podGoing(pod);
        else this.observeOwner(pod, (key) => this.expectations.creationObserved(key));
        this.enqueueForPod(pod);
      },
      onUpdate: (old, pod) => {
        if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp) this.podGoing(pod);
        this.enqueueForPod(pod);
        const before = controllerOf(old);
        if (before && before.uid !== controllerOf(pod)?.uid) this.enqueueOwner(old.metadata.namespace, before);
      },
      onDelete: (pod) => {
        this.podGoing(pod);
        this.enqueueForPod(pod);
      },
    });
    const enqueueAll = () => {
      for (const key of this.daemonSets.listKeys()) this.queue.add(key);
    };
    this.handle(this.nodes, {
      onAdd: enqueueAll,
      onUpdate: (old, node) => {
        // Heartbeats change only status; eligibility depends on labels, taints and the spec.
        if (stableStringify(old.metadata.labels ?? {}) !== stableStringify(node.metadata.labels ?? {}) || stableStringify(old.spec ?? {}) !== stableStringify(node.spec ?? {})) enqueueAll();
      },
      onDelete: enqueueAll,
    });
  }

  private enqueueOwner(namespace: string | undefined, ref: OwnerReference): void {
    const ds = resolveControllerRef(this.daemonSets, namespace, ref, 'DaemonSet', 'apps');
    if (ds) this.enqueue(ds);
  }

  /** Calls `observe` with the key of the DaemonSet controlling the pod, if there is one. */
  private observeOwner(pod: KubeObject, observe: (key: string) => void): void {
    const ref = controllerOf(pod);
    const ds = ref ? resolveControllerRef(this.daemonSets, pod.metadata.namespace, ref, 'DaemonSet', 'apps') : undefined;
    if (ds) observe(objectKey(ds));
  }

  /** A pod seen terminating or gone: one expected deletion less (once per pod). */
  private podGoing(pod: KubeObject): void {
    this.observeOwner(pod, (key) => this.expectations.deletionObserved(key, objectKey(pod)));
  }

  private enqueueForPod(pod: KubeObject): void {
    for (const ds of controllersFor(this.daemonSets, pod, 'DaemonSet', 'apps')) this.enqueue(ds);
  }

  async reconcile(key: string): Promise<void> {
    const cached = this.daemonSets.getByKey(key);
    if (!cached) {
      this.expectations.delete(key);
      return;
    }
    if (cached.metadata.deletionTimestamp) return;
    const ds = structuredClone(cached);
    const selector = specOf(ds).selector;
    if (!isRecord(selector) || selectorIsEmpty(selector)) {
      this.recorder.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    const nodes = this.nodes.list();
    const { current, old } = await this.constructHistory(ds);
    const hash = current.metadata.labels?.[DAEMONSET_HASH_LABEL] ?? '';
    if (!this.expectations.satisfied(key)) {
      await this.updateStatus(key, ds, nodes, hash);
      return;
    }
    const nodeToPods = await this.nodesToDaemonPods(ds, selector, true);
    await this.manage(key, ds, nodes, nodeToPods, hash);
    if (this.expectations.satisfied(key)) {
      const strategy = isRecord(specOf(ds).updateStrategy) ? (specOf(ds).updateStrategy as Record<string, unknown>) : {};
      if (strategy.type !== 'OnDelete') await this.rollingUpdate(key, ds, nodes, hash);
    }
    await this.cleanupHistory(ds, old, nodeToPods);
    await this.updateStatus(key, ds, nodes, hash);
  }

  /** getDaemonPods + ClaimPods, grouped by the node each pod is for. */
  private async nodesToDaemonPods(ds: KubeObject, selector: Record<string, unknown>, includeDeletedTerminal: boolean): Promise<Map<string, KubeObject[]>> {
    const byNode = new Map<string, KubeObject[]>();
    const podsApi = this.client.resource(resources.pods);
    for (const cachedPod of this.pods.listByNamespace(ds.metadata.namespace ?? '')) {
      let pod = cachedPod;
      const matches = selectorMatches(selector, pod.metadata.labels);
      const ref = controllerOf(pod);
      if (ref) {
        if (ref.uid !== ds.metadata.uid) continue;
        if (!matches) {
          if (!pod.metadata.deletionTimestamp) {
            const ownerReferences = (pod.metadata.ownerReferences ?? []).filter((owner) => owner.uid !== ds.metadata.uid);
            await podsApi.patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { ownerReferences, uid: pod.metadata.uid } }, 'merge').catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
          }
          continue;
        }
      } else {
        if (!matches || pod.metadata.deletionTimestamp) continue;
        try {
          pod = await podsApi.patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { ownerReferences: [...(pod.metadata.ownerReferences ?? []), controllerRef(ds)], uid: pod.metadata.uid } }, 'merge');
        } catch (error) {
          if (isNotFound(error)) continue;
          throw error;
        }
      }
      if (!includeDeletedTerminal && isTerminal(pod) && pod.metadata.deletionTimestamp) continue;
      const nodeName = targetNodeName(pod);
      if (!nodeName) continue;
      const list = byNode.get(nodeName);
      if (list) list.push(pod);
      else byNode.set(nodeName, [pod]);
    }
    return byNode;
  }

  /** constructHistory: the revision matching the current template (created if missing) and the others. */
  private async constructHistory(ds: KubeObject): Promise<{ current: ControllerRevision; old: ControllerRevision[] }> {
    const selector = specOf(ds).selector;
    const histories = this.history.listRevisions(ds, selector);
    const data = templatePatch(ds);
    const wanted = stableStringify(data);
    const matching: ControllerRevision[] = [];
    const old: ControllerRevision[] = [];
    for (const revision of histories) {
      let labelled = revision;
      if (!revision.metadata.labels?.[DAEMONSET_HASH_LABEL]) {
        // Older revisions without the hash label get their name as the hash, as upstream.
        labelled = await this.client.resource<ControllerRevision>(resources.controllerrevisions).patch(revision.metadata.namespace, revision.metadata.name ?? '', { metadata: { labels: { [DAEMONSET_HASH_LABEL]: revision.metadata.name } } }, 'merge');
      }
      if (stableStringify(labelled.data ?? null) === wanted) matching.push(labelled);
      else old.push(labelled);
    }
    let highestOld = 0;
    for (const revision of old) highestOld = Math.max(highestOld, revisionNumber(revision));
    const currentNumber = highestOld + 1;
    if (matching.length === 0) return { current: await this.snapshot(ds, currentNumber, data), old };
    const current = await this.dedupCurrent(ds, matching);
    if (revisionNumber(current) < currentNumber) {
      const updated = await this.client.resource<ControllerRevision>(resources.controllerrevisions).patch(current.metadata.namespace, current.metadata.name ?? '', { revision: currentNumber }, 'merge');
      return { current: updated, old };
    }
    return { current, old };
  }

  /** snapshot: a new revision named `<ds>-<hash>`; a name taken by other data bumps status.collisionCount. */
  private async snapshot(ds: KubeObject, revision: number, data: Record<string, unknown>): Promise<ControllerRevision> {
    const collisionCount = numberOr(statusOf(ds).collisionCount, 0);
    const hash = hashControllerRevision(specOf(ds).template ?? null, collisionCount);
    const template = isRecord(specOf(ds).template) ? (specOf(ds).template as Record<string, unknown>) : {};
    const templateLabels = isRecord(template.metadata) && isRecord(template.metadata.labels) ? (template.metadata.labels as Record<string, string>) : {};
    const history: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: controllerRevisionName(ds.metadata.name ?? '', hash),
        namespace: ds.metadata.namespace,
        labels: { ...templateLabels, [DAEMONSET_HASH_LABEL]: hash },
        ownerReferences: [controllerRef(ds)],
      },
      data,
      revision,
    };
    if (ds.metadata.annotations) history.metadata.annotations = { ...ds.metadata.annotations };
    const api = this.client.resource<ControllerRevision>(resources.controllerrevisions);
    try {
      return await api.create(history);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      const existing = await api.get(ds.metadata.namespace, history.metadata.name ?? '');
      if (stableStringify(existing.data ?? null) === stableStringify(data)) return existing;
      await this.client.resource(resources.daemonsets).patchStatus(ds.metadata.namespace, ds.metadata.name ?? '', { status: { collisionCount: collisionCount + 1 } }, 'merge');
      throw new Error(`found a hash collision for DaemonSet "${ds.metadata.name ?? ''}" - bumping collisionCount to ${collisionCount + 1} to resolve it`);
    }
  }

  /** dedupCurHistories: keep the highest revision; move pods of the duplicates onto its hash, then delete them. */
  private async dedupCurrent(ds: KubeObject, matching: ControllerRevision[]): Promise<ControllerRevision> {
    const sorted = sortRevisions(matching);
    const keep = sorted[sorted.length - 1];
    const keepHash = keep.metadata.labels?.[DAEMONSET_HASH_LABEL] ?? '';
    for (const duplicate of sorted.slice(0, -1)) {
      const duplicateHash = duplicate.metadata.labels?.[DAEMONSET_HASH_LABEL];
      for (const pod of this.pods.listByNamespace(ds.metadata.namespace ?? '')) {
        if (controllerOf(pod)?.uid !== ds.metadata.uid || pod.metadata.labels?.[DAEMONSET_HASH_LABEL] !== duplicateHash) continue;
        await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', { metadata: { labels: { [DAEMONSET_HASH_LABEL]: keepHash } } }, 'merge');
      }
      await this.history.deleteRevision(duplicate).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
    }
    return keep;
  }

  /** manage: create missing daemon pods, delete those that must go (podsShouldBeOnNode). */
  private async manage(key: string, ds: KubeObject, nodes: KubeObject[], nodeToPods: Map<string, KubeObject[]>, hash: string): Promise<void> {
    const nodesNeedingPods: string[] = [];
    const podsToDelete: KubeObject[] = [];
    const surge = this.allowsSurge(ds);
    let backoffDelay = 0;
    for (const node of nodes) {
      const nodeName = node.metadata.name ?? '';
      const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
      const daemonPods = nodeToPods.get(nodeName) ?? [];
      if (shouldRun && daemonPods.length === 0) {
        nodesNeedingPods.push(nodeName);
      } else if (shouldContinueRunning) {
        const running: KubeObject[] = [];
        for (const pod of daemonPods) {
          if (pod.metadata.deletionTimestamp) continue;
          if (podPhase(pod) === 'Failed') {
            const backoffKey = `${key}/${nodeName}`;
            const backoff = this.failedPodBackoff.get(backoffKey);
            const now = this.clock.now();
            if (backoff && backoff.until > now) {
              backoffDelay = backoffDelay === 0 ? backoff.until - now : Math.min(backoffDelay, backoff.until - now);
              continue;
            }
            const delayMs = backoff ? Math.min(backoff.delayMs * 2, failedPodBackoffMaxMs) : failedPodBackoffInitialMs;
            this.failedPodBackoff.set(backoffKey, { delayMs, until: now + delayMs });
            this.recorder.event(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} on node ${nodeName}, will try to kill it`);
            podsToDelete.push(pod);
          } else if (podPhase(pod) === 'Succeeded') {
            // A daemon pod that ran to completion is replaced like a failed one, without the warning.
            podsToDelete.push(pod);
          } else {
            running.push(pod);
          }
        }
        running.sort(byCreationAndPhase);
        if (!surge) {
          // More than one pod on a node: keep the oldest.
          podsToDelete.push(...running.slice(1));
        } else {
          let oldestNew: KubeObject | undefined;
          let oldestOld: KubeObject | undefined;
          for (const pod of running) {
            if (pod.metadata.labels?.[DAEMONSET_HASH_LABEL] === hash) {
              if (!oldestNew) {
                oldestNew = pod;
                continue;
              }
            } else if (!oldestOld) {
              oldestOld = pod;
              continue;
            }
            podsToDelete.push(pod);
          }
        }
      } else {
        for (const pod of daemonPods) if (!pod.metadata.deletionTimestamp) podsToDelete.push(pod);
      }
    }
    await this.syncNodes(key, ds, podsToDelete, nodesNeedingPods, hash);
    if (backoffDelay > 0) this.queue.addAfter(key, backoffDelay);
  }

  private allowsSurge(ds: KubeObject): boolean {
    const strategy = isRecord(specOf(ds).updateStrategy) ? (specOf(ds).updateStrategy as Record<string, unknown>) : {};
    if (strategy.type === 'OnDelete') return false;
    const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    // As upstream AllowsSurge: scaled against one node, so any non-zero percentage allows surge.
    return scaledValue(rolling.maxSurge, 1, 0) > 0;
  }

  /** The pod the controller creates for a node (util.CreatePodTemplate + NewPod). */
  private podFor(ds: KubeObject, nodeName: string, hash: string): KubeObject {
    const extraLabels: Record<string, string> = { [DAEMONSET_HASH_LABEL]: hash };
    const generation = templateGeneration(ds);
    if (generation !== undefined) extraLabels[DAEMONSET_TEMPLATE_GENERATION_LABEL] = generation;
    const pod = podFromTemplate(specOf(ds).template, ds, { generateNamePrefix: ds.metadata.name, extraLabels });
    pod.spec = withNodeNameAffinity(withDaemonTolerations(specOf(pod)), nodeName);
    return pod;
  }

  /** syncNodes: creations in slow-start batches (1, 2, 4, …) stopping at the first failing batch, and deletions. */
  private async syncNodes(key: string, ds: KubeObject, podsToDelete: KubeObject[], nodesNeedingPods: string[], hash: string): Promise<void> {
    const podsApi = this.client.resource(resources.pods);
    const errors: unknown[] = [];
    this.expectations.setExpectations(key, nodesNeedingPods.length, podsToDelete.map(objectKey));
    const { successes, error } = await slowStartBatch(nodesNeedingPods.length, SLOW_START_INITIAL_BATCH_SIZE, async (index) => {
      try {
        const created = await podsApi.create(this.podFor(ds, nodesNeedingPods[index], hash));
        this.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
      } catch (error) {
        this.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    });
    // Pods that failed or were never attempted will not be observed.
    for (let missing = nodesNeedingPods.length - successes; missing > 0; missing--) this.expectations.creationObserved(key);
    if (error !== undefined) errors.push(error);
    await Promise.all(
      podsToDelete.map(async (pod) => {
        try {
          await podsApi.delete(pod.metadata.namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
          this.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
        } catch (error) {
          this.expectations.deletionObserved(key, objectKey(pod));
          if (isNotFound(error)) return;
          this.recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${error instanceof Error ? error.message : String(error)}`);
          errors.push(error);
        }
      }),
    );
    if (errors.length > 0) throw errors[0];
  }

  /** updatedDesiredNodeCounts: maxSurge and maxUnavailable over the nodes that want a pod (1 unavailable if both are 0). */
  private desiredCounts(ds: KubeObject, nodes: KubeObject[], nodeToPods: Map<string, KubeObject[]>): { maxSurge: number; maxUnavailable: number } {
    let desired = 0;
    for (const node of nodes) {
      if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
      desired++;
      if (!nodeToPods.has(node.metadata.name ?? '')) nodeToPods.set(node.metadata.name ?? '', []);
    }
    const strategy = isRecord(specOf(ds).updateStrategy) ? (specOf(ds).updateStrategy as Record<string, unknown>) : {};
    const rolling = isRecord(strategy.rollingUpdate) ? strategy.rollingUpdate : {};
    let maxUnavailable = scaledValue(rolling.maxUnavailable, desired, 1);
    const maxSurge = scaledValue(rolling.maxSurge, desired, 0);
    if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
    return { maxSurge, maxUnavailable };
  }

  /** findUpdatedPodsOnNode: the node's new and old pod, or ok=false when it has more than one of either. */
  private updatedPodsOnNode(ds: KubeObject, pods: KubeObject[], hash: string): { newPod?: KubeObject; oldPod?: KubeObject; ok: boolean } {
    let newPod: KubeObject | undefined;
    let oldPod: KubeObject | undefined;
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      if (isPodUpdated(pod, hash, templateGeneration(ds))) {
        if (newPod) return { ok: false };
        newPod = pod;
      } else {
        if (oldPod) return { ok: false };
        oldPod = pod;
      }
    }
    return { newPod, oldPod, ok: true };
  }

  /** rollingUpdate (update.go): replace old pods within maxUnavailable, or surge new ones within maxSurge. */
  private async rollingUpdate(key: string, ds: KubeObject, nodes: KubeObject[], hash: string): Promise<void> {
    const selector = specOf(ds).selector as Record<string, unknown>;
    const nodeToPods = await this.nodesToDaemonPods(ds, selector, false);
    const { maxSurge, maxUnavailable } = this.desiredCounts(ds, nodes, nodeToPods);
    const minReadySeconds = numberOr(specOf(ds).minReadySeconds, 0);
    const now = new Date(this.clock.now());
    const available = (pod: KubeObject) => isPodAvailable(pod, minReadySeconds, now);
    const podsByName = new Map<string, KubeObject>();
    for (const pods of nodeToPods.values()) for (const pod of pods) podsByName.set(pod.metadata.name ?? '', pod);

    if (maxSurge === 0) {
      let unavailable = 0;
      const allowedReplacements: string[] = [];
      const candidates: string[] = [];
      for (const pods of nodeToPods.values()) {
        const { newPod, oldPod, ok } = this.updatedPodsOnNode(ds, pods, hash);
        if (!ok || (!newPod && !oldPod) || (newPod && oldPod)) {
          // The manage loop sorts these nodes out; until then they count as unavailable.
          unavailable++;
        } else if (newPod) {
          if (!available(newPod)) unavailable++;
        } else if (oldPod) {
          if (!available(oldPod)) {
            allowedReplacements.push(oldPod.metadata.name ?? '');
            unavailable++;
          } else if (unavailable < maxUnavailable) {
            candidates.push(oldPod.metadata.name ?? '');
          }
        }
      }
      const remaining = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
      const toDelete = [...allowedReplacements, ...candidates.slice(0, remaining)].map((name) => podsByName.get(name)).filter((pod): pod is KubeObject => pod !== undefined);
      await this.syncNodes(key, ds, toDelete, [], hash);
      return;
    }

    const oldPodsToDelete: KubeObject[] = [];
    const allowedNewNodes: string[] = [];
    const candidateNewNodes: string[] = [];
    let surged = 0;
    for (const [nodeName, pods] of nodeToPods) {
      const { newPod, oldPod, ok } = this.updatedPodsOnNode(ds, pods, hash);
      if (!ok) {
        surged++;
        continue;
      }
      if (!oldPod) continue;
      if (!newPod) {
        if (!available(oldPod)) {
          const node = this.nodes.get(undefined, nodeName);
          if (!node || !nodeShouldRunDaemonPod(node, ds).shouldRun) {
            oldPodsToDelete.push(oldPod);
            continue;
          }
          allowedNewNodes.push(nodeName);
        } else if (surged < maxSurge) {
          candidateNewNodes.push(nodeName);
        }
        continue;
      }
      if (!available(newPod)) {
        surged++;
        continue;
      }
      oldPodsToDelete.push(oldPod);
    }
    const remaining = Math.min(Math.max(0, maxSurge - surged), candidateNewNodes.length);
    await this.syncNodes(key, ds, oldPodsToDelete, [...allowedNewNodes, ...candidateNewNodes.slice(0, remaining)], hash);
  }

  /** cleanupHistory: delete the oldest old revisions beyond revisionHistoryLimit that no pod still uses. */
  private async cleanupHistory(ds: KubeObject, old: ControllerRevision[], nodeToPods: Map<string, KubeObject[]>): Promise<void> {
    let toKill = old.length - numberOr(specOf(ds).revisionHistoryLimit, 10);
    if (toKill <= 0) return;
    const liveHashes = new Set<string>();
    for (const pods of nodeToPods.values()) for (const pod of pods) if (pod.metadata.labels?.[DAEMONSET_HASH_LABEL]) liveHashes.add(pod.metadata.labels[DAEMONSET_HASH_LABEL]);
    for (const revision of sortRevisions(old)) {
      if (toKill <= 0) break;
      if (liveHashes.has(revision.metadata.labels?.[DAEMONSET_HASH_LABEL] ?? '')) continue;
      await this.history.deleteRevision(revision).catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
      toKill--;
    }
  }

  /** updateDaemonSetStatus */
  private async updateStatus(key: string, ds: KubeObject, nodes: KubeObject[], hash: string): Promise<void> {
    const nodeToPods = await this.nodesToDaemonPods(ds, specOf(ds).selector as Record<string, unknown>, false);
    const minReadySeconds = numberOr(specOf(ds).minReadySeconds, 0);
    const now = new Date(this.clock.now());
    const numbers: DaemonSetStatusNumbers = { desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0, observedGeneration: ds.metadata.generation ?? 0 };
    for (const node of nodes) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = nodeToPods.get(node.metadata.name ?? '') ?? [];
      if (!shouldRun) {
        if (pods.length > 0) numbers.numberMisscheduled++;
        continue;
      }
      numbers.desiredNumberScheduled++;
      if (pods.length === 0) continue;
      numbers.currentNumberScheduled++;
      const pod = [...pods].sort(byCreationAndPhase)[0];
      if (isPodReady(pod)) {
        numbers.numberReady++;
        if (isPodAvailable(pod, minReadySeconds, now)) numbers.numberAvailable++;
      }
      if (isPodUpdated(pod, hash, templateGeneration(ds))) numbers.updatedNumberScheduled++;
    }
    numbers.numberUnavailable = numbers.desiredNumberScheduled - numbers.numberAvailable;
    const status = statusOf(ds);
    const changed = (Object.keys(numbers) as (keyof DaemonSetStatusNumbers)[]).some((field) => numberOr(status[field], 0) !== numbers[field]);
    if (changed) {
      // Fields upstream marks omitempty are removed rather than written as zero.
      const patch = {
        currentNumberScheduled: numbers.currentNumberScheduled,
        numberMisscheduled: numbers.numberMisscheduled,
        desiredNumberScheduled: numbers.desiredNumberScheduled,
        numberReady: numbers.numberReady,
        observedGeneration: numbers.observedGeneration || null,
        updatedNumberScheduled: numbers.updatedNumberScheduled || null,
        numberAvailable: numbers.numberAvailable || null,
        numberUnavailable: numbers.numberUnavailable || null,
      };
      try {
        await this.client.resource(resources.daemonsets).patchStatus(ds.metadata.namespace, ds.metadata.name ?? '', { status: patch }, 'merge');
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    if (minReadySeconds > 0 && numbers.numberReady !== numbers.numberAvailable) this.queue.addAfter(key, minReadySeconds * 1000);
  }
}
