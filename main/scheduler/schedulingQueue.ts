// The scheduling queue, after upstream pkg/scheduler/backend/queue/scheduling_queue.go:
// - activeQ: pods ready to be tried, highest priority first, then oldest (PrioritySort);
// - backoffQ: pods that failed recently wait 1 s · 2^(attempts−1), at most 10 s;
// - unschedulable pods wait for a cluster change (moveAllToActiveOrBackoff) or, as a safety net,
//   are flushed back after `unschedulableTimeoutMs` (checked every `flushIntervalMs`);
// - a change that happens while a pod is being scheduled sends it to backoff rather than to the
//   unschedulable set when that attempt fails (upstream's moveRequestCycle), so no event is lost.
import { realClock, type Clock, type Timer } from '../client/clock';
import { podKey, podPriority, type Pod } from './api';

export interface QueuedPod {
  key: string;
  pod: Pod;
  /** Scheduling attempts so far (incremented on pop). */
  attempts: number;
  /** When the pod entered the queue; older first among equal priorities. */
  timestamp: number;
  /** When the last attempt failed. */
  failedAt: number;
  /** The scheduling cycle in which the pod was popped. */
  cycle: number;
}

export interface SchedulingQueueOptions {
  clock?: Clock;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  unschedulableTimeoutMs?: number;
  flushIntervalMs?: number;
}

type Where = 'active' | 'backoff' | 'unschedulable' | 'inFlight';

export class SchedulingQueue {
  private readonly clock: Clock;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly unschedulableTimeoutMs: number;
  private readonly flushIntervalMs: number;
  private readonly entries = new Map<string, { info: QueuedPod; where: Where; timer?: Timer }>();
  private active: QueuedPod[] = [];
  private waiters: ((info: QueuedPod | undefined) => void)[] = [];
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private flushTimer: Timer | undefined;
  private closed = false;

  constructor(options: SchedulingQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.initialBackoffMs = options.initialBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.unschedulableTimeoutMs = options.unschedulableTimeoutMs ?? 60_000;
    this.flushIntervalMs = options.flushIntervalMs ?? 30_000;
    this.scheduleFlush();
  }

  /** A new pending pod (or one seen again): queued unless it is already known. */
  add(pod: Pod): void {
    if (this.closed) return;
    const key = podKey(pod);
    const entry = this.entries.get(key);
    if (entry) {
      entry.info.pod = pod;
      return;
    }
    const info: QueuedPod = { key, pod, attempts: 0, timestamp: this.clock.now(), failedAt: 0, cycle: 0 };
    this.entries.set(key, { info, where: 'active' });
    this.pushActive(info);
  }

  /**
   * The pod changed. A spec/metadata change of a pod waiting as unschedulable may make it
   * schedulable, so it is moved; status-only changes (our own condition patches) are not.
   */
  update(oldPod: Pod | undefined, pod: Pod): void {
    if (this.closed) return;
    const key = podKey(pod);
    const entry = this.entries.get(key);
    if (!entry) {
      this.add(pod);
      return;
    }
    entry.info.pod = pod;
    if (oldPod && !podSpecChanged(oldPod, pod)) return;
    if (entry.where === 'unschedulable') this.requeue(entry.info, this.isBackingOff(entry.info) ? 'backoff' : 'active');
    else if (entry.where === 'inFlight') this.moveRequestCycle = this.schedulingCycle;
  }

  delete(pod: Pod): void {
    const key = podKey(pod);
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.timer?.cancel();
    this.entries.delete(key);
    if (entry.where === 'active') this.active = this.active.filter((info) => info.key !== key);
  }

  /** Waits for the next pod; undefined once closed. The pod is "in flight" until done() or a failure call. */
  pop(): Promise<QueuedPod | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const info = this.takeActive();
    if (info) return Promise.resolve(info);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The attempt succeeded (bound or assumed): the queue forgets the pod. */
  done(key: string): void {
    const entry = this.entries.get(key);
    if (entry?.where === 'inFlight') this.entries.delete(key);
  }

  /** The attempt found no node: wait for a cluster change, or back off if one came meanwhile. */
  addUnschedulable(info: QueuedPod): void {
    const entry = this.entries.get(info.key);
    if (!entry || entry.where !== 'inFlight' || this.closed) return;
    info.failedAt = this.clock.now();
    if (this.moveRequestCycle >= info.cycle) {
      this.requeue(info, 'backoff');
      return;
    }
    entry.where = 'unschedulable';
  }

  /** The attempt hit an error (API failure, binding conflict): retry after the back-off. */
  addBackoff(info: QueuedPod): void {
    const entry = this.entries.get(info.key);
    if (!entry || entry.where !== 'inFlight' || this.closed) return;
    info.failedAt = this.clock.now();
    this.requeue(info, 'backoff');
  }

  /** A node or pod changed in a way that may let waiting pods in (upstream MoveAllToActiveOrBackoffQueue). */
  moveAllToActiveOrBackoff(): void {
    if (this.closed) return;
    this.moveRequestCycle = this.schedulingCycle;
    for (const entry of this.entries.values()) {
      if (entry.where === 'unschedulable') this.requeue(entry.info, this.isBackingOff(entry.info) ? 'backoff' : 'active');
    }
  }

  /** Counts per sub-queue, for tests and diagnostics. */
  stats(): Record<Where, number> {
    const counts: Record<Where, number> = { active: 0, backoff: 0, unschedulable: 0, inFlight: 0 };
    for (const entry of this.entries.values()) counts[entry.where]++;
    return counts;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  close(): void {
    this.closed = true;
    this.flushTimer?.cancel();
    for (const entry of this.entries.values()) entry.timer?.cancel();
    this.entries.clear();
    this.active = [];
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  /** Upstream calculateBackoffDuration. */
  backoffDuration(attempts: number): number {
    let duration = this.initialBackoffMs;
    for (let i = 1; i < attempts; i++) {
      duration *= 2;
      if (duration >= this.maxBackoffMs) return this.maxBackoffMs;
    }
    return duration;
  }

  private isBackingOff(info: QueuedPod): boolean {
    return info.failedAt + this.backoffDuration(info.attempts) > this.clock.now();
  }

  private requeue(info: QueuedPod, where: 'active' | 'backoff'): void {
    const entry = this.entries.get(info.key);
    if (!entry) return;
    entry.timer?.cancel();
    entry.timer = undefined;
    if (where === 'backoff') {
      const remaining = info.failedAt + this.backoffDuration(info.attempts) - this.clock.now();
      if (remaining > 0) {
        entry.where = 'backoff';
        entry.timer = this.clock.setTimeout(() => {
          const current = this.entries.get(info.key);
          if (current?.where !== 'backoff') return;
          current.timer = undefined;
          current.where = 'active';
          this.pushActive(current.info);
        }, remaining);
        return;
      }
    }
    entry.where = 'active';
    this.pushActive(info);
  }

  private pushActive(info: QueuedPod): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.active.push(info);
      waiter(this.takeActive());
      return;
    }
    this.active.push(info);
  }

  private takeActive(): QueuedPod | undefined {
    if (this.active.length === 0) return undefined;
    let bestIndex = 0;
    for (let i = 1; i < this.active.length; i++) {
      const candidate = this.active[i];
      const best = this.active[bestIndex];
      const byPriority = podPriority(candidate.pod) - podPriority(best.pod);
      if (byPriority > 0 || (byPriority === 0 && candidate.timestamp < best.timestamp)) bestIndex = i;
    }
    const [info] = this.active.splice(bestIndex, 1);
    const entry = this.entries.get(info.key);
    if (entry) entry.where = 'inFlight';
    info.attempts++;
    info.cycle = ++this.schedulingCycle;
    return info;
  }

  private scheduleFlush(): void {
    if (this.closed) return;
    this.flushTimer = this.clock.setTimeout(() => {
      const now = this.clock.now();
      for (const entry of this.entries.values()) {
        if (entry.where === 'unschedulable' && now - entry.info.failedAt >= this.unschedulableTimeoutMs) this.requeue(entry.info, this.isBackingOff(entry.info) ? 'backoff' : 'active');
      }
      this.scheduleFlush();
    }, this.flushIntervalMs);
  }
}

/** Upstream isPodUpdated: anything but status, resourceVersion, generation, managedFields and finalizers. */
export function podSpecChanged(oldPod: Pod, newPod: Pod): boolean {
  const strip = (pod: Pod): string => {
    const { resourceVersion: _resourceVersion, generation: _generation, managedFields: _managedFields, finalizers: _finalizers, ...metadata } = pod.metadata;
    const { status: _status, ...rest } = pod;
    return JSON.stringify({ ...rest, metadata });
  };
  return strip(oldPod) !== strip(newPod);
}
