import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/doubles/fakeClock';
import { runWorkers } from './controllerLoop';
import { ClientApiError } from './errors';
import { ItemExponentialFailureRateLimiter, WorkQueue } from './workQueue';

function notFound(): ClientApiError {
  return new ClientApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'pods "a" not found' });
}

async function eventually(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('runWorkers', () => {
  it('forgets an item after success, requeues it with back-off after an error, and drops it on NotFound', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) });
    const calls: string[] = [];
    let failuresLeft = 2;
    const errors: unknown[] = [];
    const running = runWorkers(
      queue,
      async (key) => {
        calls.push(key);
        if (key === 'flaky' && failuresLeft-- > 0) throw new Error('boom');
        if (key === 'gone') throw notFound();
      },
      2,
      { onError: (_item, error) => errors.push(error) },
    );
    queue.add('ok');
    queue.add('gone');
    queue.add('flaky');
    await eventually(() => calls.length === 3 && queue.numRequeues('flaky') === 1);
    expect(queue.numRequeues('ok')).toBe(0);
    expect(queue.numRequeues('gone')).toBe(0);
    clock.advance(5);
    await eventually(() => calls.length === 4 && queue.numRequeues('flaky') === 2);
    clock.advance(10);
    await eventually(() => calls.length === 5);
    await eventually(() => queue.numRequeues('flaky') === 0);
    expect(errors).toHaveLength(2);
    queue.shutDown();
    await running;
  });

  it('never processes one key in two workers at once', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    let active = 0;
    let maxActive = 0;
    let processed = 0;
    let release: () => void = () => {};
    const running = runWorkers(
      queue,
      async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((resolve) => (release = resolve));
        active--;
        processed++;
      },
      4,
    );
    queue.add('a');
    await eventually(() => active === 1);
    queue.add('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(active).toBe(1);
    release();
    await eventually(() => processed === 1 && active === 1);
    release();
    await eventually(() => processed === 2);
    expect(maxActive).toBe(1);
    queue.shutDown();
    await running;
  });

  it('gives up on an item after maxRetries requeues', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1000) });
    let calls = 0;
    const running = runWorkers(queue, async () => {
      calls++;
      throw new Error('always');
    }, 1, { maxRetries: 1, onError: () => {} });
    queue.add('a');
    await eventually(() => calls === 1 && queue.numRequeues('a') === 1);
    clock.advance(5);
    await eventually(() => calls === 2 && queue.numRequeues('a') === 0);
    expect(clock.pendingTimers()).toBe(0);
    queue.shutDown();
    await running;
  });
});
