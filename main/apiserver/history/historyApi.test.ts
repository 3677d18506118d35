// Tests for the object history through the API server: each write (create, update, patch, apply,
// status, delete) becomes a revision with its operation, user and manager; dry runs leave none;
// the history API answers only requesters that may get the object; the change feed and the
// deleted-object list hide Secret values from those who may not get the Secret.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRecord } from '../../../shared/kubernetes/types';
import { builtinResources } from '../../registry/resources';
import { DEFAULT_HISTORY_RETENTION, type History } from '../../storage/history';
import { SqliteStore } from '../../storage/sqliteStore';
import { ApiServer, type ApiReply } from '../apiServer';
import type { Attributes, Authorizer } from '../auth/rbacAuthorizer';
import { OpenApiService } from '../openapi/openapiDocuments';
import { ResourceRegistry } from '../resourceRegistry';
import { REDACTED, registerHistoryApi } from './historyApi';

let store: SqliteStore;
let history: History;
let api: ApiServer;
/** what the fake authorizer lets the user "viewer" do: `verb resource namespace` */
let viewerMay: Set<string>;

const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
const viewer = { name: 'viewer', groups: ['system:authenticated'] };

const authorizer: Authorizer = {
  authorize(attributes: Attributes) {
    if (attributes.user.name === 'admin') return { allowed: true, reason: '' };
    return { allowed: viewerMay.has(`${attributes.verb} ${attributes.resource} ${attributes.namespace}`), reason: '' };
  },
  rulesFor() {
    throw new Error('not used by the history API');
  },
};

async function request(method: string, path: string, options: { body?: unknown; user?: typeof admin; contentType?: string; userAgent?: string } = {}): Promise<ApiReply> {
  const url = new URL(path, 'https://x');
  const reply = await api.handle({
    method,
    path: url.pathname,
    query: url.searchParams,
    headers: { 'content-type': options.contentType ?? 'application/json', 'user-agent': options.userAgent ?? 'kubectl/v1.35.0 (linux/amd64)' },
    body: options.body === undefined ? undefined : Buffer.from(typeof options.body === 'string' ? options.body : JSON.stringify(options.body)),
    user: options.user ?? admin,
  });
  if ('watch' in reply) throw new Error('unexpected watch reply');
  return reply;
}

function items(reply: ApiReply): Record<string, unknown>[] {
  expect(reply.status).toBe(200);
  const body: unknown = JSON.parse(reply.body.toString());
  if (!isRecord(body) || !Array.isArray(body.items)) throw new Error('not a list');
  return body.items.filter(isRecord);
}

const deployment = (replicas: number, image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } },
});

beforeEach(async () => {
  viewerMay = new Set();
  store = SqliteStore.open(':memory:');
  history = store.history(DEFAULT_HISTORY_RETENTION);
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  api = new ApiServer({ store, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: { major: '1', minor: '35' }, history });
  registerHistoryApi(api, registry, { history, authorizer });
  await request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
});

afterEach(() => store.dispose());

const webHistory = '/apis/history.kubedesk.dev/v1/namespaces/default/revisions?type=deploy&name=web';

describe('object history', () => {
  it('records create, patch, apply, status update and delete with operation, user and manager', async () => {
    expect((await request('POST', '/apis/apps/v1/namespaces/default/deployments?fieldManager=kubectl-client-side-apply', { body: deployment(1, 'nginx:1') })).status).toBe(201);
    await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
    await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web?fieldManager=helm&force=true', { body: deployment(3, 'nginx:2'), contentType: 'application/apply-patch+yaml' });
    await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/status', { body: { status: { observedGeneration: 3 } }, contentType: 'application/merge-patch+json', user: { name: 'system:serviceaccount:kube-system:deployment-controller', groups: [] } });
    await request('POST', '/apis/apps/v1/namespaces/default/deployments?dryRun=All', { body: { ...deployment(1, 'x'), metadata: { name: 'dry' } } });
    await request('DELETE', '/apis/apps/v1/namespaces/default/deployments/web');
    const revisions = items(await request('GET', webHistory));
    expect(revisions.map((revision) => [revision.revision, revision.operation, revision.user, revision.fieldManager, revision.subresource, revision.removed])).toEqual([
      [1, 'CREATE', 'admin', 'kubectl-client-side-apply', undefined, false],
      [2, 'PATCH', 'admin', 'kubectl', undefined, false],
      [3, 'APPLY', 'admin', 'helm', undefined, false],
      [4, 'PATCH', 'system:serviceaccount:kube-system:deployment-controller', 'kubectl', 'status', false],
      [5, 'DELETE', 'admin', 'kubectl', undefined, true],
    ]);
    const objects = revisions.map((revision) => revision.object);
    expect(objects.map((object) => (isRecord(object) && isRecord(object.spec) ? object.spec.replicas : undefined))).toEqual([1, 3, 3, 3, 3]);
    expect(items(await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions?type=deploy&name=dry'))).toEqual([]);
    const deleted = items(await request('GET', '/apis/history.kubedesk.dev/v1/deletedobjects'));
    expect(deleted.map((entry) => entry.metadata)).toEqual([expect.objectContaining({ name: 'web.5', namespace: 'default' })]);
  });

  it('answers the history of an object only to requesters that may get it', async () => {
    await request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment(1, 'nginx:1') });
    const refused = await request('GET', webHistory, { user: viewer });
    expect(refused.status).toBe(403);
    expect(refused.body.toString()).toContain('cannot get resource \\"deployments\\" in API group \\"apps\\"');
    viewerMay.add('get deployments default');
    expect(items(await request('GET', webHistory, { user: viewer }))).toHaveLength(1);
  });

  it('shows which Secret keys changed, not their values, to feed readers that may not get the Secret', async () => {
    const secret = (token: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, data: { token, user: 'YWRtaW4=' } });
    await request('POST', '/api/v1/namespaces/default/secrets', { body: secret('c2VjcmV0MQ==') });
    await request('PUT', '/api/v1/namespaces/default/secrets/creds', { body: secret('c2VjcmV0Mg==') });
    await request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } } });
    // without any read access in the namespace: nothing
    expect(items(await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions', { user: viewer }))).toEqual([]);
    viewerMay.add('get configmaps default');
    viewerMay.add('list configmaps default');
    const feed = items(await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions', { user: viewer }));
    expect(feed.map((entry) => entry.metadata)).toEqual([expect.objectContaining({ name: 'settings.1' }), expect.objectContaining({ name: 'creds.2' }), expect.objectContaining({ name: 'creds.1' })]);
    const update = feed[1];
    expect(update.redacted).toBe(true);
    expect(update.changedKeys).toEqual(['token']);
    expect(isRecord(update.object) && update.object.data).toEqual({ token: REDACTED, user: REDACTED });
    expect(JSON.stringify(feed)).not.toContain('c2VjcmV0');
    // an admin sees values
    const full = items(await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions?type=secrets'));
    expect(full.map((entry) => isRecord(entry.object) && isRecord(entry.object.data) && entry.object.data.token)).toEqual(['c2VjcmV0Mg==', 'c2VjcmV0MQ==']);
  });

  it('answers bad input with a 400 Status', async () => {
    const unknownType = await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions?type=widgets&name=x');
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.toString()).toContain('the server doesn\'t have a resource type \\"widgets\\"');
    expect((await request('GET', '/apis/history.kubedesk.dev/v1/revisions?since=yesterday')).status).toBe(400);
    expect((await request('GET', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions?name=x')).status).toBe(400);
    expect((await request('POST', '/apis/history.kubedesk.dev/v1/namespaces/default/revisions', { body: {} })).status).toBe(405);
  });
});

describe('objects as of a past time', () => {
  const pastList = (query: string, options: { user?: typeof admin; accept?: string } = {}) => requestWith('GET', `/apis/history.kubedesk.dev/v1/namespaces/default/pastobjects?${query}`, options);

  async function requestWith(method: string, path: string, options: { user?: typeof admin; accept?: string }): Promise<ApiReply> {
    const url = new URL(path, 'https://x');
    const reply = await api.handle({ method, path: url.pathname, query: url.searchParams, headers: { accept: options.accept ?? 'application/json' }, user: options.user ?? admin });
    if ('watch' in reply) throw new Error('unexpected watch reply');
    return reply;
  }

  it('lists a kind as it was: objects deleted since are back, objects created since are absent, changed ones as they were', async () => {
    await request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment(1, 'nginx:1') });
    await request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' }, data: { a: '1' } } });
    const before = new Date(Date.now() + 1).toISOString();
    // the history stamps writes with the clock: wait until it has moved past `before`
    const deadline = Date.now() + 1_000;
    while (Date.now() <= Date.parse(before) + 1 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    await request('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { body: { spec: { replicas: 4 } }, contentType: 'application/merge-patch+json' });
    await request('DELETE', '/api/v1/namespaces/default/configmaps/gone');
    await request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } } });
    const deployments = items(await pastList(`type=deploy&time=${encodeURIComponent(before)}`));
    expect(deployments.map((object) => isRecord(object.spec) && object.spec.replicas)).toEqual([1]);
    expect(deployments[0]).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    const configMaps = items(await pastList(`type=cm&time=${encodeURIComponent(before)}`));
    expect(configMaps.map((object) => isRecord(object.metadata) && object.metadata.name)).toContain('gone');
    expect(configMaps.map((object) => isRecord(object.metadata) && object.metadata.name)).not.toContain('new');
    const table = await pastList(`type=deployments&time=${encodeURIComponent(before)}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    const body: unknown = JSON.parse(table.body.toString());
    if (!isRecord(body) || !Array.isArray(body.columnDefinitions) || !Array.isArray(body.rows)) throw new Error('not a Table');
    expect(body.columnDefinitions.map((column) => isRecord(column) && column.name)).toEqual(expect.arrayContaining(['Name', 'Ready', 'Up-to-date', 'Available', 'Age']));
    expect(body.rows).toHaveLength(1);
  });

  it('refuses a time before the history starts, a requester that may not list the kind, and bad input', async () => {
    const early = await pastList('type=cm&time=2001-01-01T00:00:00Z');
    expect(early.status).toBe(410);
    expect(early.body.toString()).toContain('cannot be reconstructed: the history starts at');
    const status: unknown = JSON.parse(early.body.toString());
    expect(isRecord(status) && isRecord(status.details) && status.details.causes).toEqual([{ reason: 'HistoryStart', field: 'time', message: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/) }]);
    const refused = await pastList('type=cm&time=1s', { user: viewer });
    expect(refused.status).toBe(403);
    viewerMay.add('list configmaps default');
    expect((await pastList('type=cm&time=0s', { user: viewer })).status).toBe(200);
    expect((await pastList('time=1m')).status).toBe(400);
    expect((await pastList('type=cm')).status).toBe(400);
    expect((await pastList('type=cm&time=soon')).status).toBe(400);
    expect((await pastList(`type=cm&time=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).status).toBe(400);
  });

  it('shows an object whose state then is pruned as its oldest kept revision, annotated and named in a Warning', async () => {
    const start = Date.now() - 600_000;
    let now = start;
    const prunedStore = SqliteStore.open(':memory:');
    try {
      const prunedHistory = prunedStore.history({ ...DEFAULT_HISTORY_RETENTION, maxRevisions: 2 }, () => now);
      const registry = new ResourceRegistry(builtinResources());
      const openapi = new OpenApiService();
      openapi.setResources(registry.all());
      const server = new ApiServer({ store: prunedStore, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: { major: '1', minor: '35' }, history: prunedHistory });
      registerHistoryApi(server, registry, { history: prunedHistory, authorizer });
      const send = async (method: string, path: string, body?: unknown) => {
        const url = new URL(path, 'https://x');
        const reply = await server.handle({ method, path: url.pathname, query: url.searchParams, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)), user: admin });
        if ('watch' in reply) throw new Error('unexpected watch reply');
        return reply;
      };
      const configMap = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } });
      await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      await send('POST', '/api/v1/namespaces/default/configmaps', configMap('busy', 'a'));
      for (const [offset, value] of [[10_000, 'b'], [20_000, 'c'], [30_000, 'd']] as const) {
        now = start + offset;
        await send('PUT', '/api/v1/namespaces/default/configmaps/busy', configMap('busy', value));
      }
      await send('POST', '/api/v1/namespaces/default/configmaps', configMap('fresh', 'x'));
      await prunedHistory.prune();
      // revisions 1 (a) and 2 (b) of busy are pruned: its state 15s in is not kept
      const time = new Date(start + 15_000).toISOString();
      const reply = await send('GET', `/apis/history.kubedesk.dev/v1/namespaces/default/pastobjects?type=configmaps&time=${encodeURIComponent(time)}`);
      const past = items(reply);
      expect(past.map((object) => [isRecord(object.metadata) && object.metadata.name, isRecord(object.data) && object.data.value])).toEqual([['busy', 'c']]);
      expect(isRecord(past[0].metadata) && past[0].metadata.annotations).toEqual({ 'history.kubedesk.dev/oldest-retained-revision': '3' });
      expect(reply.headers['Warning']).toBe(`299 - "the state as of ${time.replace(/\.\d{3}Z$/, 'Z')} is pruned for default/busy: shown as of the oldest retained revision"`);
    } finally {
      prunedStore.dispose();
    }
  });
});
