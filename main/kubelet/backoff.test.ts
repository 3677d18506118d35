import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff';

describe('Backoff', () => {
  it('doubles from 10 s to a 5 minute cap and forgets after 10 quiet minutes', () => {
    let now = 0;
    const backoff = new Backoff(10_000, 300_000, () => now);
    const delays = [1, 2, 3, 4, 5, 6, 7].map(() => backoff.next('c'));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    now = 700_000;
    expect(backoff.next('c')).toBe(10_000);
  });

  it('reports whether a failure is still inside its back-off window', () => {
    let now = 1_000;
    const backoff = new Backoff(10_000, 300_000, () => now);
    expect(backoff.isInBackoffSince('c', now)).toBe(false);
    backoff.next('c', now);
    expect(backoff.isInBackoffSince('c', 1_000)).toBe(true);
    expect(backoff.remaining('c', 1_000)).toBe(10_000);
    now = 11_001;
    expect(backoff.isInBackoffSince('c', 1_000)).toBe(false);
  });
});
