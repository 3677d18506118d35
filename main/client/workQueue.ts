// WorkQueue: the deduplicating, delaying, rate-limited queue of keys that controllers process, with
// the semantics of upstream k8s.io/client-go/util/workqueue (queue.go, delaying_queue.go,
// rate_limiting_queue.go, default_rate_limiters.go):
// - an item added while queued is stored once; added while being processed it is marked dirty and
//   queued again when `done` is called, so one item is never processed by two workers at once;
// - `addAfter` keeps only the earliest pending time per item;
// - `addRateLimited` waits per item 5 ms · 2^failures (capped at 1000 s), and by default also draws
//   from an overall 10 qps / 100 burst token bucket; `forget` resets an item's failures.
import { realClock, type Clock, type Timer } from './clock';

export interface RateLimiter<T> {
  /** How long to wait before the item may be processed again; counts a failure. */
  when(item: T): number;
  forget(item: T): void;
  numRequeues(item: T): number;
}

/** Per-item exponential back-off: base · 2^failures, capped at max. */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs = 5,
    private readonly maxDelayMs = 1_000_000,
  ) {}

  when(item: T): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    // 2^failures overflows to Infinity long before it matters; the cap handles that.
    return Math.min(this.baseDelayMs * 2 ** failures, this.maxDelayMs);
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** Overall token bucket (as golang.org/x/time/rate Reserve): tokens refill at qps up to burst. */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  when(_item: T): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** The longest delay of several limiters; requeue count is the largest. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    let delay = 0;
    for (const limiter of this.limiters) delay = Math.max(delay, limiter.when(item));
    return delay;
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    let count = 0;
    for (const limiter of this.limiters) count = Math.max(count, limiter.numRequeues(item));
    return count;
  }
}

/** Upstream DefaultControllerRateLimiter: max(per-item 5 ms→1000 s, overall 10 qps burst 100). */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(new ItemExponentialFailureRateLimiter<T>(5, 1_000_000), new BucketRateLimiter<T>(10, 100, clock));
}

export interface WorkQueueOptions<T> {
  clock?: Clock;
  /** Defaults to defaultControllerRateLimiter. */
  rateLimiter?: RateLimiter<T>;
  /** For logs. */
  name?: string;
}

interface Waiting {
  readyAt: number;
  timer: Timer;
}

/**
 * Items are compared by identity (===), so use strings (`namespace/name` keys) or shared objects.
 * `get` resolves to undefined once the queue is shut down and empty.
 */
export class WorkQueue<T = string> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;
  private readonly queue: T[] = [];
  private readonly dirty = new Set<T>();
  private readonly processing = new Set<T>();
  private readonly waiting = new Map<T, Waiting>();
  private readonly getters: ((item: T | undefined) => void)[] = [];
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions<T> = {}) {
    this.clock = options.clock ?? realClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
    this.name = options.name ?? '';
  }

  add(item: T): void {
    if (this.shuttingDown || this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /** Waits for the next item; it stays "processing" until `done(item)`. */
  get(): Promise<T | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.take());
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(item: T): void {
    this.processing.delete(item);
    if (this.dirty.has(item)) this.enqueue(item);
    else if (this.processing.size === 0) this.notifyDrained();
  }

  /** Adds the item after `delayMs`; if it is already waiting, the earlier time wins. */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waiting.get(item);
    if (existing && existing.readyAt <= readyAt) return;
    existing?.timer.cancel();
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(item);
      this.add(item);
    }, delayMs);
    this.waiting.set(item, { readyAt, timer });
  }

  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Stops tracking the item's failures (call after it was processed successfully). */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /** Items ready to be taken (not counting those processing or waiting for a delay). */
  len(): number {
    return this.queue.length;
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** New adds are ignored; waiting getters get undefined once the queue is empty; delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const waiting of this.waiting.values()) waiting.timer.cancel();
    this.waiting.clear();
    // Items still queued are handed out first, as upstream Get does after ShutDown.
    for (const getter of this.getters.splice(0)) getter(undefined);
  }

  /** Shuts down, then resolves once every item being processed has been marked done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private enqueue(item: T): void {
    const getter = this.getters.shift();
    if (getter) {
      this.queue.push(item);
      getter(this.take());
      return;
    }
    this.queue.push(item);
  }

  private take(): T | undefined {
    const item = this.queue.shift();
    if (item === undefined) return undefined;
    this.processing.add(item);
    this.dirty.delete(item);
    return item;
  }

  private notifyDrained(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
