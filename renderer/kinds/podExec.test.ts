import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { execAvailability } from './podExec';

function pod(phase: string, statuses: Record<string, unknown>[], options: { annotations?: Record<string, string>; containers?: string[] } = {}): KubeObject {
  return {
    metadata: { name: 'p', namespace: 'default', annotations: options.annotations },
    spec: { initContainers: [{ name: 'setup', image: 'busybox' }], containers: (options.containers ?? ['web', 'side']).map((name) => ({ name, image: 'busybox' })) },
    status: { phase, containerStatuses: statuses },
  };
}

const running = (name: string) => ({ name, ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:00Z' } } });
const crashing = (name: string) => ({ name, ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } }, lastState: { terminated: { reason: 'Error', exitCode: 1 } } });

describe('whether a shell can open in a container', () => {
  it('allows a running container and picks the default container when none is named', () => {
    expect(execAvailability(pod('Running', [running('web'), running('side')]))).toEqual({ container: 'web', enabled: true });
    expect(execAvailability(pod('Running', [running('web'), running('side')], { annotations: { 'kubectl.kubernetes.io/default-container': 'side' } })).container).toBe('side');
  });

  it('refuses a container in CrashLoopBackOff, for the header and its row alike', () => {
    const crashLooping = pod('Running', [crashing('web')], { containers: ['web'] });
    const header = execAvailability(crashLooping);
    const row = execAvailability(crashLooping, 'web');
    expect(header).toEqual(row);
    expect(header).toEqual({ container: 'web', enabled: false, reason: 'container web is not running (waiting: CrashLoopBackOff)' });
  });

  it('judges each container on its own state', () => {
    const mixed = pod('Running', [crashing('web'), running('side')]);
    expect(execAvailability(mixed, 'side').enabled).toBe(true);
    expect(execAvailability(mixed, 'web').enabled).toBe(false);
  });

  it.each([
    ['a completed pod', pod('Succeeded', [{ name: 'web', state: { terminated: { reason: 'Completed', exitCode: 0 } } }]), 'cannot exec into a container in a completed pod; current phase is Succeeded'],
    ['a failed pod even with a running status left over', pod('Failed', [running('web')]), 'cannot exec into a container in a completed pod; current phase is Failed'],
    ['a terminated container', pod('Running', [{ name: 'web', state: { terminated: { reason: 'Error', exitCode: 2 } } }]), 'container web is not running (Error, exit code 2)'],
    ['a container with no status yet', pod('Pending', []), 'container web has not started'],
  ])('refuses %s', (_case, object, reason) => {
    expect(execAvailability(object)).toMatchObject({ enabled: false, reason });
  });

  it('refuses a container the pod does not have', () => {
    expect(execAvailability(pod('Running', [running('web')]), 'nope')).toMatchObject({ enabled: false, reason: 'the pod has no container nope' });
  });
});
