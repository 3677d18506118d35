import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { computePodStatus, podPhase, type ObservedPod, type WaitingReason } from './podStatus';
import type { ContainerStatus, SandboxStatus } from './runtime/containerRuntime';

const now = new Date('2026-01-01T00:10:00Z');
const sandbox: SandboxStatus = { id: 'sb', podUid: 'u', podName: 'p', namespace: 'default', attempt: 0, state: 'ready', ip: '10.1.0.5', createdAt: new Date('2026-01-01T00:00:00Z'), labels: {} };

function container(name: string, state: ContainerStatus['state'], extra: Partial<ContainerStatus> = {}): ContainerStatus {
  return {
    id: `${name}-${extra.restartCount ?? 0}`,
    sandboxId: 'sb',
    podUid: 'u',
    name,
    init: false,
    image: 'busybox',
    imageId: 'docker://sha256:abc',
    state,
    createdAt: new Date(`2026-01-01T00:0${extra.restartCount ?? 0}:00Z`),
    startedAt: new Date('2026-01-01T00:01:00Z'),
    finishedAt: state === 'exited' ? new Date('2026-01-01T00:02:00Z') : undefined,
    exitCode: state === 'exited' ? 0 : undefined,
    restartCount: 0,
    specHash: '',
    labels: {},
    ...extra,
  };
}

function pod(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec }, status };
}

function status(p: KubeObject, observed: ObservedPod, waiting: Record<string, WaitingReason> = {}, ready = true) {
  return computePodStatus({ pod: p, observed, waiting: new Map(Object.entries(waiting)), probes: { ready: () => ready, started: () => true }, hostIP: '10.1.0.1', now });
}

describe('computePodStatus', () => {
  it('reports a running container as Running and Ready with the sandbox IP', () => {
    const result = status(pod({}), { sandbox, containers: [container('app', 'running')] });
    expect(result.phase).toBe('Running');
    expect(result.podIP).toBe('10.1.0.5');
    const conditions = result.conditions as { type: string; status: string }[];
    expect(Object.fromEntries(conditions.map((c) => [c.type, c.status]))).toMatchObject({ Ready: 'True', ContainersReady: 'True', Initialized: 'True', PodReadyToStartContainers: 'True' });
    expect((result.containerStatuses as { containerID: string; ready: boolean }[])[0]).toMatchObject({ containerID: 'docker://app-0', ready: true, started: true });
  });

  it('shows ContainerCreating before any container exists', () => {
    const result = status(pod({}), { sandbox, containers: [] });
    expect(result.phase).toBe('Pending');
    expect((result.containerStatuses as { state: unknown }[])[0].state).toEqual({ waiting: { reason: 'ContainerCreating' } });
  });

  it('reports CrashLoopBackOff with the last termination after a restart', () => {
    const crashed = container('app', 'exited', { exitCode: 1, restartCount: 3 });
    const result = status(pod({}), { sandbox, containers: [crashed] }, { app: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=app pod=p_default(u)' } });
    const containerStatus = (result.containerStatuses as Record<string, unknown>[])[0];
    expect(containerStatus.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container=app pod=p_default(u)' } });
    expect(containerStatus.lastState).toMatchObject({ terminated: { exitCode: 1, reason: 'Error' } });
    expect(containerStatus.restartCount).toBe(3);
    expect(result.phase).toBe('Running');
  });

  it('keeps a pod with unready containers Running but not Ready', () => {
    const result = status(pod({ containers: [{ name: 'app', image: 'busybox', readinessProbe: { tcpSocket: { port: 80 } } }] }), { sandbox, containers: [container('app', 'running')] }, {}, false);
    expect(result.phase).toBe('Running');
    const ready = (result.conditions as { type: string; status: string; reason?: string; message?: string }[]).find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
  });

  it('waits on init containers and reports PodInitializing for app containers', () => {
    const p = pod({ initContainers: [{ name: 'setup', image: 'busybox' }] });
    const result = status(p, { sandbox, containers: [{ ...container('setup', 'running'), init: true }] });
    expect(result.phase).toBe('Pending');
    expect((result.containerStatuses as { state: unknown }[])[0].state).toEqual({ waiting: { reason: 'PodInitializing' } });
    const initialized = (result.conditions as { type: string; status: string; message?: string }[]).find((c) => c.type === 'Initialized');
    expect(initialized).toMatchObject({ status: 'False', message: 'containers with incomplete status: [setup]' });
  });

  it('keeps the transition time of an unchanged condition', () => {
    const first = status(pod({}), { sandbox, containers: [container('app', 'running')] });
    const again = computePodStatus({ pod: pod({}, first), observed: { sandbox, containers: [container('app', 'running')] }, waiting: new Map(), probes: { ready: () => true, started: () => true }, hostIP: '10.1.0.1', now: new Date('2026-01-01T01:00:00Z') });
    expect(again.conditions).toEqual(first.conditions);
  });
});

describe('podPhase', () => {
  const terminated = (exitCode: number) => ({ name: 'c', state: { terminated: { exitCode } } });
  const running = { name: 'c', state: { running: {} } };
  it.each([
    ['Always with an exited container stays Running', 'Always', [terminated(0)], 'Running'],
    ['Never with success is Succeeded', 'Never', [terminated(0)], 'Succeeded'],
    ['Never with a failure is Failed', 'Never', [terminated(0), terminated(2)], 'Failed'],
    ['OnFailure with success is Succeeded', 'OnFailure', [terminated(0)], 'Succeeded'],
    ['OnFailure with a failure restarts, so Running', 'OnFailure', [terminated(1)], 'Running'],
    ['a running container is Running', 'Never', [running, terminated(0)], 'Running'],
  ])('%s', (_name, restartPolicy, statuses, expected) => {
    expect(podPhase({ restartPolicy }, [], statuses as Record<string, unknown>[], undefined)).toBe(expected);
  });

  it('fails a Never pod whose init container failed', () => {
    expect(podPhase({ restartPolicy: 'Never' }, [{ name: 'i', state: { terminated: { exitCode: 1 } } }], [{ name: 'c', state: { waiting: { reason: 'PodInitializing' } } }], undefined)).toBe('Failed');
  });
});
