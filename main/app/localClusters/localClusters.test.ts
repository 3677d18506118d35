// The local clusters' registry against a stand-in for `kubedesk serve` (test/fixtures/fakeServe.ts).
// Real processes, real files; only readiness (/readyz) and Docker are stood in for.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeKubeconfig } from '../kubeconfig';
import { LocalClusterError, LocalClusters, parseConfig, readConfig, type LocalClustersOptions } from './localClusters';
import { processAlive, readServerState } from './serverState';
import { writeFakeServe } from '../../../test/fixtures/fakeServe';


let root: string;
let script: string;
let kubeconfig: string;
let stoppedContainers: string[];
const started: number[] = [];

function registry(overrides: Partial<LocalClustersOptions> = {}, env: NodeJS.ProcessEnv = process.env): LocalClusters {
  return new LocalClusters({
    root: join(root, '.kubedesk'),
    launcher: { command: process.execPath, args: [script], env },
    defaultKubeconfig: kubeconfig,
    probe: async () => true,
    stopContainers: async (clusterId) => void stoppedContainers.push(clusterId),
    readyTimeoutMs: 10_000,
    stopTimeoutMs: 10_000,
    ...overrides,
  });
}

function argsOf(dataDir: string): string[] {
  return JSON.parse(readFileSync(join(dataDir, 'args.json'), 'utf8')) as string[];
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-local-clusters-'));
  script = writeFakeServe(root);
  kubeconfig = join(root, 'kube', 'config');
  stoppedContainers = [];
});

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
});

describe('LocalClusters', () => {
  it('lists the default cluster alone, stopped, on a fresh kubedesk root', async () => {
    expect(await registry().list()).toEqual([{ name: 'default', context: 'kubedesk', dataDir: join(root, '.kubedesk'), nodes: 1, state: 'stopped' }]);
  });

  it('creates a named cluster as a detached serve --name in its own data dir and lists it running', async () => {
    const clusters = registry();
    const created = await clusters.create('b', { nodes: 2 });
    if (created.pid) started.push(created.pid);
    const dataDir = join(root, '.kubedesk', 'clusters', 'b');
    expect(created).toMatchObject({ name: 'b', context: 'kubedesk-b', dataDir, state: 'running', nodes: 2 });
    expect(argsOf(dataDir)).toEqual(['serve', '--data-dir', dataDir, '--kubeconfig', kubeconfig, '--nodes', '2', '--port', '0', '--name', 'b']);
    expect(readConfig(dataDir)).toEqual({ nodes: 2, kubeconfig, port: created.port });
    expect(readFileSync(join(dataDir, 'serve.log'), 'utf8')).toContain('kubedesk: UI at https://127.0.0.1:');
    expect((await clusters.list()).map((cluster) => [cluster.name, cluster.state])).toEqual([
      ['default', 'stopped'],
      ['b', 'running'],
    ]);
  });

  it('refuses a name taken, an invalid name and an unknown cluster with their reasons', async () => {
    const clusters = registry();
    const created = await clusters.create('b');
    if (created.pid) started.push(created.pid);
    await expect(clusters.create('b')).rejects.toMatchObject({ reason: 'AlreadyExists', message: 'cluster "b" already exists' });
    await expect(clusters.create('Bad_Name')).rejects.toMatchObject({ reason: 'Invalid' });
    await expect(clusters.create('default')).rejects.toMatchObject({ reason: 'Invalid' });
    await expect(clusters.start('nope')).rejects.toMatchObject({ reason: 'NotFound', message: 'cluster "nope" not found' });
    await expect(clusters.delete('default')).rejects.toBeInstanceOf(LocalClusterError);
  });

  it('reports a server that exits before it is ready with the last lines of its log', async () => {
    const clusters = registry({}, { ...process.env, FAKE_SERVE_FAIL: '1' });
    const failure = await clusters.create('b').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LocalClusterError);
    expect(failure).toMatchObject({ reason: 'Failed' });
    expect((failure as Error).message).toMatch(/^cluster "b" failed to start \(the server exited\); the last lines of .*serve\.log:\n/);
    expect((failure as Error).message).toContain('listen EADDRINUSE: address already in use 127.0.0.1:6443');
    expect((await clusters.get('b'))?.state).toBe('stopped');
  });

  it('stops with SIGTERM, then stops its containers; start runs it again on the port it had', async () => {
    const clusters = registry();
    const created = await clusters.create('b');
    const dataDir = created.dataDir;
    const pid = created.pid ?? 0;
    started.push(pid);
    const stopped = await clusters.stop('b');
    expect(stopped.state).toBe('stopped');
    expect(processAlive(pid)).toBe(false);
    expect(readServerState(dataDir)).toBeUndefined();
    expect(stoppedContainers).toEqual(['abcdef0123456789']);
    const again = await clusters.start('b');
    if (again.pid) started.push(again.pid);
    expect(again).toMatchObject({ state: 'running', port: created.port });
    expect(argsOf(dataDir)).toContain(String(created.port));
    // a running cluster is left as it is
    expect((await clusters.start('b')).pid).toBe(again.pid);
  });

  it('deletes a cluster: its server stopped, its data dir gone, only its kubeconfig entries removed', async () => {
    writeKubeconfig({ path: kubeconfig, server: 'https://127.0.0.1:6443', caCertPem: 'ca', token: 't' });
    const clusters = registry();
    const b = await clusters.create('b');
    const c = await clusters.create('c');
    for (const each of [b, c]) if (each.pid) started.push(each.pid);
    // what the real server writes once ready
    for (const name of ['b', 'c']) writeKubeconfig({ path: kubeconfig, server: 'https://127.0.0.1:1', caCertPem: 'ca', token: name, name: `kubedesk-${name}` });
    const removed: string[] = [];
    const deleting = registry({
      remove: async (dataDir, path, options) => {
        removed.push(options?.contextName ?? '');
        const { removeCluster } = await import('../removeCluster');
        rmSync(join(dataDir, 'cluster-id'), { force: true }); // no Docker in a unit test
        return removeCluster(dataDir, path, options);
      },
    });
    expect(await deleting.delete('c')).toEqual({});
    expect(removed).toEqual(['kubedesk-c']);
    expect(existsSync(c.dataDir)).toBe(false);
    expect(processAlive(c.pid ?? 0)).toBe(false);
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { contexts: Array<{ name: string }>; 'current-context': string };
    expect(config.contexts.map((context) => context.name)).toEqual(['kubedesk', 'kubedesk-b']);
    expect(config['current-context']).toBe('kubedesk');
    expect((await deleting.list()).map((cluster) => [cluster.name, cluster.state])).toEqual([
      ['default', 'stopped'],
      ['b', 'running'],
    ]);
  });

  it('ignores folders under clusters/ whose names are not cluster names', async () => {
    mkdirSync(join(root, '.kubedesk', 'clusters', 'Not_A_Name'), { recursive: true });
    writeFileSync(join(root, '.kubedesk', 'clusters', 'file'), '');
    expect(registry().names()).toEqual(['default']);
  });

  it('reads a saved config only when it is well formed', () => {
    expect(parseConfig({ nodes: 2, kubeconfig: '/k', port: 7000 })).toEqual({ nodes: 2, kubeconfig: '/k', port: 7000 });
    expect(parseConfig({ nodes: 2, kubeconfig: '/k', port: 70000 })).toEqual({ nodes: 2, kubeconfig: '/k' });
    expect(parseConfig({ nodes: 0, kubeconfig: '/k' })).toBeUndefined();
    expect(parseConfig({ nodes: 1 })).toBeUndefined();
    expect(parseConfig('x')).toBeUndefined();
  });
});

describe('a stale pid file', () => {
  it('does not count a live process that is not this data dir\'s serve as the cluster starting', async () => {
    const clusters = registry();
    const dataDir = join(root, '.kubedesk', 'clusters', 'b');
    mkdirSync(dataDir, { recursive: true });
    // this test's own process is alive, but its command line names no data dir
    writeFileSync(join(dataDir, 'serve.pid'), `${process.pid}\n`);
    expect((await clusters.get('b'))?.state).toBe('stopped');
  });
});
