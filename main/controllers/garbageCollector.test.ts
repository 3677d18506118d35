import { describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources, type GroupVersionResource } from '../client/resources';
import type { TransportRequest, TransportResponse } from '../client/transport';
import { GarbageCollector } from './garbageCollector';
import { until } from '../../test/fixtures/until';

/**
 * The fake API plus what the real server does on DELETE with a propagation policy (upstream
 * deletionFinalizersForGarbageCollection): Orphan and Foreground become finalizers that hold the object.
 */
class PropagatingTransport extends FakeTransport {
  override async request(req: TransportRequest): Promise<TransportResponse> {
    const policy = req.method === 'DELETE' && isRecord(req.body) ? req.body.propagationPolicy : undefined;
    if (policy === 'Orphan' || policy === 'Foreground') {
      const current = await super.request({ method: 'GET', path: req.path });
      if (current.status === 200 && isRecord(current.body) && isRecord(current.body.metadata)) {
        const finalizers = Array.isArray(current.body.metadata.finalizers) ? current.body.metadata.finalizers.map(String) : [];
        const wanted = policy === 'Orphan' ? 'orphan' : 'foregroundDeletion';
        const kept = finalizers.filter((entry) => entry !== 'orphan' && entry !== 'foregroundDeletion');
        if (!current.body.metadata.deletionTimestamp) await super.request({ method: 'PATCH', path: req.path, body: { metadata: { finalizers: [...kept, wanted] } }, contentType: 'application/merge-patch+json' });
      }
    }
    return super.request(req);
  }
}

const watched: GroupVersionResource[] = [resources.configmaps, resources.pods, resources.secrets, resources.namespaces, resources.nodes];

function reference(owner: KubeObject, blockOwnerDeletion = false): OwnerReference {
  return { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}) };
}

function configMap(name: string, options: { namespace?: string; owners?: OwnerReference[]; finalizers?: string[] } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: options.namespace ?? 'default' };
  if (options.owners) metadata.ownerReferences = options.owners;
  if (options.finalizers) metadata.finalizers = options.finalizers;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: {} };
}

async function setUp() {
  const transport = new PropagatingTransport();
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const errors: unknown[] = [];
  const collector = new GarbageCollector(client, factory, { resources: watched, onError: (error) => errors.push(error) });
  const names = (gvr: GroupVersionResource = resources.configmaps) => transport.objectsOf(gvr).map((object) => object.metadata.name ?? '').sort();
  const find = (name: string, gvr: GroupVersionResource = resources.configmaps) => transport.objectsOf(gvr).find((object) => object.metadata.name === name);
  const run = async () => {
    factory.start();
    collector.start();
    await factory.waitForCacheSync();
  };
  const stop = async () => {
    await collector.dispose();
    factory.dispose();
  };
  return { transport, client, factory, collector, errors, names, find, run, stop };
}

describe('GarbageCollector', () => {
  it.each([
    { policy: undefined, survivors: ['keep'] },
    { policy: 'Background' as const, survivors: ['keep'] },
  ])('deletes the dependents of an owner deleted with policy $policy', async ({ policy, survivors }) => {
    const { transport, client, names, run, stop } = await setUp();
    const owner = transport.seed(resources.configmaps, configMap('owner'));
    transport.seed(resources.configmaps, configMap('child', { owners: [reference(owner)] }));
    transport.seed(resources.configmaps, configMap('keep'));
    transport.seed(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pod', namespace: 'default', ownerReferences: [reference(owner)] }, spec: {} });
    await run();
    await client.resource(resources.configmaps).delete('default', 'owner', policy ? { propagationPolicy: policy } : undefined);
    await until(() => names().join() === survivors.join() && names(resources.pods).length === 0, 'the dependents are gone');
    await stop();
  });

  it('orphans the dependents of an owner deleted with Orphan, then lets the owner go', async () => {
    const { transport, client, names, find, run, stop } = await setUp();
    const owner = transport.seed(resources.configmaps, configMap('owner'));
    const other = transport.seed(resources.configmaps, configMap('other'));
    transport.seed(resources.configmaps, configMap('child', { owners: [reference(owner, true), reference(other)] }));
    await run();
    const pending = await client.resource(resources.configmaps).delete('default', 'owner', { propagationPolicy: 'Orphan' });
    expect(pending?.metadata.finalizers).toEqual(['orphan']);
    await until(() => !names().includes('owner'), 'the owner is gone');
    expect(find('child')?.metadata.ownerReferences).toEqual([reference(other)]);
    await stop();
  });

  it('holds an owner deleted in the foreground until its blocking dependents are gone', async () => {
    const { transport, client, names, find, run, stop } = await setUp();
    const owner = transport.seed(resources.configmaps, configMap('owner'));
    transport.seed(resources.configmaps, configMap('held', { owners: [reference(owner, true)], finalizers: ['test/hold'] }));
    transport.seed(resources.configmaps, configMap('free', { owners: [reference(owner)] }));
    await run();
    await client.resource(resources.configmaps).delete('default', 'owner', { propagationPolicy: 'Foreground' });
    await until(() => Boolean(find('held')?.metadata.deletionTimestamp) && !names().includes('free'), 'the dependents are being deleted');
    expect(find('owner')?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(find('owner')?.metadata.deletionTimestamp).toBeTruthy();
    await client.resource(resources.configmaps).patch('default', 'held', { metadata: { finalizers: null } }, 'merge');
    await until(() => names().length === 0, 'the owner is gone');
    await stop();
  });

  it('deletes in the foreground down a chain, the middle object waiting for its own dependent', async () => {
    const { transport, client, names, find, run, stop } = await setUp();
    const top = transport.seed(resources.configmaps, configMap('top'));
    const middle = transport.seed(resources.configmaps, configMap('middle', { owners: [reference(top, true)] }));
    transport.seed(resources.configmaps, configMap('leaf', { owners: [reference(middle, true)], finalizers: ['test/hold'] }));
    await run();
    await client.resource(resources.configmaps).delete('default', 'top', { propagationPolicy: 'Foreground' });
    await until(() => Boolean(find('leaf')?.metadata.deletionTimestamp), 'the leaf is being deleted');
    expect(find('middle')?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(names()).toEqual(['leaf', 'middle', 'top']);
    await client.resource(resources.configmaps).patch('default', 'leaf', { metadata: { finalizers: null } }, 'merge');
    await until(() => names().length === 0, 'the chain is gone');
    await stop();
  });

  it.each([
    { name: 'a dependent of an owner uid that never existed', owners: () => [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'no-such-uid' }], collected: true },
    { name: 'a dependent whose owner name exists with another uid', owners: (live: KubeObject) => [{ ...reference(live), uid: 'stale-uid' }], collected: true },
    { name: 'a dependent of an owner of another kind with the same name', owners: (live: KubeObject) => [{ ...reference(live), kind: 'Secret' }], collected: true },
    { name: 'a dependent with a live owner', owners: (live: KubeObject) => [reference(live)], collected: false },
  ])('at start-up, collects $name: $collected', async ({ owners, collected }) => {
    const { transport, names, run, stop, collector } = await setUp();
    const live = transport.seed(resources.configmaps, configMap('live'));
    const dependent = transport.seed(resources.configmaps, configMap('dependent', { owners: owners(live) }));
    await run();
    if (collected) await until(() => !names().includes('dependent'), 'the dependent is collected');
    else {
      await until(() => collector.graphSnapshot().nodes.includes(dependent.metadata.uid ?? ''), 'the graph has the dependent');
      // A live GET of the owner has nothing to find wrong: nothing is deleted.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(names()).toEqual(['dependent', 'live']);
    }
    await stop();
  });

  it('drops only the absent owner from a dependent that still has a live one', async () => {
    const { transport, find, run, stop } = await setUp();
    const live = transport.seed(resources.configmaps, configMap('live'));
    transport.seed(resources.configmaps, configMap('dependent', { owners: [reference(live), { apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'gone' }] }));
    await run();
    await until(() => find('dependent')?.metadata.ownerReferences?.length === 1, 'the absent owner is dropped');
    expect(find('dependent')?.metadata.ownerReferences).toEqual([reference(live)]);
    await stop();
  });

  it('treats an owner in another namespace as absent and reports it', async () => {
    const { transport, names, run, stop } = await setUp();
    transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const owner = transport.seed(resources.configmaps, configMap('owner', { namespace: 'other' }));
    transport.seed(resources.configmaps, configMap('dependent', { owners: [reference(owner)] }));
    await run();
    await until(() => !names().includes('dependent'), 'the dependent is collected');
    await until(() => transport.objectsOf(resources.events).some((event) => event.reason === 'OwnerRefInvalidNamespace'), 'the event is written');
    const event = transport.objectsOf(resources.events).find((entry) => entry.reason === 'OwnerRefInvalidNamespace');
    expect(event?.message).toBe(`ownerRef [v1/ConfigMap, namespace: default, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "default"`);
    expect(names()).toEqual(['owner']);
    await stop();
  });

  it('keeps the dependents of a live cluster-scoped owner and collects them once it is gone', async () => {
    const { transport, client, names, run, stop, collector } = await setUp();
    const namespace: KubeObject = transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'owner-ns' } });
    const dependent = transport.seed(resources.configmaps, configMap('dependent', { owners: [reference(namespace)] }));
    await run();
    await until(() => collector.graphSnapshot().dependents[namespace.metadata.uid ?? '']?.includes(dependent.metadata.uid ?? ''), 'the graph links them');
    expect(names()).toEqual(['dependent']);
    await client.resource(resources.namespaces).delete(undefined, 'owner-ns');
    await until(() => names().length === 0, 'the dependent is collected');
    await stop();
  });

  it('collects a dependent created after start-up that names a missing owner', async () => {
    const { transport, client, names, run, stop } = await setUp();
    await run();
    await client.resource(resources.configmaps).create(configMap('late', { owners: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'nope' }] }));
    await until(() => names().length === 0 && transport.objectsOf(resources.configmaps).length === 0, 'the dependent is collected');
    await stop();
  });

  it('leaves a cluster-scoped dependent that names a namespaced owner alone', async () => {
    const { transport, names, run, stop, collector } = await setUp();
    const dependent: KubeObject = transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'odd', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x-uid' }] } });
    await run();
    await until(() => collector.graphSnapshot().nodes.includes(dependent.metadata.uid ?? ''), 'the graph has it');
    await until(() => transport.objectsOf(resources.events).some((event) => event.reason === 'OwnerRefInvalidNamespace'), 'the event is written');
    expect(names(resources.namespaces)).toEqual(['odd']);
    await stop();
  });
});

/** The fake API with discovery documents, whose custom group can come and go. */
class DiscoveringTransport extends PropagatingTransport {
  customGroup = false;

  override async request(req: TransportRequest): Promise<TransportResponse> {
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    if (req.method === 'GET' && req.path === '/api/v1') {
      return {
        status: 200,
        body: {
          kind: 'APIResourceList',
          groupVersion: 'v1',
          resources: [
            { name: 'configmaps', namespaced: true, kind: 'ConfigMap', verbs },
            { name: 'events', namespaced: true, kind: 'Event', verbs },
            { name: 'componentstatuses', namespaced: false, kind: 'ComponentStatus', verbs: ['get', 'list'] },
            { name: 'pods/status', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'] },
          ],
        },
      };
    }
    if (req.method === 'GET' && req.path === '/apis') {
      const groups = this.customGroup ? [{ name: 'example.com', versions: [{ groupVersion: 'example.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' } }] : [];
      return { status: 200, body: { kind: 'APIGroupList', apiVersion: 'v1', groups } };
    }
    if (req.method === 'GET' && req.path === '/apis/example.com/v1') {
      if (!this.customGroup) return { status: 404, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' } };
      return { status: 200, body: { kind: 'APIResourceList', groupVersion: 'example.com/v1', resources: [{ name: 'widgets', namespaced: true, kind: 'Widget', verbs }] } };
    }
    return super.request(req);
  }
}

describe('GarbageCollector discovery', () => {
  it('watches what discovery offers with list, watch and delete, except events, and follows a custom resource as it comes and goes', async () => {
    const transport = new DiscoveringTransport();
    const client = new ApiClient(transport);
    const factory = new SharedInformerFactory(client);
    const clock = new FakeClock(1_000_000);
    const collector = new GarbageCollector(client, factory, { clock, discoveryPeriodMs: 30_000, onError: () => undefined });
    transport.seed(resources.configmaps, configMap('dangling', { owners: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: 'nope' }] }));
    factory.start();
    collector.start();
    const watchedPaths = () => transport.watchRequests.map((request) => request.path);
    await until(() => transport.objectsOf(resources.configmaps).length === 0, 'the dangling config map is collected');
    expect(watchedPaths()).toEqual(['/api/v1/configmaps']);

    transport.customGroup = true;
    const widgets: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets', namespaced: true, kind: 'Widget' };
    const owner = transport.seed(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } });
    transport.seed(resources.configmaps, configMap('part', { owners: [reference(owner)] }));
    clock.advance(30_000);
    await until(() => watchedPaths().includes('/apis/example.com/v1/widgets'), 'the custom resource is watched');
    await client.resource(widgets).delete('default', 'w');
    await until(() => transport.objectsOf(resources.configmaps).length === 0, 'the dependent of the custom resource is collected');

    transport.customGroup = false;
    clock.advance(30_000);
    await until(() => transport.openWatchCount() === 1, 'the custom resource is no longer watched');
    await collector.dispose();
    factory.dispose();
  });

  it('retries a finalizer removal that meets a conflict without reporting an error', async () => {
    const { transport, client, names, find, run, stop, errors } = await setUp();
    const owner = transport.seed(resources.configmaps, configMap('owner'));
    transport.seed(resources.configmaps, configMap('child', { owners: [reference(owner)] }));
    await run();
    // The collector's first PATCH of the owner meets a conflict (the transport adds the finalizer below this wrapper).
    let ownerPatches = 0;
    const realRequest = transport.request.bind(transport);
    transport.request = async (req) => {
      if (req.method === 'PATCH' && req.path.endsWith('/configmaps/owner') && ++ownerPatches === 1) transport.failNext('PATCH', req.path, 409, 'Conflict');
      return realRequest(req);
    };
    await client.resource(resources.configmaps).delete('default', 'owner', { propagationPolicy: 'Orphan' });
    await until(() => names().join() === 'child', 'the owner is gone');
    // The removal that met the conflict, and its retry.
    expect(ownerPatches).toBe(2);
    expect(find('child')?.metadata.ownerReferences).toBeUndefined();
    expect(errors).toEqual([]);
    await stop();
  });
});
