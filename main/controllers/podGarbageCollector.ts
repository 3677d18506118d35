// PodGarbageCollector: deletes pods nobody else will clean up, after upstream
// pkg/controller/podgc/gc_controller.go. Every 20 s it
// - deletes terminated pods (Succeeded/Failed) beyond `terminatedPodThreshold`, evicted first, then
//   oldest first (upstream --terminated-pod-gc-threshold, 12500 by default; 0 turns it off);
// - force-deletes terminating pods on nodes that are NotReady and tainted out-of-service;
// - force-deletes pods bound to nodes that no longer exist, once the node has been missing for the
//   40 s quarantine and a live GET confirms it (marking them Failed with a DisruptionTarget condition
//   first, since no kubelet is left to do so);
// - force-deletes terminating pods that were never scheduled.
// Pods not yet terminal are patched to phase Failed before deletion, as upstream does.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { conditionsOf, isConditionTrue, setCondition, type Condition } from '../../shared/kubernetes/conditions';
import type { ApiClient } from '../client/apiClient';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { realClock, type Clock, type Timer } from '../client/clock';
import { isNotFound } from '../client/errors';
import { podPhase, specOf, statusOf } from './controllerUtils';

export const DEFAULT_TERMINATED_POD_THRESHOLD = 12_500;
const GC_CHECK_PERIOD_MS = 20_000;
const QUARANTINE_MS = 40_000;
const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

export interface PodGarbageCollectorOptions {
  /** Terminated pods kept before the oldest are deleted; 0 or less disables that part. */
  terminatedPodThreshold?: number;
  clock?: Clock;
  gcCheckPeriodMs?: number;
  quarantineMs?: number;
  /** Reports failed deletions (they are retried on the next pass). Default: console.warn. */
  onError?: (error: unknown) => void;
}

function isPodTerminated(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown' && phase !== '';
}

function isEvicted(pod: KubeObject): boolean {
  return podPhase(pod) === 'Failed' && statusOf(pod).reason === 'Evicted';
}

/** upstream byEvictionAndCreationTimestamp: evicted first, then oldest, then by name. */
export function compareForDeletion(a: KubeObject, b: KubeObject): number {
  const evictedA = isEvicted(a);
  const evictedB = isEvicted(b);
  if (evictedA !== evictedB) return evictedA ? -1 : 1;
  const createdA = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
  const createdB = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
  if (createdA !== createdB) return createdA - createdB;
  const nameA = a.metadata.name ?? '';
  const nameB = b.metadata.name ?? '';
  return nameA < nameB ? -1 : nameA > nameB ? 1 : 0;
}

/** The terminated pods to delete so that at most `threshold` remain (none when threshold <= 0). */
export function terminatedPodsToDelete(pods: KubeObject[], threshold: number): KubeObject[] {
  if (threshold <= 0) return [];
  const terminated = pods.filter(isPodTerminated);
  const excess = terminated.length - threshold;
  if (excess <= 0) return [];
  return terminated.sort(compareForDeletion).slice(0, excess);
}

function isNodeReady(node: KubeObject): boolean {
  return isConditionTrue(node, 'Ready');
}

function hasTaint(node: KubeObject, key: string): boolean {
  const taints = Array.isArray(specOf(node).taints) ? (specOf(node).taints as unknown[]) : [];
  return taints.some((taint) => isRecord(taint) && taint.key === key);
}

function nodeNameOf(pod: KubeObject): string {
  const name = specOf(pod).nodeName;
  return typeof name === 'string' ? name : '';
}

export class PodGarbageCollector {
  private readonly pods: Informer;
  private readonly nodes: Informer;
  private readonly clock: Clock;
  private readonly threshold: number;
  private readonly periodMs: number;
  private readonly quarantineMs: number;
  /** Node names seen missing, with the time they were first seen missing. */
  private readonly missingSince = new Map<string, number>();
  private timer: Timer | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: PodGarbageCollectorOptions = {},
  ) {
    this.pods = factory.informerFor(resources.pods);
    this.nodes = factory.informerFor(resources.nodes);
    this.clock = options.clock ?? realClock;
    this.threshold = options.terminatedPodThreshold ?? DEFAULT_TERMINATED_POD_THRESHOLD;
    this.periodMs = options.gcCheckPeriodMs ?? GC_CHECK_PERIOD_MS;
    this.quarantineMs = options.quarantineMs ?? QUARANTINE_MS;
  }

  start(): void {
    this.running = (async () => {
      const synced = (await this.pods.waitForSync()) && (await this.nodes.waitForSync());
      if (!synced || this.disposed) return;
      this.schedule(0);
    })();
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.timer?.cancel();
    await this.running;
  }

  /** One pass over every pod (upstream gc); exported for tests, which drive it with a fake clock. */
  async collect(): Promise<void> {
    const pods = this.pods.list();
    const nodes = new Map(this.nodes.list().map((node) => [node.metadata.name ?? '', node]));
    const work: Promise<void>[] = [];
    const chosen = new Set<KubeObject>();
    // A pod that falls in two categories is deleted once.
    const collectPod = (pod: KubeObject, condition?: Condition) => {
      if (chosen.has(pod)) return;
      chosen.add(pod);
      work.push(this.markFailedAndDelete(pod, condition));
    };
    for (const pod of terminatedPodsToDelete(pods, this.threshold)) collectPod(pod);
    for (const pod of pods) {
      if (!pod.metadata.deletionTimestamp) continue;
      const node = nodes.get(nodeNameOf(pod));
      if (node && !isNodeReady(node) && hasTaint(node, OUT_OF_SERVICE_TAINT)) collectPod(pod);
    }
    const deleted = new Set(await this.deletedNodes(pods, nodes));
    for (const pod of pods) {
      if (deleted.has(nodeNameOf(pod))) collectPod(pod, { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' });
    }
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp && !nodeNameOf(pod)) collectPod(pod);
    }
    await Promise.all(work);
  }

  private schedule(delayMs: number): void {
    if (this.disposed) return;
    this.timer = this.clock.setTimeout(() => {
      this.running = this.collect()
        .catch((error: unknown) => this.report(error))
        .finally(() => this.schedule(this.periodMs));
    }, delayMs);
  }

  /** Nodes missing from the cache for the whole quarantine, and confirmed gone by a live GET. */
  private async deletedNodes(pods: KubeObject[], nodes: Map<string, KubeObject>): Promise<string[]> {
    const now = this.clock.now();
    const referenced = new Set<string>();
    for (const pod of pods) {
      const name = nodeNameOf(pod);
      if (name && !nodes.has(name)) referenced.add(name);
    }
    // A node that came back, or that no pod points at any more, leaves quarantine.
    for (const name of [...this.missingSince.keys()]) if (!referenced.has(name)) this.missingSince.delete(name);
    const deleted: string[] = [];
    for (const name of referenced) {
      const since = this.missingSince.get(name);
      if (since === undefined) {
        this.missingSince.set(name, now);
        continue;
      }
      if (now - since < this.quarantineMs) continue;
      try {
        await this.client.resource(resources.nodes).get(undefined, name);
        // The cache lags behind the server: the node exists after all.
        this.missingSince.delete(name);
      } catch (error) {
        if (isNotFound(error)) deleted.push(name);
        else this.report(error);
      }
    }
    return deleted;
  }

  /** upstream markFailedAndDeletePodWithCondition: phase Failed (plus the condition), then delete with grace 0. */
  private async markFailedAndDelete(pod: KubeObject, condition?: Condition): Promise<void> {
    const namespace = pod.metadata.namespace;
    const name = pod.metadata.name ?? '';
    const client = this.client.resource(resources.pods);
    try {
      const phase = podPhase(pod);
      if (phase !== 'Succeeded' && phase !== 'Failed') {
        const status: Record<string, unknown> = { phase: 'Failed' };
        if (condition) status.conditions = setCondition(conditionsOf(pod), condition, formatTime(new Date()));
        await client.patchStatus(namespace, name, { metadata: { uid: pod.metadata.uid }, status }, 'merge');
      }
      await client.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: pod.metadata.uid ? { uid: pod.metadata.uid } : undefined });
    } catch (error) {
      if (!isNotFound(error)) this.report(error);
    }
  }

  private report(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else console.warn('[pod-garbage-collector]', error instanceof Error ? error.message : error);
  }
}
