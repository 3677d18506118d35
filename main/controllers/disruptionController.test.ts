import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi, syncOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { computeBudgetStatus, DisruptionController, scaledValue } from './disruptionController';
import { until } from '../../test/fixtures/until';

function budget(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'pdb', namespace: 'default', generation: 1 }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec }, status };
}

function pod(name: string, options: { ready?: boolean; owner?: string; deleting?: boolean } = {}): KubeObject {
  const metadata: KubeObject['metadata'] = { name, namespace: 'default', labels: { app: 'web' } };
  if (options.owner) metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: options.owner, uid: `uid-${options.owner}`, controller: true }];
  if (options.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec: {}, status: { phase: 'Running', conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] } };
}

const now = Date.parse('2026-01-01T00:05:00Z');
const scaleOf = (scales: Partial<Record<string, number>>) => (p: KubeObject) => {
  const ref = p.metadata.ownerReferences?.[0];
  const scale = ref ? scales[ref.name] : undefined;
  return ref && scale !== undefined ? { uid: ref.uid, scale } : undefined;
};

describe('computeBudgetStatus', () => {
  it.each([
    { name: 'integer minAvailable over bare pods', spec: { minAvailable: 1 }, pods: [pod('a'), pod('b')], scales: {}, want: { expectedPods: 2, desiredHealthy: 1, currentHealthy: 2, disruptionsAllowed: 1 } },
    { name: 'integer minAvailable not met', spec: { minAvailable: 2 }, pods: [pod('a'), pod('b', { ready: false })], scales: {}, want: { expectedPods: 2, desiredHealthy: 2, currentHealthy: 1, disruptionsAllowed: 0 } },
    { name: 'maxUnavailable from the controller scale', spec: { maxUnavailable: 1 }, pods: [pod('a', { owner: 'rs' }), pod('b', { owner: 'rs' })], scales: { rs: 3 }, want: { expectedPods: 3, desiredHealthy: 2, currentHealthy: 2, disruptionsAllowed: 0 } },
    { name: 'percentage minAvailable rounded up', spec: { minAvailable: '50%' }, pods: [pod('a', { owner: 'rs' }), pod('b', { owner: 'rs' }), pod('c', { owner: 'rs' })], scales: { rs: 3 }, want: { expectedPods: 3, desiredHealthy: 2, currentHealthy: 3, disruptionsAllowed: 1 } },
    { name: 'terminating pods are not healthy', spec: { minAvailable: 1 }, pods: [pod('a'), pod('b', { deleting: true })], scales: {}, want: { currentHealthy: 1, disruptionsAllowed: 0 } },
    { name: 'unmanaged pods are left out of a maxUnavailable scale', spec: { maxUnavailable: 0 }, pods: [pod('a')], scales: {}, want: { expectedPods: 0, disruptionsAllowed: 0, unmanagedPods: ['a'] } },
  ])('$name', ({ spec, pods, scales, want }) => {
    expect(computeBudgetStatus(budget(spec), pods, scaleOf(scales), now)).toMatchObject(want);
  });

  it('does not count a recently evicted pod and forgets expired evictions', () => {
    const status = { disruptedPods: { a: '2026-01-01T00:04:00Z', b: '2026-01-01T00:01:00Z' } };
    const result = computeBudgetStatus(budget({ minAvailable: 1 }, status), [pod('a'), pod('b'), pod('c')], scaleOf({}), now);
    expect(result.disruptedPods).toEqual({ a: '2026-01-01T00:04:00Z' });
    expect(result.currentHealthy).toBe(2);
    expect(result.recheckAt).toBe(Date.parse('2026-01-01T00:06:00Z'));
  });

  it('fails when a pod has a controller it cannot scale', () => {
    expect(() => computeBudgetStatus(budget({ maxUnavailable: 1 }), [pod('a', { owner: 'gone' })], scaleOf({}), now)).toThrow('found no controllers for pod "a"');
  });

  it.each([
    [3, 10, 3],
    ['25%', 10, 3],
    ['0%', 10, 0],
  ])('scales %s of %i to %i', (value, total, want) => {
    expect(scaledValue(value, total)).toBe(want);
  });
});

describe('DisruptionController', () => {
  it('writes the budget status with the DisruptionAllowed condition and follows pod readiness', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.poddisruptionbudgets, budget({ minAvailable: 1 }));
    transport.seed(resources.pods, pod('a'));
    transport.seed(resources.pods, pod('b'));
    const { client } = await startOnFakeApi(transport, (client, factory) => new DisruptionController(client, factory));
    const status = () => transport.objectsOf(resources.poddisruptionbudgets)[0].status as Record<string, unknown>;
    await until(() => status().observedGeneration === 1);
    expect(status()).toMatchObject({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    expect(status().conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', observedGeneration: 1 })]);

    const b = await client.resource(resources.pods).get('default', 'b');
    await client.resource(resources.pods).updateStatus({ ...b, status: pod('b', { ready: false }).status });
    await until(() => status().disruptionsAllowed === 0);
    expect(status().conditions).toEqual([expect.objectContaining({ status: 'False', reason: 'InsufficientPods' })]);
  });

  it('takes the expected pod count of ReplicationController pods from the controller\'s replicas', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.poddisruptionbudgets, budget({ maxUnavailable: 1 }));
    const rc: KubeObject = transport.seed(resources.replicationcontrollers, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3, selector: { app: 'web' } } });
    for (const name of ['a', 'b']) {
      const owned = pod(name);
      owned.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata.uid ?? '', controller: true }];
      transport.seed(resources.pods, owned);
    }
    const { controller } = await syncOnFakeApi(transport, (client, factory) => new DisruptionController(client, factory));
    await controller.reconcile('default/pdb');
    const status = transport.objectsOf(resources.poddisruptionbudgets)[0].status as Record<string, unknown>;
    expect(status).toMatchObject({ expectedPods: 3, desiredHealthy: 2, currentHealthy: 2, disruptionsAllowed: 0 });
  });

  it('fails safe with SyncFailed when the expected count cannot be computed', async () => {
    const transport = new FakeTransport();
    transport.seed(resources.poddisruptionbudgets, budget({ maxUnavailable: 1 }, { disruptionsAllowed: 3 }));
    transport.seed(resources.pods, pod('a', { owner: 'missing' }));
    const { controller } = await syncOnFakeApi(transport, (client, factory) => new DisruptionController(client, factory));
    await controller.reconcile('default/pdb');
    const status = transport.objectsOf(resources.poddisruptionbudgets)[0].status as Record<string, unknown>;
    expect(status.disruptionsAllowed).toBe(0);
    expect(status.conditions).toEqual([expect.objectContaining({ status: 'False', reason: 'SyncFailed', message: 'found no controllers for pod "a"' })]);
  });
});
