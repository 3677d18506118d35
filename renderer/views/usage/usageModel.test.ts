import { describe, expect, it } from 'vitest';
import type { PodUsage } from '../../../shared/usage';
import { describeChart, formatFigure, linePath, maxOf, niceScale, nodeChart, podChart, resourceScale, timeLabels, usagePath, workloadUsage } from './usageModel';

function podUsage(name: string, labels: Record<string, string>, start: string, cpu: Array<number | null>, limits: PodUsage['limits'] = { cpu: 500 }): PodUsage {
  return {
    apiVersion: 'usage.kubedesk.dev/v1',
    kind: 'PodUsage',
    metadata: { name, namespace: 'default', labels, creationTimestamp: start },
    window: { start, step: '10s', stepSeconds: 10 },
    usage: { cpu, memory: cpu.map((value) => (value === null ? null : value * 1024)), networkReceive: [], networkTransmit: [], fsRead: [], fsWrite: [] },
    requests: { cpu: 100, memory: 1024 },
    limits,
    containers: [],
  };
}

describe('usage charts model', () => {
  it('draws a series as an SVG path that lifts the pen over gaps', () => {
    expect(linePath([0, 50, null, 100], 30, 10, 100)).toBe('M0 10L10 5M30 0');
    expect(linePath([], 30, 10, 100)).toBe('');
    expect(linePath([50], 30, 10, 100)).toBe('M0 5L30 5');
    // fewer points than slots: right-aligned, so the newest point is at the right edge
    expect(linePath([100], 30, 10, 100, 4)).toBe('M30 0');
  });

  it('picks a round top and ticks at or above the largest value', () => {
    expect(niceScale(730)).toEqual({ top: 800, ticks: [0, 200, 400, 600, 800] });
    expect(niceScale(0)).toEqual({ top: 1, ticks: [0, 1] });
    expect(niceScale(3.2).top).toBe(4);
  });

  it('draws a pod chart with its request and limit as lines, and keeps them in the scale', () => {
    const chart = podChart(podUsage('web', {}, '2026-01-01T00:00:00Z', [10, 20]), 'cpu');
    expect(chart.lines.map((line) => [line.id, line.kind, line.constant])).toEqual([
      ['usage', 'usage', undefined],
      ['request', 'request', 100],
      ['limit', 'limit', 500],
    ]);
    expect(maxOf(chart.lines)).toBe(500);
    expect(describeChart('CPU', 'cpu', chart)).toBe('CPU: now 20m, peak 20m; request 100m, limit 500m');
  });

  it('sums a workload over the pods its selector matches, with a limit only when all have one', () => {
    const items = [
      podUsage('web-1', { app: 'web' }, '2026-01-01T00:00:00Z', [10, 20]),
      podUsage('web-2', { app: 'web' }, '2026-01-01T00:00:10Z', [5, 5]),
      podUsage('db', { app: 'db' }, '2026-01-01T00:00:00Z', [1000, 1000]),
    ];
    const summed = workloadUsage(items, { app: 'web' });
    expect(summed?.usage.cpu).toEqual([10, 25, 5]);
    expect(summed?.requests).toEqual({ cpu: 200, memory: 2048 });
    expect(summed?.limits).toEqual({ cpu: 1000 });
    expect(workloadUsage([...items, podUsage('web-3', { app: 'web' }, '2026-01-01T00:00:00Z', [1], {})], { app: 'web' })?.limits).toEqual({});
    expect(workloadUsage(items, { app: 'none' })).toBeUndefined();
    expect(workloadUsage(items, {})).toBeUndefined();
  });

  it('draws a node against its allocatable', () => {
    const node = { apiVersion: 'usage.kubedesk.dev/v1', kind: 'NodeUsage' as const, metadata: { name: 'n', creationTimestamp: '' }, window: { start: '2026-01-01T00:00:00Z', step: '10s', stepSeconds: 10 }, usage: { cpu: [1], memory: [2], fsRead: [], fsWrite: [] }, allocatable: { cpu: 2000, memory: 4096 }, capacity: {} };
    expect(nodeChart(node, 'memory').lines.map((line) => line.id)).toEqual(['usage', 'allocatable']);
  });

  it('formats figures, paths and time labels', () => {
    expect(formatFigure('memory', 64 * 1024 * 1024)).toBe('64 MiB');
    expect(formatFigure('network', 2048)).toBe('2 KiB/s');
    expect(formatFigure('fs', 7)).toBe('7 B/s');
    expect(resourceScale('memory', 70 * 1024 * 1024)).toEqual({ top: 80 * 1024 * 1024, ticks: [0, 20, 40, 60, 80].map((mebibytes) => mebibytes * 1024 * 1024) });
    expect(usagePath({ kind: 'pod', namespace: 'default', name: 'web' })).toBe('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web');
    expect(usagePath({ kind: 'pods' })).toBe('/apis/usage.kubedesk.dev/v1/pods');
    expect(timeLabels({ start: '2026-01-01T00:00:00Z', step: '10s', stepSeconds: 10 }, 3)).toHaveLength(3);
    expect(timeLabels({ start: '2026-01-01T00:00:00Z', step: '10s', stepSeconds: 10 }, 0)).toEqual([]);
  });
});
