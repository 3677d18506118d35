// The usage cards of a cluster without kubedesk's usage history: which API the charts can draw
// from (each group version's discovery, read once per client: 404 = not served), and the cards
// drawn from metrics.k8s.io samples taken every 15 s while they are on screen (and the page is
// visible), marked as such; with neither API, one sentence saying how to get charts.
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { podResources, resourceFigures, sumFigures, type ResourceFigures } from '../../../shared/usage';
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { useCollection, useServices } from '../../context';
import { nodes as nodeKind } from '../../kinds';
import { USAGE_API_VERSION } from '../../../shared/usage';
import { METRICS_GROUP_VERSION, METRICS_SOURCE_NOTE, METRICS_STEP_MS, MetricsSeries, metricsFigures, metricsPath, nodeUsageOf, podUsageOf, selectorQuery, usageSource, type UsageSource } from './metricsSampling';
import { nodeChart, podChart, type ChartData, type ChartResource } from './usageModel';

const sources = new WeakMap<KubeClient, { value?: UsageSource; promise: Promise<UsageSource>; listeners: Set<() => void> }>();

async function served(client: KubeClient, groupVersion: string): Promise<boolean> {
  try {
    await client.get(`/apis/${groupVersion}`);
    return true;
  } catch (error) {
    // only "not there" counts as not served; another failure is left to the charts' own requests
    return !(error instanceof KubeApiError && error.code === 404);
  }
}

function sourceEntry(client: KubeClient) {
  let entry = sources.get(client);
  if (!entry) {
    const listeners = new Set<() => void>();
    const created: { value?: UsageSource; promise: Promise<UsageSource>; listeners: Set<() => void> } = {
      listeners,
      promise: Promise.all([served(client, USAGE_API_VERSION), served(client, METRICS_GROUP_VERSION)]).then(([history, metrics]) => {
        created.value = usageSource(history, metrics);
        for (const listener of [...listeners]) listener();
        return created.value;
      }),
    };
    sources.set(client, (entry = created));
  }
  return entry;
}

/** Which API the charts draw from on this cluster (undefined while discovery is asked). */
export function useUsageSource(): UsageSource | undefined {
  const entry = sourceEntry(useServices().client);
  return useSyncExternalStore(
    (listener) => {
      entry.listeners.add(listener);
      return () => entry.listeners.delete(listener);
    },
    () => entry.value,
  );
}

function usePageVisible(): boolean {
  return useSyncExternalStore(
    (listener) => {
      document.addEventListener('visibilitychange', listener);
      return () => document.removeEventListener('visibilitychange', listener);
    },
    () => document.visibilityState !== 'hidden',
  );
}

/**
 * Samples `path` (a metrics object or list, summed) now and every 15 s while mounted and the page is
 * visible; the series lives as long as the component, i.e. since the page was opened.
 */
export function useMetricsSeries(path: string, query: Record<string, string> = {}): { series: MetricsSeries; version: number; error?: string } {
  const { client } = useServices();
  const visible = usePageVisible();
  const [state, setState] = useState<{ series: MetricsSeries; version: number; error?: string }>(() => ({ series: new MetricsSeries(), version: 0 }));
  const queryKey = JSON.stringify(query);
  useEffect(() => {
    if (!visible) return;
    let cancelled = false;
    const sample = () =>
      client.get<unknown>(path, { query: JSON.parse(queryKey) as Record<string, string> }).then(
        (body) => {
          if (cancelled) return;
          const figures = metricsFigures(body);
          setState((previous) => {
            if (figures) previous.series.record(Date.now(), figures);
            return { series: previous.series, version: previous.version + 1 };
          });
        },
        (error: unknown) => !cancelled && setState((previous) => ({ ...previous, error: error instanceof Error ? error.message : String(error) })),
      );
    void sample();
    const timer = setInterval(() => void sample(), METRICS_STEP_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [client, path, queryKey, visible]);
  return state;
}

const RESOURCES: Array<{ resource: ChartResource; title: string }> = [
  { resource: 'cpu', title: 'CPU' },
  { resource: 'memory', title: 'Memory' },
];

/** The charts of a pod, a workload (its pods summed) or a node from metrics.k8s.io samples. */
export function useMetricsCharts(target: 'pod' | 'workload' | 'node', object: KubeObject, selector: Record<string, string> | undefined): { charts?: Array<{ resource: ChartResource; title: string; chart: ChartData }>; error?: string; samples: number } {
  const namespace = object.metadata.namespace ?? '';
  const name = object.metadata.name ?? '';
  const path = target === 'pod' ? metricsPath({ kind: 'pod', namespace, name }) : target === 'node' ? metricsPath({ kind: 'node', name }) : metricsPath({ kind: 'pods', namespace });
  const query = target === 'workload' && selector ? { labelSelector: selectorQuery(selector) } : undefined;
  const { series, version, error } = useMetricsSeries(path, query);
  const charts = useMemo(() => {
    if (series.length === 0) return undefined;
    if (target === 'node') {
      const usage = nodeUsageOf(series, name, resourceFigures(isStatus(object.status) ? object.status.allocatable : undefined));
      return RESOURCES.map(({ resource, title }) => ({ resource, title, chart: nodeChart(usage, resource) }));
    }
    const figures = target === 'pod' ? podResources(object) : { requests: {}, limits: {} };
    const usage = podUsageOf(series, { name, namespace }, figures);
    return RESOURCES.map(({ resource, title }) => ({ resource, title, chart: podChart(usage, resource) }));
    // version: a sample arrived (the series changes in place)
  }, [series, version, target, object, name, namespace]);
  return { charts, error: series.length === 0 ? error : undefined, samples: series.length };
}

function isStatus(value: unknown): value is { allocatable?: unknown } {
  return typeof value === 'object' && value !== null;
}

/** The cluster's load from every NodeMetrics summed, against the nodes' allocatable. */
export function useClusterMetricsCharts(): { charts?: Array<{ resource: ChartResource; chart: ChartData }>; error?: string; nodes: number } {
  const { series, version, error } = useMetricsSeries(metricsPath({ kind: 'nodes' }));
  const nodeCollection = useCollection(nodeKind);
  const allocatable = useMemo<ResourceFigures>(() => {
    const figures = Object.values(nodeCollection.items).map((node) => resourceFigures(isStatus(node.status) ? node.status.allocatable : undefined));
    const cpu = sumFigures(figures, 'cpu', false);
    const memory = sumFigures(figures, 'memory', false);
    return { ...(cpu !== undefined ? { cpu } : {}), ...(memory !== undefined ? { memory } : {}) };
  }, [nodeCollection.items]);
  const charts = useMemo(() => {
    if (series.length === 0) return undefined;
    const usage = nodeUsageOf(series, '', allocatable);
    return (['cpu', 'memory'] as const).map((resource) => ({ resource, chart: nodeChart(usage, resource) }));
  }, [series, version, allocatable]);
  return { charts, error: series.length === 0 ? error : undefined, nodes: Object.keys(nodeCollection.items).length };
}

export function MetricsSourceNote({ samples }: { samples: number }) {
  return (
    <span className="hint usage-source" data-testid="usage-metrics-source">
      {METRICS_SOURCE_NOTE} ({samples} sample{samples === 1 ? '' : 's'}, every {METRICS_STEP_MS / 1000} s)
    </span>
  );
}
