import { beforeEach, describe, expect, it } from 'vitest';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';
import { approximateValue, formatBytes, formatNanocores } from '../../../shared/kubernetes/quantity';
import { registerMetricsApi, type NodeMetrics, type PodMetrics } from './metricsApi';

const server = inMemoryApiServerPerTest();
let pods: PodMetrics[];
let nodes: NodeMetrics[];
let askedNamespaces: Array<string | undefined>;

function podMetrics(namespace: string, name: string, labels: Record<string, string>, cpu: string, memory: string): PodMetrics {
  return {
    metadata: { name, namespace, creationTimestamp: '2025-01-01T00:00:10Z', labels },
    timestamp: '2025-01-01T00:00:09Z',
    window: '10.001s',
    containers: [
      { name: 'main', usage: { cpu, memory } },
      { name: 'sidecar', usage: { cpu: '1m', memory: '1Mi' } },
    ],
  };
}

const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, undefined, headers);

beforeEach(() => {
  pods = [
    podMetrics('default', 'web-b', { app: 'web' }, '250m', '2Mi'),
    podMetrics('default', 'web-a', { app: 'web' }, '1234567n', '12345Ki'),
    podMetrics('default', 'db', { app: 'db' }, '5m', '100Mi'),
    podMetrics('other', 'web-c', { app: 'web' }, '1m', '1Mi'),
  ];
  nodes = [
    { metadata: { name: 'kubedesk-worker', labels: { role: 'worker' } }, timestamp: '2025-01-01T00:00:09Z', window: '10s', usage: { cpu: '500m', memory: '1Gi' } },
    { metadata: { name: 'kubedesk', labels: { role: 'control-plane' } }, timestamp: '2025-01-01T00:00:09Z', window: '10s', usage: { cpu: '1500000000n', memory: '2Gi' } },
  ];
  askedNamespaces = [];
  registerMetricsApi(server.api, server.registry, {
    podMetrics: async (namespace) => {
      askedNamespaces.push(namespace);
      return pods.filter((pod) => namespace === undefined || pod.metadata.namespace === namespace);
    },
    nodeMetrics: async () => nodes,
  });
});

describe('metrics.k8s.io discovery', () => {
  it('lists the group in the legacy group list and its resources under /apis/metrics.k8s.io/v1beta1', async () => {
    const groups = parse(await get('/apis'));
    const group = groups.groups.find((entry: { name: string }) => entry.name === 'metrics.k8s.io');
    expect(group.preferredVersion).toEqual({ groupVersion: 'metrics.k8s.io/v1beta1', version: 'v1beta1' });
    const resources = parse(await get('/apis/metrics.k8s.io/v1beta1'));
    expect(resources.groupVersion).toBe('metrics.k8s.io/v1beta1');
    expect(resources.resources).toEqual([
      expect.objectContaining({ name: 'pods', singularName: 'pod', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] }),
      expect.objectContaining({ name: 'nodes', singularName: 'node', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] }),
    ]);
  });

  it('lists the group in aggregated discovery with scopes and response kinds', async () => {
    const reply = await get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' });
    const item = parse(reply).items.find((entry: { metadata: { name: string } }) => entry.metadata.name === 'metrics.k8s.io');
    expect(item.versions[0].version).toBe('v1beta1');
    expect(item.versions[0].resources).toEqual([
      expect.objectContaining({ resource: 'pods', scope: 'Namespaced', responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' }, verbs: ['get', 'list'] }),
      expect.objectContaining({ resource: 'nodes', scope: 'Cluster', responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }, verbs: ['get', 'list'] }),
    ]);
  });

  it('publishes an OpenAPI document for metrics.k8s.io/v1beta1 with the upstream schemas', async () => {
    const index = parse(await get('/openapi/v3'));
    const url: string = index.paths['apis/metrics.k8s.io/v1beta1'].serverRelativeURL;
    const document = parse(await get(url));
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods', '/apis/metrics.k8s.io/v1beta1/nodes/{name}']),
    );
    expect(document.components.schemas['io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics']).toBeDefined();
    expect(document.components.schemas['io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics']).toBeDefined();
  });
});

describe('PodMetrics', () => {
  it('lists a namespace sorted by name, items without kind, as metrics-server does', async () => {
    const reply = await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods');
    expect(reply.status).toBe(200);
    const body = parse(reply);
    expect(body.kind).toBe('PodMetricsList');
    expect(body.apiVersion).toBe('metrics.k8s.io/v1beta1');
    expect(body.items.map((item: PodMetrics) => item.metadata.name)).toEqual(['db', 'web-a', 'web-b']);
    expect(body.items[1]).toEqual(pods[1]);
    expect(askedNamespaces).toEqual(['default']);
  });

  it('lists every namespace at the cluster-scoped path, sorted by namespace then name', async () => {
    const body = parse(await get('/apis/metrics.k8s.io/v1beta1/pods'));
    expect(body.items.map((item: PodMetrics) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual(['default/db', 'default/web-a', 'default/web-b', 'other/web-c']);
    expect(askedNamespaces).toEqual([undefined]);
  });

  it.each([
    ['labelSelector=app%3Dweb', ['web-a', 'web-b']],
    ['labelSelector=app%20in%20(db)', ['db']],
    ['labelSelector=app!%3Dweb', ['db']],
    ['fieldSelector=metadata.name%3Dweb-b', ['web-b']],
    ['labelSelector=app%3Dnone', []],
  ])('filters the list with %s', async (query, expected) => {
    const body = parse(await get(`/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?${query}`));
    expect(body.items.map((item: PodMetrics) => item.metadata.name)).toEqual(expected);
  });

  it('rejects a field selector on an unsupported field', async () => {
    const reply = await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dx');
    expect(reply.status).toBe(400);
    expect(parse(reply).message).toBe('field label not supported: spec.nodeName');
  });

  it('gets one pod with kind and apiVersion', async () => {
    const body = parse(await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/web-a'));
    expect(body).toEqual({ kind: 'PodMetrics', apiVersion: 'metrics.k8s.io/v1beta1', ...pods[1] });
  });

  it('answers NotFound with the namespace/name metrics-server puts in the message', async () => {
    const reply = await get('/apis/metrics.k8s.io/v1beta1/namespaces/other/pods/db');
    expect(reply.status).toBe(404);
    expect(parse(reply)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'pods.metrics.k8s.io "other/db" not found', details: { name: 'other/db', group: 'metrics.k8s.io', kind: 'pods' } });
  });

  it('prints a Table with the summed usage of the containers and the window', async () => {
    const reply = await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    const table = parse(reply);
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'cpu', 'memory', 'Window']);
    expect(table.rows.map((row: { cells: unknown[] }) => row.cells)).toEqual([
      ['web-a', '2234567n', '13369Ki', '10.001s'],
      ['web-b', '251m', '3Mi', '10.001s'],
    ]);
  });

  it.each([
    ['POST', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', 405],
    ['DELETE', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/db', 405],
    ['GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?watch=true', 405],
    ['GET', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/db/status', 404],
  ])('refuses %s %s with %i', async (method, path, status) => {
    const url = new URL(path, 'https://x');
    const reply = await server.api.handle({ method, path: url.pathname, query: url.searchParams, headers: {} });
    expect(reply.status).toBe(status);
  });
});

describe('NodeMetrics', () => {
  it('lists nodes sorted by name', async () => {
    const body = parse(await get('/apis/metrics.k8s.io/v1beta1/nodes'));
    expect(body.kind).toBe('NodeMetricsList');
    expect(body.items.map((item: NodeMetrics) => item.metadata.name)).toEqual(['kubedesk', 'kubedesk-worker']);
  });

  it('filters nodes by label', async () => {
    const body = parse(await get('/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=role%3Dworker'));
    expect(body.items.map((item: NodeMetrics) => item.metadata.name)).toEqual(['kubedesk-worker']);
  });

  it('gets one node, and answers NotFound for a node without metrics', async () => {
    expect(parse(await get('/apis/metrics.k8s.io/v1beta1/nodes/kubedesk'))).toEqual({ kind: 'NodeMetrics', apiVersion: 'metrics.k8s.io/v1beta1', ...nodes[1] });
    const missing = await get('/apis/metrics.k8s.io/v1beta1/nodes/nowhere');
    expect(missing.status).toBe(404);
    expect(parse(missing).message).toBe('nodes.metrics.k8s.io "nowhere" not found');
  });

  it('is not served under a namespace', async () => {
    expect((await get('/apis/metrics.k8s.io/v1beta1/namespaces/default/nodes')).status).toBe(404);
  });

  it('prints a Table row per node', async () => {
    const table = parse(await get('/apis/metrics.k8s.io/v1beta1/nodes', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }));
    expect(table.rows.map((row: { cells: unknown[] }) => row.cells)).toEqual([
      ['kubedesk', '1500m', '2Gi', '10s'],
      ['kubedesk-worker', '500m', '1Gi', '10s'],
    ]);
  });
});

describe('quantities', () => {
  it.each([
    [0, '0'],
    [1_234_567, '1234567n'],
    [5_000, '5u'],
    [250_000_000, '250m'],
    [2_000_000_000, '2'],
  ])('formats %i nanocores as %s', (nanocores, text) => {
    expect(formatNanocores(nanocores)).toBe(text);
    expect(Math.round(approximateValue(text) * 1e9)).toBe(nanocores);
  });

  it.each([
    [0, '0'],
    [1000, '1000'],
    [12_345 * 1024, '12345Ki'],
    [3 * 1024 * 1024, '3Mi'],
    [2 ** 31, '2Gi'],
  ])('formats %i bytes as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
    expect(approximateValue(text)).toBe(bytes);
  });

  it.each([['1.5'], ['1e3'], ['100M'], ['x'], ['']])('parses %s like resource.Quantity or gives NaN', (text) => {
    const expected: Record<string, number> = { '1.5': 1.5, '1e3': 1000, '100M': 100_000_000 };
    if (text in expected) expect(approximateValue(text)).toBe(expected[text]);
    else expect(approximateValue(text)).toBeNaN();
  });
});
