// runWorkers: the worker loop of upstream sample-controller (processNextWorkItem): take a key,
// reconcile it, forget its failures on success, requeue it with back-off on error. A NotFound error
// means the object is gone, so there is nothing left to do for the key. QueueController wraps it
// with the queue, handlers, start and dispose every controller shares.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { ApiClient } from './apiClient';
import { realClock, type Clock } from './clock';
import { isNotFound } from './errors';
import { EventRecorder } from './eventRecorder';
import { objectKey, type Disposable, type Informer, type ResourceEventHandler, type SharedInformerFactory } from './informer';
import { WorkQueue } from './workQueue';

export interface RunWorkersOptions<T> {
  /** Called for errors that lead to a requeue; defaults to console.warn. */
  onError?: (item: T, error: unknown, requeues: number) => void;
  /** Stop retrying an item after this many requeues (upstream controllers often use 15). Default: never stop. */
  maxRetries?: number;
}

/** Runs `workers` concurrent loops until the queue is shut down; resolves when they have all exited. */
export async function runWorkers<T>(queue: WorkQueue<T>, reconcile: (item: T) => Promise<void>, workers: number, options: RunWorkersOptions<T> = {}): Promise<void> {
  const onError = options.onError ?? ((item: T, error: unknown) => console.warn(`[${queue.name || 'controller'}] error syncing ${String(item)}; requeuing:`, error instanceof Error ? error.message : error));
  const loops: Promise<void>[] = [];
  for (let i = 0; i < Math.max(1, workers); i++) loops.push(workerLoop(queue, reconcile, options.maxRetries, onError));
  await Promise.all(loops);
}

async function workerLoop<T>(queue: WorkQueue<T>, reconcile: (item: T) => Promise<void>, maxRetries: number | undefined, onError: (item: T, error: unknown, requeues: number) => void): Promise<void> {
  for (;;) {
    const item = await queue.get();
    if (item === undefined) return;
    try {
      await reconcile(item);
      queue.forget(item);
    } catch (error) {
      if (isNotFound(error)) {
        queue.forget(item);
      } else if (maxRetries !== undefined && queue.numRequeues(item) >= maxRetries) {
        onError(item, error, queue.numRequeues(item));
        queue.forget(item);
      } else {
        onError(item, error, queue.numRequeues(item));
        queue.addRateLimited(item);
      }
    } finally {
      queue.done(item);
    }
  }
}

/** What every controller can be given. */
export interface ControllerOptions {
  /** The time source (tests pass a FakeClock). */
  clock?: Clock;
  /** Concurrent reconciles (upstream --concurrent-*-syncs). */
  workers?: number;
  /** Where the controller's events go; default a recorder writing as the controller's component. */
  recorder?: EventRecorder;
}

/** What a controller class fixes for all its instances. */
export interface QueueControllerSetup {
  /** The work queue's name, as upstream names it (`replicaset`, `endpoint_slice`…); it labels errors. */
  name: string;
  /** The event source, as upstream's (`replicaset-controller`). */
  component: string;
  /** Concurrent reconciles unless the options say otherwise. Default 1. */
  workers?: number;
  /** Stop retrying a key after this many requeues. Default: never stop. */
  maxRetries?: number;
}

/**
 * The scaffolding every controller shares (upstream sample-controller's Controller and
 * pkg/controller/controller_utils.go): the API client and informer factory, a rate-limited work
 * queue of keys, an event recorder, event handlers that only enqueue, `start()` running the
 * workers and `dispose()` removing the handlers, draining the queue and flushing events. A
 * controller declares its informers as fields (`private readonly pods =
 * this.factory.informerFor(resources.pods)`), adds their handlers with `handle`, `enqueueChanges`
 * or `enqueueRelated`, and writes only `reconcile(key)`.
 */
export abstract class QueueController {
  protected readonly queue: WorkQueue<string>;
  protected readonly clock: Clock;
  protected readonly recorder: EventRecorder;
  private readonly workers: number;
  private readonly maxRetries: number | undefined;
  private readonly subscriptions: Disposable[] = [];
  private readonly cleanups: (() => unknown)[] = [];
  private running: Promise<void> | undefined;

  constructor(
    protected readonly client: ApiClient,
    protected readonly factory: SharedInformerFactory,
    setup: QueueControllerSetup,
    options: ControllerOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.queue = new WorkQueue<string>({ name: setup.name, clock: this.clock });
    this.recorder = options.recorder ?? new EventRecorder(client, { component: setup.component }, this.clock);
    this.workers = options.workers ?? setup.workers ?? 1;
    this.maxRetries = setup.maxRetries;
  }

  /** Brings the state of one key to what its object asks for; level-triggered, so it may run any number of times. Throwing requeues the key with back-off. */
  abstract reconcile(key: string): Promise<void>;

  start(): void {
    this.running = runWorkers(this.queue, (key) => this.reconcile(key), this.workers, { maxRetries: this.maxRetries });
  }

  async dispose(): Promise<void> {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.queue.shutDown();
    await this.running;
    for (const cleanup of this.cleanups.splice(0)) await cleanup();
    await this.recorder.flush();
  }

  /** Resolves when every event recorded so far is written (for tests). */
  flushEvents(): Promise<void> {
    return this.recorder.flush();
  }

  /** Registers event handlers on an informer for the controller's lifetime. */
  protected handle<T extends KubeObject>(informer: Informer<T>, handler: ResourceEventHandler<T>): void {
    this.subscriptions.push(informer.addEventHandler(handler));
  }

  /**
   * Enqueues the keys `keysOf` finds for an object (its owner, the services selecting it…) on every
   * add and delete, and for both the old and the new object on an update.
   */
  protected enqueueRelated<T extends KubeObject>(informer: Informer<T>, keysOf: (object: T) => Iterable<string>): void {
    const enqueueKeys = (object: T) => {
      for (const key of keysOf(object)) this.queue.add(key);
    };
    this.handle(informer, {
      onAdd: enqueueKeys,
      onUpdate: (old, object) => {
        enqueueKeys(old);
        enqueueKeys(object);
      },
      onDelete: enqueueKeys,
    });
  }

  /** The usual handler of the controller's own kind: every add, update and delete enqueues the object's key (after `onDelete`, when given). */
  protected enqueueChanges<T extends KubeObject>(informer: Informer<T>, onDelete?: (object: T) => void): void {
    this.handle(informer, {
      onAdd: (object) => this.enqueue(object),
      onUpdate: (_old, object) => this.enqueue(object),
      onDelete: (object) => {
        onDelete?.(object);
        this.enqueue(object);
      },
    });
  }

  protected enqueue(object: KubeObject): void {
    this.queue.add(objectKey(object));
  }

  /** Runs `cleanup` at the end of dispose, after the last reconcile. */
  protected onDispose(cleanup: () => unknown): void {
    this.cleanups.push(cleanup);
  }
}
