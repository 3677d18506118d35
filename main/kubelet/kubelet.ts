// Kubelet: one per (virtual) node, after upstream pkg/kubelet (kubelet.go, kubelet_node_status.go,
// nodelease, pod_workers.go, kuberuntime/kuberuntime_manager.go SyncPod). It registers its Node,
// renews its Lease, reports Ready/NotReady from the container runtime's health, and drives each pod
// bound to it toward its spec: sandbox, volumes, init containers in order, app containers,
// restarts with back-off, probes, graceful termination, then status. It talks to the cluster only
// through the API client and to Docker only through the ContainerRuntime, and rebuilds its state
// from container labels at start (adoption), so a restart neither restarts nor duplicates pods.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatMicroTime } from '../../shared/kubernetes/time';
import { getCondition } from '../../shared/kubernetes/conditions';
import { jsonEqual } from '../../shared/kubernetes/json';
import type { ApiClient } from '../client/apiClient';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { WorkQueue } from '../client/workQueue';
import { runWorkers } from '../client/controllerLoop';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors';
import type { EventRecorder } from '../client/eventRecorder';
import type { ContainerRuntime, ContainerStatus, LogOptions, RuntimeInfo, StreamOptions, StreamSession } from './runtime/containerRuntime';
import type { Duplex, Readable } from 'node:stream';
import { instancesOf } from './podStatus';
import { leaseObject, nodeObject, nodeStatus, type NodeIdentity } from './nodeStatus';
import { PodRuntimeCache } from './podRuntimeCache';
import { PodSyncer } from './podSyncer';
import { VolumeManager } from './volumes/volumeManager';
import type { ClusterDns } from './containerConfig';

export interface KubeletOptions {
  client: ApiClient;
  factory: SharedInformerFactory;
  runtime: ContainerRuntime;
  recorder: EventRecorder;
  identity: NodeIdentity;
  podsDir: string;
  caCertPem: string;
  /** KUBERNETES_SERVICE_HOST / _PORT for every container */
  kubernetesService: { host: string; port: number };
  clusterDns?: ClusterDns;
  /** where bound PersistentVolumeClaims' directories live (the local-path provisioner's) */
  persistentVolumesDir?: string;
  /** how often node status and the lease are renewed (upstream 10 s) */
  heartbeatMs?: number;
  /** how often the runtime is relisted to notice container changes (upstream PLEG: 1 s) */
  relistMs?: number;
  /** how often every pod is re-synced even without changes (upstream syncFrequency: 1 min; configMap and secret volumes refresh then) */
  resyncMs?: number;
  /** how often an unchanged node status is written anyway (upstream nodeStatusReportFrequency: 5 min) */
  statusReportMs?: number;
}

export class Kubelet {
  private readonly queue: WorkQueue<string>;
  private readonly pods: Informer;
  private readonly syncer: PodSyncer;
  private readonly cache: PodRuntimeCache;
  private readonly timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private runtimeInfo: RuntimeInfo | undefined;
  private runtimeUp = false;
  private nodeUid: string | undefined;
  /** when this kubelet last wrote its node status */
  private statusReportedAt: number | undefined;
  /** the lease as the last renewal left it: the next renewal updates it without reading it first */
  private lease: KubeObject | undefined;
  private disposed = false;
  readonly volumes: VolumeManager;

  constructor(private readonly options: KubeletOptions) {
    const nodeName = options.identity.nodeName;
    this.queue = new WorkQueue<string>({ name: `kubelet-${nodeName}` });
    this.pods = options.factory.informerFor(resources.pods, { fieldSelector: `spec.nodeName=${nodeName}` });
    this.pods.addIndexer('uid', (pod) => (pod.metadata.uid ? [pod.metadata.uid] : []));
    this.cache = new PodRuntimeCache(options.runtime);
    this.volumes = new VolumeManager({ podsDir: options.podsDir, client: options.client, caCertPem: options.caCertPem, persistentVolumesDir: options.persistentVolumesDir });
    this.syncer = new PodSyncer({
      client: options.client,
      runtime: options.runtime,
      recorder: options.recorder,
      cache: this.cache,
      volumes: this.volumes,
      nodeName,
      hostIP: () => options.identity.internalIP,
      kubernetesService: options.kubernetesService,
      clusterDns: options.clusterDns,
      requeue: (uid, delayMs) => this.queue.addAfter(uid, delayMs),
      listServices: async (namespace) => (await options.client.resource(resources.services).list(namespace)).items,
    });
    const enqueue = (pod: KubeObject) => pod.metadata.uid && this.queue.add(pod.metadata.uid);
    this.pods.onAdd(enqueue);
    this.pods.onUpdate((_old, pod) => enqueue(pod));
    this.pods.onDelete(enqueue);
  }

  get nodeName(): string {
    return this.options.identity.nodeName;
  }

  /** Registers the node; pod syncing starts once the factory's informers run. */
  async start(): Promise<void> {
    await this.checkRuntime();
    await this.registerNode();
    await this.renewLease();
    const heartbeat = this.options.heartbeatMs ?? 10_000;
    this.every(heartbeat, async () => {
      const wasUp = this.runtimeUp;
      await this.checkRuntime();
      await this.updateNodeStatus();
      await this.renewLease();
      // Docker came back: every pod may have lost containers, so look at all of them now.
      if (this.runtimeUp && !wasUp) this.resyncAll();
    });
    // PLEG: one relist of the runtime; only pods whose containers changed are synced. With the
    // runtime's change events (Docker's event stream) the relist runs when something happened,
    // and the periodic one is only a safety net.
    const events = this.options.runtime.watchChanges?.(() => this.relistSoon());
    if (events) this.disposables.push(events);
    this.every(this.options.relistMs ?? (events ? 10_000 : 1000), async () => {
      if (!this.runtimeUp) return;
      await this.relist();
    });
    this.every(this.options.resyncMs ?? 60_000, async () => {
      if (this.runtimeUp) this.resyncAll();
    });
    // Upstream runs one goroutine per pod: a pod waiting out its termination grace period must not
    // hold back others, so there are many workers (each mostly waits on Docker).
    this.running = runWorkers(this.queue, (uid) => this.sync(uid), 64, {
      onError: (uid, error) => console.warn(`[kubelet ${this.nodeName}] error syncing pod ${uid}:`, error instanceof Error ? error.message : error),
    });
  }

  podByUid(uid: string): KubeObject | undefined {
    return this.pods.byIndex('uid', uid)[0];
  }

  podSyncer(): PodSyncer {
    return this.syncer;
  }

  // ---- streams (upstream kubelet server.go: containerLogs, exec, attach, portForward) ------------

  async logs(pod: KubeObject, container: string, previous: boolean, options: LogOptions): Promise<Readable> {
    const instance = await this.instance(pod, container, previous);
    return this.options.runtime.logs(instance.id, options);
  }

  async exec(pod: KubeObject, container: string, command: string[], options: StreamOptions): Promise<StreamSession> {
    const instance = await this.runningInstance(pod, container);
    return this.options.runtime.exec(instance.id, command, options);
  }

  async attach(pod: KubeObject, container: string, options: StreamOptions): Promise<StreamSession> {
    // GetAttach's own text (GetExec says `container not found ("c")`)
    const instance = await this.runningInstance(pod, container, `container ${container} not found in pod ${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}`);
    return this.options.runtime.attach(instance.id, options);
  }

  async portForward(pod: KubeObject, port: number): Promise<Duplex> {
    const observed = await this.cache.get(pod.metadata.uid ?? '');
    if (!observed.sandbox || observed.sandbox.state !== 'ready') throw new StreamError(400, `pod ${pod.metadata.name} is not running`);
    return this.options.runtime.portForward(observed.sandbox.id, port);
  }

  private async instance(pod: KubeObject, container: string, previous: boolean): Promise<ContainerStatus> {
    const observed = await this.cache.get(pod.metadata.uid ?? '');
    const init = containerNames(pod, 'initContainers').includes(container) && !containerNames(pod, 'containers').includes(container);
    const instances = instancesOf(observed, container, init);
    if (previous) {
      // the instance before the current one, which the status reports as lastState
      const before = instances[1];
      if (!before) throw new StreamError(400, `previous terminated container "${container}" in pod "${pod.metadata.name}" not found`);
      return before;
    }
    const latest = instances[0];
    if (!latest || latest.state === 'created') {
      throw new StreamError(400, `container "${container}" in pod "${pod.metadata.name}" is waiting to start: ${waitingReason(pod, container) ?? 'ContainerCreating'}`);
    }
    return latest;
  }

  private async runningInstance(pod: KubeObject, container: string, notFound = `container not found ("${container}")`): Promise<ContainerStatus> {
    const observed = await this.cache.get(pod.metadata.uid ?? '');
    const running = observed.containers.find((candidate) => candidate.name === container && candidate.state === 'running');
    if (!running) throw new StreamError(400, notFound);
    return running;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const timer of this.timers) clearTimeout(timer);
    if (this.relistTimer) clearTimeout(this.relistTimer);
    for (const disposable of this.disposables.splice(0)) disposable.dispose();
    this.queue.shutDown();
    await this.running;
    this.syncer.dispose();
  }

  private every(ms: number, task: () => Promise<void>): void {
    const tick = () => {
      if (this.disposed) return;
      task()
        .catch((error: unknown) => console.warn(`[kubelet ${this.nodeName}]`, error instanceof Error ? error.message : error))
        .finally(() => {
          if (!this.disposed) this.timers.push(setTimeout(tick, ms).unref());
        });
    };
    this.timers.push(setTimeout(tick, ms).unref());
  }

  private resyncAll(): void {
    for (const pod of this.pods.list()) if (pod.metadata.uid) this.queue.add(pod.metadata.uid);
  }

  private async sync(uid: string): Promise<void> {
    if (!this.runtimeUp) return;
    await this.syncer.sync(uid, this.podByUid(uid));
  }

  /**
   * Relists the runtime and queues every pod whose sandbox or containers changed (upstream
   * pkg/kubelet/pleg/generic.go), plus containers of pods that no longer exist (deleted while the
   * kubelet was down), which the sync removes.
   */
  private async relist(): Promise<void> {
    if (!this.pods.hasSynced()) return;
    this.cache.invalidate();
    const observed = await this.cache.all();
    const seen = new Set<string>();
    for (const [uid, pod] of observed) {
      seen.add(uid);
      const fingerprint = [
        ...(pod.sandboxes ?? []).map((sandbox) => `${sandbox.id}:${sandbox.state}`),
        ...pod.containers.map((container) => `${container.id}:${container.state}:${container.exitCode ?? ''}`),
      ]
        .sort()
        .join(',');
      if (this.fingerprints.get(uid) !== fingerprint || !this.podByUid(uid)) {
        this.fingerprints.set(uid, fingerprint);
        this.queue.add(uid);
      }
    }
    for (const uid of this.fingerprints.keys()) {
      if (!seen.has(uid)) {
        this.fingerprints.delete(uid);
        this.queue.add(uid);
      }
    }
  }

  private readonly fingerprints = new Map<string, string>();
  private readonly disposables: { dispose(): void }[] = [];
  private relistTimer: NodeJS.Timeout | undefined;

  /** Coalesces a burst of runtime events into one relist. */
  private relistSoon(): void {
    if (this.relistTimer || this.disposed) return;
    this.relistTimer = setTimeout(() => {
      this.relistTimer = undefined;
      if (this.runtimeUp) void this.relist().catch(() => undefined);
    }, 100);
    this.relistTimer.unref();
  }

  private async checkRuntime(): Promise<void> {
    let up = false;
    try {
      up = await this.options.runtime.ping();
      if (up && !this.runtimeInfo) this.runtimeInfo = await this.options.runtime.info();
    } catch {
      up = false;
    }
    if (up !== this.runtimeUp) this.cache.invalidate();
    this.runtimeUp = up;
  }

  private async registerNode(): Promise<void> {
    const nodes = this.options.client.resource(resources.nodes);
    const node = nodeObject(this.options.identity, this.runtimeInfo, this.runtimeUp, new Date());
    try {
      const created = await nodes.create(node);
      this.nodeUid = created.metadata.uid;
      this.options.recorder.event(created, 'Normal', 'Starting', 'Starting kubelet.');
      this.options.recorder.event(created, 'Normal', 'RegisteredNode', `Node ${this.nodeName} event: Registered Node ${this.nodeName} in Controller`);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      // Re-registration keeps what others set (taints, unschedulable) and refreshes labels and status.
      const existing = await nodes.get(undefined, this.nodeName);
      this.nodeUid = existing.metadata.uid;
      await nodes.patch(undefined, this.nodeName, { metadata: { labels: node.metadata.labels } }, 'merge');
      await this.updateNodeStatus();
      this.options.recorder.event(existing, 'Normal', 'Starting', 'Starting kubelet.');
    }
  }

  private async updateNodeStatus(): Promise<void> {
    const nodes = this.options.client.resource(resources.nodes);
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: KubeObject;
      try {
        current = await nodes.get(undefined, this.nodeName);
      } catch (error) {
        if (isNotFound(error)) {
          await this.registerNode();
          return;
        }
        throw error;
      }
      const wasReady = readyStatus(current);
      const now = new Date();
      // nodeStatus() starts from the current capacity object and changes it: compare with a copy
      const reportedStatus = withoutHeartbeats(structuredClone(current.status));
      const status = nodeStatus(this.options.identity, this.runtimeInfo, this.runtimeUp, current, now);
      // Upstream's kubelet writes its status only when it changed or nodeStatusReportFrequency has
      // passed; the Lease is the frequent heartbeat (the node lifecycle controller accepts either).
      const reportedAt = this.statusReportedAt;
      if (reportedAt !== undefined && now.getTime() - reportedAt < (this.options.statusReportMs ?? 5 * 60_000) && jsonEqual(reportedStatus, withoutHeartbeats(status))) return;
      try {
        await nodes.updateStatus({ ...current, status });
      } catch (error) {
        if (isConflict(error)) continue;
        throw error;
      }
      this.statusReportedAt = now.getTime();
      const nowReady = this.runtimeUp ? 'True' : 'False';
      if (wasReady !== nowReady) this.options.recorder.event(current, 'Normal', this.runtimeUp ? 'NodeReady' : 'NodeNotReady', `Node ${this.nodeName} status is now: ${this.runtimeUp ? 'NodeReady' : 'NodeNotReady'}`);
      return;
    }
  }

  /**
   * Renews the node's Lease (upstream pkg/kubelet/nodelease, the lease controller): an update of the
   * lease the last renewal returned, read afresh only when there is none or the update conflicted.
   */
  private async renewLease(): Promise<void> {
    const leases = this.options.client.resource(resources.leases);
    const now = new Date();
    try {
      const existing = this.lease ?? (await leases.get('kube-node-lease', this.nodeName));
      const spec = isRecord(existing.spec) ? existing.spec : {};
      this.lease = undefined;
      this.lease = await leases.update({ ...existing, spec: { ...spec, holderIdentity: this.nodeName, leaseDurationSeconds: 40, renewTime: formatMicroTime(now) } });
    } catch (error) {
      if (!isNotFound(error)) {
        if (isConflict(error)) return;
        throw error;
      }
      try {
        this.lease = await leases.create(leaseObject(this.nodeName, this.nodeUid, now));
      } catch (createError) {
        if (!isAlreadyExists(createError)) throw createError;
      }
    }
  }
}

/** A node status without its conditions' heartbeat times: what a report would change. */
function withoutHeartbeats(status: unknown): unknown {
  if (!isRecord(status) || !Array.isArray(status.conditions)) return status;
  return { ...status, conditions: status.conditions.map((condition: unknown) => (isRecord(condition) ? { ...condition, lastHeartbeatTime: undefined } : condition)) };
}

function readyStatus(node: KubeObject): string | undefined {
  return getCondition(node, 'Ready')?.status;
}

/** A stream request the kubelet cannot serve; the API server turns it into a Status with this code. */
export class StreamError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'StreamError';
  }
}

function containerNames(pod: KubeObject, key: 'containers' | 'initContainers'): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const list = Array.isArray(spec[key]) ? spec[key] : [];
  return list.filter(isRecord).map((container) => String(container.name ?? ''));
}

function waitingReason(pod: KubeObject, container: string): string | undefined {
  const status = isRecord(pod.status) ? pod.status : {};
  for (const key of ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']) {
    const list = Array.isArray(status[key]) ? (status[key] as unknown[]) : [];
    for (const entry of list) {
      if (!isRecord(entry) || entry.name !== container || !isRecord(entry.state) || !isRecord(entry.state.waiting)) continue;
      return typeof entry.state.waiting.reason === 'string' ? entry.state.waiting.reason : undefined;
    }
  }
  return undefined;
}
