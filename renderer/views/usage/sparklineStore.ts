// The sparklines' data: the last 10 minutes of usage of the rows on screen, fetched in batches.
// Each visible cell says which pod (or, for a workload, which namespace) it wants; the store waits
// a moment so one scroll becomes one request per namespace (`pods?names=a,b,…`), refreshes what is
// still wanted on a slow timer, and forgets what scrolled away. usage.kubedesk.dev cannot be
// watched (it is computed, as metrics.k8s.io), hence the timer.
import type { KubeClient } from '../../api/kubeClient';
import type { PodUsage } from '../../../shared/usage';
import { usagePath } from './usageModel';

export const SPARKLINE_WINDOW = '10m';
const NAMES_PER_REQUEST = 100;

interface Options {
  refreshMs?: number;
  batchMs?: number;
}

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
    this.refresh ??= setInterval(() => {
      this.fetched.clear();
      this.unavailable.clear();
      this.schedule();
    }, this.options.refreshMs ?? 20_000);
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
    try {
      const list = await this.client.get<{ items?: PodUsage[] }>(usagePath({ kind: 'pods', namespace }), { query: { ...query, window: SPARKLINE_WINDOW, containers: 'false' } });
      return Array.isArray(list.items) ? list.items : [];
    } catch {
      // a cluster without usage.kubedesk.dev (or a namespace the user may not read) shows no sparklines
      this.unavailable.add(namespace);
      return undefined;
    }
  }
}

const stores = new WeakMap<KubeClient, SparklineStore>();

/** The one store per client. */
export function sparklineStoreFor(client: KubeClient): SparklineStore {
  let store = stores.get(client);
  if (!store) stores.set(client, (store = new SparklineStore(client)));
  return store;
}
