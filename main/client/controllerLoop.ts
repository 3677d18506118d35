// runWorkers: the worker loop of upstream sample-controller (processNextWorkItem): take a key,
// reconcile it, forget its failures on success, requeue it with back-off on error. A NotFound error
// means the object is gone, so there is nothing left to do for the key.
import { isNotFound } from './errors';
import type { WorkQueue } from './workQueue';

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
