// The desktop cluster's port choice: 6443 first (kube-apiserver's usual secure port), any free port
// when 6443 is taken; other start failures are not retried. Cluster.start is a fake here.
import { describe, expect, it } from 'vitest';
import type { ClusterOptions } from '../cluster';
import { countPodHealth, isAddressInUse, localClusterControl, startPreferringPort } from './clusterControl';

const options: ClusterOptions = { dataDir: '/tmp/kubedesk-unused', port: 6443, kubeconfigPath: '/tmp/kubeconfig-unused', nodes: 1 };

function systemError(code: string): Error {
  return Object.assign(new Error(`listen ${code}: 127.0.0.1:6443`), { code, syscall: 'listen' });
}

/** A fake Cluster.start: fails with the given outcomes in turn, then starts; records the ports tried. */
function fakeStart(failures: Error[]): { start: (options: ClusterOptions) => Promise<string>; ports: number[] } {
  const ports: number[] = [];
  return {
    ports,
    start: (attempt) => {
      ports.push(attempt.port);
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve(`started on ${attempt.port}`);
    },
  };
}

describe('startPreferringPort', () => {
  const cases: { name: string; port: number; failures: Error[]; ports: number[]; result?: string; error?: string; logged: number }[] = [
    { name: 'starts on the preferred port when it is free', port: 6443, failures: [], ports: [6443], result: 'started on 6443', logged: 0 },
    { name: 'starts again on any free port when the preferred port is in use', port: 6443, failures: [systemError('EADDRINUSE')], ports: [6443, 0], result: 'started on 0', logged: 1 },
    { name: 'does not retry other failures', port: 6443, failures: [systemError('EACCES')], ports: [6443], error: 'EACCES', logged: 0 },
    { name: 'does not retry when already asking for any port', port: 0, failures: [systemError('EADDRINUSE')], ports: [0], error: 'EADDRINUSE', logged: 0 },
    {
      name: 'reports the second failure when the free-port attempt fails too',
      port: 6443,
      failures: [systemError('EADDRINUSE'), new Error('Docker is not running')],
      ports: [6443, 0],
      error: 'Docker is not running',
      logged: 1,
    },
  ];

  it.each(cases)('$name', async ({ port, failures, ports, result, error, logged }) => {
    const fake = fakeStart([...failures]);
    const messages: string[] = [];
    const outcome = startPreferringPort({ ...options, port }, fake.start, (message) => messages.push(message));
    if (error) await expect(outcome).rejects.toThrow(error);
    else expect(await outcome).toBe(result);
    expect(fake.ports).toEqual(ports);
    expect(messages).toHaveLength(logged);
    if (logged) expect(messages[0]).toBe('port 6443 is in use; starting the API server on a free port instead');
  });

  it('keeps the other options for the second attempt', async () => {
    const seen: ClusterOptions[] = [];
    await startPreferringPort(
      options,
      (attempt) => {
        seen.push(attempt);
        return seen.length === 1 ? Promise.reject(systemError('EADDRINUSE')) : Promise.resolve(attempt);
      },
      () => undefined,
    );
    expect(seen[1]).toEqual({ ...options, port: 0 });
  });
});

describe('isAddressInUse', () => {
  it.each([
    { name: 'a listen EADDRINUSE error', error: systemError('EADDRINUSE') as unknown, expected: true },
    { name: 'another system error', error: systemError('EACCES'), expected: false },
    { name: 'a plain Error', error: new Error('EADDRINUSE'), expected: false },
    { name: 'a non-Error value with the code', error: { code: 'EADDRINUSE' }, expected: false },
    { name: 'undefined', error: undefined, expected: false },
  ])('is $expected for $name', ({ error, expected }) => {
    expect(isAddressInUse(error)).toBe(expected);
  });
});

describe('countPodHealth', () => {
  const container = (ready: boolean, state: Record<string, unknown>) => ({ name: 'app', ready, restartCount: 0, state });
  const pod = (name: string, phase: string, statuses: Record<string, unknown>[]) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
    status: { phase, containerStatuses: statuses },
  });

  it('counts a ready Running pod as healthy and a crash loop or a 0/1 Running pod as unhealthy', () => {
    const pods = [
      pod('web', 'Running', [container(true, { running: {} })]),
      pod('crasher', 'Running', [container(false, { waiting: { reason: 'CrashLoopBackOff' } })]),
      pod('unready', 'Running', [container(false, { running: {} })]),
      pod('starting', 'Pending', []),
      pod('done', 'Succeeded', [container(false, { terminated: { reason: 'Completed', exitCode: 0 } })]),
    ];
    expect(countPodHealth(pods)).toEqual({ healthy: 1, unhealthy: 2 });
  });
});

describe('the tray\'s local clusters', () => {
  it('shows every local cluster but the default one, which is the app\'s own, and passes Start and Stop on', async () => {
    const calls: string[] = [];
    const control = localClusterControl({
      list: async () => [
        { name: 'default', context: 'kubedesk', dataDir: '/r', state: 'running', nodes: 1 },
        { name: 'b', context: 'kubedesk-b', dataDir: '/r/clusters/b', state: 'stopped', nodes: 2 },
      ],
      start: async (name) => {
        calls.push(`start ${name}`);
        return { name, context: `kubedesk-${name}`, dataDir: '', state: 'running', nodes: 1 };
      },
      stop: async (name) => {
        calls.push(`stop ${name}`);
        return { name, context: `kubedesk-${name}`, dataDir: '', state: 'stopped', nodes: 1 };
      },
    });
    expect(await control.list()).toEqual([{ name: 'b', state: 'stopped' }]);
    await control.start('b');
    await control.stop('b');
    expect(calls).toEqual(['start b', 'stop b']);
  });
});
