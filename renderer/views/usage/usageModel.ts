// The pure part of the usage charts (usage.kubedesk.dev): SVG paths of a series scaled to a box,
// a chart's scale with round ticks that keeps the request and limit lines in view, a workload's
// series summed over its pods, and the paths the UI asks for. Tested without a browser.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { formatIecBytes } from '../../../shared/kubernetes/quantity';
import { formatMillicores, latestValue, pointTime, sumFigures, sumSeries, USAGE_API_VERSION, type NodeUsage, type PodUsage, type UsageWindow } from '../../../shared/usage';

export type ChartResource = 'cpu' | 'memory' | 'network' | 'fs';

/** One line of a chart: a series or a constant (request, limit, allocatable). */
export interface ChartLine {
  id: string;
  label: string;
  /** a series, or a constant drawn across */
  values?: Array<number | null>;
  constant?: number;
  kind: 'usage' | 'request' | 'limit' | 'capacity' | 'secondary';
}

export interface ChartData {
  window: UsageWindow;
  lines: ChartLine[];
}

/** Where the UI reads usage: a pod, a namespace's (or every) pods, a node, every node. */
export function usagePath(target: { kind: 'pod'; namespace: string; name: string } | { kind: 'pods'; namespace?: string } | { kind: 'node'; name: string } | { kind: 'nodes' }): string {
  const base = `/apis/${USAGE_API_VERSION}`;
  switch (target.kind) {
    case 'pod':
      return `${base}/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.name)}`;
    case 'pods':
      return target.namespace ? `${base}/namespaces/${encodeURIComponent(target.namespace)}/pods` : `${base}/pods`;
    case 'node':
      return `${base}/nodes/${encodeURIComponent(target.name)}`;
    case 'nodes':
      return `${base}/nodes`;
  }
}

/**
 * The SVG path of a series in a width × height box (y grows down), values from 0 to `max`; a gap
 * (null) lifts the pen, so missing samples never draw as a drop to zero.
 */
export function linePath(values: ReadonlyArray<number | null>, width: number, height: number, max: number, slots = values.length): string {
  if (values.length === 0 || max <= 0) return '';
  if (slots === 1) {
    // one point: a level mark across the box
    const value = values[0];
    if (value === null) return '';
    const y = round(height - (Math.min(value, max) / max) * height);
    return `M0 ${y}L${round(width)} ${y}`;
  }
  const step = width / (slots - 1);
  const offset = slots - values.length;
  let path = '';
  let pen = false;
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (value === null) {
      pen = false;
      continue;
    }
    const x = (offset + index) * step;
    const y = height - (Math.min(value, max) / max) * height;
    path += `${pen ? 'L' : 'M'}${round(x)} ${round(y)}`;
    pen = true;
  }
  return path;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

/** The largest value of the lines (series and constants), or 0. */
export function maxOf(lines: readonly ChartLine[]): number {
  let max = 0;
  for (const line of lines) {
    if (line.constant !== undefined && line.constant > max) max = line.constant;
    for (const value of line.values ?? []) if (value !== null && value > max) max = value;
  }
  return max;
}

/** A round top for the axis (1, 2, 2.5 or 5 × 10^n) at or above `max`, and its ticks. */
export function niceScale(max: number, tickCount = 4): { top: number; ticks: number[] } {
  if (!(max > 0)) return { top: 1, ticks: [0, 1] };
  const rough = max / tickCount;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough) ?? rough;
  const top = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  for (let tick = 0; tick <= top + step / 2; tick += step) ticks.push(Number(tick.toPrecision(12)));
  return { top, ticks };
}

/** A figure of a resource as text: `250m`, `64 MiB`, `1.2 KiB/s`. */
export function formatFigure(resource: ChartResource, value: number): string {
  if (resource === 'cpu') return formatMillicores(value);
  if (resource === 'memory') return formatIecBytes(value);
  return `${formatIecBytes(value)}/s`;
}

/** niceScale in the resource's own steps: bytes in powers of 1024 (16Mi, 32Mi…), the rest in tens. */
export function resourceScale(resource: ChartResource, max: number): { top: number; ticks: number[] } {
  if (resource === 'cpu' || !(max >= 1024)) return niceScale(max);
  const unit = 1024 ** Math.min(4, Math.floor(Math.log(max) / Math.log(1024)));
  const scaled = niceScale(max / unit);
  return { top: scaled.top * unit, ticks: scaled.ticks.map((tick) => tick * unit) };
}

/** The chart of one resource for a pod: its usage and, for CPU and memory, its request and limit as lines. */
export function podChart(usage: PodUsage, resource: ChartResource): ChartData {
  return { window: usage.window, lines: chartLines(usage.usage, resource, usage.requests, usage.limits) };
}

function chartLines(series: PodUsage['usage'], resource: ChartResource, requests: { cpu?: number; memory?: number }, limits: { cpu?: number; memory?: number }): ChartLine[] {
  if (resource === 'network') {
    return [
      { id: 'rx', label: 'received', values: series.networkReceive ?? [], kind: 'usage' },
      { id: 'tx', label: 'sent', values: series.networkTransmit ?? [], kind: 'secondary' },
    ];
  }
  if (resource === 'fs') {
    return [
      { id: 'read', label: 'read', values: series.fsRead, kind: 'usage' },
      { id: 'write', label: 'written', values: series.fsWrite, kind: 'secondary' },
    ];
  }
  const lines: ChartLine[] = [{ id: 'usage', label: 'used', values: series[resource], kind: 'usage' }];
  const request = requests[resource];
  const limit = limits[resource];
  if (request !== undefined) lines.push({ id: 'request', label: 'request', constant: request, kind: 'request' });
  if (limit !== undefined) lines.push({ id: 'limit', label: 'limit', constant: limit, kind: 'limit' });
  return lines;
}

/** A node's chart: its usage against allocatable. */
export function nodeChart(usage: NodeUsage, resource: ChartResource): ChartData {
  const lines = chartLines(usage.usage, resource, {}, {});
  if (resource === 'cpu' || resource === 'memory') {
    const allocatable = usage.allocatable[resource];
    if (allocatable !== undefined) lines.push({ id: 'allocatable', label: 'allocatable', constant: allocatable, kind: 'capacity' });
  }
  return { window: usage.window, lines };
}

/** A label selector's matchLabels against a pod's labels (a workload's pods). */
export function matchesSelector(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/**
 * A workload's usage: the sum of its pods' series (pods come and go, so each point adds the pods
 * sampled then), their requests summed, and a limit only when every pod has one.
 */
export function workloadUsage(items: readonly PodUsage[], selector: Record<string, string> | undefined): PodUsage | undefined {
  const matching = items.filter((item) => matchesSelector(selector, item.metadata.labels) && item.window.stepSeconds > 0);
  if (matching.length === 0) return undefined;
  const sum = (pick: (item: PodUsage) => Array<number | null> | undefined) => sumSeries(matching.map((item) => ({ window: item.window, values: pick(item) ?? [] })));
  const cpu = sum((item) => item.usage.cpu);
  if (!cpu) return undefined;
  const values = (pick: (item: PodUsage) => Array<number | null> | undefined) => sum(pick)?.values ?? [];
  const requests: PodUsage['requests'] = {};
  const limits: PodUsage['limits'] = {};
  for (const resource of ['cpu', 'memory'] as const) {
    const request = sumFigures(matching.map((item) => item.requests), resource, false);
    const limit = sumFigures(matching.map((item) => item.limits), resource, true);
    if (request !== undefined) requests[resource] = request;
    if (limit !== undefined) limits[resource] = limit;
  }
  return {
    apiVersion: USAGE_API_VERSION,
    kind: 'PodUsage',
    metadata: { name: '', namespace: matching[0].metadata.namespace, creationTimestamp: matching[0].metadata.creationTimestamp },
    window: cpu.window,
    usage: {
      cpu: cpu.values,
      memory: values((item) => item.usage.memory),
      networkReceive: values((item) => item.usage.networkReceive),
      networkTransmit: values((item) => item.usage.networkTransmit),
      fsRead: values((item) => item.usage.fsRead),
      fsWrite: values((item) => item.usage.fsWrite),
    },
    requests,
    limits,
    containers: [],
  };
}

/** One sentence for screen readers and tooltips: latest, peak and the lines drawn. */
export function describeChart(title: string, resource: ChartResource, chart: ChartData): string {
  const usage = chart.lines.find((line) => line.kind === 'usage');
  const values = usage?.values ?? [];
  const latest = latestValue(values);
  if (latest === undefined) return `${title}: no samples yet`;
  const peak = Math.max(...values.filter((value): value is number => value !== null));
  const constants = chart.lines.filter((line) => line.constant !== undefined).map((line) => `${line.label} ${formatFigure(resource, line.constant ?? 0)}`);
  return `${title}: now ${formatFigure(resource, latest)}, peak ${formatFigure(resource, peak)}${constants.length ? `; ${constants.join(', ')}` : ''}`;
}

/** Time labels for the x axis: the start, the middle and the end of the window, as HH:MM (HH:MM:SS under 10 minutes). */
export function timeLabels(window: UsageWindow, points: number): string[] {
  if (points === 0) return [];
  const seconds = (points - 1) * window.stepSeconds < 600;
  const at = (index: number) => new Date(pointTime(window, index)).toTimeString().slice(0, seconds ? 8 : 5);
  return [at(0), at(Math.floor((points - 1) / 2)), at(points - 1)];
}

/** The key of an object in the usage caches. */
export function usageKey(object: Pick<KubeObject, 'metadata'>): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}
