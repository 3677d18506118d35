import { describe, expect, it } from 'vitest';
import { MetricsSeries, metricsFigures, metricsPath, nodeUsageOf, podUsageOf, selectorQuery, usageSource } from './metricsSampling';
import { describeChart, nodeChart, podChart } from './usageModel';

const T0 = Date.parse('2026-01-01T10:00:00Z');

describe('charts from metrics.k8s.io samples', () => {
  it('reads PodMetrics (containers summed), NodeMetrics and lists of them, in millicores and bytes', () => {
    const pod = { kind: 'PodMetrics', containers: [{ name: 'a', usage: { cpu: '1500000n', memory: '2Mi' } }, { name: 'b', usage: { cpu: '3m', memory: '1024Ki' } }] };
    expect(metricsFigures(pod)).toEqual({ cpu: 4.5, memory: 3 * 1024 * 1024 });
    expect(metricsFigures({ kind: 'NodeMetrics', usage: { cpu: '250m', memory: '1Gi' } })).toEqual({ cpu: 250, memory: 1024 ** 3 });
    expect(metricsFigures({ kind: 'PodMetricsList', items: [pod, pod] })).toEqual({ cpu: 9, memory: 6 * 1024 * 1024 });
    expect(metricsFigures({ kind: 'PodMetricsList', items: [] })).toBeUndefined();
    expect(metricsFigures('nope')).toBeUndefined();
  });

  it('places samples in 15-second slots from the first one, a missed sample being a gap', () => {
    const series = new MetricsSeries();
    series.record(T0, { cpu: 10, memory: 100 });
    series.record(T0 + 15_200, { cpu: 20, memory: 200 });
    // the tab was hidden for a while: two slots without samples
    series.record(T0 + 60_000, { cpu: 40, memory: 400 });
    const { window, cpu, memory } = series.window();
    expect(window).toEqual({ start: '2026-01-01T10:00:00.000Z', step: '15s', stepSeconds: 15 });
    expect(cpu).toEqual([10, 20, null, null, 40]);
    expect(memory).toEqual([100, 200, null, null, 400]);
  });

  it('keeps the newest samples and moves the start when the series is full', () => {
    const series = new MetricsSeries(15_000, 3);
    for (let index = 0; index < 5; index++) series.record(T0 + index * 15_000, { cpu: index, memory: 0 });
    expect(series.window().cpu).toEqual([2, 3, 4]);
    expect(series.window().window.start).toBe('2026-01-01T10:00:30.000Z');
    expect(new MetricsSeries().window().window.stepSeconds).toBe(0);
  });

  it('draws the samples with the usage history’s charts, requests, limits and allocatable included', () => {
    const series = new MetricsSeries();
    series.record(T0, { cpu: 12, memory: 64 * 1024 * 1024 });
    series.record(T0 + 15_000, { cpu: 30, memory: 65 * 1024 * 1024 });
    const pod = podChart(podUsageOf(series, { name: 'web', namespace: 'default' }, { requests: { cpu: 100 }, limits: { cpu: 500 } }), 'cpu');
    expect(describeChart('CPU', 'cpu', pod)).toBe('CPU: now 30m, peak 30m; request 100m, limit 500m');
    const node = nodeChart(nodeUsageOf(series, 'n1', { memory: 4 * 1024 ** 3 }), 'memory');
    expect(node.lines.map((line) => line.id)).toEqual(['usage', 'allocatable']);
  });

  it('chooses the usage history first, then metrics.k8s.io, and says when there is neither', () => {
    expect(usageSource(true, true)).toBe('history');
    expect(usageSource(false, true)).toBe('metrics');
    expect(usageSource(false, false)).toBe('none');
  });

  it('reads metrics where kubectl top reads them', () => {
    expect(metricsPath({ kind: 'pod', namespace: 'default', name: 'web' })).toBe('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web');
    expect(metricsPath({ kind: 'nodes' })).toBe('/apis/metrics.k8s.io/v1beta1/nodes');
    expect(selectorQuery({ app: 'web', tier: 'front' })).toBe('app=web,tier=front');
  });
});
