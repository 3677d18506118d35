import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { PodGarbageCollector, terminatedPodsToDelete } from './podGarbageCollector';

function pod(name: string, options: { phase?: string; reason?: string; node?: string; created?: string; deleting?: boolean; finalizers?: string[] } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', creationTimestamp: options.created ?? '2026-01-01T00:00:00Z' };
  if (options.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  if (options.finalizers) metadata.finalizers = options.finalizers;
  const status: Record<string, unknown> = { phase: options.phase ?? 'Running' };
  if (options.reason) status.reason = options.reason;
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { nodeName: options.node, containers: [{ name: 'c', image: 'busybox' }] }, status };
}

function node(name: string, options: { ready?: boolean; taints?: { key: string; effect: string }[] } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    spec: { taints: options.taints ?? [] },
    status: { conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

async function setUp(seed: { pods?: KubeObject[]; nodes?: KubeObject[] }, threshold?: number) {
  const transport = new FakeTransport();
  for (const object of seed.nodes ?? []) transport.seed(resources.nodes, object);
  const client = new ApiClient(transport);
  for (const object of seed.pods ?? []) {
    transport.seed(resources.pods, object);
    // The fake clears deletionTimestamp on create; a delete held by a finalizer sets it.
    if (object.metadata.deletionTimestamp) await client.resource(resources.pods).delete('default', object.metadata.name ?? '');
  }
  transport.requests.length = 0;
  const factory = new SharedInformerFactory(client);
  const clock = new FakeClock(1_000_000);
  const errors: unknown[] = [];
  const collector = new PodGarbageCollector(client, factory, { terminatedPodThreshold: threshold, clock, onError: (error) => errors.push(error) });
  factory.start();
  await factory.waitForCacheSync();
  const deletes = () => transport.requests.filter((request) => request.method === 'DELETE').map((request) => request.path.split('/').pop());
  return { transport, factory, clock, collector, errors, deletes };
}

describe('terminatedPodsToDelete', () => {
  it.each([
    {
      name: 'deletes evicted pods first, then the oldest terminated ones',
      pods: [
        pod('old-succeeded', { phase: 'Succeeded', created: '2026-01-01T00:00:01Z' }),
        pod('new-failed', { phase: 'Failed', created: '2026-01-01T00:00:09Z' }),
        pod('evicted', { phase: 'Failed', reason: 'Evicted', created: '2026-01-01T00:00:10Z' }),
        pod('middle', { phase: 'Failed', created: '2026-01-01T00:00:05Z' }),
        pod('running', { phase: 'Running', created: '2026-01-01T00:00:00Z' }),
      ],
      threshold: 1,
      expected: ['evicted', 'old-succeeded', 'middle'],
    },
    { name: 'keeps everything under the threshold', pods: [pod('a', { phase: 'Succeeded' }), pod('b', { phase: 'Failed' })], threshold: 2, expected: [] },
    { name: 'is disabled by a threshold of zero', pods: [pod('a', { phase: 'Succeeded' })], threshold: 0, expected: [] },
    { name: 'breaks ties of creation time by name', pods: [pod('b', { phase: 'Succeeded' }), pod('a', { phase: 'Succeeded' }), pod('c', { phase: 'Succeeded' })], threshold: 1, expected: ['a', 'b'] },
  ])('$name', ({ pods, threshold, expected }) => {
    expect(terminatedPodsToDelete(pods, threshold).map((entry) => entry.metadata.name)).toEqual(expected);
  });
});

describe('PodGarbageCollector', () => {
  it('deletes terminated pods beyond the threshold with grace period 0', async () => {
    const { collector, transport, factory, deletes } = await setUp({ nodes: [node('n1')], pods: [pod('a', { phase: 'Succeeded', node: 'n1', created: '2026-01-01T00:00:01Z' }), pod('b', { phase: 'Succeeded', node: 'n1', created: '2026-01-01T00:00:02Z' }), pod('c', { node: 'n1' })] }, 1);
    await collector.collect();
    expect(deletes()).toEqual(['a']);
    const request = transport.requests.find((entry) => entry.method === 'DELETE');
    expect(request?.body).toMatchObject({ gracePeriodSeconds: 0 });
    expect(transport.objectsOf(resources.pods).map((entry) => entry.metadata.name).sort()).toEqual(['b', 'c']);
    factory.dispose();
  });

  it('deletes pods of a vanished node only after the quarantine, marking them Failed first', async () => {
    const { collector, transport, factory, clock, deletes } = await setUp({ nodes: [node('n1')], pods: [pod('orphan', { node: 'gone' }), pod('fine', { node: 'n1' })] });
    await collector.collect();
    expect(deletes()).toEqual([]);
    clock.advance(39_000);
    await collector.collect();
    expect(deletes()).toEqual([]);
    clock.advance(1_000);
    await collector.collect();
    expect(deletes()).toEqual(['orphan']);
    const statusPatch = transport.requests.find((entry) => entry.method === 'PATCH' && entry.path.endsWith('/orphan/status'));
    expect(statusPatch?.body).toMatchObject({
      status: { phase: 'Failed', conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' }] },
    });
    expect(transport.objectsOf(resources.pods).map((entry) => entry.metadata.name)).toEqual(['fine']);
    factory.dispose();
  });

  it('forgets the quarantine when the missing node turns up', async () => {
    const { collector, transport, factory, clock, deletes } = await setUp({ pods: [pod('waiting', { node: 'late' })] });
    await collector.collect();
    transport.seed(resources.nodes, node('late'));
    clock.advance(60_000);
    await collector.collect();
    expect(deletes()).toEqual([]);
    factory.dispose();
  });

  it('force-deletes terminating pods that were never scheduled and those on out-of-service nodes', async () => {
    const { collector, factory, deletes } = await setUp({
      nodes: [node('broken', { ready: false, taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] }), node('tainted-but-ready', { taints: [{ key: 'node.kubernetes.io/out-of-service', effect: 'NoExecute' }] })],
      pods: [
        pod('unscheduled', { deleting: true, finalizers: ['test/hold'] }),
        pod('stuck', { node: 'broken', deleting: true, finalizers: ['test/hold'] }),
        pod('draining', { node: 'tainted-but-ready', deleting: true, finalizers: ['test/hold'] }),
        pod('pending', {}),
      ],
    });
    await collector.collect();
    expect(deletes().sort()).toEqual(['stuck', 'unscheduled']);
    factory.dispose();
  });

  it('runs every period once started, and stops on dispose', async () => {
    const { collector, transport, factory, clock } = await setUp({ nodes: [node('n1')], pods: [pod('a', { phase: 'Failed', node: 'n1' }), pod('b', { phase: 'Failed', node: 'n1' })] }, 1);
    collector.start();
    const deadline = Date.now() + 5000;
    while (transport.objectsOf(resources.pods).length > 1) {
      if (Date.now() > deadline) throw new Error('the first pass did not run');
      clock.advance(0);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    transport.seed(resources.pods, pod('c', { phase: 'Failed', node: 'n1', created: '2026-01-01T00:00:00Z' }));
    while (transport.objectsOf(resources.pods).length > 1) {
      if (Date.now() > deadline) throw new Error('the second pass did not run');
      clock.advance(20_000);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await collector.dispose();
    factory.dispose();
  });
});
