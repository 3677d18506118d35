// Tests for usage.kubedesk.dev through the API server: a pod's series in wire units with its
// requests and limits, authorisation like the pod's own (get on the pod; a list leaves out the
// pods the requester may not get), nodes, kubectl's Table, and bad parameters as 400s.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../../../shared/kubernetes/types';
import type { SeriesWindow } from '../../../shared/usage';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import { ApiServer, type ApiReply } from '../apiServer';
import type { Attributes, Authorizer } from '../auth/rbacAuthorizer';
import { OpenApiService } from '../openapi/openapiDocuments';
import { ResourceRegistry } from '../resourceRegistry';
import { registerUsageApi, trimLeadingGaps, usageQuery, type UsageProvider, type UsageQuery } from './usageApi';

let store: SqliteStore;
let api: ApiServer;
/** what the fake authorizer lets "viewer" do: `verb resource namespace name` */
let viewerMay: Set<string>;
let asked: UsageQuery[];

const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
const viewer = { name: 'viewer', groups: ['system:authenticated'] };

const authorizer: Authorizer = {
  authorize(attributes: Attributes) {
    if (attributes.user.name === 'admin') return { allowed: true, reason: '' };
    return { allowed: viewerMay.has(`${attributes.verb} ${attributes.resource} ${attributes.namespace} ${attributes.name}`), reason: '' };
  },
  rulesFor() {
    throw new Error('not used by the usage API');
  },
};

function series(cpuNanocores: Array<number | null>, start = Date.parse('2026-01-01T00:00:00Z')): SeriesWindow {
  const values = cpuNanocores.map((value) => (value === null ? null : 1024));
  return { start, stepMs: 10_000, values: { cpu: cpuNanocores, memory: values, networkRx: values, networkTx: values, fsRead: values, fsWrite: values } };
}

/** Pods whose uid starts with `sampled` have a history; the node `kubedesk` too. */
const provider: UsageProvider = {
  pod(pod, containers, query) {
    asked.push(query);
    if (!pod.metadata.uid) return undefined;
    const object = store.get({ resource: 'pods', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '' });
    if (object?.metadata.labels?.sampled !== 'yes') return undefined;
    return { pod: series([null, 250_000_000, 300_000_000]), containers: containers.map((name) => ({ name, series: series([null, 250_000_000, 300_000_000]) })) };
  },
  node(name, query) {
    asked.push(query);
    return name === 'kubedesk' ? series([1_000_000_000]) : undefined;
  },
};

async function request(path: string, options: { user?: typeof admin; accept?: string; method?: string } = {}): Promise<ApiReply> {
  const url = new URL(path, 'https://x');
  const reply = await api.handle({
    method: options.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: { accept: options.accept ?? 'application/json', 'user-agent': 'kubectl/v1.35.0 (linux/amd64)', 'content-type': 'application/json' },
    body: undefined,
    user: options.user ?? admin,
  });
  if ('watch' in reply) throw new Error('unexpected watch reply');
  return reply;
}

async function create(path: string, body: unknown): Promise<void> {
  const url = new URL(path, 'https://x');
  const reply = await api.handle({ method: 'POST', path: url.pathname, query: url.searchParams, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)), user: admin });
  if ('watch' in reply || reply.status !== 201) throw new Error(`create ${path} failed`);
}

function body(reply: ApiReply): Record<string, unknown> {
  const parsed: unknown = JSON.parse(reply.body.toString());
  if (!isRecord(parsed)) throw new Error('not an object');
  return parsed;
}

const pod = (name: string, sampled: boolean) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name, ...(sampled ? { sampled: 'yes' } : {}) } },
  spec: {
    containers: [
      { name: 'main', image: 'app:1', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } } },
      { name: 'side', image: 'app:1', resources: { limits: { memory: '32Mi' } } },
    ],
  },
});

beforeEach(async () => {
  viewerMay = new Set();
  asked = [];
  store = SqliteStore.open(':memory:');
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  api = new ApiServer({ store, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: { major: '1', minor: '35' } });
  registerUsageApi(api, registry, { provider, authorizer });
  await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await create('/api/v1/namespaces/default/pods', pod('web', true));
  await create('/api/v1/namespaces/default/pods', pod('db', true));
  await create('/api/v1/namespaces/default/pods', pod('new', false));
  await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'kubedesk' }, status: { allocatable: { cpu: '2', memory: '4Gi' }, capacity: { cpu: '2', memory: '4Gi' } } });
});

afterEach(() => store.dispose());

describe('usage.kubedesk.dev pods', () => {
  it('serves a pod history with CPU in millicores, its containers, and requests and limits summed', async () => {
    const reply = await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web');
    expect(reply.status).toBe(200);
    const usage = body(reply);
    expect(usage).toMatchObject({
      apiVersion: 'usage.kubedesk.dev/v1',
      kind: 'PodUsage',
      metadata: { name: 'web', namespace: 'default' },
      // the steps before the first sample are left out
      window: { start: '2026-01-01T00:00:10Z', step: '10s', stepSeconds: 10 },
      usage: { cpu: [250, 300], memory: [1024, 1024], networkReceive: [1024, 1024] },
      // side has a memory limit only: it is its request too, and the pod has no CPU limit
      requests: { cpu: 100, memory: (64 + 32) * 1024 * 1024 },
      limits: { memory: (128 + 32) * 1024 * 1024 },
    });
    expect(Array.isArray(usage.containers) ? usage.containers.map((container) => (isRecord(container) ? container.name : '')) : []).toEqual(['main', 'side']);
    expect(asked[0].resolution).toBe('10s');
    expect(asked[0].to - asked[0].from).toBe(3600_000);
  });

  it('answers a pod that has not been sampled yet with empty series, and a missing pod with 404', async () => {
    expect(body(await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/new'))).toMatchObject({ usage: { cpu: [] }, window: { stepSeconds: 0 } });
    const missing = await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/nope');
    expect(missing.status).toBe(404);
    expect(body(missing)).toMatchObject({ reason: 'NotFound', message: 'pods.usage.kubedesk.dev "nope" not found' });
  });

  it('lets a requester read the usage of a pod it may get, and refuses others with 403', async () => {
    viewerMay.add('get pods default web');
    expect((await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web', { user: viewer })).status).toBe(200);
    const denied = await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/db', { user: viewer });
    expect(denied.status).toBe(403);
    expect(body(denied)).toMatchObject({ reason: 'Forbidden', message: expect.stringContaining('User "viewer" cannot get resource "pods" in API group "" in the namespace "default"') });
    const list = body(await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods', { user: viewer }));
    expect(Array.isArray(list.items) ? list.items.map((item) => (isRecord(item) && isRecord(item.metadata) ? item.metadata.name : '')) : []).toEqual(['web']);
  });

  it('lists sampled pods by names or label selector, without containers when asked', async () => {
    const names = (reply: ApiReply) => {
      const list = body(reply);
      return Array.isArray(list.items) ? list.items.map((item) => (isRecord(item) && isRecord(item.metadata) ? item.metadata.name : '')) : [];
    };
    expect(names(await request('/apis/usage.kubedesk.dev/v1/pods'))).toEqual(['db', 'web']);
    expect(names(await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods?names=web,new'))).toEqual(['web']);
    const selected = body(await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods?labelSelector=app%3Ddb&containers=false&window=1d'));
    expect(selected).toMatchObject({ kind: 'PodUsageList', items: [{ metadata: { name: 'db' }, containers: [] }] });
    expect(asked[asked.length - 1].resolution).toBe('1m');
  });

  it('prints the latest figures as a Table for kubectl', async () => {
    const reply = await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    const table = body(reply);
    expect(table.kind).toBe('Table');
    expect(Array.isArray(table.rows) ? table.rows.map((row) => (isRecord(row) ? row.cells : [])) : []).toEqual([
      ['db', '300m', '0Mi', 2, '10s'],
      ['web', '300m', '0Mi', 2, '10s'],
    ]);
  });

  it('refuses writes, watches and bad parameters with a Status naming the parameter', async () => {
    expect((await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web', { method: 'DELETE' })).status).toBe(405);
    expect((await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods?watch=true')).status).toBe(405);
    const bad = await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web?window=2d');
    expect(bad.status).toBe(400);
    expect(body(bad)).toMatchObject({ reason: 'BadRequest', details: { causes: [{ field: 'window' }] } });
    expect((await request('/apis/usage.kubedesk.dev/v1/namespaces/default/pods/web?resolution=5s')).status).toBe(400);
  });
});

describe('usage.kubedesk.dev nodes', () => {
  it('serves a node history with its allocatable resources, to requesters that may get the node', async () => {
    expect(body(await request('/apis/usage.kubedesk.dev/v1/nodes/kubedesk'))).toMatchObject({ kind: 'NodeUsage', usage: { cpu: [1000] }, allocatable: { cpu: 2000, memory: 4 * 1024 ** 3 } });
    expect((await request('/apis/usage.kubedesk.dev/v1/nodes/kubedesk', { user: viewer })).status).toBe(403);
    viewerMay.add('get nodes  kubedesk');
    expect((await request('/apis/usage.kubedesk.dev/v1/nodes', { user: viewer })).status).toBe(200);
  });
});

describe('usageQuery', () => {
  it('defaults to the last hour at 10 s and picks 1 min beyond an hour', () => {
    const query = (text: string) => usageQuery({ query: new URLSearchParams(text) }, 1_000_000_000);
    expect(query('')).toEqual({ resolution: '10s', from: 1_000_000_000 - 3600_000, to: 1_000_000_000 });
    expect(query('window=6h').resolution).toBe('1m');
    expect(query('window=15m&resolution=1m').resolution).toBe('1m');
  });
});

describe('trimLeadingGaps', () => {
  it('starts every series at the first step any of them sampled, keeping them aligned', () => {
    const [pod, container] = trimLeadingGaps([series([null, null, 5, 6]), series([null, 1, 2, 3])]);
    expect(pod.values.cpu).toEqual([null, 5, 6]);
    expect(container.values.cpu).toEqual([1, 2, 3]);
    expect(pod.start).toBe(Date.parse('2026-01-01T00:00:10Z'));
  });
});
