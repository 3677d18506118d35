import { describe, expect, it } from 'vitest';
import { COARSE, counterRate, FINE, resolutionFor, sumSamples, UsageHistory, UsageSeries } from './usageHistory';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const sample = (cpu: number, memory = 0) => ({ cpu, memory, networkRx: 0, networkTx: 0, fsRead: 0, fsWrite: 0 });

describe('UsageSeries', () => {
  it('reads back one point per 10 s step with gaps where nothing was sampled', () => {
    const series = new UsageSeries();
    series.add(T0, sample(100));
    series.add(T0 + 10_000, sample(200));
    series.add(T0 + 30_000, sample(400));
    const window = series.read(FINE, T0, T0 + 30_000);
    expect(window.start).toBe(T0);
    expect(window.stepMs).toBe(10_000);
    expect(window.values.cpu).toEqual([100, 200, null, 400]);
  });

  it('keeps the last hour at 10 s: a slot from the previous lap of the ring reads as a gap', () => {
    const series = new UsageSeries();
    series.add(T0, sample(1));
    // one full lap later the same slot is written again; the slot before it is an hour old
    series.add(T0 + FINE.stepMs * FINE.capacity, sample(2));
    const window = series.read(FINE, T0, T0 + FINE.stepMs * FINE.capacity);
    expect(window.values.cpu).toHaveLength(FINE.capacity);
    expect(window.values.cpu[window.values.cpu.length - 1]).toBe(2);
    expect(window.values.cpu.filter((value) => value !== null)).toEqual([2]);
  });

  it('averages the 10 s samples of each minute into the 1 min ring, which spans a day', () => {
    const series = new UsageSeries();
    for (let index = 0; index < 6; index++) series.add(T0 + index * 10_000, sample(index * 100, 1000));
    series.add(T0 + 60_000, sample(900, 3000));
    const window = series.read(COARSE, T0, T0 + 60_000);
    expect(window.stepMs).toBe(60_000);
    expect(window.values.cpu).toEqual([250, 900]);
    expect(window.values.memory).toEqual([1000, 3000]);
    expect(COARSE.stepMs * COARSE.capacity).toBe(24 * 3600 * 1000);
    // a day back is still there, in the coarse ring only
    const day = series.read(COARSE, T0 - 3600_000, T0 + 23 * 3600_000);
    expect(day.values.cpu.filter((value) => value !== null)).toEqual([250, 900]);
  });

  it('clamps a window longer than the ring to what the ring spans', () => {
    const series = new UsageSeries();
    series.add(T0, sample(5));
    const window = series.read(FINE, T0 - 10 * 3600_000, T0);
    expect(window.values.cpu).toHaveLength(FINE.capacity);
  });
});

describe('UsageHistory', () => {
  it('drops series not sampled since a time, or named by the predicate', () => {
    const history = new UsageHistory();
    history.record('old', undefined, T0, sample(1));
    history.record('new', undefined, T0 + 60_000, sample(1));
    history.record('named', undefined, T0 + 60_000, sample(1));
    history.prune(T0 + 1, (key) => key === 'named');
    expect([...history.keys()]).toEqual(['new']);
  });
});

describe('rates and sums', () => {
  it('turns cumulative counters into per-second rates, 0 when a counter went back or is missing', () => {
    expect(counterRate(1000, 21_000, 10_000)).toBe(2000);
    expect(counterRate(5000, 100, 10_000)).toBe(0);
    expect(counterRate(undefined, 100, 10_000)).toBe(0);
  });

  it('sums samples figure by figure', () => {
    expect(sumSamples([sample(1, 10), sample(2, 20)])).toEqual({ cpu: 3, memory: 30, networkRx: 0, networkTx: 0, fsRead: 0, fsWrite: 0 });
  });

  it('picks 10 s up to an hour and 1 min beyond unless asked', () => {
    expect(resolutionFor(3600_000)).toBe(FINE);
    expect(resolutionFor(3600_001)).toBe(COARSE);
    expect(resolutionFor(60_000, '1m')).toBe(COARSE);
  });
});
