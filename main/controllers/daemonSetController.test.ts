import { describe, expect, it } from 'vitest';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi, type ComponentOnFakeApi } from '../../test/doubles/fakeApi';
import { runPods } from '../../test/doubles/kubeletStandIn';
import { resources } from '../client/resources';
import type { KubeObject } from '../../shared/kubernetes/types';
import { DAEMONSET_HASH_LABEL, DaemonSetController, defaultDaemonTolerations, nodeShouldRunDaemonPod, scaledValue, targetNodeName, withNodeNameAffinity } from './daemonSetController';

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function node(name: string, extra: { labels?: Record<string, string>; taints?: unknown[] } = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(extra.labels ?? {}) } }, spec: extra.taints ? { taints: extra.taints } : {} };
}

function daemonSet(overrides: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }], ...podSpec } },
      ...overrides,
    },
  };
}

interface Harness extends ComponentOnFakeApi<DaemonSetController> {
  pods(): KubeObject[];
  nodesOfPods(): string[];
  status(): Record<string, unknown>;
  runPods(): Promise<void>;
}

async function start(nodes: KubeObject[], ds: KubeObject): Promise<Harness> {
  const transport = new FakeTransport();
  for (const item of nodes) transport.seed(resources.nodes, item);
  transport.seed(resources.daemonsets, ds);
  const started = await startOnFakeApi(transport, (client, factory) => new DaemonSetController(client, factory));
  const pods = () => transport.objectsOf(resources.pods);
  const harness: Harness = {
    ...started,
    pods,
    nodesOfPods: () => pods().map((pod) => targetNodeName(pod) ?? '?').sort(),
    status: () => (transport.objectsOf(resources.daemonsets)[0].status ?? {}) as Record<string, unknown>,
    runPods: () => runPods(started.client, pods(), { ignoreErrors: true }),
  };
  return harness;
}

async function runUntil(harness: Harness, what: string, check: () => boolean): Promise<void> {
  await until(what, () => {
    void harness.runPods();
    return check();
  });
}

const noSchedule = { key: 'dedicated', value: 'db', effect: 'NoSchedule' };

describe('DaemonSetController', () => {
  it('runs one pod per eligible node, bound by node affinity, with the daemon tolerations, and reports status', async () => {
    const harness = await start([node('a'), node('b'), node('c', { taints: [noSchedule] })], daemonSet());
    await runUntil(harness, 'two ready pods', () => harness.status().numberReady === 2 && harness.status().numberAvailable === 2);
    expect(harness.nodesOfPods()).toEqual(['a', 'b']);
    const pod = harness.pods()[0];
    const revision = harness.transport.objectsOf(resources.controllerrevisions)[0];
    expect(pod.metadata.generateName).toBe('agent-');
    expect(pod.metadata.labels).toEqual({ app: 'agent', [DAEMONSET_HASH_LABEL]: revision.metadata.labels?.[DAEMONSET_HASH_LABEL] });
    expect((pod.spec as { tolerations: unknown[] }).tolerations).toEqual(defaultDaemonTolerations(false));
    expect(harness.status()).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 2, numberMisscheduled: 0, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2, observedGeneration: 1 });
    expect(harness.status().numberUnavailable).toBeUndefined();
    const events = harness.transport.objectsOf(resources.events).map((event) => `${String(event.reason)}: ${String(event.message)}`);
    expect(events).toContain(`SuccessfulCreate: Created pod: ${pod.metadata.name ?? ''}`);
  });

  it('runs on a tainted node when the template tolerates the taint, and follows nodeSelector', async () => {
    const harness = await start([node('a', { labels: { disk: 'ssd' } }), node('b'), node('c', { labels: { disk: 'ssd' }, taints: [noSchedule] })], daemonSet({}, { nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'dedicated', operator: 'Exists' }] }));
    await until('two pods', () => harness.pods().length === 2);
    expect(harness.nodesOfPods()).toEqual(['a', 'c']);
  });

  it('keeps a pod on a node that gains a NoSchedule taint, but removes it for an untolerated NoExecute taint', async () => {
    const harness = await start([node('a'), node('b')], daemonSet());
    await runUntil(harness, 'two ready pods', () => harness.status().numberReady === 2);
    await harness.client.resource(resources.nodes).patch(undefined, 'b', { spec: { taints: [noSchedule] } }, 'merge');
    await until('b counted as not desired', () => harness.status().desiredNumberScheduled === 1 && harness.status().numberMisscheduled === 1);
    expect(harness.pods()).toHaveLength(2);
    await harness.client.resource(resources.nodes).patch(undefined, 'b', { spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoExecute' }] } }, 'merge');
    await until('pod on b deleted', () => harness.nodesOfPods().join() === 'a');
    await until('status', () => harness.status().numberMisscheduled === 0 && harness.status().currentNumberScheduled === 1);
  });

  it('creates a pod for a node that joins and deletes the pod of a node whose labels stop matching', async () => {
    const harness = await start([node('a', { labels: { role: 'edge' } })], daemonSet({}, { nodeSelector: { role: 'edge' } }));
    await until('one pod', () => harness.pods().length === 1);
    await harness.client.resource(resources.nodes).create(node('b', { labels: { role: 'edge' } }));
    await until('two pods', () => harness.nodesOfPods().join() === 'a,b');
    await harness.client.resource(resources.nodes).patch(undefined, 'a', { metadata: { labels: { role: null } } }, 'merge');
    await until('pod on a deleted', () => harness.nodesOfPods().join() === 'b');
  });

  it('rolls a new template out one node at a time with maxUnavailable 1', async () => {
    const harness = await start([node('a'), node('b'), node('c')], daemonSet());
    await runUntil(harness, 'three ready pods', () => harness.status().numberReady === 3);
    const names = new Set(harness.pods().map((pod) => pod.metadata.name));
    await harness.client.resource(resources.daemonsets).patch('default', 'agent', { spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } }, 'merge');
    let mostMissing = 0;
    await until('rolled out', () => {
      mostMissing = Math.max(mostMissing, 3 - harness.pods().length);
      void harness.runPods();
      const status = harness.status();
      return status.observedGeneration === 2 && status.updatedNumberScheduled === 3 && status.numberAvailable === 3;
    });
    expect(mostMissing).toBeLessThanOrEqual(1);
    expect(harness.pods().some((pod) => names.has(pod.metadata.name))).toBe(false);
    expect(harness.transport.objectsOf(resources.controllerrevisions).map((revision) => revision.revision).sort()).toEqual([1, 2]);
  });

  it('starts the new pod before removing the old one with maxSurge', async () => {
    const harness = await start([node('a'), node('b')], daemonSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }));
    await runUntil(harness, 'two ready pods', () => harness.status().numberReady === 2);
    await harness.client.resource(resources.daemonsets).patch('default', 'agent', { spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } }, 'merge');
    let fewest = 2;
    let most = 2;
    await until('rolled out', () => {
      const live = harness.pods().filter((pod) => !pod.metadata.deletionTimestamp).length;
      fewest = Math.min(fewest, live);
      most = Math.max(most, live);
      void harness.runPods();
      const status = harness.status();
      return status.observedGeneration === 2 && status.updatedNumberScheduled === 2 && status.numberAvailable === 2 && harness.pods().length === 2;
    });
    expect(fewest).toBe(2);
    expect(most).toBe(3);
  });

  it('leaves old pods alone with OnDelete', async () => {
    const harness = await start([node('a'), node('b')], daemonSet({ updateStrategy: { type: 'OnDelete' } }));
    await runUntil(harness, 'two ready pods', () => harness.status().numberReady === 2);
    await harness.client.resource(resources.daemonsets).patch('default', 'agent', { spec: { template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } }, 'merge');
    await until('observed', () => harness.status().observedGeneration === 2);
    expect(harness.status().updatedNumberScheduled).toBeUndefined();
    expect(harness.pods()).toHaveLength(2);
  });

  it('replaces a failed daemon pod with a warning', async () => {
    const harness = await start([node('a')], daemonSet());
    await until('one pod', () => harness.pods().length === 1);
    const failed = harness.pods()[0].metadata.name ?? '';
    await harness.client.resource(resources.pods).patchStatus('default', failed, { status: { phase: 'Failed' } }, 'merge');
    await until('replaced', () => harness.pods().length === 1 && harness.pods()[0].metadata.name !== failed);
    const events = harness.transport.objectsOf(resources.events).map((event) => String(event.reason));
    expect(events).toContain('FailedDaemonPod');
  });
});

describe('daemonset helpers', () => {
  const ds = daemonSet();
  it.each([
    ['a plain node', node('n'), { shouldRun: true, shouldContinueRunning: true }],
    ['an untolerated NoSchedule taint', node('n', { taints: [noSchedule] }), { shouldRun: false, shouldContinueRunning: true }],
    ['an untolerated NoExecute taint', node('n', { taints: [{ key: 'x', effect: 'NoExecute' }] }), { shouldRun: false, shouldContinueRunning: false }],
    ['the unschedulable taint (tolerated by default)', node('n', { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] }), { shouldRun: true, shouldContinueRunning: true }],
    ['the not-ready NoExecute taint (tolerated by default)', node('n', { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] }), { shouldRun: true, shouldContinueRunning: true }],
    ['a PreferNoSchedule taint', node('n', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }), { shouldRun: true, shouldContinueRunning: true }],
  ])('decides for %s', (_what, item, expected) => {
    expect(nodeShouldRunDaemonPod(item, ds)).toEqual(expected);
  });

  it('honours required node affinity', () => {
    const withAffinity = daemonSet({}, { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }] } } } });
    expect(nodeShouldRunDaemonPod(node('n', { labels: { zone: 'z1' } }), withAffinity).shouldRun).toBe(true);
    expect(nodeShouldRunDaemonPod(node('n', { labels: { zone: 'z2' } }), withAffinity).shouldRun).toBe(false);
  });

  it('replaces required node affinity with the node name and reads it back', () => {
    const spec = withNodeNameAffinity({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [] }] } } } }, 'n1');
    expect(spec.affinity).toEqual({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] } } });
    expect(targetNodeName({ metadata: {}, spec })).toBe('n1');
    expect(targetNodeName({ metadata: {}, spec: { nodeName: 'n2' } })).toBe('n2');
  });

  it.each([
    [1, 10, 1],
    ['25%', 10, 3],
    ['0%', 10, 0],
    ['10%', 1, 1],
    [undefined, 5, 7],
  ])('scales %s of %i to %i', (value, total, expected) => {
    expect(scaledValue(value, total, 7)).toBe(expected);
  });
});
