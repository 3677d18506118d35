import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { EventRecorder } from '../client/eventRecorder';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import type { Node, Pod } from './api';
import { Scheduler } from './scheduler';
import { makeNode, makePod, type PodOptions } from '../../test/fixtures/schedulerObjects';
import { until } from '../../test/fixtures/until';

interface Harness {
  transport: FakeTransport;
  client: ApiClient;
  scheduler: Scheduler;
  recorder: EventRecorder;
  stop(): Promise<void>;
}

let current: Harness | undefined;

afterEach(async () => {
  await current?.stop();
  current = undefined;
});

async function startScheduler(nodes: Node[], options: { schedulerName?: string } = {}): Promise<Harness> {
  const transport = new FakeTransport();
  transport.seed(resources.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  for (const node of nodes) transport.seed(resources.nodes, node);
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const recorder = new EventRecorder(client, { component: 'default-scheduler' });
  const scheduler = new Scheduler(client, factory, recorder, { schedulerName: options.schedulerName, initialBackoffMs: 5, maxBackoffMs: 20, random: () => 0.5, onError: () => undefined });
  factory.start();
  scheduler.start();
  await factory.waitForCacheSync();
  current = {
    transport,
    client,
    scheduler,
    recorder,
    stop: async () => {
      await scheduler.dispose();
      await recorder.flush();
      factory.dispose();
    },
  };
  return current;
}

function createPod(harness: Harness, name: string, options: PodOptions = {}): Promise<KubeObject> {
  const { status: _status, ...pod } = makePod(name, options);
  return harness.client.resource(resources.pods).create(pod);
}

function pods(harness: Harness): Pod[] {
  return harness.transport.objectsOf(resources.pods) as Pod[];
}

function nodeOf(harness: Harness, name: string): string | undefined {
  return pods(harness).find((pod) => pod.metadata.name === name)?.spec?.nodeName;
}

function events(harness: Harness, reason: string): KubeObject[] {
  return harness.transport.objectsOf(resources.events).filter((event) => event.reason === reason);
}

const zones = (count: number) => Array.from({ length: count }, (_, index) => makeNode(`node-${index + 1}`, { labels: { 'topology.kubernetes.io/zone': `zone-${index + 1}` } }));

describe('Scheduler', () => {
  it('binds a pod to the only node it fits and records Scheduled', async () => {
    const harness = await startScheduler([makeNode('small', { cpu: '1' }), makeNode('large', { cpu: '8' })]);
    await createPod(harness, 'web', { cpu: '2' });
    await until(() => nodeOf(harness, 'web') === 'large', 'binding');
    await until(() => events(harness, 'Scheduled').length === 1, 'Scheduled event');
    expect(events(harness, 'Scheduled')[0]).toMatchObject({
      type: 'Normal',
      message: 'Successfully assigned default/web to large',
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
      source: { component: 'default-scheduler' },
    });
  });

  it('spreads replicas over three nodes with a topology spread constraint', async () => {
    const harness = await startScheduler(zones(3));
    const spread = [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }];
    await Promise.all([0, 1, 2, 3, 4, 5].map((index) => createPod(harness, `web-${index}`, { labels: { app: 'web' }, spread })));
    await until(() => pods(harness).every((pod) => pod.spec?.nodeName), 'all bound');
    const perNode = new Map<string, number>();
    for (const pod of pods(harness)) perNode.set(pod.spec?.nodeName ?? '', (perNode.get(pod.spec?.nodeName ?? '') ?? 0) + 1);
    expect([...perNode.values()]).toEqual([2, 2, 2]);
  });

  it('does not overcommit a node when a burst of pods arrives at once', async () => {
    const harness = await startScheduler([makeNode('only', { cpu: '2' })]);
    await Promise.all([0, 1, 2].map((index) => createPod(harness, `burst-${index}`, { cpu: '1' })));
    await until(() => pods(harness).filter((pod) => pod.spec?.nodeName).length === 2 && events(harness, 'FailedScheduling').length >= 1, 'two bound, one rejected');
    expect(pods(harness).filter((pod) => !pod.spec?.nodeName)).toHaveLength(1);
  });

  it('keeps replicas with required anti-affinity on different nodes and leaves the extra one Pending', async () => {
    const harness = await startScheduler(zones(2));
    const affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    for (const index of [0, 1, 2]) await createPod(harness, `db-${index}`, { labels: { app: 'db' }, affinity });
    await until(() => pods(harness).filter((pod) => pod.spec?.nodeName).length === 2 && events(harness, 'FailedScheduling').length >= 1, 'two bound');
    expect(new Set(pods(harness).map((pod) => pod.spec?.nodeName).filter(Boolean)).size).toBe(2);
    expect(events(harness, 'FailedScheduling')[0].message).toBe(
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
    );
  });

  it('leaves an impossible pod Pending with the upstream message, then schedules it once a node fits', async () => {
    const controlPlane = makeNode('control-plane', { cpu: '8', taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] });
    const harness = await startScheduler([controlPlane, makeNode('worker-1', { cpu: '2' }), makeNode('worker-2', { cpu: '2' })]);
    await createPod(harness, 'big', { cpu: '4' });
    const message = '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
    const condition = () => pods(harness)[0].status?.conditions?.find((entry) => entry.type === 'PodScheduled');
    await until(() => condition() !== undefined && events(harness, 'FailedScheduling').length === 1, 'failure recorded');
    expect(condition()).toMatchObject({ status: 'False', reason: 'Unschedulable', message });
    expect(events(harness, 'FailedScheduling')[0]).toMatchObject({ type: 'Warning', message, involvedObject: { kind: 'Pod', name: 'big' } });
    expect(nodeOf(harness, 'big')).toBeUndefined();
    expect(harness.scheduler.queueStats()).toMatchObject({ unschedulable: 1 });

    await harness.client.resource(resources.nodes).create(makeNode('worker-3', { cpu: '8' }));
    await until(() => nodeOf(harness, 'big') === 'worker-3', 'scheduled on the new node');
  });

  it('retries a pod rejected for a NotReady node once the node turns Ready', async () => {
    const harness = await startScheduler([makeNode('node-1', { ready: 'False' })]);
    await createPod(harness, 'web');
    await until(() => events(harness, 'FailedScheduling').length === 1, 'failure recorded');
    expect(events(harness, 'FailedScheduling')[0].message).toBe('0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.');
    await harness.client.resource(resources.nodes).updateStatus(makeNode('node-1'));
    await until(() => nodeOf(harness, 'web') === 'node-1', 'scheduled after Ready');
  });

  it('preempts a lower-priority pod to make room for a higher-priority one', async () => {
    const harness = await startScheduler([makeNode('node-1', { cpu: '2' })]);
    await createPod(harness, 'low', { cpu: '1500m', priority: 0 });
    await until(() => nodeOf(harness, 'low') === 'node-1', 'low bound');
    await createPod(harness, 'high', { cpu: '1', priority: 1000 });
    await until(() => nodeOf(harness, 'high') === 'node-1', 'high bound after preemption');
    expect(pods(harness).map((pod) => pod.metadata.name)).toEqual(['high']);
    await until(() => events(harness, 'Preempted').length === 1, 'Preempted event');
  });

  it('ignores pods of other schedulers and pods with scheduling gates', async () => {
    const harness = await startScheduler(zones(1));
    await createPod(harness, 'other', { schedulerName: 'my-scheduler' });
    await createPod(harness, 'gated', { schedulingGates: [{ name: 'example.com/wait' }] });
    await createPod(harness, 'mine');
    await until(() => nodeOf(harness, 'mine') === 'node-1', 'own pod bound');
    expect(nodeOf(harness, 'other')).toBeUndefined();
    expect(nodeOf(harness, 'gated')).toBeUndefined();
    const gated = pods(harness).find((pod) => pod.metadata.name === 'gated');
    if (!gated) throw new Error('gated pod missing');
    await harness.client.resource(resources.pods).update({ ...gated, spec: { ...gated.spec, schedulingGates: [] } });
    await until(() => nodeOf(harness, 'gated') === 'node-1', 'ungated pod bound');
  });

  it('reports a cluster without nodes with upstream error text', async () => {
    const harness = await startScheduler([]);
    await createPod(harness, 'web');
    await until(() => events(harness, 'FailedScheduling').length === 1, 'failure recorded');
    expect(events(harness, 'FailedScheduling')[0].message).toBe('no nodes available to schedule pods');
    expect(pods(harness)[0].status?.conditions?.[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'SchedulerError' });
  });
});
