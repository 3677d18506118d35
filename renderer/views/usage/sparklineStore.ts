// The sparklines' data: the last 10 minutes of usage of the rows on screen, fetched in batches.
// Each visible cell says which pod (or, for a workload, which namespace) it wants; the store waits
// a moment so one scroll becomes one request per namespace (`pods?names=a,b,…`), refreshes what is
// still wanted on a slow timer, and forgets what scrolled away. usage.kubedesk.dev cannot be
// watched (it is computed, as metrics.k8s.io), hence the timer. A cluster that does not serve
// usage.kubedesk.dev (404: any cluster but kubedesk) but serves metrics.k8s.io (metrics-server)
// gets sparklines from PodMetrics instead, as the charts do (metricsSampling.ts): one read of the
// namespace's PodMetrics every 15 s while cells want it, each pod's samples kept as a series since
// the list opened.
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { isRecord } from '../../../shared/kubernetes/types';
import type { PodUsage } from '../../../shared/usage';
import { METRICS_STEP_MS, MetricsSeries, metricsFigures, metricsPath, podUsageOf } from './metricsSampling';
import { usagePath } from './usageModel';

export const SPARKLINE_WINDOW = '10m';
const NAMES_PER_REQUEST = 100;
/** cells asking for a namespace's metrics within this long share one read */
const SAMPLE_REUSE_MS = 1000;

interface Options {
  refreshMs?: number;
  batchMs?: number;
  /** the clock of the metrics samples (tests) */
  now?(): number;
}

/** Where the sparklines come from: kubedesk's usage history, or samples of metrics.k8s.io. */
export type SparklineSource = 'usage' | 'metrics';

export class SparklineStore {
  private readonly pods = new Map<string, PodUsage>();
  private readonly namespaces = new Map<string, PodUsage[]>();
  /** wanted keys (`ns/name`, or `ns/` for a whole namespace) with how many cells want them */
  private readonly wanted = new Map<string, number>();
  private readonly fetched = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private batch: ReturnType<typeof setTimeout> | undefined;
  private refresh: ReturnType<typeof setInterval> | undefined;
  /** namespaces whose usage cannot be read (no such API on this cluster, or forbidden) */
  private readonly unavailable = new Set<string>();
  private source: SparklineSource = 'usage';
  /** metrics.k8s.io samples per pod (`ns/name`), and each namespace's latest read */
  private readonly series = new Map<string, MetricsSeries>();
  private readonly sampling = new Map<string, { at: number; read: Promise<PodUsage[] | undefined> }>();

  constructor(
    private readonly client: KubeClient,
    private readonly options: Options = {},
  ) {}

  /** A cell wants a pod's sparkline; the returned function says it no longer does. */
  wantPod(namespace: string, name: string): () => void {
    return this.want(`${namespace}/${name}`);
  }

  /** A workload cell wants every pod of a namespace (summed by its selector). */
  wantNamespace(namespace: string): () => void {
    return this.want(`${namespace}/`);
  }

  pod(namespace: string, name: string): PodUsage | undefined {
    return this.pods.get(`${namespace}/${name}`);
  }

  namespace(namespace: string): PodUsage[] | undefined {
    return this.namespaces.get(namespace);
  }

  /** Which API the sparklines are read from (metrics once usage.kubedesk.dev answered 404). */
  sourceOf(): SparklineSource {
    return this.source;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    if (this.batch) clearTimeout(this.batch);
    if (this.refresh) clearInterval(this.refresh);
    this.listeners.clear();
  }

  private want(key: string): () => void {
    this.wanted.set(key, (this.wanted.get(key) ?? 0) + 1);
    if (!this.fetched.has(key)) this.schedule();
    this.startRefresh();
    return () => {
      const count = (this.wanted.get(key) ?? 1) - 1;
      if (count > 0) this.wanted.set(key, count);
      else this.wanted.delete(key);
      if (this.wanted.size === 0 && this.refresh) {
        clearInterval(this.refresh);
        this.refresh = undefined;
      }
    };
  }

  /** Reads what is wanted again every 20 s (history), or at metrics-server's 15 s resolution (samples). */
  private startRefresh(): void {
    this.refresh ??= setInterval(
      () => {
        this.fetched.clear();
        this.unavailable.clear();
        this.schedule();
      },
      this.options.refreshMs ?? (this.source === 'metrics' ? METRICS_STEP_MS : 20_000),
    );
  }

  private schedule(): void {
    this.batch ??= setTimeout(() => {
      this.batch = undefined;
      void this.flush();
    }, this.options.batchMs ?? 60);
  }

  /** One request per namespace for the wanted pods not fetched since the last refresh. */
  private async flush(): Promise<void> {
    const byNamespace = new Map<string, string[]>();
    const wholeNamespaces: string[] = [];
    for (const key of this.wanted.keys()) {
      if (this.fetched.has(key)) continue;
      const slash = key.indexOf('/');
      const namespace = key.slice(0, slash);
      const name = key.slice(slash + 1);
      if (this.unavailable.has(namespace)) continue;
      this.fetched.add(key);
      if (!name) wholeNamespaces.push(namespace);
      else byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), name]);
    }
    const requests: Array<Promise<void>> = [];
    for (const [namespace, names] of byNamespace) {
      for (let start = 0; start < names.length; start += NAMES_PER_REQUEST) {
        const chunk = names.slice(start, start + NAMES_PER_REQUEST);
        requests.push(
          this.read(namespace, { names: chunk.join(',') }).then((items) => {
            if (!items) return;
            const found = new Map(items.map((item) => [item.metadata.name, item]));
            for (const name of chunk) {
              const item = found.get(name);
              if (item) this.pods.set(`${namespace}/${name}`, item);
              else this.pods.delete(`${namespace}/${name}`);
            }
          }),
        );
      }
    }
    for (const namespace of wholeNamespaces) {
      requests.push(
        this.read(namespace, {}).then((items) => {
          if (items) this.namespaces.set(namespace, items);
        }),
      );
    }
    if (requests.length === 0) return;
    await Promise.all(requests);
    for (const listener of this.listeners) listener();
  }

  private async read(namespace: string, query: Record<string, string>): Promise<PodUsage[] | undefined> {
    if (this.source === 'metrics') return this.sampleMetrics(namespace, query.names);
    try {
      const list = await this.client.get<{ items?: PodUsage[] }>(usagePath({ kind: 'pods', namespace }), { query: { ...query, window: SPARKLINE_WINDOW, containers: 'false' } });
      return Array.isArray(list.items) ? list.items : [];
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) {
        // not kubedesk's own cluster: sample metrics.k8s.io from now on
        if (this.source === 'usage') {
          this.source = 'metrics';
          if (this.refresh && this.options.refreshMs === undefined) {
            clearInterval(this.refresh);
            this.refresh = undefined;
            if (this.wanted.size > 0) this.startRefresh();
          }
        }
        return this.sampleMetrics(namespace, query.names);
      }
      // a namespace the user may not read shows no sparklines
      this.unavailable.add(namespace);
      return undefined;
    }
  }

  /**
   * One sample of the namespace's PodMetrics (one request for every cell that asks within a second) added
   * to each pod's series; the pods named (or all) as PodUsage. Undefined when metrics.k8s.io is
   * not served or refused: no sparklines for the namespace until the next refresh.
   */
  private async sampleMetrics(namespace: string, names: string | undefined): Promise<PodUsage[] | undefined> {
    const now = (this.options.now ?? Date.now)();
    let latest = this.sampling.get(namespace);
    if (!latest || now - latest.at >= SAMPLE_REUSE_MS) this.sampling.set(namespace, (latest = { at: now, read: this.readMetrics(namespace, now) }));
    const items = await latest.read;
    if (!items) return undefined;
    if (names === undefined) return items;
    const wanted = new Set(names.split(','));
    return items.filter((item) => wanted.has(item.metadata.name));
  }

  private async readMetrics(namespace: string, at: number): Promise<PodUsage[] | undefined> {
    let body: unknown;
    try {
      body = await this.client.get<unknown>(metricsPath({ kind: 'pods', namespace }));
    } catch {
      this.unavailable.add(namespace);
      return undefined;
    }
    const items = isRecord(body) && Array.isArray(body.items) ? body.items.filter(isRecord) : [];
    const seen = new Set<string>();
    const usages: PodUsage[] = [];
    for (const item of items) {
      const metadata = isRecord(item.metadata) ? item.metadata : {};
      const name = typeof metadata.name === 'string' ? metadata.name : '';
      const figures = metricsFigures(item);
      if (!name || !figures) continue;
      const key = `${namespace}/${name}`;
      seen.add(key);
      let series = this.series.get(key);
      if (!series) this.series.set(key, (series = new MetricsSeries()));
      series.record(at, figures);
      const usage = podUsageOf(series, { name, namespace });
      if (isRecord(metadata.labels)) usage.metadata.labels = Object.fromEntries(Object.entries(metadata.labels).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
      usages.push(usage);
    }
    // pods gone from the namespace take their samples with them
    for (const key of this.series.keys()) if (key.startsWith(`${namespace}/`) && !seen.has(key)) this.series.delete(key);
    return usages;
  }
}

const stores = new WeakMap<KubeClient, SparklineStore>();

/** The one store per client. */
export function sparklineStoreFor(client: KubeClient): SparklineStore {
  let store = stores.get(client);
  if (!store) stores.set(client, (store = new SparklineStore(client)));
  return store;
}
