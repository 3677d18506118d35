import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/doubles/fakeClock';
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, WorkQueue, defaultControllerRateLimiter } from './workQueue';

function exponentialQueue(clock: FakeClock): WorkQueue<string> {
  return new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 1_000_000) });
}

describe('WorkQueue', () => {
  it('stores an item added twice while queued only once', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('marks an item added while processing dirty and queues it again only after done', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    queue.add('a');
    const item = await queue.get();
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    queue.done(item ?? '');
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('makes get wait until an item is added', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    const pending = queue.get();
    queue.add('x');
    expect(await pending).toBe('x');
  });

  it('hands out queued items after shutdown, then undefined, and ignores new adds', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    queue.add('a');
    queue.shutDown();
    queue.add('b');
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBeUndefined();
  });

  it('releases waiting getters with undefined on shutdown', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    const pending = queue.get();
    queue.shutDown();
    expect(await pending).toBeUndefined();
  });

  it('resolves shutDownWithDrain only after items in processing are done', async () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    queue.add('a');
    await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    queue.done('a');
    await drain;
    expect(drained).toBe(true);
  });

  it('adds an item after the delay given to addAfter, keeping the earliest time', () => {
    const clock = new FakeClock();
    const queue = new WorkQueue<string>({ clock });
    queue.addAfter('a', 100);
    queue.addAfter('a', 50);
    queue.addAfter('a', 200);
    clock.advance(49);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    clock.advance(1000);
    expect(queue.len()).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('adds an item at once when addAfter gets no delay', () => {
    const queue = new WorkQueue<string>({ clock: new FakeClock() });
    queue.addAfter('a', 0);
    expect(queue.len()).toBe(1);
  });

  it('backs off an item 5, 10, 20 ms on successive failures and restarts at 5 ms after forget', async () => {
    const clock = new FakeClock();
    const queue = exponentialQueue(clock);
    for (const delay of [5, 10, 20]) {
      queue.addRateLimited('a');
      clock.advance(delay - 1);
      expect(queue.len()).toBe(0);
      clock.advance(1);
      expect(queue.len()).toBe(1);
      queue.done((await queue.get()) ?? '');
    }
    expect(queue.numRequeues('a')).toBe(3);
    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
    queue.addRateLimited('a');
    clock.advance(5);
    expect(queue.len()).toBe(1);
  });

  it('drops delayed items on shutdown', () => {
    const clock = new FakeClock();
    const queue = exponentialQueue(clock);
    queue.addRateLimited('a');
    queue.shutDown();
    clock.advance(10);
    expect(queue.len()).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('rate limiters', () => {
  it.each([
    [0, 5],
    [1, 10],
    [2, 20],
    [10, 5120],
    [17, 655_360],
    [18, 1_000_000],
    [200, 1_000_000],
  ])('waits the capped exponential delay after %i earlier failures', (failures, expected) => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    for (let i = 0; i < failures; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(expected);
    expect(limiter.when('b')).toBe(5);
  });

  it('lets a burst of 100 through the bucket, then spaces items at 10 per second', () => {
    const clock = new FakeClock();
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(0);
    expect(limiter.when('x')).toBeCloseTo(100);
    expect(limiter.when('y')).toBeCloseTo(200);
    clock.advance(1000);
    expect(limiter.when('z')).toBe(0);
  });

  it('uses the larger of the per-item and overall delays by default', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });
});
