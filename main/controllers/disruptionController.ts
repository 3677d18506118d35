// DisruptionController: computes PodDisruptionBudget status, after upstream
// pkg/controller/disruption/disruption.go (trySync, getExpectedPodCount, getExpectedScale,
// countHealthyPods, buildDisruptedPodMap, updatePdbStatus, failSafe). expectedPods is the number of
// matching pods for an integer minAvailable, otherwise the summed scale of the pods' controllers
// (ReplicaSet — or its Deployment — and StatefulSet); pods without a controller
// are reported as unmanaged and left out. desiredHealthy comes from minAvailable or
// maxUnavailable (percentages rounded up), currentHealthy counts Ready pods that are neither
// terminating nor just evicted (status.disruptedPods, which expire after two minutes), and
// disruptionsAllowed is their difference (never negative). The DisruptionAllowed condition uses
// upstream's reasons SufficientPods / InsufficientPods / SyncFailed.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { setCondition, statusConditions, type Condition } from '../../shared/kubernetes/conditions';
import { formatLabelSelector } from '../../shared/kubernetes/labelSelector';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { type Informer, objectKey, type SharedInformerFactory, splitKey } from '../client/informer';
import { resources } from '../client/resources';
import { controllerOf, isPodReady, numberOr, selectorMatches, specOf, statusOf } from './controllerUtils';

/** upstream DeletionTimeout: an evicted pod not deleted within this is counted again. */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/**
 * intstr.GetScaledValueFromIntOrPercent with rounding up: a number as is, `N%` of `total`.
 * Throws for anything else, as upstream does.
 */
export function scaledValue(value: unknown, total: number): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const match = /^(\d+)%$/.exec(value);
    if (match) return Math.ceil((Number(match[1]) * total) / 100);
    throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  }
  throw new Error('invalid value for IntOrString: invalid type: neither int nor percentage');
}

export interface BudgetStatus {
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptionsAllowed: number;
  disruptedPods: Record<string, string>;
  /** pods counted out of expectedPods because no controller owns them */
  unmanagedPods: string[];
  /** when the earliest disruptedPods entry expires (ms), to look again then */
  recheckAt?: number;
}

/** Finds the scale of a pod's controller: undefined when no supported controller owns it. */
export type ScaleFinder = (pod: KubeObject) => { uid: string; scale: number } | undefined;

/** The pure core of upstream trySync: everything but the write. Throws what failSafe reports. */
export function computeBudgetStatus(budget: KubeObject, pods: KubeObject[], findScale: ScaleFinder, now: number): BudgetStatus {
  const spec = specOf(budget);
  let expectedPods = 0;
  let desiredHealthy = 0;
  const unmanagedPods: string[] = [];
  const expectedScale = (): number => {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        unmanagedPods.push(pod.metadata.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = findScale(pod);
      if (!found) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
      scales.set(found.uid, found.scale);
    }
    let total = 0;
    for (const scale of scales.values()) total += scale;
    return total;
  };
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    expectedPods = expectedScale();
    desiredHealthy = Math.max(0, expectedPods - scaledValue(spec.maxUnavailable, expectedPods));
  } else if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    if (typeof spec.minAvailable === 'number') {
      desiredHealthy = spec.minAvailable;
      expectedPods = pods.length;
    } else {
      expectedPods = expectedScale();
      desiredHealthy = scaledValue(spec.minAvailable, expectedPods);
    }
  }
  // buildDisruptedPodMap: keep entries for pods still present, not terminating and not expired.
  const previous = isRecord(statusOf(budget).disruptedPods) ? (statusOf(budget).disruptedPods as Record<string, unknown>) : {};
  const disruptedPods: Record<string, string> = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    if (pod.metadata.deletionTimestamp || typeof previous[name] !== 'string') continue;
    const at = Date.parse(previous[name]);
    if (!Number.isFinite(at)) continue;
    const expires = at + DELETION_TIMEOUT_MS;
    if (expires < now) continue;
    disruptedPods[name] = previous[name];
    recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
  }
  let currentHealthy = 0;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    if (disruptedPods[pod.metadata.name ?? ''] !== undefined) continue;
    if (isPodReady(pod)) currentHealthy++;
  }
  let disruptionsAllowed = currentHealthy - desiredHealthy;
  if (expectedPods <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  return { currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed, disruptedPods, unmanagedPods, recheckAt };
}

/** apimeta.SetStatusCondition for DisruptionAllowed: lastTransitionTime moves only when the status does. */
function withCondition(conditions: unknown, wanted: { status: string; reason: string; message: string; observedGeneration: number }, now: string): Condition[] {
  return setCondition(statusConditions({ conditions }), { type: 'DisruptionAllowed', status: wanted.status, observedGeneration: wanted.observedGeneration, reason: wanted.reason, message: wanted.message }, now);
}

export type DisruptionControllerOptions = ControllerOptions;

export class DisruptionController extends QueueController {
  private readonly budgets = this.factory.informerFor(resources.poddisruptionbudgets);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly replicaSets = this.factory.informerFor(resources.replicasets);
  private readonly replicationControllers = this.factory.informerFor(resources.replicationcontrollers);
  private readonly deployments = this.factory.informerFor(resources.deployments);
  private readonly statefulSets = this.factory.informerFor(resources.statefulsets);

  constructor(client: ApiClient, factory: SharedInformerFactory, options: DisruptionControllerOptions = {}) {
    super(client, factory, { name: 'disruption', component: 'controllermanager', workers: 2 }, options);
    this.handle(this.budgets, { onAdd: (budget) => this.enqueue(budget), onUpdate: (_old, budget) => this.enqueue(budget) });
    this.enqueueRelated(this.pods, (pod) =>
      this.budgets
        .listByNamespace(pod.metadata.namespace ?? '')
        .filter((budget) => selectorMatches(specOf(budget).selector, pod.metadata.labels))
        .map(objectKey),
    );
    // A controller's scale feeds expectedPods: look again at the namespace's budgets when it changes.
    const enqueueNamespace = (_old: KubeObject, controller: KubeObject) => {
      if (specOf(_old).replicas === specOf(controller).replicas) return;
      for (const budget of this.budgets.listByNamespace(controller.metadata.namespace ?? '')) this.enqueue(budget);
    };
    for (const informer of [this.replicaSets, this.replicationControllers, this.deployments, this.statefulSets]) this.handle(informer, { onUpdate: enqueueNamespace });
  }

  /**
   * upstream finders(): Deployment (through its ReplicaSet), ReplicaSet, ReplicationController,
   * StatefulSet.
   */
  private findScale(pod: KubeObject): { uid: string; scale: number } | undefined {
    const ref = controllerOf(pod);
    const namespace = pod.metadata.namespace;
    if (!ref) return undefined;
    const replicas = (obj: KubeObject) => numberOr(specOf(obj).replicas, 1);
    const owned = (informer: Informer, kind: string) => {
      if (ref.kind !== kind) return undefined;
      const found = informer.get(namespace, ref.name);
      return found && found.metadata.uid === ref.uid ? found : undefined;
    };
    const replicaSet = owned(this.replicaSets, 'ReplicaSet');
    if (replicaSet) {
      const parent = controllerOf(replicaSet);
      if (parent?.kind === 'Deployment') {
        const deployment = this.deployments.get(namespace, parent.name);
        return deployment && deployment.metadata.uid === parent.uid ? { uid: parent.uid, scale: replicas(deployment) } : undefined;
      }
      return { uid: ref.uid, scale: replicas(replicaSet) };
    }
    const replicationController = owned(this.replicationControllers, 'ReplicationController');
    if (replicationController) return { uid: ref.uid, scale: replicas(replicationController) };
    const statefulSet = owned(this.statefulSets, 'StatefulSet');
    return statefulSet ? { uid: ref.uid, scale: replicas(statefulSet) } : undefined;
  }

  async reconcile(key: string): Promise<void> {
    const { namespace = '', name } = splitKey(key);
    const budget = this.budgets.get(namespace, name);
    if (!budget || budget.metadata.deletionTimestamp) return;
    const pods = this.pods.listByNamespace(namespace).filter((pod) => selectorMatches(specOf(budget).selector, pod.metadata.labels));
    if (pods.length === 0) this.recorder.event(budget, 'Normal', 'NoPods', 'No matching pods found');
    const now = this.clock.now();
    const stamp = formatTime(now);
    const generation = budget.metadata.generation ?? 0;
    const previous = statusOf(budget);
    let computed: BudgetStatus;
    try {
      computed = computeBudgetStatus(budget, pods, (pod) => this.findScale(pod), now);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.recorder.event(budget, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${message}`);
      // failSafe: no disruptions until the budget can be computed again.
      const status: Record<string, unknown> = { ...structuredClone(previous), disruptionsAllowed: 0 };
      status.conditions = withCondition(previous.conditions, { status: 'False', reason: 'SyncFailed', message, observedGeneration: numberOr(previous.observedGeneration, 0) }, stamp);
      await this.writeStatus(budget, status);
      return;
    }
    if (computed.unmanagedPods.length > 0) {
      this.recorder.event(
        budget,
        'Warning',
        'UnmanagedPods',
        'Pods selected by this PodDisruptionBudget (selector: ' +
          formatLabelSelector(specOf(budget).selector) +
          ') were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
      );
    }
    if (computed.recheckAt !== undefined) this.queue.addAfter(key, Math.max(0, computed.recheckAt - now) + 1);
    const allowed = computed.disruptionsAllowed > 0;
    const status: Record<string, unknown> = {
      observedGeneration: generation,
      disruptionsAllowed: computed.disruptionsAllowed,
      currentHealthy: computed.currentHealthy,
      desiredHealthy: computed.desiredHealthy,
      expectedPods: computed.expectedPods,
    };
    if (Object.keys(computed.disruptedPods).length) status.disruptedPods = computed.disruptedPods;
    status.conditions = withCondition(previous.conditions, { status: allowed ? 'True' : 'False', reason: allowed ? 'SufficientPods' : 'InsufficientPods', message: '', observedGeneration: generation }, stamp);
    await this.writeStatus(budget, status);
  }

  private async writeStatus(budget: KubeObject, status: Record<string, unknown>): Promise<void> {
    if (JSON.stringify(sorted(status)) === JSON.stringify(sorted(statusOf(budget)))) return;
    // The cached resourceVersion makes this a conditional write; a conflict requeues with a fresh cache.
    await this.client.resource(resources.poddisruptionbudgets).updateStatus({ ...structuredClone(budget), status });
  }
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (isRecord(value)) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  return value;
}
