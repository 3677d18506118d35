// FakeRuntime keeps DockerRuntime's observable behaviour (states, labels, exit reasons, log
// options) so the kubelet's unit tests exercise the same paths they will take on Docker.
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { RuntimeLabels, type ContainerConfig } from '../../main/kubelet/runtime/containerRuntime';
import { FakeRuntime } from './fakeRuntime';

function config(name: string, overrides: Partial<ContainerConfig> = {}): ContainerConfig {
  return { podUid: 'uid-1', podName: 'web', namespace: 'default', name, image: 'app:1', env: [], mounts: [], stdin: false, stdinOnce: false, tty: false, resources: {}, security: {}, restartCount: 0, init: false, specHash: 'h', labels: {}, ...overrides };
}

function readAll(stream: Readable | undefined): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream?.on('end', () => resolve(text));
  });
}

async function podWithContainer(runtime: FakeRuntime, overrides: Partial<ContainerConfig> = {}): Promise<{ sandboxId: string; id: string }> {
  runtime.addImage('app:1');
  const sandbox = await runtime.runSandbox({ podUid: 'uid-1', podName: 'web', namespace: 'default', attempt: 0, hostname: 'web', hostNetwork: false, portMappings: [], labels: {} });
  const id = await runtime.createContainer(sandbox.id, config('main', overrides));
  await runtime.startContainer(id);
  return { sandboxId: sandbox.id, id };
}

describe('FakeRuntime', () => {
  it('moves a container from created to running to exited with the reason Docker would give', async () => {
    const runtime = new FakeRuntime();
    const { id, sandboxId } = await podWithContainer(runtime, { restartCount: 2 });
    expect(await runtime.containerStatus(id)).toMatchObject({ state: 'running', restartCount: 2, sandboxId, labels: { [RuntimeLabels.restartCount]: '2', [RuntimeLabels.containerName]: 'main' } });
    runtime.exitContainer(id, 137, { oomKilled: true });
    expect(await runtime.containerStatus(id)).toMatchObject({ state: 'exited', exitCode: 137, reason: 'OOMKilled' });
    expect((await runtime.listSandboxes())[0].ip).toMatch(/^10\.100\./);
  });

  it('fails pulls and starts on request and refuses images that are absent', async () => {
    const runtime = new FakeRuntime();
    runtime.failPull('missing');
    await expect(runtime.pullImage('missing', undefined, () => undefined)).rejects.toThrow('Error response from daemon: pull access denied for missing');
    const progress: string[] = [];
    expect((await runtime.pullImage('nginx', undefined, (event) => progress.push(event.status))).repoTags).toEqual(['nginx:latest']);
    expect(progress.length).toBeGreaterThan(0);
    const sandbox = await runtime.runSandbox({ podUid: 'u', podName: 'p', namespace: 'default', attempt: 0, hostname: 'p', hostNetwork: false, portMappings: [], labels: {} });
    await expect(runtime.createContainer(sandbox.id, config('c', { image: 'absent:1' }))).rejects.toThrow('No such image');
    runtime.failStart('nginx');
    const id = await runtime.createContainer(sandbox.id, config('c', { image: 'nginx' }));
    await expect(runtime.startContainer(id)).rejects.toThrow('executable file not found');
    expect(await runtime.containerStatus(id)).toMatchObject({ state: 'exited', reason: 'ContainerCannotRun', exitCode: 127 });
  });

  it('serves logs with tail, limit and timestamps, and follows until the container exits', async () => {
    const runtime = new FakeRuntime();
    const { id } = await podWithContainer(runtime);
    runtime.appendLog(id, 'one\ntwo\n');
    runtime.appendLog(id, 'three\n');
    expect(await readAll(await runtime.logs(id, { follow: false, timestamps: false, tailLines: 2 }))).toBe('two\nthree\n');
    expect(await readAll(await runtime.logs(id, { follow: false, timestamps: false, limitBytes: 5 }))).toBe('one\nt');
    expect(await readAll(await runtime.logs(id, { follow: false, timestamps: true, tailLines: 1 }))).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z three\n$/);
    const followed = readAll(await runtime.logs(id, { follow: true, timestamps: false }));
    runtime.appendLog(id, 'four\n');
    runtime.exitContainer(id, 0);
    expect(await followed).toBe('one\ntwo\nthree\nfour\n');
  });

  it('runs exec through a handler, with stdin, and stop gives 143', async () => {
    const runtime = new FakeRuntime();
    const { id } = await podWithContainer(runtime);
    runtime.execHandler = (_id, command, stdin) => ({ exitCode: command[0] === 'fail' ? 3 : 0, stdout: stdin.toUpperCase(), stderr: 'e' });
    const session = await runtime.exec(id, ['cat'], { stdin: true, stdout: true, stderr: true, tty: false });
    session.stdin?.end('hi');
    expect(await Promise.all([readAll(session.stdout), readAll(session.stderr), session.exitCode])).toEqual(['HI', 'e', 0]);
    expect((await runtime.execSync(id, ['fail'], 1000)).exitCode).toBe(3);
    await runtime.stopContainer(id, 30);
    expect(await runtime.containerStatus(id)).toMatchObject({ state: 'exited', exitCode: 143, reason: 'Error' });
  });

  it('rejects every call but ping while Docker is unavailable', async () => {
    const runtime = new FakeRuntime();
    runtime.available = false;
    expect(await runtime.ping()).toBe(false);
    await expect(runtime.listContainers()).rejects.toThrow('Cannot connect to the Docker daemon');
  });
});
