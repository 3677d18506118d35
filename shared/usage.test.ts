import { describe, expect, it } from 'vitest';
import { formatMillicores, latestValue, podResources, sumFigures, sumSeries } from './usage';

const window = (start: string) => ({ start, step: '10s', stepSeconds: 10 });

describe('usage helpers', () => {
  it('adds series that start at different times, null only where every series is null', () => {
    const sum = sumSeries([
      { window: window('2026-01-01T00:00:00Z'), values: [1, null, 3] },
      { window: window('2026-01-01T00:00:10Z'), values: [10, 20, null] },
    ]);
    expect(sum).toEqual({ window: window('2026-01-01T00:00:00Z'), values: [1, 10, 23, null] });
    expect(sumSeries([])).toBeUndefined();
  });

  it('sums requests over app containers and reports a limit only when every container has one', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        initContainers: [{ name: 'init', resources: { requests: { cpu: '4' } } }],
        containers: [
          { name: 'a', resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '1', memory: '2Gi' } } },
          { name: 'b', resources: { limits: { memory: '1Gi' } } },
        ],
      },
    };
    const { requests, limits, containers } = podResources(pod);
    expect(requests).toEqual({ cpu: 250, memory: 2 * 1024 ** 3 });
    expect(limits).toEqual({ memory: 3 * 1024 ** 3 });
    expect(containers.get('b')).toEqual({ requests: { memory: 1024 ** 3 }, limits: { memory: 1024 ** 3 } });
  });

  it('sums figures of several pods, a limit only when all have one', () => {
    expect(sumFigures([{ cpu: 100 }, { cpu: 50 }], 'cpu', true)).toBe(150);
    expect(sumFigures([{ cpu: 100 }, {}], 'cpu', true)).toBeUndefined();
    expect(sumFigures([{ cpu: 100 }, {}], 'cpu', false)).toBe(100);
  });

  it('formats figures as kubectl top does and finds the latest point', () => {
    expect(formatMillicores(3.25)).toBe('3.3m');
    expect(formatMillicores(250)).toBe('250m');
    expect(formatMillicores(12_500)).toBe('12.5');
    expect(latestValue([1, 2, null])).toBe(2);
    expect(latestValue([null])).toBeUndefined();
  });
});
