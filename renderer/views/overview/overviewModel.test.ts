// Tests of the overview's aggregations: phases, not-ready workloads, node requests, warnings.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { countPodHealth, countPodPhases, formatCpu, formatMemory, nodeLoads, nodeUsageOf, notReadyWorkloads, podRequests, recentWarnings } from './overviewModel';

function pod(name: string, phase: string | undefined, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, ...(phase ? { status: { phase } } : {}), ...extra };
}

function container(cpu?: string, memory?: string): Record<string, unknown> {
  return { name: 'c', image: 'busybox', resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } } };
}

describe('countPodPhases', () => {
  it('counts each phase, a pod without status as Pending and an unknown phase as Unknown', () => {
    const counts = countPodPhases([pod('a', 'Running'), pod('b', 'Running'), pod('c', undefined), pod('d', 'Succeeded'), pod('e', 'Failed'), pod('f', 'Weird')]);
    expect(counts).toEqual({ Running: 2, Pending: 1, Succeeded: 1, Failed: 1, Unknown: 1 });
  });
});

describe('countPodHealth', () => {
  const status = (ready: boolean, state: Record<string, unknown>, phase = 'Running') => ({ spec: { containers: [{ name: 'c', image: 'busybox' }] }, status: { phase, containerStatuses: [{ name: 'c', ready, restartCount: 0, state }] } });
  it('counts a crash loop as failing and a 0/1 Running pod as not ready, never as Running', () => {
    const counts = countPodHealth([
      pod('ok', 'Running', status(true, { running: {} })),
      pod('probe', 'Running', status(false, { running: {} })),
      pod('crash', 'Running', status(false, { waiting: { reason: 'CrashLoopBackOff' } })),
      pod('image', 'Pending', status(false, { waiting: { reason: 'ImagePullBackOff' } }, 'Pending')),
      pod('new', 'Pending', status(false, { waiting: { reason: 'ContainerCreating' } }, 'Pending')),
      pod('done', 'Succeeded', status(false, { terminated: { exitCode: 0, reason: 'Completed' } }, 'Succeeded')),
      pod('going', 'Running', { ...status(true, { running: {} }), metadata: { name: 'going', namespace: 'default', deletionTimestamp: '2026-01-01T00:00:00Z' } }),
    ]);
    expect(counts).toEqual({ healthy: 1, 'not-ready': 1, failing: 2, pending: 1, terminating: 1, completed: 1 });
  });
});

describe('notReadyWorkloads', () => {
  const deployment = (name: string, replicas: number | undefined, ready: number | undefined, deleting = false): KubeObject => ({
    metadata: { name, namespace: 'default', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: replicas === undefined ? {} : { replicas },
    status: ready === undefined ? {} : { readyReplicas: ready },
  });
  it.each([
    { title: 'all ready', object: deployment('web', 3, 3), expected: 0 },
    { title: 'fewer ready than desired', object: deployment('web', 3, 1), expected: 1 },
    { title: 'replicas defaulting to 1 and none ready', object: deployment('web', undefined, undefined), expected: 1 },
    { title: 'scaled to zero', object: deployment('web', 0, undefined), expected: 0 },
    { title: 'being deleted', object: deployment('web', 3, 0, true), expected: 0 },
  ])('lists a deployment when $title: $expected', ({ object, expected }) => {
    expect(notReadyWorkloads([{ kindKey: 'deployments.apps', kind: 'Deployment', items: [object] }])).toHaveLength(expected);
  });

  it('reads DaemonSets from numberReady and desiredNumberScheduled, sorted by namespace then name', () => {
    const daemonSet: KubeObject = { metadata: { name: 'agent', namespace: 'kube-system' }, status: { numberReady: 0, desiredNumberScheduled: 1 } };
    const result = notReadyWorkloads([
      { kindKey: 'deployments.apps', kind: 'Deployment', items: [deployment('web', 2, 1)] },
      { kindKey: 'daemonsets.apps', kind: 'DaemonSet', items: [daemonSet] },
    ]);
    expect(result.map((item) => `${item.kind} ${item.namespace}/${item.name} ${item.ready}/${item.desired}`)).toEqual(['Deployment default/web 1/2', 'DaemonSet kube-system/agent 0/1']);
  });
});

describe('podRequests and nodeLoads', () => {
  it('takes the larger of the containers sum and any init container, plus overhead', () => {
    const spec = { containers: [container('100m', '64Mi'), container('200m')], initContainers: [container('500m', '32Mi')], overhead: { cpu: '10m' } };
    expect(podRequests(pod('a', 'Running', { spec }))).toEqual({ cpu: 510, memory: 64 * 1024 * 1024 });
  });

  it('sums the requests of non-terminated pods bound to each node', () => {
    const node: KubeObject = { metadata: { name: 'n1' }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] } };
    const pods = [
      pod('a', 'Running', { spec: { nodeName: 'n1', containers: [container('250m', '1Gi')] } }),
      pod('b', 'Pending', { spec: { nodeName: 'n1', containers: [container('250m')] } }),
      pod('c', 'Succeeded', { spec: { nodeName: 'n1', containers: [container('1')] } }),
      pod('d', 'Running', { spec: { nodeName: 'elsewhere', containers: [container('1')] } }),
      pod('e', 'Pending', { spec: { containers: [container('1')] } }),
    ];
    const usage = nodeUsageOf([{ metadata: { name: 'n1' }, usage: { cpu: '123456789n', memory: '2048Ki' } }]);
    const [load] = nodeLoads([node], pods, usage);
    expect(load).toMatchObject({ name: 'n1', ready: true, pods: 2, podCapacity: 110, allocatable: { cpu: 4000, memory: 8 * 1024 ** 3 }, requested: { cpu: 500, memory: 1024 ** 3 }, usage: { cpu: 124, memory: 2 * 1024 * 1024 } });
  });

  it.each([
    [500, '500m'],
    [2000, '2'],
    [1500, '1.5'],
  ])('formats %i millicores as %s', (value, text) => {
    expect(formatCpu(value)).toBe(text);
  });

  it('formats memory in binary units', () => {
    expect([formatMemory(512), formatMemory(1536), formatMemory(8 * 1024 ** 3)]).toEqual(['512 B', '1.5 KiB', '8.0 GiB']);
  });
});

describe('recentWarnings', () => {
  const event = (name: string, type: string, lastTimestamp: string): KubeObject =>
    ({ metadata: { name, namespace: 'default' }, type, reason: 'BackOff', message: 'back-off', lastTimestamp, involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', apiVersion: 'v1' } }) as KubeObject;

  it('keeps only Warning events, newest first, at most the limit', () => {
    const events = [event('old', 'Warning', '2026-01-01T00:00:01Z'), event('normal', 'Normal', '2026-01-01T00:00:09Z'), event('new', 'Warning', '2026-01-01T00:00:05Z'), event('mid', 'Warning', '2026-01-01T00:00:03Z')];
    expect(recentWarnings(events, 2).map((warning) => warning.key)).toEqual(['default/new', 'default/mid']);
    expect(recentWarnings(events)[0].involved).toEqual({ kind: 'Pod', name: 'web', namespace: 'default', apiVersion: 'v1' });
  });

  it('falls back to eventTime when lastTimestamp is missing', () => {
    const series = { metadata: { name: 'series', namespace: 'default' }, type: 'Warning', eventTime: '2026-01-01T00:01:00.000000Z' } as KubeObject;
    expect(recentWarnings([event('a', 'Warning', '2026-01-01T00:00:00Z'), series]).map((warning) => warning.key)).toEqual(['default/series', 'default/a']);
  });
});
