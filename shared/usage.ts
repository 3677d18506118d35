// Resource usage history as served by kubedesk's usage.kubedesk.dev/v1 API (main/apiserver/usage)
// and drawn by the UI: the wire shapes and the pure helpers both sides share. A series is regular —
// a start time, a step and one value per step, null where nothing was sampled — so a day at one
// minute is 1,440 numbers, not 1,440 objects. Requests and limits are summed over a pod's app
// containers, as `kubectl describe node` sums them per pod (init containers run before, not beside).
import { isRecord, type KubeObject } from './kubernetes/types';
import { parseMilliValue, parseValue } from './kubernetes/quantity';

export const USAGE_GROUP = 'usage.kubedesk.dev';
export const USAGE_VERSION = 'v1';
export const USAGE_API_VERSION = `${USAGE_GROUP}/${USAGE_VERSION}`;

/** The figures of one sample as the kubelet keeps them: rates over the sampling window and the current memory. */
export interface UsageSample {
  /** CPU usage in nanocores (1e9 = one core) */
  cpu: number;
  /** memory working set in bytes */
  memory: number;
  /** network received and transmitted, bytes per second (pods and nodes) */
  networkRx: number;
  networkTx: number;
  /** filesystem (block I/O) read and written, bytes per second */
  fsRead: number;
  fsWrite: number;
}

export const USAGE_METRICS = ['cpu', 'memory', 'networkRx', 'networkTx', 'fsRead', 'fsWrite'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];

/** A regular series as the kubelet reads it back: values[i] is at start + i × step; null marks a gap. */
export interface SeriesWindow {
  /** epoch ms of the first point */
  start: number;
  stepMs: number;
  values: Record<UsageMetric, Array<number | null>>;
}

/** One value per step: CPU in millicores, memory in bytes, network and filesystem in bytes per second. */
export type UsageSeries = {
  cpu: Array<number | null>;
  memory: Array<number | null>;
  /** pods and nodes only: a pod's containers share its network */
  networkReceive?: Array<number | null>;
  networkTransmit?: Array<number | null>;
  fsRead: Array<number | null>;
  fsWrite: Array<number | null>;
};

export type UsageSeriesName = keyof UsageSeries;

/** Where the series' points sit in time. */
export type UsageWindow = {
  /** RFC 3339 time of the first point */
  start: string;
  /** the step between points, as a Go duration (`10s`, `1m0s`) */
  step: string;
  stepSeconds: number;
};

/** CPU in millicores, memory in bytes. */
export type ResourceFigures = {
  cpu?: number;
  memory?: number;
};

export type ContainerUsage = {
  name: string;
  usage: UsageSeries;
  requests: ResourceFigures;
  limits: ResourceFigures;
};

export type PodUsage = {
  apiVersion: string;
  kind: 'PodUsage';
  metadata: { name: string; namespace: string; uid?: string; labels?: Record<string, string>; creationTimestamp: string };
  window: UsageWindow;
  usage: UsageSeries;
  requests: ResourceFigures;
  limits: ResourceFigures;
  containers: ContainerUsage[];
};

export type NodeUsage = {
  apiVersion: string;
  kind: 'NodeUsage';
  metadata: { name: string; labels?: Record<string, string>; creationTimestamp: string };
  window: UsageWindow;
  usage: UsageSeries;
  /** the Node's status.allocatable and capacity */
  allocatable: ResourceFigures;
  capacity: ResourceFigures;
};

/** The figures of one resource list (requests, limits, allocatable): CPU in millicores, memory in bytes. */
export function resourceFigures(list: unknown): ResourceFigures {
  if (!isRecord(list)) return {};
  const figures: ResourceFigures = {};
  if (list.cpu !== undefined) figures.cpu = parseMilliValue(list.cpu);
  if (list.memory !== undefined) figures.memory = parseValue(list.memory);
  return figures;
}

function addFigures(total: ResourceFigures, add: ResourceFigures): ResourceFigures {
  const out: ResourceFigures = { ...total };
  if (add.cpu !== undefined) out.cpu = (out.cpu ?? 0) + add.cpu;
  if (add.memory !== undefined) out.memory = (out.memory ?? 0) + add.memory;
  return out;
}

/** A container's requests and limits; a limit without a request makes the request (as API defaulting does). */
export function containerResources(container: unknown): { requests: ResourceFigures; limits: ResourceFigures } {
  const resources = isRecord(container) && isRecord(container.resources) ? container.resources : {};
  const limits = resourceFigures(resources.limits);
  const requests = { ...limits, ...resourceFigures(resources.requests) };
  return { requests, limits };
}

/**
 * A pod's requests and limits, summed over its app containers. A limit is reported only when every
 * container has one (one unlimited container makes the pod unlimited for that resource).
 */
export function podResources(pod: KubeObject): { requests: ResourceFigures; limits: ResourceFigures; containers: Map<string, { requests: ResourceFigures; limits: ResourceFigures }> } {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const list = Array.isArray(spec.containers) ? spec.containers : [];
  let requests: ResourceFigures = {};
  let limits: ResourceFigures = {};
  const containers = new Map<string, { requests: ResourceFigures; limits: ResourceFigures }>();
  for (const container of list) {
    const figures = containerResources(container);
    if (isRecord(container) && typeof container.name === 'string') containers.set(container.name, figures);
    requests = addFigures(requests, figures.requests);
    limits = addFigures(limits, figures.limits);
  }
  for (const resource of ['cpu', 'memory'] as const) {
    if ([...containers.values()].some((figures) => figures.limits[resource] === undefined)) delete limits[resource];
  }
  return { requests, limits, containers };
}

/** Sums figures of several pods (a workload): a limit only when every pod has one. */
export function sumFigures(list: ResourceFigures[], resource: 'cpu' | 'memory', requireAll: boolean): number | undefined {
  if (list.length === 0) return undefined;
  let total = 0;
  let any = false;
  for (const figures of list) {
    const value = figures[resource];
    if (value === undefined) {
      if (requireAll) return undefined;
      continue;
    }
    total += value;
    any = true;
  }
  return any ? total : undefined;
}

/** Epoch ms of a window's point `index`. */
export function pointTime(window: UsageWindow, index: number): number {
  return Date.parse(window.start) + index * window.stepSeconds * 1000;
}

/**
 * Adds series of equal step that may start at different times (a workload's pods): the result
 * spans all of them; a point is null only where every series is null.
 */
export function sumSeries(items: Array<{ window: UsageWindow; values: Array<number | null> }>): { window: UsageWindow; values: Array<number | null> } | undefined {
  if (items.length === 0) return undefined;
  const stepMs = items[0].window.stepSeconds * 1000;
  const aligned = items.filter((item) => item.window.stepSeconds * 1000 === stepMs);
  const start = Math.min(...aligned.map((item) => Date.parse(item.window.start)));
  const end = Math.max(...aligned.map((item) => Date.parse(item.window.start) + (item.values.length - 1) * stepMs));
  const length = Math.max(0, Math.round((end - start) / stepMs) + 1);
  const values: Array<number | null> = new Array<number | null>(length).fill(null);
  for (const item of aligned) {
    const offset = Math.round((Date.parse(item.window.start) - start) / stepMs);
    item.values.forEach((value, index) => {
      if (value === null) return;
      values[offset + index] = (values[offset + index] ?? 0) + value;
    });
  }
  return { window: { ...items[0].window, start: new Date(start).toISOString().replace(/\.\d{3}Z$/, 'Z') }, values };
}

/** The last value that is not null, or undefined. */
export function latestValue(values: ReadonlyArray<number | null>): number | undefined {
  for (let index = values.length - 1; index >= 0; index--) {
    const value = values[index];
    if (value !== null) return value;
  }
  return undefined;
}

/** `250m`, `1.5` cores as kubectl top prints (millicores below 10 cores). */
export function formatMillicores(millicores: number): string {
  if (millicores >= 10_000) return `${(millicores / 1000).toFixed(1)}`;
  if (millicores >= 10) return `${Math.round(millicores)}m`;
  return `${Number(millicores.toFixed(1))}m`;
}
