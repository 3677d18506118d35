import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { EventRecorder } from '../client/eventRecorder';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from '../client/transport';
import type { WatchEvent } from '../../shared/kubernetes/types';
import { ControllerExpectations, slowStartBatch } from './controllerUtils';
import { calculateReplicaSetStatus, podsToDelete, ReplicaSetController } from './replicaSetController';
import { until } from '../../test/fixtures/until';

const START = Date.parse('2026-01-01T00:00:00Z');

function replicaSet(overrides: { replicas?: number; minReadySeconds?: number; selector?: Record<string, string>; templateLabels?: Record<string, string>; name?: string } = {}): KubeObject {
  const selector = overrides.selector ?? { app: 'web' };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: overrides.name ?? 'web', namespace: 'default' },
    spec: {
      replicas: overrides.replicas ?? 3,
      minReadySeconds: overrides.minReadySeconds ?? 0,
      selector: { matchLabels: selector },
      template: { metadata: { labels: overrides.templateLabels ?? { ...selector, tier: 'front' } }, spec: { containers: [{ name: 'app', image: 'busybox' }] } },
    },
  };
}

interface PodShape {
  name: string;
  labels?: Record<string, string>;
  owner?: KubeObject;
  nodeName?: string;
  phase?: string;
  ready?: boolean;
  readySince?: string;
  restarts?: number;
  created?: string;
  uid?: string;
  deleting?: boolean;
  cost?: string;
}

function pod(shape: PodShape): KubeObject {
  const metadata: KubeObject['metadata'] = { name: shape.name, namespace: 'default', labels: shape.labels ?? { app: 'web', tier: 'front' } };
  if (shape.owner) metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: shape.owner.metadata.name ?? '', uid: shape.owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
  if (shape.created) metadata.creationTimestamp = shape.created;
  if (shape.uid) metadata.uid = shape.uid;
  // The fake API drops deletionTimestamp on create: tests delete such pods after seeding them.
  if (shape.deleting) metadata.finalizers = ['test/hold'];
  if (shape.cost) metadata.annotations = { 'controller.kubernetes.io/pod-deletion-cost': shape.cost };
  const conditions = shape.ready === undefined ? [] : [{ type: 'Ready', status: shape.ready ? 'True' : 'False', lastTransitionTime: shape.readySince ?? '2026-01-01T00:00:00Z' }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { nodeName: shape.nodeName ?? 'node-1', containers: [{ name: 'app', image: 'busybox' }] },
    status: { phase: shape.phase ?? 'Running', conditions, containerStatuses: [{ name: 'app', restartCount: shape.restarts ?? 0 }] },
  };
}

/** Wraps the fake API to fail chosen pod creates (by their ordinal among all creates). */
class FailingCreates implements Transport {
  creates = 0;
  constructor(
    readonly inner: FakeTransport,
    private readonly failAt: Set<number>,
  ) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    if (req.method === 'POST' && req.path === '/api/v1/namespaces/default/pods') {
      this.creates++;
      if (this.failAt.has(this.creates)) {
        return { status: 403, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, message: 'pods "web-" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3' } };
      }
    }
    return this.inner.request(req);
  }

  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    return this.inner.watch(path, query, onEvent, onDone);
  }
}

async function setup(options: { seed?: (transport: FakeTransport) => void; failCreatesAt?: number[]; clock?: FakeClock; burstReplicas?: number } = {}) {
  const transport = new FakeTransport();
  options.seed?.(transport);
  const failing = new FailingCreates(transport, new Set(options.failCreatesAt ?? []));
  const client = new ApiClient(failing);
  const factory = new SharedInformerFactory(client, { freeze: true });
  const clock = options.clock ?? new FakeClock(START);
  const recorder = new EventRecorder(client, { component: 'replicaset-controller' }, clock);
  const controller = new ReplicaSetController(client, factory, { clock, burstReplicas: options.burstReplicas, recorder });
  factory.start();
  await factory.waitForCacheSync();
  const podsOf = () => transport.objectsOf(resources.pods);
  const rsOf = (name = 'web') => transport.objectsOf(resources.replicasets).find((rs) => rs.metadata.name === name) as KubeObject;
  const events = () => transport.objectsOf(resources.events).map((event) => `${String(event.type)} ${String(event.reason)} ${String(event.message)}`);
  const podsInCache = () => factory.informerFor(resources.pods).list().length;
  const close = async () => {
    await controller.dispose();
    factory.dispose();
  };
  return { transport, failing, client, factory, controller, recorder, clock, podsOf, rsOf, events, podsInCache, close };
}

function seedSet(transport: FakeTransport, rs: KubeObject): KubeObject {
  return transport.seed(resources.replicasets, rs);
}

describe('podsToDelete', () => {
  const now = Date.parse('2026-01-01T01:00:00Z');
  const cases: { name: string; a: PodShape; b: PodShape; first: 'a' | 'b'; colocated?: [number, number] }[] = [
    { name: 'an unscheduled pod goes before a scheduled one', a: { name: 'a', nodeName: 'node-1' }, b: { name: 'b', nodeName: '', phase: 'Pending' }, first: 'b' },
    { name: 'a Pending pod goes before a Running one', a: { name: 'a', phase: 'Running', ready: true }, b: { name: 'b', phase: 'Pending' }, first: 'b' },
    { name: 'an Unknown pod goes before a Running one', a: { name: 'a', phase: 'Unknown' }, b: { name: 'b', phase: 'Running' }, first: 'a' },
    { name: 'a Pending pod goes before an Unknown one', a: { name: 'a', phase: 'Unknown' }, b: { name: 'b', phase: 'Pending' }, first: 'b' },
    { name: 'a not-ready pod goes before a ready one', a: { name: 'a', ready: true }, b: { name: 'b', ready: false }, first: 'b' },
    { name: 'a lower pod-deletion-cost goes first', a: { name: 'a', ready: true, cost: '10' }, b: { name: 'b', ready: true, cost: '-5' }, first: 'b' },
    { name: 'a pod doubled up on a node goes first', a: { name: 'a', ready: true }, b: { name: 'b', ready: true }, colocated: [1, 2], first: 'b' },
    {
      name: 'the pod ready for less time goes first',
      a: { name: 'a', ready: true, readySince: '2026-01-01T00:00:00Z', uid: 'a' },
      b: { name: 'b', ready: true, readySince: '2026-01-01T00:59:00Z', uid: 'b' },
      first: 'b',
    },
    { name: 'more restarts go first', a: { name: 'a', ready: true, restarts: 1 }, b: { name: 'b', ready: true, restarts: 4 }, first: 'b' },
    { name: 'the newer pod goes first', a: { name: 'a', created: '2026-01-01T00:59:30Z', uid: 'a' }, b: { name: 'b', created: '2026-01-01T00:00:00Z', uid: 'b' }, first: 'a' },
    {
      name: 'pods created in the same logarithmic bucket are ordered by uid',
      a: { name: 'a', created: '2026-01-01T00:30:00Z', uid: 'z' },
      b: { name: 'b', created: '2026-01-01T00:30:01Z', uid: 'c' },
      first: 'b',
    },
  ];
  it.each(cases)('$name', ({ a, b, first, colocated }) => {
    const podA = pod(a);
    const podB = pod(b);
    // Related pods stand for other pods on the same node; give each its own node to control the ranks.
    const related: KubeObject[] = [];
    if (colocated) {
      (podA.spec as Record<string, unknown>).nodeName = 'node-a';
      (podB.spec as Record<string, unknown>).nodeName = 'node-b';
      for (let i = 0; i < colocated[0]; i++) related.push(pod({ name: `ra${i}`, nodeName: 'node-a' }));
      for (let i = 0; i < colocated[1]; i++) related.push(pod({ name: `rb${i}`, nodeName: 'node-b' }));
    }
    for (const order of [[podA, podB], [podB, podA]]) {
      const chosen = podsToDelete(order, related, 1, now);
      expect(chosen.map((p) => p.metadata.name)).toEqual([first]);
    }
  });

  it('returns every pod without ranking when all of them go', () => {
    const pods = [pod({ name: 'a' }), pod({ name: 'b' })];
    expect(podsToDelete(pods, pods, 2, 0).map((p) => p.metadata.name)).toEqual(['a', 'b']);
  });
});

describe('slowStartBatch', () => {
  const cases: { name: string; count: number; failAt: number[]; attempts: number; successes: number; failed: boolean }[] = [
    { name: 'runs every call in batches 1, 2, 4, … when all succeed', count: 10, failAt: [], attempts: 10, successes: 10, failed: false },
    { name: 'stops after the first batch when its only call fails', count: 10, failAt: [1], attempts: 1, successes: 0, failed: true },
    { name: 'finishes the failing batch of four, then stops', count: 10, failAt: [4], attempts: 7, successes: 6, failed: true },
    { name: 'does nothing for zero calls', count: 0, failAt: [], attempts: 0, successes: 0, failed: false },
  ];
  it.each(cases)('$name', async ({ count, failAt, attempts, successes, failed }) => {
    let calls = 0;
    const result = await slowStartBatch(count, 1, async () => {
      calls++;
      if (failAt.includes(calls)) throw new Error(`call ${calls} failed`);
    });
    expect(calls).toBe(attempts);
    expect(result.successes).toBe(successes);
    expect(result.error !== undefined).toBe(failed);
  });
});

describe('ControllerExpectations', () => {
  it('is satisfied once every expected create and delete is observed, or when it expires', () => {
    const clock = new FakeClock(0);
    const expectations = new ControllerExpectations(clock);
    expect(expectations.satisfied('ns/a')).toBe(true);
    expectations.expectCreations('ns/a', 2);
    expect(expectations.satisfied('ns/a')).toBe(false);
    expectations.creationObserved('ns/a');
    expect(expectations.satisfied('ns/a')).toBe(false);
    expectations.creationObserved('ns/a');
    expect(expectations.satisfied('ns/a')).toBe(true);

    expectations.expectDeletions('ns/a', ['ns/p1', 'ns/p2']);
    expectations.deletionObserved('ns/a', 'ns/p1');
    // The same pod seen twice (deletionTimestamp, then the delete) counts once.
    expectations.deletionObserved('ns/a', 'ns/p1');
    expectations.deletionObserved('ns/a', 'ns/other');
    expect(expectations.pending('ns/a')).toEqual({ add: 0, del: 1 });
    expect(expectations.satisfied('ns/a')).toBe(false);
    clock.advance(5 * 60 * 1000 + 1);
    expect(expectations.satisfied('ns/a')).toBe(true);
  });
});

describe('calculateReplicaSetStatus', () => {
  const now = Date.parse('2026-01-01T00:00:30Z');
  const cases: { name: string; rs: KubeObject; pods: PodShape[]; error?: Error; expected: Record<string, unknown> }[] = [
    {
      name: 'counts fully labelled, ready and available pods',
      rs: replicaSet({ replicas: 3 }),
      pods: [{ name: 'a', ready: true }, { name: 'b', ready: false }, { name: 'c', labels: { app: 'web' }, ready: true }],
      expected: { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
    },
    {
      name: 'counts a ready pod as available only after minReadySeconds',
      rs: replicaSet({ replicas: 2, minReadySeconds: 20 }),
      pods: [{ name: 'a', ready: true, readySince: '2026-01-01T00:00:00Z' }, { name: 'b', ready: true, readySince: '2026-01-01T00:00:20Z' }],
      expected: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1 },
    },
  ];
  it.each(cases)('$name', ({ rs, pods, expected }) => {
    expect(calculateReplicaSetStatus(rs, pods.map(pod), undefined, now)).toEqual(expected);
  });

  it('sets ReplicaFailure with reason FailedCreate after a failed create, and removes it after a success', () => {
    const rs = replicaSet({ replicas: 3 });
    const failed = calculateReplicaSetStatus(rs, [pod({ name: 'a' })], new Error('pods "web-" is forbidden: exceeded quota'), now);
    expect(failed.conditions).toEqual([{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2026-01-01T00:00:30Z', reason: 'FailedCreate', message: 'pods "web-" is forbidden: exceeded quota' }]);
    const recovered = calculateReplicaSetStatus({ ...rs, status: failed }, [pod({ name: 'a' })], undefined, now);
    expect(recovered.conditions).toBeUndefined();
  });
});

describe('ReplicaSetController', () => {
  it('creates the missing pods with generated names, controller references and SuccessfulCreate events, then writes status', async () => {
    let rs: KubeObject = replicaSet({ replicas: 3 });
    const env = await setup({ seed: (transport) => (rs = seedSet(transport, rs)) });
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods).toHaveLength(3);
    for (const created of pods) {
      expect(created.metadata.name).toMatch(/^web-/);
      expect(created.metadata.generateName).toBe('web-');
      expect(created.metadata.labels).toEqual({ app: 'web', tier: 'front' });
      expect(created.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await env.recorder.flush();
    expect(env.events().sort()).toEqual(pods.map((created) => `Normal SuccessfulCreate Created pod: ${created.metadata.name}`).sort());
    // The informer has not seen the pods yet, so status says 0; it catches up on the next sync.
    await until(() => env.podsInCache() === 3, 'pods in cache');
    await env.controller.reconcile('default/web');
    expect(env.rsOf().status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
    await env.close();
  });

  it('does not create twice when it syncs again before the informer has seen its pods', async () => {
    const env = await setup({ seed: (transport) => seedSet(transport, replicaSet({ replicas: 3 })) });
    await env.controller.reconcile('default/web');
    // A burst of events: the cache may still show no pods, but the expectations hold the controller back.
    await env.controller.reconcile('default/web');
    await env.controller.reconcile('default/web');
    expect(env.podsOf()).toHaveLength(3);
    await until(() => env.podsInCache() === 3, 'pods in cache');
    expect(env.controller.expectations.satisfied('default/web')).toBe(true);
    await env.controller.reconcile('default/web');
    expect(env.podsOf()).toHaveLength(3);
    await env.close();
  });

  it('stops creating at the first failed slow-start batch, records FailedCreate and the ReplicaFailure condition', async () => {
    const env = await setup({ seed: (transport) => seedSet(transport, replicaSet({ replicas: 10 })), failCreatesAt: [4] });
    await expect(env.controller.reconcile('default/web')).rejects.toThrow(/exceeded quota/);
    expect(env.failing.creates).toBe(7);
    expect(env.podsOf()).toHaveLength(6);
    await env.recorder.flush();
    expect(env.events().filter((event) => event.startsWith('Warning'))).toEqual([
      'Warning FailedCreate Error creating: pods "web-" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3',
    ]);
    const status = env.rsOf().status as Record<string, unknown>;
    expect(status.conditions).toMatchObject([{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' }]);
    // The skipped creates are no longer expected: once the six are seen, the next sync creates the rest.
    await until(() => env.podsInCache() === 6, 'pods in cache');
    expect(env.controller.expectations.satisfied('default/web')).toBe(true);
    await env.controller.reconcile('default/web');
    expect(env.podsOf()).toHaveLength(10);
    expect((env.rsOf().status as Record<string, unknown>).conditions).toBeUndefined();
    await env.close();
  });

  it('deletes the pods ranked first when scaled down, with SuccessfulDelete events', async () => {
    let rs = replicaSet({ replicas: 1 });
    const env = await setup({
      seed: (transport) => {
        rs = seedSet(transport, rs);
        transport.seed(resources.pods, pod({ name: 'web-ready', owner: rs, ready: true }));
        transport.seed(resources.pods, pod({ name: 'web-pending', owner: rs, phase: 'Pending' }));
        transport.seed(resources.pods, pod({ name: 'web-unscheduled', owner: rs, phase: 'Pending', nodeName: '' }));
      },
    });
    await env.controller.reconcile('default/web');
    expect(env.podsOf().map((p) => p.metadata.name)).toEqual(['web-ready']);
    await env.recorder.flush();
    expect(env.events().sort()).toEqual(['Normal SuccessfulDelete Deleted pod: web-pending', 'Normal SuccessfulDelete Deleted pod: web-unscheduled']);
    await until(() => env.controller.expectations.satisfied('default/web'), 'deletions observed');
    await env.close();
  });

  it('adopts a matching orphan and creates only the pods still missing', async () => {
    let rs = replicaSet({ replicas: 2 });
    const env = await setup({
      seed: (transport) => {
        transport.seed(resources.pods, pod({ name: 'orphan' }));
        transport.seed(resources.pods, pod({ name: 'stranger', labels: { app: 'other' } }));
        rs = seedSet(transport, rs);
      },
    });
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods).toHaveLength(3);
    const orphan = pods.find((p) => p.metadata.name === 'orphan');
    expect(orphan?.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(pods.find((p) => p.metadata.name === 'stranger')?.metadata.ownerReferences).toBeUndefined();
    expect(pods.filter((p) => p.metadata.name?.startsWith('web-'))).toHaveLength(1);
    await env.close();
  });

  it('leaves pods controlled by another owner alone', async () => {
    const env = await setup({
      seed: (transport) => {
        const other = seedSet(transport, replicaSet({ name: 'other', replicas: 1 }));
        transport.seed(resources.pods, pod({ name: 'taken', owner: other }));
        seedSet(transport, replicaSet({ replicas: 1 }));
      },
    });
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods).toHaveLength(2);
    expect(pods.find((p) => p.metadata.name === 'taken')?.metadata.ownerReferences?.[0].name).toBe('other');
    await env.close();
  });

  it('releases an owned pod whose labels no longer match and replaces it', async () => {
    let rs = replicaSet({ replicas: 1 });
    const env = await setup({
      seed: (transport) => {
        rs = seedSet(transport, rs);
        const relabelled = pod({ name: 'web-moved', owner: rs, labels: { app: 'debug' } });
        relabelled.metadata.ownerReferences?.unshift({ apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'cm-uid' });
        transport.seed(resources.pods, relabelled);
      },
    });
    await env.controller.reconcile('default/web');
    const pods = env.podsOf();
    expect(pods.find((p) => p.metadata.name === 'web-moved')?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'keep', uid: 'cm-uid' }]);
    expect(pods.filter((p) => p.metadata.name !== 'web-moved')).toHaveLength(1);
    await env.close();
  });

  it('counts terminal pods and pods being deleted as gone', async () => {
    let rs = replicaSet({ replicas: 2 });
    const env = await setup({
      seed: (transport) => {
        rs = seedSet(transport, rs);
        transport.seed(resources.pods, pod({ name: 'web-done', owner: rs, phase: 'Succeeded' }));
        transport.seed(resources.pods, pod({ name: 'web-failed', owner: rs, phase: 'Failed' }));
        transport.seed(resources.pods, pod({ name: 'web-going', owner: rs, deleting: true }));
        transport.seed(resources.pods, pod({ name: 'web-up', owner: rs, ready: true }));
      },
    });
    await env.client.resource(resources.pods).delete('default', 'web-going');
    await until(() => env.factory.informerFor(resources.pods).get('default', 'web-going')?.metadata.deletionTimestamp !== undefined, 'pod terminating in cache');
    await env.controller.reconcile('default/web');
    expect(env.podsOf()).toHaveLength(5);
    expect(env.rsOf().status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    await env.close();
  });

  it('does not create pods for a set that is being deleted', async () => {
    const env = await setup({
      seed: (transport) => {
        const rs = replicaSet({ replicas: 2 });
        rs.metadata.finalizers = ['foregroundDeletion'];
        seedSet(transport, rs);
      },
    });
    await env.client.resource(resources.replicasets).delete('default', 'web');
    await until(() => env.factory.informerFor(resources.replicasets).get('default', 'web')?.metadata.deletionTimestamp !== undefined, 'set terminating in cache');
    await env.controller.reconcile('default/web');
    expect(env.podsOf()).toHaveLength(0);
    await env.close();
  });

  it('reports a pod available once minReadySeconds have passed, by requeueing itself', async () => {
    const clock = new FakeClock(START);
    let rs = replicaSet({ replicas: 1, minReadySeconds: 10 });
    const env = await setup({
      clock,
      seed: (transport) => {
        rs = seedSet(transport, rs);
        transport.seed(resources.pods, pod({ name: 'web-a', owner: rs, ready: true, readySince: '2026-01-01T00:00:00Z' }));
      },
    });
    env.controller.start();
    await until(() => (env.rsOf().status as Record<string, unknown> | undefined)?.readyReplicas === 1, 'ready replica');
    expect((env.rsOf().status as Record<string, unknown>).availableReplicas).toBe(0);
    clock.advance(10_000);
    await until(() => (env.rsOf().status as Record<string, unknown>).availableReplicas === 1, 'available replica');
    await env.close();
  });

  it('replaces a deleted pod while running', async () => {
    const env = await setup({ seed: (transport) => seedSet(transport, replicaSet({ replicas: 2 })) });
    env.controller.start();
    await until(() => env.podsOf().length === 2, 'two pods');
    const victim = env.podsOf()[0].metadata.name ?? '';
    await env.client.resource(resources.pods).delete('default', victim);
    await until(() => env.podsOf().length === 2 && env.podsOf().every((p) => p.metadata.name !== victim), 'a replacement pod');
    await until(() => (env.rsOf().status as Record<string, unknown> | undefined)?.replicas === 2, 'status');
    expect(env.podsOf()).toHaveLength(2);
    await env.close();
  });
});
