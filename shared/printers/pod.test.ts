import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { podTable, summarizePod } from './pod';

const now = new Date('2025-01-01T12:00:00Z');
const created = '2025-01-01T11:00:00Z';

function pod(spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', creationTimestamp: created, ...metadata }, spec, status };
}

const oneContainer = { containers: [{ name: 'app', image: 'nginx' }] };
const running = { running: { startedAt: created } };
const readyCondition = { type: 'Ready', status: 'True' };

describe('summarizePod', () => {
  it.each<[string, KubeObject, { ready: string; status: string; restarts: string }]>([
    [
      'a pending pod without statuses',
      pod(oneContainer, { phase: 'Pending' }),
      { ready: '0/1', status: 'Pending', restarts: '0' },
    ],
    [
      'a running ready container',
      pod(oneContainer, { phase: 'Running', conditions: [readyCondition], containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] }),
      { ready: '1/1', status: 'Running', restarts: '0' },
    ],
    [
      'a container being created',
      pod(oneContainer, { phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }),
      { ready: '0/1', status: 'ContainerCreating', restarts: '0' },
    ],
    [
      'a crash-looping container with a recent restart',
      pod(oneContainer, {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 5,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2025-01-01T11:55:00Z' } },
          },
        ],
      }),
      { ready: '0/1', status: 'CrashLoopBackOff', restarts: '5 (5m ago)' },
    ],
    [
      'a completed pod',
      pod(oneContainer, { phase: 'Succeeded', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }),
      { ready: '0/1', status: 'Completed', restarts: '0' },
    ],
    [
      'a container that exited with an error',
      pod(oneContainer, { phase: 'Failed', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }),
      { ready: '0/1', status: 'Error', restarts: '0' },
    ],
    [
      'a terminated container without a reason but with a signal',
      pod(oneContainer, { phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }] }),
      { ready: '0/1', status: 'Signal:9', restarts: '0' },
    ],
    [
      'a terminated container without a reason or signal',
      pod(oneContainer, { phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 3 } } }] }),
      { ready: '0/1', status: 'ExitCode:3', restarts: '0' },
    ],
    [
      'a pod whose status carries a reason',
      pod(oneContainer, { phase: 'Failed', reason: 'Evicted' }),
      { ready: '0/1', status: 'Evicted', restarts: '0' },
    ],
    [
      'a pod held by scheduling gates',
      pod(oneContainer, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }),
      { ready: '0/1', status: 'SchedulingGated', restarts: '0' },
    ],
    [
      'a deleting running pod',
      pod(oneContainer, { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }] }, { deletionTimestamp: '2025-01-01T11:59:00Z' }),
      { ready: '1/1', status: 'Terminating', restarts: '0' },
    ],
    [
      'a deleting pod that already succeeded',
      pod(oneContainer, { phase: 'Succeeded', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, { deletionTimestamp: '2025-01-01T11:59:00Z' }),
      { ready: '0/1', status: 'Completed', restarts: '0' },
    ],
    [
      'a deleting pod on an unreachable node',
      pod(oneContainer, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: '2025-01-01T11:59:00Z' }),
      { ready: '0/1', status: 'Unknown', restarts: '0' },
    ],
    [
      'a pod on an unreachable node that is not being deleted',
      pod(oneContainer, { phase: 'Running', reason: 'NodeLost' }),
      { ready: '0/1', status: 'NodeLost', restarts: '0' },
    ],
    [
      'a pod with two containers where one completed and one still runs',
      pod(
        { containers: [{ name: 'a' }, { name: 'b' }] },
        {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'False' }],
          containerStatuses: [
            { name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
            { name: 'b', ready: true, restartCount: 0, state: running },
          ],
        },
      ),
      { ready: '1/2', status: 'NotReady', restarts: '0' },
    ],
  ])('summarizes %s', (_description, object, expected) => {
    expect(summarizePod(object, now)).toEqual(expected);
  });

  const twoInitContainers = { initContainers: [{ name: 'init-a' }, { name: 'init-b' }], containers: [{ name: 'app' }] };

  it.each<[string, Record<string, unknown>[], string]>([
    ['the first init container runs', [{ name: 'init-a', restartCount: 0, state: running }, { name: 'init-b', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }], 'Init:0/2'],
    ['the second init container runs', [{ name: 'init-a', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { name: 'init-b', restartCount: 0, state: running }], 'Init:1/2'],
    ['an init container crash-loops', [{ name: 'init-a', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }], 'Init:CrashLoopBackOff'],
    ['an init container failed', [{ name: 'init-a', restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }], 'Init:Error'],
    ['an init container failed without a reason', [{ name: 'init-a', restartCount: 0, state: { terminated: { exitCode: 2 } } }], 'Init:ExitCode:2'],
    ['an init container was killed by a signal', [{ name: 'init-a', restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }], 'Init:Signal:9'],
  ])('reports init progress when %s', (_description, initContainerStatuses, expected) => {
    const object = pod(twoInitContainers, { phase: 'Pending', initContainerStatuses, containerStatuses: [{ name: 'app', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }] });
    expect(summarizePod(object, now).status).toBe(expected);
  });

  it('counts init container restarts while initializing', () => {
    const object = pod(twoInitContainers, {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'init-a', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T11:58:00Z' } } },
      ],
    });
    expect(summarizePod(object, now)).toEqual({ ready: '0/1', status: 'Init:CrashLoopBackOff', restarts: '3 (2m ago)' });
  });

  it('counts a started sidecar as a container and its restarts once initialized', () => {
    const object = pod(
      { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }, readyCondition],
        initContainerStatuses: [
          { name: 'proxy', ready: true, started: true, restartCount: 2, state: running, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T10:00:00Z' } } },
        ],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 1, state: running, lastState: { terminated: { exitCode: 1, finishedAt: '2025-01-01T11:30:00Z' } } }],
      },
    );
    expect(summarizePod(object, now)).toEqual({ ready: '2/2', status: 'Running', restarts: '3 (30m ago)' });
  });

  it('prints restarts without a suffix when no termination time is known', () => {
    const object = pod(oneContainer, { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 2, state: running }] });
    expect(summarizePod(object, now).restarts).toBe('2');
  });
});

describe('podTable', () => {
  it('has the upstream columns, wide ones at priority 1', () => {
    expect(podTable.columns.map((column) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0],
      ['Ready', 'string', 0],
      ['Status', 'string', 0],
      ['Restarts', 'string', 0],
      ['Age', 'string', 0],
      ['IP', 'string', 1],
      ['Node', 'string', 1],
      ['Nominated Node', 'string', 1],
      ['Readiness Gates', 'string', 1],
    ]);
    expect(podTable.columns[0].format).toBe('name');
  });

  it('prints <none> for unset wide cells', () => {
    expect(podTable.row(pod(oneContainer, { phase: 'Pending' }), now)).toEqual(['web', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('prints IP, node, nominated node and readiness gates', () => {
    const object = pod(
      { ...oneContainer, nodeName: 'node-1', readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
      {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.5' }],
        nominatedNodeName: 'node-2',
        conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
      },
    );
    expect(podTable.row(object, now).slice(5)).toEqual(['10.0.0.5', 'node-1', 'node-2', '1/2']);
  });

  it('falls back to status.podIP when podIPs is absent', () => {
    expect(podTable.row(pod(oneContainer, { phase: 'Running', podIP: '10.0.0.9' }), now)[5]).toBe('10.0.0.9');
  });
});
