import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { EventRecorder } from '../client/eventRecorder';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { until } from '../../test/fixtures/until';
import { ReplicationManager } from './replicationManager';

function replicationController(replicas: number, selector: Record<string, string> = { app: 'web' }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { replicas, selector, template: { metadata: { labels: { ...selector, tier: 'front' } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } } },
  };
}

function pod(name: string, labels: Record<string, string>, owner?: KubeObject): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', labels };
  if (owner) metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ReplicationController', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }] }, status: { phase: 'Running' } };
}

async function setup(seed: (transport: FakeTransport) => void) {
  const transport = new FakeTransport();
  seed(transport);
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client, { freeze: true });
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const recorder = new EventRecorder(client, { component: 'replication-controller' }, clock);
  const controller = new ReplicationManager(client, factory, { clock, recorder });
  factory.start();
  await factory.waitForCacheSync();
  const podsOf = () => transport.objectsOf(resources.pods);
  const rcOf = () => transport.objectsOf(resources.replicationcontrollers)[0];
  const close = async () => {
    await controller.dispose();
    factory.dispose();
  };
  const cachedRc = () => factory.informerFor(resources.replicationcontrollers).get('default', 'web');
  return { transport, client, controller, recorder, podsOf, rcOf, cachedRc, close, podsInCache: () => factory.informerFor(resources.pods).list().length };
}

describe('ReplicationManager (the ReplicaSet controller on ReplicationControllers)', () => {
  it('creates pods owned by the ReplicationController, matching its label-map selector, and writes its status', async () => {
    let rc = replicationController(3);
    const env = await setup((transport) => (rc = transport.seed(resources.replicationcontrollers, rc)));
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods).toHaveLength(3);
    for (const created of pods) {
      expect(created.metadata.generateName).toBe('web-');
      expect(created.metadata.labels).toEqual({ app: 'web', tier: 'front' });
      expect(created.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await env.recorder.flush();
    const events = env.transport.objectsOf(resources.events);
    expect(events.map((event) => (event.involvedObject as Record<string, unknown>).kind)).toEqual(['ReplicationController', 'ReplicationController', 'ReplicationController']);
    await until(() => env.podsInCache() === 3, 'pods in cache');
    await env.controller.reconcile('default/web');
    expect(env.rcOf().status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
    await env.close();
  });

  it('adopts a matching orphan, leaves pods of a ReplicaSet with the same name alone, and deletes down to spec.replicas', async () => {
    let rc = replicationController(1);
    const env = await setup((transport) => {
      rc = transport.seed(resources.replicationcontrollers, rc);
      transport.seed(resources.pods, pod('orphan', { app: 'web' }));
      const otherPod = pod('of-a-replicaset', { app: 'web' });
      otherPod.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }];
      transport.seed(resources.pods, otherPod);
      transport.seed(resources.pods, pod('extra', { app: 'web' }, rc));
    });
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods.find((p) => p.metadata.name === 'of-a-replicaset')?.metadata.ownerReferences?.[0].kind).toBe('ReplicaSet');
    const owned = pods.filter((p) => p.metadata.ownerReferences?.[0].kind === 'ReplicationController');
    expect(owned).toHaveLength(1);
    await env.close();
  });

  it('follows a changed selector: releases pods that no longer match and creates matching ones', async () => {
    let rc = replicationController(1, { app: 'web' });
    const env = await setup((transport) => {
      rc = transport.seed(resources.replicationcontrollers, rc);
      transport.seed(resources.pods, pod('web-old', { app: 'web', tier: 'front' }, rc));
    });
    const changed = { ...structuredClone(env.rcOf()), spec: { ...(env.rcOf().spec as Record<string, unknown>), selector: { app: 'web', tier: 'back' }, template: { metadata: { labels: { app: 'web', tier: 'back' } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } } } };
    await env.client.resource(resources.replicationcontrollers).update(changed);
    await until(() => env.cachedRc()?.metadata.resourceVersion === env.rcOf().metadata.resourceVersion, 'new selector in cache');
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods.find((p) => p.metadata.name === 'web-old')?.metadata.ownerReferences).toBeUndefined();
    expect(pods.filter((p) => p.metadata.labels?.tier === 'back')).toHaveLength(1);
    await env.close();
  });
});
