import { describe, expect, it, onTestFinished } from 'vitest';
import { FakeClock } from '../../test/doubles/fakeClock';
import { SchedulingQueue, podSpecChanged } from './schedulingQueue';
import { makePod } from '../../test/fixtures/schedulerObjects';

/** A queue on a fake clock whose one pod was just popped for its first scheduling attempt; closed when the test finishes. */
async function firstAttempt() {
  const clock = new FakeClock();
  const queue = new SchedulingQueue({ clock });
  onTestFinished(() => queue.close());
  queue.add(makePod('p'));
  const info = await queue.pop();
  if (!info) throw new Error('no pod');
  return { clock, queue, info };
}

describe('SchedulingQueue', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 8000],
    [5, 10_000],
    [9, 10_000],
  ])('backs off %d attempts for %d ms', (attempts, ms) => {
    const queue = new SchedulingQueue({ clock: new FakeClock() });
    expect(queue.backoffDuration(attempts)).toBe(ms);
    queue.close();
  });

  it('pops higher priority first, then older pods', async () => {
    const clock = new FakeClock();
    const queue = new SchedulingQueue({ clock });
    queue.add(makePod('old'));
    clock.advance(1);
    queue.add(makePod('urgent', { priority: 10 }));
    clock.advance(1);
    queue.add(makePod('young'));
    const names = [];
    for (let i = 0; i < 3; i++) names.push((await queue.pop())?.pod.metadata.name);
    expect(names).toEqual(['urgent', 'old', 'young']);
    queue.close();
  });

  it('keeps an unschedulable pod until the cluster changes, then honours its back-off', async () => {
    const { clock, queue, info } = await firstAttempt();
    queue.addUnschedulable(info);
    expect(queue.stats()).toMatchObject({ unschedulable: 1 });
    queue.moveAllToActiveOrBackoff();
    expect(queue.stats()).toMatchObject({ backoff: 1 });
    clock.advance(1000);
    expect(queue.stats()).toMatchObject({ active: 1 });
  });

  it('sends a pod that failed while the cluster changed to back-off, not to wait', async () => {
    const { queue, info } = await firstAttempt();
    queue.moveAllToActiveOrBackoff();
    queue.addUnschedulable(info);
    expect(queue.stats()).toMatchObject({ backoff: 1, unschedulable: 0 });
  });

  it('flushes pods left unschedulable for a minute', async () => {
    const { clock, queue, info } = await firstAttempt();
    queue.addUnschedulable(info);
    clock.advance(30_000);
    expect(queue.stats()).toMatchObject({ unschedulable: 1 });
    clock.advance(30_000);
    expect(queue.stats()).toMatchObject({ active: 1 });
  });

  it('ignores status-only updates of waiting pods', () => {
    const pod = makePod('p');
    expect(podSpecChanged(pod, { ...pod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] }, metadata: { ...pod.metadata, resourceVersion: '9' } })).toBe(false);
    expect(podSpecChanged(pod, { ...pod, metadata: { ...pod.metadata, labels: { a: 'b' } } })).toBe(true);
  });

  it('resolves a waiting pop with undefined when closed', async () => {
    const queue = new SchedulingQueue({ clock: new FakeClock() });
    const next = queue.pop();
    queue.close();
    expect(await next).toBeUndefined();
  });
});
