// Scheduler: kube-scheduler's loop (upstream pkg/scheduler/scheduler.go, schedule_one.go,
// eventhandlers.go) on top of the client layer only. Informers feed a cache of nodes and bound
// pods and a scheduling queue of pending pods that name this scheduler and carry no scheduling
// gates. Each cycle takes a snapshot, runs the plugins (cycle.ts), assumes the chosen node in the
// cache at once and binds through POST pods/{name}/binding in the background, then records
// `Scheduled`. A pod that fits nowhere gets PodScheduled=False/Unschedulable with upstream's
// "0/N nodes are available: …" message, a `FailedScheduling` warning, and waits for a node or pod
// change (or the periodic flush) to be tried again; preemption evicts lower-priority pods when
// that would make room.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { conditionsOf, findCondition, getCondition, setCondition } from '../../shared/kubernetes/conditions';
import { formatTime } from '../../shared/kubernetes/time';
import { labelSetMatches, selectorIsEmpty, selectorMatches } from '../../shared/kubernetes/labelSelector';
import type { ApiClient, ResourceClient } from '../client/apiClient';
import { realClock, type Clock } from '../client/clock';
import { isNotFound } from '../client/errors';
import type { EventRecorder } from '../client/eventRecorder';
import type { Disposable, Informer, SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { arrayOf, podKey, type LabelSelector, type LabelSelectorRequirement, type Node, type Pod } from './api';
import { evaluatePreemption, fitErrorMessage, schedulePod, type PreemptionCandidate } from './cycle';
import { createPlugins, type WeightedPlugin } from './registry';
import { SchedulerCache } from './schedulerCache';
import { SchedulingQueue, type QueuedPod, type SchedulingQueueOptions } from './schedulingQueue';
import { type Labels } from './selectors';


/** how long the scheduling loop runs before it lets other work in */
const SCHEDULING_SLICE_MS = 5;
export interface SchedulerOptions extends Omit<SchedulingQueueOptions, 'clock'> {
  /** Pods whose spec.schedulerName is this (or unset, for the default) are ours. */
  schedulerName?: string;
  clock?: Clock;
  /** Tie-breaking between equally scored nodes; tests pass a fixed source. */
  random?: () => number;
  /** Plugin names to enable (default: every registered plugin). */
  plugins?: readonly string[];
  onError?: (message: string, error: unknown) => void;
}

export const defaultSchedulerName = 'default-scheduler';

/** Pods in a terminal phase hold no resources: the informer leaves them out, as upstream's does. */
export const schedulerPodFieldSelector = 'status.phase!=Succeeded,status.phase!=Failed';

function isAssigned(pod: Pod): boolean {
  return typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '';
}

function podReference(pod: Pod): KubeObject {
  return { ...pod, apiVersion: 'v1', kind: 'Pod' };
}

function nodeChangeMatters(oldNode: Node, newNode: Node): boolean {
  const pick = (node: Node): string =>
    JSON.stringify([
      node.metadata.labels,
      node.spec?.taints,
      node.spec?.unschedulable,
      node.status?.allocatable ?? node.status?.capacity,
      getCondition(node, 'Ready')?.status,
    ]);
  return pick(oldNode) !== pick(newNode);
}

function selectorFromSet(set: unknown): Record<string, string> | undefined {
  if (!isRecord(set)) return undefined;
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(set)) if (typeof value === 'string') result[key] = value;
  return Object.keys(result).length > 0 ? result : undefined;
}

export class Scheduler {
  readonly schedulerName: string;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly plugins: WeightedPlugin[];
  private readonly queue: SchedulingQueue;
  private readonly cache = new SchedulerCache();
  private readonly podClient: ResourceClient<Pod>;
  private readonly podInformer: Informer<Pod>;
  private readonly nodeInformer: Informer<Node>;
  private readonly namespaceInformer: Informer;
  private readonly ownerInformers: Informer[];
  private readonly handlers: Disposable[] = [];
  private readonly bindings = new Set<Promise<void>>();
  private readonly onError: (message: string, error: unknown) => void;
  private loop: Promise<void> | undefined;
  private disposed = false;

  constructor(
    client: ApiClient,
    factory: SharedInformerFactory,
    private readonly recorder: EventRecorder,
    options: SchedulerOptions = {},
  ) {
    this.schedulerName = options.schedulerName ?? defaultSchedulerName;
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.plugins = createPlugins(options.plugins);
    this.onError = options.onError ?? ((message, error) => console.warn(`[scheduler] ${message}:`, error instanceof Error ? error.message : error));
    this.queue = new SchedulingQueue({ ...options, clock: this.clock });
    this.podClient = client.resource<Pod>(resources.pods);
    this.podInformer = factory.informerFor<Pod>(resources.pods, { fieldSelector: schedulerPodFieldSelector });
    this.nodeInformer = factory.informerFor<Node>(resources.nodes);
    this.namespaceInformer = factory.informerFor(resources.namespaces);
    this.ownerInformers = [resources.services, resources.replicationcontrollers, resources.replicasets, resources.statefulsets].map((gvr) => factory.informerFor(gvr));
  }

  /** Registers the event handlers and starts the scheduling loop once pods and nodes are listed. */
  start(): void {
    if (this.loop || this.disposed) return;
    this.handlers.push(
      this.nodeInformer.addEventHandler({
        onAdd: (node) => {
          this.cache.addOrUpdateNode(node);
          this.queue.moveAllToActiveOrBackoff();
        },
        onUpdate: (oldNode, node) => {
          this.cache.addOrUpdateNode(node);
          if (nodeChangeMatters(oldNode, node)) this.queue.moveAllToActiveOrBackoff();
        },
        onDelete: (node) => this.cache.removeNode(node.metadata.name ?? ''),
      }),
      this.podInformer.addEventHandler({
        onAdd: (pod) => this.onPodAdd(pod),
        onUpdate: (oldPod, pod) => this.onPodUpdate(oldPod, pod),
        onDelete: (pod) => this.onPodDelete(pod),
      }),
    );
    this.loop = this.run();
  }

  /** Stops scheduling; resolves once the loop and bindings under way have finished. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.close();
    for (const handler of this.handlers.splice(0)) handler.dispose();
    await this.loop;
    await Promise.all([...this.bindings]);
  }

  /** Queue counts, for diagnostics and tests. */
  queueStats(): Record<'active' | 'backoff' | 'unschedulable' | 'inFlight', number> {
    return this.queue.stats();
  }

  private responsible(pod: Pod): boolean {
    return (pod.spec?.schedulerName || defaultSchedulerName) === this.schedulerName;
  }

  private wantsScheduling(pod: Pod): boolean {
    return !isAssigned(pod) && !pod.metadata.deletionTimestamp && this.responsible(pod) && arrayOf(pod.spec?.schedulingGates).length === 0;
  }

  private onPodAdd(pod: Pod): void {
    if (isAssigned(pod)) {
      this.cache.addOrUpdatePod(pod);
      // A new neighbour can satisfy a waiting pod's affinity (upstream AssignedPodAdd).
      this.queue.moveAllToActiveOrBackoff();
      return;
    }
    if (this.wantsScheduling(pod)) this.queue.add(pod);
  }

  private onPodUpdate(oldPod: Pod, pod: Pod): void {
    if (isAssigned(pod)) {
      const wasAssumed = this.cache.isAssumed(pod);
      this.queue.delete(pod);
      this.cache.addOrUpdatePod(pod);
      // Our own binding being confirmed changes nothing the cache did not already count.
      if (!isAssigned(oldPod) && !wasAssumed) this.queue.moveAllToActiveOrBackoff();
      else if (isAssigned(oldPod) && JSON.stringify(oldPod.metadata.labels) !== JSON.stringify(pod.metadata.labels)) this.queue.moveAllToActiveOrBackoff();
      return;
    }
    if (!this.wantsScheduling(pod)) {
      this.queue.delete(pod);
      return;
    }
    this.queue.update(oldPod, pod);
  }

  private onPodDelete(pod: Pod): void {
    this.queue.delete(pod);
    if (isAssigned(pod) || this.cache.isAssumed(pod)) {
      this.cache.removePod(pod);
      // Freed resources, ports and domains may let waiting pods in (upstream AssignedPodDelete).
      this.queue.moveAllToActiveOrBackoff();
    }
  }

  private async run(): Promise<void> {
    const synced = await Promise.all([this.podInformer.waitForSync(), this.nodeInformer.waitForSync()]);
    if (!synced.every(Boolean) || this.disposed) return;
    // Scheduling cycles are synchronous; with a backlog the loop yields to the event loop every few
    // milliseconds so the API server (same process) keeps answering — upstream's scheduler runs in
    // its own goroutines and never starves the apiserver.
    let sliceStart = Date.now();
    for (;;) {
      const info = await this.queue.pop();
      if (!info) return;
      try {
        this.scheduleOne(info);
      } catch (error) {
        this.onError(`scheduling ${info.key} failed`, error);
        this.queue.addBackoff(info);
      }
      if (Date.now() - sliceStart >= SCHEDULING_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = Date.now();
      }
    }
  }

  private scheduleOne(info: QueuedPod): void {
    const [namespace, name] = [info.pod.metadata.namespace ?? '', info.pod.metadata.name ?? ''];
    const pod = this.podInformer.get(namespace, name) ?? info.pod;
    info.pod = pod;
    if (!this.wantsScheduling(pod) || this.cache.isAssumed(pod)) {
      this.queue.done(info.key);
      return;
    }
    const snapshot = this.cache.snapshot(this.namespaceLabels(), (target) => this.defaultSpreadSelector(target));
    const result = schedulePod(this.plugins, pod, snapshot, this.random);
    if (result.kind === 'scheduled') {
      this.cache.assumePod(pod, result.node);
      this.track(this.bind(info, pod, result.node));
      return;
    }
    if (result.kind === 'error') {
      this.recordFailure(pod, 'SchedulerError', result.message);
      this.queue.addBackoff(info);
      return;
    }
    const preemption = evaluatePreemption(this.plugins, pod, snapshot, result.diagnosis);
    result.diagnosis.postFilterMessage = preemption.message;
    this.recordFailure(pod, 'Unschedulable', fitErrorMessage(result.numAllNodes, result.diagnosis));
    if (preemption.candidate) this.track(this.preempt(pod, preemption.candidate));
    this.queue.addUnschedulable(info);
  }

  private track(work: Promise<void>): void {
    this.bindings.add(work);
    void work.finally(() => this.bindings.delete(work));
  }

  /** Upstream DefaultBinder, then the Scheduled event; a failure forgets the assumption and retries. */
  private async bind(info: QueuedPod, pod: Pod, node: string): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid: pod.metadata.uid }, target: { apiVersion: 'v1', kind: 'Node', name: node } };
    try {
      await this.podClient.createSubresource(namespace, name, 'binding', binding);
    } catch (error) {
      this.cache.forgetPod(pod);
      if (isNotFound(error)) {
        this.queue.done(info.key);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      this.recordFailure(pod, 'SchedulerError', message);
      this.queue.addBackoff(info);
      return;
    }
    this.queue.done(info.key);
    this.recorder.event(podReference(pod), 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`);
  }

  /** FailedScheduling event and PodScheduled=False (upstream handleSchedulingFailure + updatePod). */
  private recordFailure(pod: Pod, reason: 'Unschedulable' | 'SchedulerError', message: string): void {
    if (this.disposed) return;
    this.recorder.event(podReference(pod), 'Warning', 'FailedScheduling', message);
    const conditions = conditionsOf(pod);
    const existing = findCondition(conditions, 'PodScheduled');
    if (existing && existing.status === 'False' && existing.reason === reason && existing.message === message) return;
    // The whole list is sent so a JSON merge patch and a strategic one (merging by type) agree.
    const next = setCondition(conditions, { type: 'PodScheduled', status: 'False', reason, message, lastProbeTime: null }, formatTime(new Date()));
    const work = this.podClient
      .patchStatus(pod.metadata.namespace, pod.metadata.name ?? '', { status: { conditions: next } }, 'strategic')
      .then(
        () => undefined,
        (error: unknown) => {
          if (!isNotFound(error)) this.onError(`updating the PodScheduled condition of ${podKey(pod)}`, error);
        },
      );
    this.track(work);
  }

  /** Evicts the victims and nominates the node (upstream preemption Evaluator.prepareCandidate). */
  private async preempt(pod: Pod, candidate: PreemptionCandidate): Promise<void> {
    for (const victim of candidate.victims) {
      try {
        await this.podClient.delete(victim.metadata.namespace, victim.metadata.name ?? '');
        this.recorder.event(podReference(victim), 'Normal', 'Preempted', `Preempted by pod ${pod.metadata.uid ?? ''} on node ${candidate.node}`);
      } catch (error) {
        if (!isNotFound(error)) this.onError(`preempting ${podKey(victim)}`, error);
      }
    }
    try {
      await this.podClient.patchStatus(pod.metadata.namespace, pod.metadata.name ?? '', { status: { nominatedNodeName: candidate.node } }, 'merge');
    } catch (error) {
      if (!isNotFound(error)) this.onError(`nominating ${candidate.node} for ${podKey(pod)}`, error);
    }
  }

  private namespaceLabels(): Map<string, Labels> {
    const result = new Map<string, Labels>();
    for (const namespace of this.namespaceInformer.list()) result.set(namespace.metadata.name ?? '', namespace.metadata.labels ?? {});
    return result;
  }

  /**
   * Upstream helper.DefaultSelector: the services and replication controllers selecting the pod
   * (their label sets merged) and the replica sets and stateful sets selecting it (their
   * requirements added); undefined when nothing selects the pod.
   */
  private defaultSpreadSelector(pod: Pod): LabelSelector | undefined {
    const namespace = pod.metadata.namespace ?? '';
    const podLabels = pod.metadata.labels ?? {};
    const matchLabels: Record<string, string> = {};
    const matchExpressions: LabelSelectorRequirement[] = [];
    const [services, replicationControllers, replicaSets, statefulSets] = this.ownerInformers;
    for (const informer of [services, replicationControllers]) {
      for (const owner of informer.listByNamespace(namespace)) {
        const set = selectorFromSet(isRecord(owner.spec) ? owner.spec.selector : undefined);
        if (set && labelSetMatches(set, podLabels)) Object.assign(matchLabels, set);
      }
    }
    for (const informer of [replicaSets, statefulSets]) {
      for (const owner of informer.listByNamespace(namespace)) {
        const selector = isRecord(owner.spec) && isRecord(owner.spec.selector) ? (owner.spec.selector as LabelSelector) : undefined;
        if (!selector || selectorIsEmpty(selector) || !selectorMatches(selector, podLabels)) continue;
        for (const [key, value] of Object.entries(selector.matchLabels ?? {})) matchExpressions.push({ key, operator: 'In', values: [value] });
        matchExpressions.push(...arrayOf(selector.matchExpressions));
      }
    }
    if (Object.keys(matchLabels).length === 0 && matchExpressions.length === 0) return undefined;
    return { matchLabels, matchExpressions };
  }
}
