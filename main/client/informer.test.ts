import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from './apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { Informer, SharedInformerFactory, objectKey, splitKey, type InformerOptions } from './informer';
import { resources } from './resources';

async function eventually(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets pending promises and microtasks run (the fake transport answers asynchronously). */
async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

function pod(name: string, namespace = 'default', extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: {}, ...extra };
}

function setup(options: InformerOptions = {}) {
  const transport = new FakeTransport();
  const client = new ApiClient(transport);
  const pods = client.resource(resources.pods);
  const clock = new FakeClock();
  const errors: unknown[] = [];
  const informer = new Informer(pods, { clock, random: () => 0, freeze: true, watchTimeoutSeconds: 300, onError: (error) => errors.push(error), ...options });
  const events: string[] = [];
  informer.addEventHandler({
    onAdd: (object, initial) => events.push(`add ${objectKey(object)}${initial ? ' initial' : ''}`),
    onUpdate: (_old, object) => events.push(`update ${objectKey(object)}`),
    onDelete: (object) => events.push(`delete ${objectKey(object)}`),
  });
  const openWatch = async (): Promise<void> => eventually(() => transport.openWatchCount() === 1);
  return { transport, client, pods, clock, informer, events, errors, openWatch };
}

describe('Informer', () => {
  it('lists in pages, fills the cache, reports initial adds and watches from the list resourceVersion', async () => {
    const { transport, informer, events, openWatch } = setup({ pageSize: 2 });
    for (const name of ['a', 'b', 'c']) transport.seed(resources.pods, pod(name));
    const listVersion = transport.currentResourceVersion();
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    expect(await informer.waitForSync()).toBe(true);
    expect(informer.hasSynced()).toBe(true);
    expect(informer.listKeys().sort()).toEqual(['default/a', 'default/b', 'default/c']);
    expect(events).toEqual(['add default/a initial', 'add default/b initial', 'add default/c initial']);
    expect(transport.requests.map((r) => r.query)).toEqual([{ limit: '2' }, { limit: '2', continue: expect.any(String) }]);
    await openWatch();
    expect(transport.watchRequests[0].query).toMatchObject({ watch: 'true', resourceVersion: listVersion, allowWatchBookmarks: 'true', timeoutSeconds: '300' });
    informer.dispose();
  });

  it('reports adds, updates and deletes seen on the watch', async () => {
    const { pods, informer, events, openWatch } = setup();
    informer.start();
    await informer.waitForSync();
    await openWatch();
    const created = await pods.create(pod('web'));
    await eventually(() => events.length === 1);
    await pods.update({ ...created, metadata: { ...created.metadata, labels: { a: 'b' } } });
    await eventually(() => events.length === 2);
    expect(informer.get('default', 'web')?.metadata.labels).toEqual({ a: 'b' });
    await pods.delete('default', 'web');
    await eventually(() => events.length === 3);
    expect(events).toEqual(['add default/web', 'update default/web', 'delete default/web']);
    expect(informer.list()).toEqual([]);
    informer.dispose();
  });

  it('hands handlers frozen objects so they cannot change the cache', async () => {
    const { transport, informer } = setup();
    transport.seed(resources.pods, pod('a'));
    informer.start();
    await informer.waitForSync();
    const cached = informer.get('default', 'a');
    expect(() => {
      if (cached) cached.metadata.name = 'b';
    }).toThrow(TypeError);
    informer.dispose();
  });

  it('advances its resourceVersion on bookmarks and resumes from it after the stream ends, without duplicate adds', async () => {
    const { transport, client, pods, informer, events, openWatch } = setup();
    transport.seed(resources.pods, pod('a'));
    informer.start();
    await informer.waitForSync();
    await openWatch();
    await pods.create(pod('b'));
    await eventually(() => events.length === 2);
    // Changes elsewhere move the global resourceVersion; a bookmark tells the informer.
    await client.resource(resources.configmaps).create({ metadata: { name: 'x', namespace: 'default' } });
    transport.sendBookmarks();
    await eventually(() => informer.lastSyncResourceVersion() === transport.currentResourceVersion());

    transport.endWatches();
    await eventually(() => transport.watchRequests.length === 2 && transport.openWatchCount() === 1);
    expect(transport.watchRequests[1].query.resourceVersion).toBe(transport.currentResourceVersion());
    await pods.create(pod('c'));
    await eventually(() => events.length === 3);
    await flush();
    expect(events).toEqual(['add default/a initial', 'add default/b', 'add default/c']);
    expect(transport.requests.filter((r) => r.method === 'GET')).toHaveLength(1);
    informer.dispose();
  });

  it('backs off before reopening a watch the server closed at once with nothing in it', async () => {
    const { transport, clock, informer, openWatch } = setup();
    informer.start();
    await informer.waitForSync();
    await openWatch();
    transport.endWatches();
    await flush();
    expect(transport.watchRequests).toHaveLength(1);
    clock.advance(799);
    await flush();
    expect(transport.watchRequests).toHaveLength(1);
    clock.advance(1);
    await eventually(() => transport.watchRequests.length === 2);
    informer.dispose();
  });

  it.each(['event', 'http'] as const)('relists after 410 Expired (as an %s) and reports objects that vanished meanwhile as deleted', async (mode) => {
    const { transport, clock, pods, informer, events, openWatch } = setup();
    transport.expiredWatchMode = mode;
    for (const name of ['a', 'b']) transport.seed(resources.pods, pod(name));
    informer.start();
    await informer.waitForSync();
    await openWatch();
    await pods.create(pod('c'));
    await eventually(() => events.length === 3);

    transport.deleteSilently(resources.pods, 'default', 'b');
    if (mode === 'event') {
      transport.expireWatches();
    } else {
      // The watch ends; reopening it from a compacted resourceVersion gets an HTTP 410.
      transport.compact();
      transport.endWatches();
      clock.advance(10_000);
    }
    await eventually(() => events.length === 4);
    expect(events[3]).toBe('delete default/b');
    expect(informer.listKeys().sort()).toEqual(['default/a', 'default/c']);
    await eventually(() => transport.openWatchCount() === 1);
    expect(transport.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
    await pods.create(pod('d'));
    await eventually(() => events.length === 5);
    expect(events[4]).toBe('add default/d');
    informer.dispose();
  });

  it('backs off exponentially while listing fails', async () => {
    const { transport, clock, informer, errors } = setup();
    transport.failNext('GET', '/api/v1/pods', 500, 'InternalError');
    transport.failNext('GET', '/api/v1/pods', 500, 'InternalError');
    informer.start();
    await eventually(() => errors.length === 1);
    clock.advance(799);
    await flush();
    expect(errors).toHaveLength(1);
    clock.advance(1);
    await eventually(() => errors.length === 2);
    clock.advance(1599);
    await flush();
    expect(informer.hasSynced()).toBe(false);
    clock.advance(1);
    expect(await informer.waitForSync()).toBe(true);
    informer.dispose();
  });

  it('keeps indexes up to date and lists by namespace', async () => {
    const { transport, pods, informer, openWatch, events } = setup();
    informer.addIndexer('node', (object) => {
      const spec = object.spec;
      return typeof spec === 'object' && spec !== null && 'nodeName' in spec ? [String(spec.nodeName)] : [];
    });
    transport.seed(resources.pods, pod('a', 'one', { spec: { nodeName: 'n1' } }));
    transport.seed(resources.pods, pod('b', 'two', { spec: { nodeName: 'n1' } }));
    transport.seed(resources.pods, pod('c', 'two'));
    informer.start();
    await informer.waitForSync();
    await openWatch();
    expect(informer.byIndex('node', 'n1').map(objectKey).sort()).toEqual(['one/a', 'two/b']);
    expect(informer.listByNamespace('two').map(objectKey).sort()).toEqual(['two/b', 'two/c']);
    await pods.createSubresource('two', 'c', 'binding', { target: { name: 'n2' } });
    await pods.delete('one', 'a');
    await eventually(() => events.length === 5);
    expect(informer.byIndex('node', 'n1').map(objectKey)).toEqual(['two/b']);
    expect(informer.byIndex('node', 'n2').map(objectKey)).toEqual(['two/c']);
    expect(() => informer.byIndex('missing', 'x')).toThrow(/no indexer/);
    informer.dispose();
  });

  it('replays cached objects to a handler added after sync', async () => {
    const { transport, informer } = setup();
    transport.seed(resources.pods, pod('a'));
    informer.start();
    await informer.waitForSync();
    const seen: string[] = [];
    informer.onAdd((object, initial) => seen.push(`${objectKey(object)} ${initial}`));
    expect(seen).toEqual(['default/a true']);
    informer.dispose();
  });

  it('keeps running when a handler throws', async () => {
    const { pods, informer, events, errors, openWatch } = setup();
    informer.onAdd(() => {
      throw new Error('handler bug');
    });
    informer.start();
    await informer.waitForSync();
    await openWatch();
    await pods.create(pod('a'));
    await pods.create(pod('b'));
    await eventually(() => events.length === 2);
    expect(errors.filter((e) => e instanceof Error && e.message === 'handler bug')).toHaveLength(2);
    informer.dispose();
  });

  it('watches only its namespace and selector', async () => {
    const { transport, pods, informer, events, openWatch } = setup({ namespace: 'one', labelSelector: 'app=web' });
    informer.start();
    await informer.waitForSync();
    await openWatch();
    await pods.create(pod('a', 'one', { metadata: { name: 'a', namespace: 'one', labels: { app: 'web' } } }));
    await pods.create(pod('b', 'one'));
    await pods.create(pod('c', 'two', { metadata: { name: 'c', namespace: 'two', labels: { app: 'web' } } }));
    // Leaving the selector is seen as a delete.
    await pods.patch('one', 'a', { metadata: { labels: { app: 'db' } } }, 'merge');
    await eventually(() => events.length === 2);
    await flush();
    expect(events).toEqual(['add one/a', 'delete one/a']);
    expect(transport.requests[0]).toMatchObject({ path: '/api/v1/namespaces/one/pods', query: { labelSelector: 'app=web' } });
    informer.dispose();
  });

  it('stops watching on dispose and tells waiters it never synced', async () => {
    const { transport, informer } = setup();
    transport.failNext('GET', '/api/v1/pods', 500, 'InternalError');
    informer.start();
    const waiting = informer.waitForSync();
    informer.dispose();
    expect(await waiting).toBe(false);

    const second = setup();
    second.informer.start();
    await second.informer.waitForSync();
    await second.openWatch();
    second.informer.dispose();
    expect(second.transport.openWatchCount()).toBe(0);
  });
});

describe('SharedInformerFactory', () => {
  it('shares one informer per resource, namespace and selectors, and starts late ones', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.pods, pod('a'));
    transport.seed(resources.nodes, { metadata: { name: 'n1' } });
    const factory = new SharedInformerFactory(new ApiClient(transport), { clock: new FakeClock(), random: () => 0 });
    const podsInformer = factory.informerFor(resources.pods);
    expect(factory.informerFor(resources.pods)).toBe(podsInformer);
    expect(factory.informerFor(resources.pods, { namespace: 'x' })).not.toBe(podsInformer);
    factory.start();
    expect(await factory.waitForCacheSync()).toBe(true);
    const nodes = factory.informerFor(resources.nodes);
    expect(await nodes.waitForSync()).toBe(true);
    expect(nodes.list().map(objectKey)).toEqual(['n1']);
    expect(podsInformer.list().map(objectKey)).toEqual(['default/a']);
    factory.dispose();
    await flush();
    expect(transport.openWatchCount()).toBe(0);
  });
});

describe('keys', () => {
  it.each([
    [{ metadata: { name: 'a', namespace: 'ns' } }, 'ns/a', { namespace: 'ns', name: 'a' }],
    [{ metadata: { name: 'node-1' } }, 'node-1', { name: 'node-1' }],
  ])('builds and splits the key of %j', (object, key, parts) => {
    expect(objectKey(object)).toBe(key);
    expect(splitKey(key)).toEqual(parts);
  });
});
