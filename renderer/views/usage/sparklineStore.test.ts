import { afterEach, describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { SparklineStore } from './sparklineStore';

const NOT_FOUND = () => new KubeApiError(404, 'NotFound', 'the server could not find the requested resource');

/** PodMetrics as metrics-server lists them: per container, CPU in nanocores, memory in Ki. */
function podMetrics(name: string, cpuNanocores: number, memoryKi: number, labels: Record<string, string> = {}) {
  return { metadata: { name, namespace: 'shop', labels }, timestamp: '2026-11-27T12:00:00Z', window: '15s', containers: [{ name: 'app', usage: { cpu: `${cpuNanocores}n`, memory: `${memoryKi}Ki` } }] };
}

/** A client that serves only what `answer` gives, recording each GET. */
function fakeClient(answer: (path: string, query: Record<string, string>) => unknown) {
  const gets: string[] = [];
  const get = async (path: string, options: { query?: Record<string, string> } = {}): Promise<unknown> => {
    gets.push(path);
    const result = answer(path, options.query ?? {});
    if (result instanceof Error) throw result;
    return result;
  };
  return { client: { get } as unknown as KubeClient, gets };
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the store did not answer');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the sparklines store', () => {
  let store: SparklineStore | undefined;
  afterEach(() => store?.dispose());

  it('reads kubedesk’s usage history, one request for the pods wanted in a namespace', async () => {
    const { client, gets } = fakeClient((path, query) => ({ items: (query.names ?? '').split(',').map((name) => ({ kind: 'PodUsage', metadata: { name, namespace: 'shop' }, usage: { cpu: [1, 2], memory: [3, 4] }, requests: {}, limits: {} })) }));
    store = new SparklineStore(client, { batchMs: 1, refreshMs: 60_000 });
    store.wantPod('shop', 'a');
    store.wantPod('shop', 'b');
    await until(() => store?.pod('shop', 'b') !== undefined);
    expect(gets).toEqual(['/apis/usage.kubedesk.dev/v1/namespaces/shop/pods']);
    expect(store.pod('shop', 'a')?.usage.cpu).toEqual([1, 2]);
    expect(store.sourceOf()).toBe('usage');
  });

  it('samples metrics.k8s.io when the cluster does not serve the usage history, a series per pod since the list opened', async () => {
    let cpu = 2_000_000;
    let now = Date.parse('2026-11-27T12:00:00Z');
    const { client, gets } = fakeClient((path) => {
      if (path.startsWith('/apis/usage.kubedesk.dev/')) return NOT_FOUND();
      if (path === '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods') return { kind: 'PodMetricsList', items: [podMetrics('web-1', cpu, 2048, { app: 'web' }), podMetrics('db-0', 1_000_000, 1024, { app: 'db' })] };
      return NOT_FOUND();
    });
    store = new SparklineStore(client, { batchMs: 1, refreshMs: 60_000, now: () => now });
    store.wantPod('shop', 'web-1');
    store.wantNamespace('shop');
    await until(() => store?.pod('shop', 'web-1') !== undefined && store.namespace('shop') !== undefined);
    expect(store.sourceOf()).toBe('metrics');
    // one PodMetrics read for the pod cell and the workload cell together
    expect(gets.filter((path) => path.includes('metrics.k8s.io'))).toHaveLength(1);
    const historyReads = gets.filter((path) => path.startsWith('/apis/usage.kubedesk.dev/')).length;
    expect(store.pod('shop', 'web-1')?.usage.cpu).toEqual([2]);
    expect(store.pod('shop', 'web-1')?.usage.memory).toEqual([2048 * 1024]);
    // the workload cells sum pods by their labels
    expect(store.namespace('shop')?.map((usage) => [usage.metadata.name, usage.metadata.labels])).toEqual([
      ['web-1', { app: 'web' }],
      ['db-0', { app: 'db' }],
    ]);
    // a second sample 15 s later extends the series; a missed one would be a gap
    cpu = 6_000_000;
    now += 30_000;
    (store as unknown as { fetched: Set<string> }).fetched.clear();
    store.wantPod('shop', 'db-0');
    await until(() => (store?.pod('shop', 'web-1')?.usage.cpu.length ?? 0) === 3);
    expect(store.pod('shop', 'web-1')?.usage.cpu).toEqual([2, null, 6]);
    // the usage history is not asked again
    expect(gets.filter((path) => path.startsWith('/apis/usage.kubedesk.dev/'))).toHaveLength(historyReads);
  });

  it('shows no sparklines when neither API is served', async () => {
    const { client, gets } = fakeClient(() => NOT_FOUND());
    store = new SparklineStore(client, { batchMs: 1, refreshMs: 60_000 });
    store.wantPod('shop', 'web-1');
    await until(() => gets.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.pod('shop', 'web-1')).toBeUndefined();
    expect(gets).toEqual(['/apis/usage.kubedesk.dev/v1/namespaces/shop/pods', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods']);
  });
});
