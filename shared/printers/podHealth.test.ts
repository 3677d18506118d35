// Tests of pod health from kubectl's STATUS and READY: only Running-and-ready is healthy.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { healthOfSummary, podHealth, readyCounts } from './podHealth';

const now = new Date('2026-01-01T12:00:00Z');
const containers = { containers: [{ name: 'app', image: 'busybox' }] };

function pod(status: Record<string, unknown>, metadata: Record<string, unknown> = {}, spec: Record<string, unknown> = containers): KubeObject {
  return { metadata: { name: 'p', namespace: 'default', ...metadata }, spec, status };
}

function waiting(reason: string, phase = 'Pending'): KubeObject {
  return pod({ phase, containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason } } }] });
}

describe('healthOfSummary', () => {
  it.each([
    { status: 'Running', ready: '1/1', expected: 'healthy' },
    { status: 'Running', ready: '2/2', expected: 'healthy' },
    { status: 'Running', ready: '0/1', expected: 'not-ready' },
    { status: 'Running', ready: '1/2', expected: 'not-ready' },
    { status: 'Running', ready: '0/0', expected: 'not-ready' },
    { status: 'NotReady', ready: '1/2', expected: 'not-ready' },
    { status: 'Completed', ready: '0/1', expected: 'completed' },
    { status: 'Succeeded', ready: '0/1', expected: 'completed' },
    { status: 'Terminating', ready: '1/1', expected: 'terminating' },
    { status: 'Pending', ready: '0/1', expected: 'pending' },
    { status: 'ContainerCreating', ready: '0/1', expected: 'pending' },
    { status: 'PodInitializing', ready: '0/1', expected: 'pending' },
    { status: 'Init:0/2', ready: '0/1', expected: 'pending' },
    { status: 'SchedulingGated', ready: '0/1', expected: 'pending' },
    { status: 'CrashLoopBackOff', ready: '0/1', expected: 'failing' },
    { status: 'ImagePullBackOff', ready: '0/1', expected: 'failing' },
    { status: 'ErrImagePull', ready: '0/1', expected: 'failing' },
    { status: 'ErrImageNeverPull', ready: '0/1', expected: 'failing' },
    { status: 'CreateContainerConfigError', ready: '0/1', expected: 'failing' },
    { status: 'Error', ready: '0/1', expected: 'failing' },
    { status: 'OOMKilled', ready: '0/1', expected: 'failing' },
    { status: 'Init:CrashLoopBackOff', ready: '0/1', expected: 'failing' },
    { status: 'Init:Error', ready: '0/1', expected: 'failing' },
    { status: 'Unknown', ready: '0/1', expected: 'failing' },
    { status: 'Evicted', ready: '0/1', expected: 'failing' },
    { status: 'ExitCode:3', ready: '0/1', expected: 'failing' },
  ])('reads STATUS $status with READY $ready as $expected', ({ status, ready, expected }) => {
    expect(healthOfSummary({ status, ready })).toBe(expected);
  });

  it('parses the READY cell', () => {
    expect(readyCounts('3/4')).toEqual({ ready: 3, total: 4 });
    expect(readyCounts('n/a')).toEqual({ ready: 0, total: 0 });
  });
});

describe('podHealth', () => {
  it('calls a running pod whose readiness probe fails not ready, not healthy', () => {
    const notReady = pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { running: { startedAt: '2026-01-01T11:00:00Z' } } }] });
    expect(podHealth(notReady, now)).toBe('not-ready');
  });

  it('calls a crash-looping pod failing although its phase is Running', () => {
    const crashing = pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-01-01T11:59:00Z' } } }] });
    expect(podHealth(crashing, now)).toBe('failing');
  });

  it('calls image and configuration errors failing although the phase is Pending', () => {
    expect(podHealth(waiting('ImagePullBackOff'), now)).toBe('failing');
    expect(podHealth(waiting('ErrImagePull'), now)).toBe('failing');
    expect(podHealth(waiting('CreateContainerConfigError'), now)).toBe('failing');
    expect(podHealth(waiting('ContainerCreating'), now)).toBe('pending');
  });

  it('calls a running ready pod healthy and a deleted one terminating', () => {
    const running = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: {} } }] };
    expect(podHealth(pod(running), now)).toBe('healthy');
    expect(podHealth(pod(running, { deletionTimestamp: '2026-01-01T11:59:59Z' }), now)).toBe('terminating');
  });

  it('calls a pod still in its init containers pending', () => {
    const spec = { ...containers, initContainers: [{ name: 'init', image: 'busybox' }] };
    const initializing = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: { running: {} } }] }, {}, spec);
    expect(podHealth(initializing, now)).toBe('pending');
  });
});
