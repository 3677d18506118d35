// Resource usage in the UI, from usage.kubedesk.dev (the kubelets' history) — or, on a cluster
// without it, from metrics.k8s.io samples (MetricsCharts.tsx): sparklines for the pod
// and workload lists (tiny SVG paths, data fetched in batches for the rows on screen only by
// sparklineStore), charts on pod, workload and node pages with requests, limits and allocatable
// drawn as lines, and the cluster's load on the overview. Colours are the theme's variables, so
// light and dark follow; every chart is an image with a one-sentence description for screen
// readers and as its tooltip.
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { latestValue, type NodeUsage, type PodUsage } from '../../../shared/usage';
import { useServices } from '../../context';
import { Card } from '../detail/cards';
import { sparklineStoreFor, type SparklineStore } from './sparklineStore';
import { MetricsSourceNote, useClusterMetricsCharts, useMetricsCharts, useUsageSource } from './MetricsCharts';
import { NO_METRICS_NOTE } from './metricsSampling';
import { describeChart, formatFigure, linePath, maxOf, nodeChart, podChart, resourceScale, timeLabels, usagePath, workloadUsage, type ChartData, type ChartLine, type ChartResource } from './usageModel';

const SPARK_WIDTH = 72;
const SPARK_HEIGHT = 16;
/** 10 minutes at 10 s */
const SPARK_SLOTS = 60;

type SparkResource = 'cpu' | 'memory';

/** A list cell: the pod's last 10 minutes of CPU or memory and the latest figure. */
export const PodSparkline = memo(function PodSparkline({ namespace, name, resource }: { namespace: string; name: string; resource: SparkResource }) {
  const store = sparklineStoreFor(useServices().client);
  useEffect(() => store.wantPod(namespace, name), [store, namespace, name]);
  const usage = useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.pod(namespace, name),
  );
  const limit = usage?.limits[resource];
  return <Spark values={usage?.usage[resource]} resource={resource} ceiling={limit} label={`${resource === 'cpu' ? 'CPU' : 'Memory'} of ${name}`} span={sparkSpan(store)} />;
});

/** A workload list cell: the summed usage of the namespace's pods its selector matches. */
export const WorkloadSparkline = memo(function WorkloadSparkline({ namespace, name, selector, resource }: { namespace: string; name: string; selector: Record<string, string> | undefined; resource: SparkResource }) {
  const store = sparklineStoreFor(useServices().client);
  useEffect(() => store.wantNamespace(namespace), [store, namespace]);
  const items = useSyncExternalStore(
    (listener) => store.subscribe(listener),
    () => store.namespace(namespace),
  );
  const key = selector ? JSON.stringify(selector) : '';
  const usage = useMemo(() => (items ? workloadUsage(items, key ? (JSON.parse(key) as Record<string, string>) : undefined) : undefined), [items, key]);
  return <Spark values={usage?.usage[resource]} resource={resource} ceiling={usage?.limits[resource]} label={`${resource === 'cpu' ? 'CPU' : 'Memory'} of ${name}`} span={sparkSpan(store)} />;
});

/** What time the sparkline covers, for its tooltip. */
function sparkSpan(store: SparklineStore): string {
  return store.sourceOf() === 'metrics' ? 'from metrics.k8s.io since the list opened' : 'last 10 min';
}

function Spark({ values, resource, ceiling, label, span }: { values: Array<number | null> | undefined; resource: SparkResource; ceiling?: number; label: string; span: string }) {
  const latest = values ? latestValue(values) : undefined;
  if (values === undefined || latest === undefined) return <span className="spark-empty" aria-label={`${label}: no samples`} />;
  const peak = Math.max(0, ...values.filter((value): value is number => value !== null));
  // scaled to the limit when there is one (a full sparkline = at the limit), else to the peak
  const max = Math.max(ceiling ?? 0, peak) || 1;
  const text = formatFigure(resource, latest);
  const near = ceiling !== undefined && latest >= ceiling * 0.9;
  return (
    <span className="spark" role="img" aria-label={`${label}: ${text}${ceiling !== undefined ? ` of ${formatFigure(resource, ceiling)}` : ''}`} title={`${text}${ceiling !== undefined ? ` of ${formatFigure(resource, ceiling)} limit` : ''} (${span})`}>
      <svg width={SPARK_WIDTH} height={SPARK_HEIGHT} viewBox={`0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}`} aria-hidden="true" focusable="false">
        <path className={`spark-line spark-${resource}${near ? ' spark-near' : ''}`} d={linePath(values.slice(-SPARK_SLOTS), SPARK_WIDTH, SPARK_HEIGHT - 2, max)} transform="translate(0 1)" />
      </svg>
      <span className="spark-figure">{text}</span>
    </span>
  );
}

const WINDOWS = [
  { id: '1h', label: '1 h' },
  { id: '6h', label: '6 h' },
  { id: '1d', label: '24 h' },
] as const;
type WindowId = (typeof WINDOWS)[number]['id'];
const CHART_REFRESH_MS = 10_000;

/** Fetches a usage object now and every 10 s while shown. */
function usePolled<T>(path: string | undefined, window: WindowId, query: Record<string, string> = {}): { data?: T; error?: string } {
  const { client } = useServices();
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const queryKey = JSON.stringify(query);
  useEffect(() => {
    if (!path) return;
    let cancelled = false;
    const load = () =>
      client
        .get<T>(path, { query: { ...(JSON.parse(queryKey) as Record<string, string>), window } })
        .then((data) => !cancelled && setState({ data }))
        .catch((error: unknown) => !cancelled && setState({ error: error instanceof Error ? error.message : String(error) }));
    void load();
    const timer = setInterval(() => void load(), CHART_REFRESH_MS);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [client, path, window, queryKey]);
  return state;
}

function WindowPicker({ value, onChange }: { value: WindowId; onChange(value: WindowId): void }) {
  return (
    <span className="segmented usage-window" role="group" aria-label="Time range">
      {WINDOWS.map((window) => (
        <button key={window.id} aria-pressed={value === window.id} onClick={() => onChange(window.id)} data-testid={`usage-window-${window.id}`}>
          {window.label}
        </button>
      ))}
    </span>
  );
}

const RESOURCES: Array<{ resource: ChartResource; title: string }> = [
  { resource: 'cpu', title: 'CPU' },
  { resource: 'memory', title: 'Memory' },
  { resource: 'network', title: 'Network' },
  { resource: 'fs', title: 'Filesystem I/O' },
];

/**
 * The usage card of a pod, a workload (its pods summed) or a node: from kubedesk's usage history,
 * else from metrics.k8s.io samples, else a note that the cluster serves no metrics API.
 */
export function UsageCard({ target, object, selector }: { target: 'pod' | 'workload' | 'node'; object: KubeObject; selector?: Record<string, string> }) {
  const source = useUsageSource();
  if (source === 'history') return <HistoryUsageCard target={target} object={object} selector={selector} />;
  if (source === 'metrics') return <MetricsUsageCard target={target} object={object} selector={selector} />;
  return (
    <Card title="Resource usage" wide testId="usage-card">
      <div className="hint" data-testid={source === 'none' ? 'usage-no-metrics' : undefined}>
        {source === 'none' ? NO_METRICS_NOTE : 'Loading…'}
      </div>
    </Card>
  );
}

function MetricsUsageCard({ target, object, selector }: { target: 'pod' | 'workload' | 'node'; object: KubeObject; selector?: Record<string, string> }) {
  const { charts, error, samples } = useMetricsCharts(target, object, selector);
  return (
    <Card title="Resource usage" wide testId="usage-card">
      <div className="usage-toolbar">
        {target === 'workload' && <span className="hint">Sum over the pods it selects,</span>}
        <MetricsSourceNote samples={samples} />
      </div>
      {error && <div className="hint">Usage is not available: {error}</div>}
      {!error && !charts && <div className="hint">Waiting for the first sample…</div>}
      {charts && (
        <div className="usage-charts">
          {charts.map(({ resource, title, chart }) => (
            <UsageChart key={resource} title={title} resource={resource} chart={chart} />
          ))}
        </div>
      )}
    </Card>
  );
}

function HistoryUsageCard({ target, object, selector }: { target: 'pod' | 'workload' | 'node'; object: KubeObject; selector?: Record<string, string> }) {
  const [window, setWindow] = useState<WindowId>('1h');
  const namespace = object.metadata.namespace ?? '';
  const name = object.metadata.name ?? '';
  const path = target === 'pod' ? usagePath({ kind: 'pod', namespace, name }) : target === 'node' ? usagePath({ kind: 'node', name }) : usagePath({ kind: 'pods', namespace });
  const { data, error } = usePolled<PodUsage | NodeUsage | { items: PodUsage[] }>(path, window, target === 'workload' ? { containers: 'false' } : {});
  const charts = useMemo(() => {
    if (!data) return undefined;
    if ('items' in data) {
      const summed = workloadUsage(data.items, selector);
      return summed ? RESOURCES.map(({ resource, title }) => ({ resource, title, chart: podChart(summed, resource) })) : [];
    }
    if (data.kind === 'NodeUsage') return RESOURCES.map(({ resource, title }) => ({ resource, title, chart: nodeChart(data, resource) }));
    return RESOURCES.map(({ resource, title }) => ({ resource, title, chart: podChart(data, resource) }));
  }, [data, selector]);
  const empty = charts !== undefined && (charts.length === 0 || charts.every(({ chart }) => chart.window.stepSeconds === 0));
  return (
    <Card title="Resource usage" wide testId="usage-card">
      <div className="usage-toolbar">
        <span className="hint">{target === 'workload' ? 'Sum over the pods it selects' : target === 'node' ? 'Pods on this node, plus kubedesk itself on the control-plane node' : 'Sampled by the kubelet every 10 s'}</span>
        <WindowPicker value={window} onChange={setWindow} />
      </div>
      {error && <div className="hint">Usage is not available: {error}</div>}
      {!error && charts === undefined && <div className="hint">Loading…</div>}
      {!error && empty && <div className="hint" data-testid="usage-empty">No samples yet: the kubelet samples running containers every 10 s.</div>}
      {!error && charts && !empty && (
        <div className="usage-charts">
          {charts.map(({ resource, title, chart }) => (
            <UsageChart key={resource} title={title} resource={resource} chart={chart} />
          ))}
        </div>
      )}
    </Card>
  );
}

const DEFAULT_CHART_WIDTH = 320;
const CHART_HEIGHT = 110;
const AXIS = 44;

/** One chart: the usage series, the constants (request, limit, allocatable) as dashed lines, round ticks. */
export function UsageChart({ title, resource, chart }: { title: string; resource: ChartResource; chart: ChartData }) {
  // drawn at the figure's own width, so the text is never stretched
  const figure = useRef<HTMLElement>(null);
  const [chartWidth, setWidth] = useState(DEFAULT_CHART_WIDTH);
  useLayoutEffect(() => {
    const element = figure.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(160, Math.round(element.clientWidth)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const points = Math.max(0, ...chart.lines.map((line) => line.values?.length ?? 0));
  const { top, ticks } = resourceScale(resource, maxOf(chart.lines) * 1.05);
  const description = describeChart(title, resource, chart);
  const plotWidth = chartWidth - AXIS;
  const times = timeLabels(chart.window, points);
  return (
    <figure className="usage-chart" ref={figure} data-testid={`usage-chart-${resource}`}>
      <figcaption>
        <strong>{title}</strong> <ChartLegend lines={chart.lines} resource={resource} />
      </figcaption>
      <svg role="img" aria-label={description} width={chartWidth} height={CHART_HEIGHT + 16} viewBox={`0 0 ${chartWidth} ${CHART_HEIGHT + 16}`} className="usage-svg">
        <title>{description}</title>
        {ticks.map((tick) => {
          const y = CHART_HEIGHT - (tick / top) * CHART_HEIGHT;
          return (
            <g key={tick}>
              <line className="usage-grid" x1={AXIS} x2={chartWidth} y1={y} y2={y} />
              <text className="usage-tick" x={AXIS - 4} y={Math.max(8, y + 3)} textAnchor="end">
                {formatFigure(resource, tick)}
              </text>
            </g>
          );
        })}
        <g transform={`translate(${AXIS} 0)`}>
          {chart.lines.map((line) => (
            <path key={line.id} className={`usage-line usage-${line.kind}`} d={line.values ? linePath(line.values, plotWidth, CHART_HEIGHT, top) : constantPath(line.constant ?? 0, plotWidth, CHART_HEIGHT, top)} data-line={line.id} />
          ))}
        </g>
        {times.map((time, index) => (
          <text key={index} className="usage-tick" x={AXIS + (plotWidth * index) / 2} y={CHART_HEIGHT + 13} textAnchor={index === 0 ? 'start' : index === 2 ? 'end' : 'middle'}>
            {time}
          </text>
        ))}
      </svg>
    </figure>
  );
}

function constantPath(value: number, width: number, height: number, max: number): string {
  const y = height - (Math.min(value, max) / max) * height;
  return `M0 ${y}L${width} ${y}`;
}

function ChartLegend({ lines, resource }: { lines: ChartLine[]; resource: ChartResource }) {
  return (
    <span className="usage-legend">
      {lines.map((line) => {
        const latest = line.values ? latestValue(line.values) : line.constant;
        return (
          <span key={line.id} className={`usage-key usage-key-${line.kind}`}>
            <span className="usage-swatch" aria-hidden="true" />
            {line.label}
            {latest !== undefined ? ` ${formatFigure(resource, latest)}` : ''}
          </span>
        );
      })}
    </span>
  );
}

/** The overview's cluster load: every node's usage summed against their allocatable (from whichever API the cluster serves). */
export function ClusterLoad() {
  const source = useUsageSource();
  if (source === 'history') return <HistoryClusterLoad />;
  if (source === 'metrics') return <MetricsClusterLoad />;
  return (
    <div className="overview-panel wide" data-testid="cluster-load">
      <h2>Cluster load</h2>
      <p className="hint" data-testid={source === 'none' ? 'usage-no-metrics' : undefined}>
        {source === 'none' ? NO_METRICS_NOTE : 'Loading…'}
      </p>
    </div>
  );
}

function MetricsClusterLoad() {
  const { charts, error, nodes } = useClusterMetricsCharts();
  const samples = charts?.[0]?.chart.lines[0]?.values?.length ?? 0;
  return (
    <div className="overview-panel wide" data-testid="cluster-load">
      <h2>
        Cluster load <span className="count">{nodes ? `${nodes} node${nodes === 1 ? '' : 's'}` : ''}</span>
      </h2>
      <div className="usage-toolbar">
        <span className="hint">CPU and memory of every node against what the nodes can allocate,</span>
        <MetricsSourceNote samples={samples} />
      </div>
      {error && <p className="hint">Usage is not available: {error}</p>}
      {!error && !charts && <p className="hint">Waiting for the first sample…</p>}
      {charts && (
        <div className="usage-charts">
          {charts.map(({ resource, chart }) => (
            <UsageChart key={resource} title={resource === 'cpu' ? 'CPU' : 'Memory'} resource={resource} chart={chart} />
          ))}
        </div>
      )}
    </div>
  );
}

function HistoryClusterLoad() {
  const [window, setWindow] = useState<WindowId>('1h');
  const { data, error } = usePolled<{ items: NodeUsage[] }>(usagePath({ kind: 'nodes' }), window);
  const charts = useMemo(() => {
    const items = data?.items ?? [];
    if (items.length === 0) return undefined;
    const summed = items.reduce<NodeUsage | undefined>((total, item) => (total ? addNodes(total, item) : item), undefined);
    return summed ? (['cpu', 'memory'] as const).map((resource) => ({ resource, chart: nodeChart(summed, resource) })) : undefined;
  }, [data]);
  return (
    <div className="overview-panel wide" data-testid="cluster-load">
      <h2>
        Cluster load <span className="count">{data ? `${data.items.length} node${data.items.length === 1 ? '' : 's'}` : ''}</span>
      </h2>
      <div className="usage-toolbar">
        <span className="hint">CPU and memory of every pod, and of kubedesk itself, against what the nodes can allocate</span>
        <WindowPicker value={window} onChange={setWindow} />
      </div>
      {error && <p className="hint">Usage is not available: {error}</p>}
      {!error && !charts && <p className="hint">{data ? 'No samples yet: the kubelets sample every 10 s.' : 'Loading…'}</p>}
      {charts && (
        <div className="usage-charts">
          {charts.map(({ resource, chart }) => (
            <UsageChart key={resource} title={resource === 'cpu' ? 'CPU' : 'Memory'} resource={resource} chart={chart} />
          ))}
        </div>
      )}
    </div>
  );
}

function addNodes(left: NodeUsage, right: NodeUsage): NodeUsage {
  const add = (a: Array<number | null> | undefined, b: Array<number | null> | undefined) => {
    const length = Math.max(a?.length ?? 0, b?.length ?? 0);
    // the nodes sample on the same clock, so their windows end together: align from the end
    return Array.from({ length }, (_, index) => {
      const x = a?.[index - (length - (a?.length ?? 0))] ?? null;
      const y = b?.[index - (length - (b?.length ?? 0))] ?? null;
      return x === null && y === null ? null : (x ?? 0) + (y ?? 0);
    });
  };
  const sum = (a: number | undefined, b: number | undefined) => (a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0));
  return {
    ...left,
    window: (left.usage.cpu.length >= right.usage.cpu.length ? left : right).window,
    usage: {
      cpu: add(left.usage.cpu, right.usage.cpu),
      memory: add(left.usage.memory, right.usage.memory),
      networkReceive: add(left.usage.networkReceive, right.usage.networkReceive),
      networkTransmit: add(left.usage.networkTransmit, right.usage.networkTransmit),
      fsRead: add(left.usage.fsRead, right.usage.fsRead),
      fsWrite: add(left.usage.fsWrite, right.usage.fsWrite),
    },
    allocatable: { cpu: sum(left.allocatable.cpu, right.allocatable.cpu), memory: sum(left.allocatable.memory, right.allocatable.memory) },
  };
}
