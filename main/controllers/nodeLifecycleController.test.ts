import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { taintNodeNotReady as TAINT_NOT_READY, taintNodeUnreachable as TAINT_UNREACHABLE, taintNodeUnschedulable as TAINT_UNSCHEDULABLE, type Taint, type Toleration } from '../componentHelpers/scheduling/corev1';
import { evictionDecision, NodeLifecycleController, reconcileTaints } from './nodeLifecycleController';
import { until } from '../../test/fixtures/until';

function node(ready: string | undefined, spec: Record<string, unknown> = {}, heartbeat = '2026-01-01T00:00:00Z'): KubeObject {
  const conditions = ready ? [{ type: 'Ready', status: ready, lastHeartbeatTime: heartbeat, lastTransitionTime: heartbeat, reason: 'KubeletReady', message: '' }] : [];
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', creationTimestamp: '2026-01-01T00:00:00Z' }, spec, status: { conditions } };
}

describe('reconcileTaints', () => {
  const now = '2026-01-01T00:01:00Z';
  it.each([
    { name: 'a Ready node keeps foreign taints only', node: node('True', { taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }, { key: TAINT_NOT_READY, effect: 'NoExecute' }] }), want: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] },
    { name: 'a NotReady node gets not-ready NoExecute and NoSchedule', node: node('False'), want: [{ key: TAINT_NOT_READY, effect: 'NoExecute', timeAdded: now }, { key: TAINT_NOT_READY, effect: 'NoSchedule' }] },
    {
      name: 'an unreachable node swaps not-ready for unreachable',
      node: node('Unknown', { taints: [{ key: TAINT_NOT_READY, effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00Z' }] }),
      want: [{ key: TAINT_UNREACHABLE, effect: 'NoExecute', timeAdded: now }, { key: TAINT_UNREACHABLE, effect: 'NoSchedule' }],
    },
    { name: 'a cordoned node gets the unschedulable taint', node: node('True', { unschedulable: true }), want: [{ key: TAINT_UNSCHEDULABLE, effect: 'NoSchedule' }] },
  ])('$name', ({ node: n, want }) => {
    expect(reconcileTaints(n, now)).toEqual(want);
  });

  it('changes nothing when the taints already match', () => {
    expect(reconcileTaints(node('False', { taints: [{ key: TAINT_NOT_READY, effect: 'NoExecute', timeAdded: 'x' }, { key: TAINT_NOT_READY, effect: 'NoSchedule' }] }), 'now')).toBeUndefined();
  });
});

describe('evictionDecision', () => {
  const unreachable: Taint = { key: TAINT_UNREACHABLE, effect: 'NoExecute' };
  const defaults: Toleration[] = [
    { key: TAINT_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ];
  it.each([
    { name: 'no NoExecute taint keeps the pod', taints: [{ key: 'x', effect: 'NoSchedule' }], tolerations: [], want: { kind: 'never' } },
    { name: 'an untolerated taint evicts now', taints: [unreachable], tolerations: [], want: { kind: 'now' } },
    { name: 'the default tolerations evict after 300 s', taints: [unreachable], tolerations: defaults, want: { kind: 'after', seconds: 300 } },
    { name: 'a toleration without seconds keeps the pod forever', taints: [unreachable], tolerations: [{ operator: 'Exists' }], want: { kind: 'never' } },
    { name: 'the shortest matching toleration wins', taints: [unreachable], tolerations: [...defaults, { key: TAINT_UNREACHABLE, operator: 'Exists', tolerationSeconds: 5 }], want: { kind: 'after', seconds: 5 } },
    { name: 'a zero toleration evicts now', taints: [unreachable], tolerations: [{ key: TAINT_UNREACHABLE, operator: 'Exists', tolerationSeconds: 0 }], want: { kind: 'now' } },
    { name: 'a value mismatch is not tolerated', taints: [{ key: 'k', value: 'a', effect: 'NoExecute' }], tolerations: [{ key: 'k', value: 'b' }], want: { kind: 'now' } },
  ])('$name', ({ taints, tolerations, want }) => {
    expect(evictionDecision(taints, tolerations)).toEqual(want);
  });
});

describe('NodeLifecycleController', () => {
  it('marks a silent node Unknown, taints it unreachable, and evicts pods by their tolerations', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const transport = new FakeTransport();
    transport.seed(resources.nodes, node('True'));
    transport.seed(resources.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease' }, spec: { renewTime: '2026-01-01T00:00:00.000000Z' } });
    const podOn = (name: string, tolerations: Toleration[]): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { nodeName: 'node-1', tolerations },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    transport.seed(resources.pods, podOn('patient', [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]));
    transport.seed(resources.pods, podOn('fragile', [{ key: TAINT_NOT_READY, operator: 'Exists', effect: 'NoExecute' }]));
    transport.seed(resources.pods, podOn('stubborn', [{ operator: 'Exists' }]));
    const { client, controller } = await startOnFakeApi(transport, (client, factory) => new NodeLifecycleController(client, factory, { clock, gracePeriodMs: 40_000, monitorPeriodMs: 5000 }));
    const current = () => transport.objectsOf(resources.nodes)[0];
    const podNames = () => transport.objectsOf(resources.pods).map((p) => p.metadata.name).sort();

    await controller.monitorNodeHealth();
    clock.advance(30_000);
    await controller.monitorNodeHealth();
    expect(JSON.stringify(current().status)).not.toContain('Unknown');

    clock.advance(11_000);
    await controller.monitorNodeHealth();
    const ready = (current().status as { conditions: Record<string, unknown>[] }).conditions.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    const pressure = (current().status as { conditions: Record<string, unknown>[] }).conditions.find((c) => c.type === 'MemoryPressure');
    expect(pressure).toMatchObject({ status: 'Unknown', reason: 'NodeStatusNeverUpdated' });
    expect(transport.objectsOf(resources.pods).find((p) => p.metadata.name === 'patient')?.status).toMatchObject({ conditions: [{ type: 'Ready', status: 'False' }] });

    await until(() => JSON.stringify((current().spec as { taints?: unknown }).taints ?? []).includes(TAINT_UNREACHABLE));
    await until(() => !podNames().includes('fragile'));
    await until(() => controller.pendingEvictions().has('default/patient'));
    expect(podNames()).toEqual(['patient', 'stubborn']);

    clock.advance(300_000);
    await until(() => !podNames().includes('patient'));
    expect(podNames()).toEqual(['stubborn']);

    // the kubelet comes back: the taints go
    const back = current();
    await client.resource(resources.nodes).updateStatus({ ...back, status: node('True', {}, '2026-01-01T00:06:00Z').status });
    await until(() => ((current().spec as { taints?: unknown[] }).taints ?? []).length === 0);
  });
});
