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

  describe('ephemeral containers', () => {
    const withDebuggers = (status: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
      pod({ ephemeralContainers: [{ name: 'zeta', image: 'busybox' }, { name: 'alpha', image: 'busybox:2' }], ...extra }, status);

    it('lists them by name, waiting ContainerCreating until they run, never ready, and outside phase and readiness', () => {
      const result = status(withDebuggers(), { sandbox, containers: [container('app', 'running'), container('zeta', 'running')] });
      const statuses = result.ephemeralContainerStatuses as Array<Record<string, unknown>>;
      expect(statuses.map((entry) => entry.name)).toEqual(['alpha', 'zeta']);
      expect(statuses[0]).toEqual({ name: 'alpha', image: 'busybox:2', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} });
      expect(statuses[1]).toMatchObject({ name: 'zeta', ready: false, containerID: 'docker://zeta-0', state: { running: { startedAt: '2026-01-01T00:01:00Z' } } });
      expect(statuses[1]).not.toHaveProperty('started');
      expect(result.phase).toBe('Running');
      expect((result.conditions as Array<{ type: string; status: string }>).find((condition) => condition.type === 'Ready')?.status).toBe('True');
    });

    it('waits PodInitializing by default in a pod with init containers, and shows why it waits', () => {
      const result = status(withDebuggers({}, { initContainers: [{ name: 'setup', image: 'busybox' }] }), { sandbox, containers: [] }, { zeta: { reason: 'CreateContainerConfigError', message: 'unable to find target container app' } });
      const statuses = result.ephemeralContainerStatuses as Array<{ name: string; state: unknown }>;
      expect(statuses.find((entry) => entry.name === 'alpha')?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
      expect(statuses.find((entry) => entry.name === 'zeta')?.state).toEqual({ waiting: { reason: 'CreateContainerConfigError', message: 'unable to find target container app' } });
    });

    it('keeps what it reported for one the runtime lost: terminated stays, running becomes ContainerStatusUnknown', () => {
      const reported = {
        ephemeralContainerStatuses: [
          { name: 'alpha', image: 'busybox:2', imageID: 'x', containerID: 'docker://a', ready: false, restartCount: 0, lastState: {}, state: { terminated: { exitCode: 0, reason: 'Completed', containerID: 'docker://a' } } },
          { name: 'zeta', image: 'busybox', imageID: 'y', containerID: 'docker://z', ready: false, restartCount: 0, lastState: {}, state: { running: { startedAt: '2026-01-01T00:01:00Z' } } },
        ],
      };
      const statuses = status(withDebuggers(reported), { sandbox, containers: [container('app', 'running')] }).ephemeralContainerStatuses as Array<Record<string, unknown>>;
      expect(statuses[0]).toEqual(reported.ephemeralContainerStatuses[0]);
      expect(statuses[1]).toMatchObject({ containerID: 'docker://z', ready: false, state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' } } });
    });
  });
});
