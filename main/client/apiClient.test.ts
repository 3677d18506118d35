import { describe, expect, it } from 'vitest';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { ApiClient } from './apiClient';
import { ClientApiError, isAlreadyExists, isConflict, isInvalid, isNotFound, isResourceExpired } from './errors';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { resourcePath, resources } from './resources';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from './transport';

/** Records requests and answers each with the next canned response. */
class RecordingTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  readonly watches: { path: string; query: Record<string, string> }[] = [];
  constructor(private readonly reply: (req: TransportRequest) => TransportResponse = () => ({ status: 200, body: { metadata: { name: 'x' }, items: [] } })) {}
  async request(req: TransportRequest): Promise<TransportResponse> {
    this.requests.push(req);
    return this.reply(req);
  }
  watch(path: string, query: Record<string, string>, _onEvent: (event: WatchEvent) => void, _onDone: (error?: Error) => void): WatchHandle {
    this.watches.push({ path, query });
    return { close: () => {} };
  }
}

const pod: KubeObject = { metadata: { name: 'web', namespace: 'team' }, spec: {} };
const node: KubeObject = { metadata: { name: 'node-1' } };
const deployment: KubeObject = { metadata: { name: 'api', namespace: 'default' }, spec: {} };

describe('resourcePath', () => {
  it.each([
    ['a core namespaced object', resourcePath(resources.pods, 'team', 'web'), '/api/v1/namespaces/team/pods/web'],
    ['a core collection across namespaces', resourcePath(resources.pods), '/api/v1/pods'],
    ['a subresource', resourcePath(resources.pods, 'team', 'web', 'status'), '/api/v1/namespaces/team/pods/web/status'],
    ['a cluster-scoped object, ignoring a namespace', resourcePath(resources.nodes, 'team', 'node-1'), '/api/v1/nodes/node-1'],
    ['a namespace', resourcePath(resources.namespaces, undefined, 'team'), '/api/v1/namespaces/team'],
    ['a group collection in a namespace', resourcePath(resources.deployments, 'default'), '/apis/apps/v1/namespaces/default/deployments'],
    ['a group object', resourcePath(resources.leases, 'kube-node-lease', 'node-1'), '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1'],
    ['an encoded name', resourcePath(resources.configmaps, 'a', 'b c'), '/api/v1/namespaces/a/configmaps/b%20c'],
  ])('builds the path of %s', (_what, actual, expected) => {
    expect(actual).toBe(expected);
  });
});

describe('ApiClient requests', () => {
  type Call = (client: ApiClient) => Promise<unknown>;
  const cases: [string, Call, Partial<TransportRequest>][] = [
    ['get of a pod', (c) => c.resource(resources.pods).get('team', 'web'), { method: 'GET', path: '/api/v1/namespaces/team/pods/web' }],
    ['get of a node', (c) => c.resource(resources.nodes).get(undefined, 'node-1'), { method: 'GET', path: '/api/v1/nodes/node-1' }],
    [
      'a list with selectors and paging',
      (c) => c.resource(resources.pods).list('team', { labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1', limit: 10, continue: 'abc' }),
      { method: 'GET', path: '/api/v1/namespaces/team/pods', query: { labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1', limit: '10', continue: 'abc' } },
    ],
    ['a list across namespaces', (c) => c.resource(resources.deployments).list(), { method: 'GET', path: '/apis/apps/v1/deployments', query: {} }],
    [
      'a create with dry run and field manager',
      (c) => c.resource(resources.pods).create(pod, { dryRun: true, fieldManager: 'kubedesk' }),
      { method: 'POST', path: '/api/v1/namespaces/team/pods', query: { dryRun: 'All', fieldManager: 'kubedesk' }, body: { ...pod, apiVersion: 'v1', kind: 'Pod' } },
    ],
    ['a create of a node', (c) => c.resource(resources.nodes).create(node), { method: 'POST', path: '/api/v1/nodes', body: { ...node, apiVersion: 'v1', kind: 'Node' } }],
    ['an update', (c) => c.resource(resources.deployments).update(deployment), { method: 'PUT', path: '/apis/apps/v1/namespaces/default/deployments/api' }],
    ['a status update', (c) => c.resource(resources.deployments).updateStatus(deployment), { method: 'PUT', path: '/apis/apps/v1/namespaces/default/deployments/api/status' }],
    [
      'a merge patch',
      (c) => c.resource(resources.pods).patch('team', 'web', { metadata: { labels: { a: 'b' } } }, 'merge'),
      { method: 'PATCH', path: '/api/v1/namespaces/team/pods/web', contentType: 'application/merge-patch+json', body: { metadata: { labels: { a: 'b' } } } },
    ],
    [
      'a server-side apply patch',
      (c) => c.resource(resources.configmaps).patch('a', 'b', { data: {} }, 'apply', { fieldManager: 'me', force: true }),
      { method: 'PATCH', path: '/api/v1/namespaces/a/configmaps/b', contentType: 'application/apply-patch+yaml', query: { fieldManager: 'me', force: 'true' } },
    ],
    [
      'a JSON patch of status',
      (c) => c.resource(resources.nodes).patchStatus(undefined, 'node-1', [{ op: 'add', path: '/status/phase', value: 'x' }], 'json'),
      { method: 'PATCH', path: '/api/v1/nodes/node-1/status', contentType: 'application/json-patch+json' },
    ],
    ['a strategic patch', (c) => c.resource(resources.pods).patch('team', 'web', {}, 'strategic'), { contentType: 'application/strategic-merge-patch+json' }],
    [
      'a delete with options',
      (c) => c.resource(resources.replicasets).delete('default', 'rs', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u1' } }),
      {
        method: 'DELETE',
        path: '/apis/apps/v1/namespaces/default/replicasets/rs',
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u1' } },
      },
    ],
    ['a binding', (c) => c.resource(resources.pods).createSubresource('team', 'web', 'binding', { target: { name: 'n1' } }), { method: 'POST', path: '/api/v1/namespaces/team/pods/web/binding' }],
  ];

  it.each(cases)('sends %s', async (_what, call, expected) => {
    const transport = new RecordingTransport();
    await call(new ApiClient(transport));
    expect(transport.requests).toHaveLength(1);
    expect(transport.requests[0]).toMatchObject(expected);
  });

  it('asks the transport for a watch with watch=true and the options as strings', () => {
    const transport = new RecordingTransport();
    new ApiClient(transport).resource(resources.events).watch('ns', { resourceVersion: '12', allowWatchBookmarks: true, timeoutSeconds: 300 }, () => {}, () => {});
    expect(transport.watches).toEqual([{ path: '/api/v1/namespaces/ns/events', query: { resourceVersion: '12', allowWatchBookmarks: 'true', timeoutSeconds: '300', watch: 'true' } }]);
  });

  it('refuses to address a namespaced object without a namespace', async () => {
    const client = new ApiClient(new RecordingTransport());
    await expect(client.resource(resources.pods).get(undefined, 'web')).rejects.toThrow(/namespace is required/);
    await expect(client.resource(resources.pods).create({ metadata: { name: 'x' } })).rejects.toThrow(/no metadata.namespace/);
  });

  it('follows continue tokens in listAll', async () => {
    const transport = new FakeTransport();
    for (const name of ['a', 'b', 'c', 'd', 'e']) transport.seed(resources.configmaps, { metadata: { name, namespace: 'x' } });
    const list = await new ApiClient(transport).resource(resources.configmaps).listAll('x', { limit: 2 });
    expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(transport.requests).toHaveLength(3);
    expect(list.metadata.continue).toBeUndefined();
  });
});

describe('ApiClient errors', () => {
  it('maps Status replies to ClientApiError with the predicates upstream offers', async () => {
    const transport = new FakeTransport();
    const pods = new ApiClient(transport).resource(resources.pods);
    const error = await pods.get('team', 'missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect(isNotFound(error)).toBe(true);
    expect(error).toMatchObject({ code: 404, reason: 'NotFound', message: 'pods "missing" not found' });

    const created = await pods.create(pod);
    expect(isAlreadyExists(await pods.create(pod).catch((e: unknown) => e))).toBe(true);
    const stale = { ...created, metadata: { ...created.metadata, resourceVersion: '0' } };
    const conflict = await pods.update(stale).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect(isAlreadyExists(conflict)).toBe(false);
    expect(isNotFound(conflict)).toBe(false);
  });

  it.each([
    [500, 'oops', 'InternalError', 'oops'],
    [422, null, 'Invalid', 'the server responded with status 422'],
    [410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' }, 'Expired', 'too old'],
  ])('synthesises a Status for a %i reply that lacks one', async (code, body, reason, message) => {
    const client = new ApiClient(new RecordingTransport(() => ({ status: code, body })));
    const error = await client.resource(resources.pods).get('a', 'b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientApiError);
    expect(error).toMatchObject({ code, reason, message });
    expect(isInvalid(error)).toBe(code === 422);
    expect(isResourceExpired(error)).toBe(code === 410);
  });

  it('returns undefined from delete when the object is gone and the object when finalizers hold it', async () => {
    const transport = new FakeTransport();
    const configmaps = new ApiClient(transport).resource(resources.configmaps);
    await configmaps.create({ metadata: { name: 'plain', namespace: 'a' } });
    await configmaps.create({ metadata: { name: 'held', namespace: 'a', finalizers: ['example.com/hold'] } });
    expect(await configmaps.delete('a', 'plain')).toBeUndefined();
    const held = await configmaps.delete('a', 'held');
    expect(held?.metadata.deletionTimestamp).toBeTruthy();
  });
});
