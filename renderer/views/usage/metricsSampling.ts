// Charts for clusters that serve metrics.k8s.io (metrics-server) but not kubedesk's usage history
// (usage.kubedesk.dev): metrics.k8s.io answers only "now" (PodMetrics, NodeMetrics — what `kubectl
// top` prints), so the UI samples it every 15 s (metrics-server's default resolution) while a
// chart is on screen and draws the series it collected since the page opened, with the same
// chart code (podChart/nodeChart) as the usage history. The pure part: reading the metrics
// objects, and a regular series of samples (a missed sample is a gap, never a drop to zero).
import { isRecord } from '../../../shared/kubernetes/types';
import { approximateValue, parseValue } from '../../../shared/kubernetes/quantity';
import type { NodeUsage, PodUsage, ResourceFigures, UsageWindow } from '../../../shared/usage';

export const METRICS_GROUP_VERSION = 'metrics.k8s.io/v1beta1';
export const METRICS_STEP_MS = 15_000;
/** an hour at 15 s: older samples are dropped */
export const METRICS_MAX_POINTS = 240;

/** CPU in millicores and memory in bytes of one sample. */
export interface MetricsFigures {
  cpu: number;
  memory: number;
}

/** Where the UI reads metrics: a pod, a namespace's pods (with a label selector), a node, every node. */
export function metricsPath(target: { kind: 'pod'; namespace: string; name: string } | { kind: 'pods'; namespace: string } | { kind: 'node'; name: string } | { kind: 'nodes' }): string {
  const base = `/apis/${METRICS_GROUP_VERSION}`;
  switch (target.kind) {
    case 'pod':
      return `${base}/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}`;
    case 'pods':
      return `${base}/namespaces/${encodeURIComponent(target.namespace)}/pods`;
    case 'node':
      return `${base}/nodes/${encodeURIComponent(target.name)}`;
    case 'nodes':
      return `${base}/nodes`;
  }
}

function usageFigures(usage: unknown): MetricsFigures {
  const record = isRecord(usage) ? usage : {};
  // CPU as a fraction of millicores: metrics-server reports nanocores, and an idle pod uses less than 1m
  const cores = record.cpu === undefined ? 0 : approximateValue(record.cpu);
  return { cpu: Number.isFinite(cores) ? cores * 1000 : 0, memory: record.memory === undefined ? 0 : parseValue(record.memory) };
}

/** One PodMetrics or NodeMetrics, or a list of them, summed: a pod is the sum of its containers. */
export function metricsFigures(body: unknown): MetricsFigures | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.items)) {
    const items = body.items.map(metricsFigures).filter((item): item is MetricsFigures => item !== undefined);
    return items.length === 0 ? undefined : items.reduce((total, item) => ({ cpu: total.cpu + item.cpu, memory: total.memory + item.memory }));
  }
  if (Array.isArray(body.containers)) {
    return body.containers.reduce<MetricsFigures>((total, container) => {
      const figures = usageFigures(isRecord(container) ? container.usage : undefined);
      return { cpu: total.cpu + figures.cpu, memory: total.memory + figures.memory };
    }, { cpu: 0, memory: 0 });
  }
  if (isRecord(body.usage)) return usageFigures(body.usage);
  return undefined;
}

/** A label selector's matchLabels as a query (`app=web,tier=front`). */
export function selectorQuery(selector: Record<string, string>): string {
  return Object.entries(selector)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/**
 * Samples at (about) 15 s intervals as a regular series: each sample goes to the slot nearest its
 * time counted from the first one; a slot without a sample is null; at most `maxPoints` slots.
 */
export class MetricsSeries {
  private start: number | undefined;
  private cpu: Array<number | null> = [];
  private memory: Array<number | null> = [];

  constructor(
    private readonly stepMs = METRICS_STEP_MS,
    private readonly maxPoints = METRICS_MAX_POINTS,
  ) {}

  record(at: number, figures: MetricsFigures): void {
    this.start ??= at;
    const index = Math.round((at - this.start) / this.stepMs);
    if (index < 0) return;
    while (this.cpu.length <= index) {
      this.cpu.push(null);
      this.memory.push(null);
    }
    this.cpu[index] = figures.cpu;
    this.memory[index] = figures.memory;
    const excess = this.cpu.length - this.maxPoints;
    if (excess > 0) {
      this.cpu = this.cpu.slice(excess);
      this.memory = this.memory.slice(excess);
      this.start += excess * this.stepMs;
    }
  }

  get length(): number {
    return this.cpu.length;
  }

  /** The series in usage.kubedesk.dev's shape (a window and one value per step). */
  window(): { window: UsageWindow; cpu: Array<number | null>; memory: Array<number | null> } {
    const start = this.start ?? 0;
    const seconds = this.stepMs / 1000;
    return { window: { start: new Date(start).toISOString(), step: `${seconds}s`, stepSeconds: this.cpu.length === 0 ? 0 : seconds }, cpu: [...this.cpu], memory: [...this.memory] };
  }
}

/** A pod's (or a workload's summed) samples as a PodUsage for podChart: CPU and memory, with its requests and limits. */
export function podUsageOf(series: MetricsSeries, meta: { name: string; namespace: string }, figures: { requests: ResourceFigures; limits: ResourceFigures } = { requests: {}, limits: {} }): PodUsage {
  const { window, cpu, memory } = series.window();
  return {
    apiVersion: METRICS_GROUP_VERSION,
    kind: 'PodUsage',
    metadata: { name: meta.name, namespace: meta.namespace, creationTimestamp: window.start },
    window,
    usage: { cpu, memory, fsRead: [], fsWrite: [] },
    requests: figures.requests,
    limits: figures.limits,
    containers: [],
  };
}

/** A node's (or every node's summed) samples as a NodeUsage for nodeChart, against its allocatable. */
export function nodeUsageOf(series: MetricsSeries, name: string, allocatable: ResourceFigures): NodeUsage {
  const { window, cpu, memory } = series.window();
  return { apiVersion: METRICS_GROUP_VERSION, kind: 'NodeUsage', metadata: { name, creationTimestamp: window.start }, window, usage: { cpu, memory, fsRead: [], fsWrite: [] }, allocatable, capacity: {} };
}

/** Which API the charts draw from: kubedesk's history, metrics.k8s.io samples, or nothing. */
export type UsageSource = 'history' | 'metrics' | 'none';

/** The source from whether each group version answers its discovery (a 404 means not served). */
export function usageSource(historyServed: boolean, metricsServed: boolean): UsageSource {
  if (historyServed) return 'history';
  return metricsServed ? 'metrics' : 'none';
}

export const NO_METRICS_NOTE = 'This cluster serves no metrics API — install metrics-server for charts.';
export const METRICS_SOURCE_NOTE = 'from metrics.k8s.io, since you opened this page';
