// NodeLifecycleController: node health, condition taints and NoExecute evictions, after upstream
// pkg/controller/nodelifecycle/node_lifecycle_controller.go (monitorNodeHealth, tryUpdateNodeHealth,
// doNoScheduleTaintingPass, doNoExecuteTaintingPass) and pkg/controller/tainteviction/taint_eviction.go.
// - Every monitor period, a node whose kubelet neither changed its Ready heartbeat nor renewed its
//   Lease for the grace period gets its conditions set to Unknown ("NodeStatusUnknown", "Kubelet
//   stopped posting node status."), a NodeNotReady event, and its pods marked not Ready.
// - Taints follow the conditions: Ready False → node.kubernetes.io/not-ready, Unknown →
//   node.kubernetes.io/unreachable (NoExecute with timeAdded, and NoSchedule), pressure conditions and
//   spec.unschedulable → their NoSchedule taints; they are removed when the condition clears.
// - Pods on a node with NoExecute taints they do not tolerate are deleted; tolerated ones with
//   tolerationSeconds are deleted after the shortest of them (the API server gives pods 300 s
//   not-ready/unreachable tolerations by default).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { conditionsOf, findCondition, getCondition, removeCondition, setCondition, statusConditions } from '../../shared/kubernetes/conditions';
import type { ApiClient } from '../client/apiClient';
import { runWorkers } from '../client/controllerLoop';
import { realClock, type Clock, type Timer } from '../client/clock';
import { isConflict, isNotFound } from '../client/errors';
import { EventRecorder } from '../client/eventRecorder';
import { objectKey, splitKey, type Informer, type SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { WorkQueue } from '../client/workQueue';
import { specOf, statusOf } from './controllerUtils';
import { taintNodeDiskPressure, taintNodeMemoryPressure, taintNodeNetworkUnavailable, taintNodeNotReady, taintNodePIDPressure, taintNodeUnreachable, taintNodeUnschedulable, tolerationToleratesTaint, type Taint, type Toleration } from '../componentHelpers/scheduling/corev1';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const POD_NODE_INDEX = 'nodeLifecycle.nodeName';



export function taintsOf(node: KubeObject): Taint[] {
  const taints = specOf(node).taints;
  if (!Array.isArray(taints)) return [];
  return taints.filter(isRecord).map((taint) => {
    const result: Taint = { key: String(taint.key ?? ''), effect: String(taint.effect ?? '') };
    if (typeof taint.value === 'string' && taint.value !== '') result.value = taint.value;
    if (typeof taint.timeAdded === 'string') result.timeAdded = taint.timeAdded;
    return result;
  });
}

/** The taints the controller owns, by key and effect, that the node's state calls for. */
export function desiredConditionTaints(node: KubeObject): { key: string; effect: string }[] {
  const wanted: { key: string; effect: string }[] = [];
  const ready = getCondition(node, 'Ready');
  if (ready?.status === 'False') wanted.push({ key: taintNodeNotReady, effect: 'NoExecute' }, { key: taintNodeNotReady, effect: 'NoSchedule' });
  if (ready?.status === 'Unknown') wanted.push({ key: taintNodeUnreachable, effect: 'NoExecute' }, { key: taintNodeUnreachable, effect: 'NoSchedule' });
  const pressure: [string, string][] = [
    ['MemoryPressure', taintNodeMemoryPressure],
    ['DiskPressure', taintNodeDiskPressure],
    ['PIDPressure', taintNodePIDPressure],
    ['NetworkUnavailable', taintNodeNetworkUnavailable],
  ];
  for (const [type, key] of pressure) if (getCondition(node, type)?.status === 'True') wanted.push({ key, effect: 'NoSchedule' });
  if (specOf(node).unschedulable === true) wanted.push({ key: taintNodeUnschedulable, effect: 'NoSchedule' });
  return wanted;
}

const managedTaintKeys = new Set([taintNodeNotReady, taintNodeUnreachable, taintNodeMemoryPressure, taintNodeDiskPressure, taintNodePIDPressure, taintNodeNetworkUnavailable, taintNodeUnschedulable]);

/** The node's taints with the managed ones brought in line; undefined when nothing changes. */
export function reconcileTaints(node: KubeObject, now: string): Taint[] | undefined {
  const current = taintsOf(node);
  const wanted = desiredConditionTaints(node);
  const isWanted = (taint: { key: string; effect: string }) => wanted.some((w) => w.key === taint.key && w.effect === taint.effect);
  const kept = current.filter((taint) => !managedTaintKeys.has(taint.key) || isWanted(taint));
  const added = wanted
    .filter((w) => !current.some((taint) => taint.key === w.key && taint.effect === w.effect))
    .map((w): Taint => (w.effect === 'NoExecute' ? { key: w.key, effect: w.effect, timeAdded: now } : { key: w.key, effect: w.effect }));
  if (added.length === 0 && kept.length === current.length) return undefined;
  return [...kept, ...added];
}

export function tolerationsOf(pod: KubeObject): Toleration[] {
  const tolerations = specOf(pod).tolerations;
  if (!Array.isArray(tolerations)) return [];
  return tolerations.filter(isRecord).map((t) => {
    const result: Toleration = {};
    if (typeof t.key === 'string') result.key = t.key;
    if (typeof t.operator === 'string') result.operator = t.operator;
    if (typeof t.value === 'string') result.value = t.value;
    if (typeof t.effect === 'string') result.effect = t.effect;
    if (typeof t.tolerationSeconds === 'number') result.tolerationSeconds = t.tolerationSeconds;
    return result;
  });
}

/**
 * What the taint manager does with a pod on a node with these NoExecute taints: keep it
 * (`never`), delete it now, or delete it after `seconds` (upstream getMinTolerationTime).
 */
export function evictionDecision(taints: Taint[], tolerations: Toleration[]): { kind: 'never' } | { kind: 'now' } | { kind: 'after'; seconds: number } {
  const noExecute = taints.filter((taint) => taint.effect === 'NoExecute');
  if (noExecute.length === 0) return { kind: 'never' };
  const used: Toleration[] = [];
  for (const taint of noExecute) {
    const matching = tolerations.filter((toleration) => tolerationToleratesTaint(toleration, taint));
    if (matching.length === 0) return { kind: 'now' };
    used.push(...matching);
  }
  let minimum: number | undefined;
  for (const toleration of used) {
    if (toleration.tolerationSeconds === undefined) continue;
    minimum = minimum === undefined ? toleration.tolerationSeconds : Math.min(minimum, toleration.tolerationSeconds);
  }
  if (minimum === undefined) return { kind: 'never' };
  if (minimum <= 0) return { kind: 'now' };
  return { kind: 'after', seconds: minimum };
}

export interface NodeLifecycleControllerOptions {
  clock?: Clock;
  /** upstream --node-monitor-period, 5 s */
  monitorPeriodMs?: number;
  /** upstream --node-monitor-grace-period */
  gracePeriodMs?: number;
}

interface Health {
  probeTimestamp: number;
  heartbeat: string;
  renewTime: string;
}

interface ScheduledEviction {
  createdAt: number;
  fireAt: number;
  timer: Timer;
}

export class NodeLifecycleController {
  private readonly nodeQueue: WorkQueue<string>;
  private readonly podQueue: WorkQueue<string>;
  private readonly nodes: Informer;
  private readonly leases: Informer;
  private readonly pods: Informer;
  private readonly recorder: EventRecorder;
  private readonly evictionRecorder: EventRecorder;
  private readonly clock: Clock;
  private readonly health = new Map<string, Health>();
  private readonly scheduled = new Map<string, ScheduledEviction>();
  private monitorTimer: Timer | undefined;
  private monitoring: Promise<void> = Promise.resolve();
  private stopped = false;
  private running: Promise<void>[] = [];

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: NodeLifecycleControllerOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.nodeQueue = new WorkQueue<string>({ name: 'node_lifecycle_controller', clock: this.clock });
    this.podQueue = new WorkQueue<string>({ name: 'taint_eviction', clock: this.clock });
    this.recorder = new EventRecorder(client, { component: 'node-controller' }, this.clock);
    this.evictionRecorder = new EventRecorder(client, { component: 'taint-eviction-controller' }, this.clock);
    this.nodes = factory.informerFor(resources.nodes);
    this.leases = factory.informerFor(resources.leases, { namespace: NODE_LEASE_NAMESPACE });
    this.pods = factory.informerFor(resources.pods);
    try {
      this.pods.addIndexer(POD_NODE_INDEX, (pod) => {
        const nodeName = specOf(pod).nodeName;
        return typeof nodeName === 'string' && nodeName !== '' ? [nodeName] : [];
      });
    } catch {
      // Another instance on the same factory registered it already.
    }
    this.nodes.addEventHandler({
      onAdd: (node) => this.nodeQueue.add(objectKey(node)),
      onUpdate: (old, node) => {
        this.nodeQueue.add(objectKey(node));
        if (JSON.stringify(taintsOf(old)) !== JSON.stringify(taintsOf(node))) for (const pod of this.pods.byIndex(POD_NODE_INDEX, objectKey(node))) this.podQueue.add(objectKey(pod));
      },
      onDelete: (node) => this.health.delete(objectKey(node)),
    });
    const enqueuePod = (pod: KubeObject) => {
      if (specOf(pod).nodeName) this.podQueue.add(objectKey(pod));
    };
    this.pods.addEventHandler({ onAdd: enqueuePod, onUpdate: (_old, pod) => enqueuePod(pod), onDelete: (pod) => this.cancelEviction(objectKey(pod), undefined) });
  }

  start(): void {
    this.running.push(runWorkers(this.nodeQueue, (key) => this.reconcileNode(key), 1), runWorkers(this.podQueue, (key) => this.reconcilePod(key), 2));
    this.scheduleMonitor();
  }

  async dispose(): Promise<void> {
    this.stopped = true;
    this.monitorTimer?.cancel();
    for (const eviction of this.scheduled.values()) eviction.timer.cancel();
    this.scheduled.clear();
    this.nodeQueue.shutDown();
    this.podQueue.shutDown();
    await Promise.all([...this.running, this.monitoring]);
    await this.recorder.flush();
    await this.evictionRecorder.flush();
  }

  private scheduleMonitor(): void {
    if (this.stopped) return;
    this.monitorTimer = this.clock.setTimeout(() => {
      this.monitoring = this.monitorNodeHealth()
        .catch((error: unknown) => console.warn('[node-lifecycle] monitoring node health failed:', error instanceof Error ? error.message : error))
        .finally(() => this.scheduleMonitor());
    }, this.options.monitorPeriodMs ?? 5000);
  }

  /** One pass of upstream monitorNodeHealth over every node in the cache. */
  async monitorNodeHealth(): Promise<void> {
    for (const node of this.nodes.list()) {
      try {
        await this.checkNode(node);
      } catch (error) {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      }
    }
  }

  private async checkNode(node: KubeObject): Promise<void> {
    const name = node.metadata.name ?? '';
    const now = this.clock.now();
    const ready = getCondition(node, 'Ready');
    const heartbeat = typeof ready?.lastHeartbeatTime === 'string' ? ready.lastHeartbeatTime : '';
    const lease = this.leases.get(NODE_LEASE_NAMESPACE, name);
    const renewTime = lease && isRecord(lease.spec) && typeof lease.spec.renewTime === 'string' ? lease.spec.renewTime : '';
    const previous = this.health.get(name);
    // Upstream compares what the kubelet wrote with what it saw last time, on the controller's own
    // clock, so clock skew between the two does not matter.
    if (!previous || previous.heartbeat !== heartbeat || previous.renewTime !== renewTime) {
      this.health.set(name, { probeTimestamp: now, heartbeat, renewTime });
      return;
    }
    const grace = this.options.gracePeriodMs ?? 40_000;
    if (now <= previous.probeTimestamp + grace) return;
    if (ready?.status === 'Unknown') return;
    const stamp = formatTime(now);
    const conditions = conditionsOf(node);
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const existing = findCondition(conditions, type);
      if (!existing) {
        conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: node.metadata.creationTimestamp ?? stamp, lastTransitionTime: stamp });
      } else if (existing.status !== 'Unknown') {
        Object.assign(existing, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp });
      }
    }
    const updated = await this.client.resource(resources.nodes).updateStatus({ ...structuredClone(node), status: { ...statusOf(node), conditions } });
    if (ready?.status === 'True') {
      this.recorder.event(updated, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      await this.markPodsNotReady(name);
    }
  }

  /** controllerutil.MarkPodsNotReady: the pods of an unreachable node stop counting as Ready. */
  private async markPodsNotReady(nodeName: string): Promise<void> {
    const stamp = formatTime(this.clock.now());
    for (const pod of this.pods.byIndex(POD_NODE_INDEX, nodeName)) {
      const status = statusOf(pod);
      const conditions = statusConditions(status);
      const ready = findCondition(conditions, 'Ready');
      if (!ready || ready.status === 'False') continue;
      const next = setCondition(conditions, { ...ready, status: 'False', lastTransitionTime: stamp }, stamp);
      try {
        await this.client.resource(resources.pods).updateStatus({ ...structuredClone(pod), status: { ...status, conditions: next } });
        this.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (error) {
        if (!isNotFound(error) && !isConflict(error)) throw error;
      }
    }
  }

  async reconcileNode(key: string): Promise<void> {
    const node = this.nodes.getByKey(key);
    if (!node) return;
    const taints = reconcileTaints(node, formatTime(this.clock.now()));
    if (!taints) return;
    const updated = structuredClone(node);
    updated.spec = { ...specOf(node), taints };
    if (taints.length === 0) delete (updated.spec as Record<string, unknown>).taints;
    // Conditional on the cached resourceVersion: a conflict requeues with the newer node.
    await this.client.resource(resources.nodes).update(updated);
  }

  async reconcilePod(key: string): Promise<void> {
    const pod = this.pods.getByKey(key);
    if (!pod || pod.metadata.deletionTimestamp) {
      this.cancelEviction(key, undefined);
      return;
    }
    const nodeName = specOf(pod).nodeName;
    const node = typeof nodeName === 'string' ? this.nodes.get(undefined, nodeName) : undefined;
    const decision = evictionDecision(node ? taintsOf(node) : [], tolerationsOf(pod));
    const now = this.clock.now();
    if (decision.kind === 'never') {
      this.cancelEviction(key, pod);
      return;
    }
    if (decision.kind === 'now') {
      this.cancelEviction(key, undefined);
      await this.evict(pod);
      return;
    }
    const existing = this.scheduled.get(key);
    if (existing) {
      const fireAt = existing.createdAt + decision.seconds * 1000;
      if (fireAt <= now) {
        this.cancelEviction(key, undefined);
        await this.evict(pod);
        return;
      }
      if (fireAt === existing.fireAt) return;
      existing.timer.cancel();
      this.scheduled.set(key, { createdAt: existing.createdAt, fireAt, timer: this.clock.setTimeout(() => this.podQueue.add(key), fireAt - now) });
      return;
    }
    const fireAt = now + decision.seconds * 1000;
    this.scheduled.set(key, { createdAt: now, fireAt, timer: this.clock.setTimeout(() => this.podQueue.add(key), fireAt - now) });
  }

  /** Pods with an eviction pending (for tests and diagnostics): key → due time on the controller clock. */
  pendingEvictions(): Map<string, number> {
    return new Map([...this.scheduled].map(([key, eviction]) => [key, eviction.fireAt]));
  }

  private cancelEviction(key: string, pod: KubeObject | undefined): void {
    const existing = this.scheduled.get(key);
    if (!existing) return;
    existing.timer.cancel();
    this.scheduled.delete(key);
    if (pod) {
      const { namespace, name } = splitKey(key);
      this.evictionRecorder.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${namespace ?? ''}/${name}`);
    }
  }

  private async evict(pod: KubeObject): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    this.evictionRecorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${namespace}/${name}`);
    const pods = this.client.resource(resources.pods);
    try {
      const status = statusOf(pod);
      const conditions = removeCondition(statusConditions(status), 'DisruptionTarget');
      conditions.push({ type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(this.clock.now()), reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
      await pods.patchStatus(namespace, name, { status: { conditions } }, 'merge');
      await pods.delete(namespace, name);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
