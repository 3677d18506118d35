// Tests the end-to-end harness itself (test/support/cluster.ts) against a fake `kubedesk` that
// keeps only the command-line contract, so suites can trust start, kubectl, request, restart and
// stop before the real server exists.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminToken, ensurePki } from '../../main/apiserver/pki';
import { startCluster, type TestCluster } from './cluster';
import { repositoryRoot } from './tools';

const fakeCli = join(repositoryRoot, 'test', 'support', 'fakeKubedesk.mjs');

describe('the cluster harness', () => {
  let pkiDir: string;
  let cluster: TestCluster;

  beforeAll(async () => {
    pkiDir = mkdtempSync(join(tmpdir(), 'kubedesk-fake-pki-'));
    await ensurePki(pkiDir);
    ensureAdminToken(pkiDir);
    cluster = await startCluster({ cli: fakeCli, env: { KUBEDESK_FAKE_PKI: join(pkiDir, 'pki') } });
  });

  afterAll(async () => {
    await cluster?.destroy();
    rmSync(pkiDir, { recursive: true, force: true });
  });

  it('reads the server address, CA and token from the kubeconfig the server wrote', () => {
    expect(cluster.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.caPem).toContain('BEGIN CERTIFICATE');
    expect(cluster.token).toBe(readFileSync(join(pkiDir, 'pki', 'admin.token'), 'utf8').trim());
  });

  it('runs the real kubectl against the server with the kubeconfig', async () => {
    const result = await cluster.kubectl(['get', '--raw', '/version']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ gitVersion: 'v1.35.0-fake' });
  });

  it('sends authenticated HTTPS requests with JSON bodies', async () => {
    const reply = await cluster.request('POST', '/api/v1/namespaces', { kind: 'Namespace' });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ method: 'POST', url: '/api/v1/namespaces', contentType: 'application/json', body: '{"kind":"Namespace"}' });
  });

  it('captures the server output in a log file', () => {
    expect(cluster.logs()).toContain('fake kubedesk listening');
  });

  it('restarts on the same port and stops cleanly on SIGTERM', async () => {
    const server = cluster.server;
    const firstPid = cluster.pid();
    await cluster.restart();
    expect(cluster.server).toBe(server);
    expect(cluster.pid()).not.toBe(firstPid);
    expect(JSON.parse((await cluster.request('GET', '/anything')).body)).toMatchObject({ starts: 2 });
    expect(await cluster.stop()).toEqual({ code: 0, signal: null });
    expect(cluster.logs()).toContain('fake kubedesk stopping');
  });

  it('starts again after kill -9', async () => {
    await cluster.restart();
    expect(await cluster.kill9()).toEqual({ code: null, signal: 'SIGKILL' });
    await cluster.restart();
    expect((await cluster.kubectl(['get', '--raw', '/readyz'])).stdout).toBe('ok');
  });

  it('reports a server that exits before it is ready, with its log', async () => {
    await expect(startCluster({ cli: fakeCli, env: { KUBEDESK_FAKE_PKI: join(pkiDir, 'missing') } })).rejects.toThrow(/exited before it was ready[\s\S]*ENOENT/);
  });

  it('removes its temporary folder on destroy', async () => {
    const other = await startCluster({ cli: fakeCli, env: { KUBEDESK_FAKE_PKI: join(pkiDir, 'pki') } });
    await other.destroy();
    expect(existsSync(other.root)).toBe(false);
  });
});
