// Several local clusters side by side through the real command line (docs/architecture.md,
// "Several local clusters"): `kubedesk cluster create b` and `create c` run two detached servers
// at once in a temporary kubedesk root (HOME and KUBEDESK_HOME) with a temporary KUBECONFIG; the
// real kubectl runs a pod on each through its own context; `delete c` removes exactly c's
// containers, network and kubeconfig entries while b's pod keeps running; `stop b` / `start b`
// brings b back with its pod. Everything started here is deleted in afterAll.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repositoryRoot, toolPaths } from '../support/tools';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

const image = 'kubedesk-test/busybox:4';
let root: string;
let kubeconfig: string;
let env: NodeJS.ProcessEnv;

function run(command: string, args: string[], timeoutMs = 240_000): Promise<Result> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: repositoryRoot, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function kubedesk(...args: string[]): Promise<Result> {
  return run(process.execPath, [join(repositoryRoot, 'bin', 'kubedesk.mjs'), ...args]);
}

function kubectl(context: string, ...args: string[]): Promise<Result> {
  return run(toolPaths().kubectl, ['--kubeconfig', kubeconfig, '--context', context, ...args], 90_000);
}

function clusterId(name: string): string {
  return readFileSync(join(root, 'kubedesk', 'clusters', name, 'cluster-id'), 'utf8').trim();
}

/** Container ids carrying the cluster's label (`all` includes stopped ones). */
async function containersOf(id: string, all = false): Promise<string[]> {
  const result = await run('docker', ['ps', ...(all ? ['-a'] : []), '-q', '--filter', `label=dev.kubedesk.cluster=${id}`]);
  expect(result.code).toBe(0);
  return result.stdout.split('\n').filter((line) => line !== '');
}

async function networksOf(id: string): Promise<string[]> {
  const result = await run('docker', ['network', 'ls', '-q', '--filter', `label=dev.kubedesk.cluster=${id}`]);
  return result.stdout.split('\n').filter((line) => line !== '');
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in time`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function listRows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

function kubeconfigNames(): { clusters: string[]; users: string[]; contexts: string[]; current: unknown } {
  const config = parse(readFileSync(kubeconfig, 'utf8')) as Record<string, unknown>;
  const names = (key: string) => (Array.isArray(config[key]) ? (config[key] as Array<{ name: string }>).map((entry) => entry.name) : []);
  return { clusters: names('clusters'), users: names('users'), contexts: names('contexts'), current: config['current-context'] };
}

async function runPod(context: string): Promise<void> {
  const created = await kubectl(context, 'run', 'sleeper', `--image=${image}`, '--image-pull-policy=Never', '--', 'sleep', '3600');
  expect(created.stderr).toBe('');
  expect(created.stdout).toBe('pod/sleeper created\n');
  const waited = await kubectl(context, 'wait', '--for=condition=Ready', 'pod/sleeper', '--timeout=90s');
  expect(waited.stdout).toBe('pod/sleeper condition met\n');
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-e2e-local-'));
  mkdirSync(join(root, 'home'));
  kubeconfig = join(root, 'kubeconfig');
  env = { ...process.env, HOME: join(root, 'home'), KUBEDESK_HOME: join(root, 'kubedesk'), KUBECONFIG: kubeconfig };
});

afterAll(async () => {
  for (const name of ['b', 'c']) await kubedesk('cluster', 'delete', name);
  rmSync(root, { recursive: true, force: true });
}, 240_000);

describe('kubedesk cluster', () => {
  it('creates two clusters that are Ready at once, each in its own context', async () => {
    for (const name of ['b', 'c']) {
      const created = await kubedesk('cluster', 'create', name);
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(new RegExp(`^cluster "${name}" created; context "kubedesk-${name}"\\nkubedesk: UI at https://127\\.0\\.0\\.1:\\d+/ui/login\\?token=[\\w-]+\\n$`));
    }
    for (const name of ['b', 'c']) {
      expect((await kubectl(`kubedesk-${name}`, 'get', '--raw', '/readyz')).stdout).toBe('ok');
      expect((await kubectl(`kubedesk-${name}`, 'get', 'nodes', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].status}')).stdout).toBe('True');
    }
    const names = kubeconfigNames();
    expect(names.contexts).toEqual(['kubedesk-b', 'kubedesk-c']);
    // the file was empty: the first cluster became current, as kubectl config would leave it
    expect(names.current).toBe('kubedesk-b');
    const rows = listRows((await kubedesk('cluster', 'list')).stdout);
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'NODES', 'SERVER', 'CONTEXT']);
    expect(rows.slice(1).map((row) => [row[0], row[1], row[2], row[4]])).toEqual([
      ['default', 'Stopped', '1', 'kubedesk'],
      ['b', 'Running', '1', 'kubedesk-b'],
      ['c', 'Running', '1', 'kubedesk-c'],
    ]);
    const servers = rows.slice(2).map((row) => row[3]);
    expect(servers[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(new Set(servers).size).toBe(2);
  });

  it('runs a pod on each cluster, on networks of their own', async () => {
    await runPod('kubedesk-b');
    await runPod('kubedesk-c');
    const podIp = async (context: string) => (await kubectl(context, 'get', 'pod', 'sleeper', '-o', 'jsonpath={.status.podIP}')).stdout;
    const [ipB, ipC] = [await podIp('kubedesk-b'), await podIp('kubedesk-c')];
    expect(ipB.split('.').slice(0, 2)).not.toEqual(ipC.split('.').slice(0, 2));
    expect((await containersOf(clusterId('b'))).length).toBeGreaterThanOrEqual(2);
    expect((await containersOf(clusterId('c'))).length).toBeGreaterThanOrEqual(2);
  });

  it('gives each cluster its own Ingress and registry ports', () => {
    const printed = (name: string, pattern: RegExp) => pattern.exec(readFileSync(join(root, 'kubedesk', 'clusters', name, 'serve.log'), 'utf8'))?.[1];
    const ingress = /kubedesk: Ingress on (http:\/\/127\.0\.0\.1:\d+) /;
    const registry = /kubedesk: image registry at (localhost:\d+) /;
    expect(printed('b', ingress)).toBeDefined();
    expect(printed('b', ingress)).not.toBe(printed('c', ingress));
    expect(printed('b', registry)).toBeDefined();
    expect(printed('b', registry)).not.toBe(printed('c', registry));
  });

  it('deletes c alone: its containers, network and kubeconfig entries go, b keeps running', async () => {
    const idB = clusterId('b');
    const idC = clusterId('c');
    const deleted = await kubedesk('cluster', 'delete', 'c');
    expect(deleted).toEqual({ code: 0, stdout: 'cluster "c" deleted\n', stderr: '' });
    expect(await containersOf(idC, true)).toEqual([]);
    expect(await networksOf(idC)).toEqual([]);
    expect((await containersOf(idB)).length).toBeGreaterThanOrEqual(2);
    expect((await kubectl('kubedesk-b', 'get', 'pod', 'sleeper', '-o', 'jsonpath={.status.phase}')).stdout).toBe('Running');
    expect(kubeconfigNames()).toEqual({ clusters: ['kubedesk-b'], users: ['kubedesk-b'], contexts: ['kubedesk-b'], current: 'kubedesk-b' });
    const rows = listRows((await kubedesk('cluster', 'list')).stdout);
    expect(rows.slice(1).map((row) => row[0])).toEqual(['default', 'b']);
  });

  it('stops b with its containers and starts it again with its pod', async () => {
    const id = clusterId('b');
    expect(await kubedesk('cluster', 'stop', 'b')).toEqual({ code: 0, stdout: 'cluster "b" stopped\n', stderr: '' });
    expect(await containersOf(id)).toEqual([]);
    expect(listRows((await kubedesk('cluster', 'list')).stdout)[2].slice(0, 2)).toEqual(['b', 'Stopped']);
    expect((await kubectl('kubedesk-b', 'get', '--raw', '/readyz', '--request-timeout=3s')).code).not.toBe(0);
    const started = await kubedesk('cluster', 'start', 'b');
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^cluster "b" started at https:\/\/127\.0\.0\.1:\d+; context "kubedesk-b"\n/);
    // its container was stopped with the cluster: the kubelet restarts it, as after a node reboot
    const state = async () => (await kubectl('kubedesk-b', 'get', 'pod', 'sleeper', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}/{.status.conditions[?(@.type=="Ready")].status}')).stdout;
    await until(async () => (await state()) === '1/True', 'the pod restarted and Ready again after start');
    expect((await containersOf(id)).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses bad names with the usage, and clusters that exist or do not with a reason', async () => {
    const bad = await kubedesk('cluster', 'create', 'Bad_Name');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^kubedesk: invalid cluster name "Bad_Name": a lowercase RFC 1123 label must consist of/);
    expect(bad.stderr).toContain('Usage:');
    expect((await kubedesk('cluster', 'create', 'default')).code).toBe(2);
    expect(await kubedesk('cluster', 'create', 'b')).toEqual({ code: 1, stdout: '', stderr: 'kubedesk: cluster "b" already exists\n' });
    expect(await kubedesk('cluster', 'delete', 'nope')).toEqual({ code: 1, stdout: '', stderr: 'kubedesk: cluster "nope" not found\n' });
  });
});
