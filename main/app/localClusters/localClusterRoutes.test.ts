// The /ui/local-clusters routes over real HTTP, with the registry running a stand-in serve
// (test/fixtures/fakeServe.ts): the session and Origin rules, the contract's replies and Status errors.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFakeServe } from '../../../test/fixtures/fakeServe';
import { LocalClusters } from './localClusters';
import { createLocalClusterRoutes } from './localClusterRoutes';

let root: string;
let server: Server;
let port: number;
let clusters: LocalClusters;
const SESSION = 'kubedesk-session-test=good';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

function call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Reply> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { cookie: SESSION, origin: `https://127.0.0.1:${port}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers };
  for (const [key, value] of Object.entries(headers)) if (value === '') delete headers[key];
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text ? (JSON.parse(text) as unknown) : undefined });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-local-cluster-routes-'));
  clusters = new LocalClusters({
    root: join(root, '.kubedesk'),
    launcher: { command: process.execPath, args: [writeFakeServe(root)] },
    defaultKubeconfig: join(root, 'kubeconfig'),
    probe: async () => true,
    stopContainers: async () => undefined,
    readyTimeoutMs: 10_000,
  });
  const routes = createLocalClusterRoutes({
    sessions: { authenticate: (headers) => (headers.cookie === SESSION ? { name: 'kubedesk-admin', groups: [] } : undefined) },
    port: () => port,
    clusters,
    selfDataDir: join(root, '.kubedesk'),
  });
  server = createServer((incoming, response) => {
    if (!routes(incoming, response)) {
      response.writeHead(418);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const cluster of await clusters.list()) if (cluster.state !== 'stopped' && cluster.name !== 'default') await clusters.stop(cluster.name);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe('/ui/local-clusters', () => {
  it('leaves other paths to the next handler', async () => {
    expect((await call('GET', '/ui/local-clustersx')).status).toBe(418);
  });

  it('lists the default cluster, marked as the one serving the UI', async () => {
    const reply = await call('GET', '/ui/local-clusters');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ clusters: [{ name: 'default', context: 'kubedesk', dataDir: join(root, '.kubedesk'), state: 'stopped', nodes: 1, self: true }] });
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it('creates, stops, starts and deletes a cluster', async () => {
    const created = await call('POST', '/ui/local-clusters', { body: { name: 'b', nodes: 2 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'b', context: 'kubedesk-b', dataDir: join(root, '.kubedesk', 'clusters', 'b'), state: 'running', nodes: 2, self: false });
    expect(created.body).toHaveProperty('port');
    expect((await call('GET', '/ui/local-clusters/b')).body).toMatchObject({ name: 'b', state: 'running' });
    expect((await call('POST', '/ui/local-clusters/b/stop')).body).toMatchObject({ name: 'b', state: 'stopped' });
    expect((await call('POST', '/ui/local-clusters/b/start')).body).toMatchObject({ name: 'b', state: 'running' });
    const deleted = await call('DELETE', '/ui/local-clusters/b');
    expect(deleted).toMatchObject({ status: 200, body: { kind: 'Status', status: 'Success', details: { name: 'b', group: 'kubedesk.dev', kind: 'localclusters' } } });
    expect(((await call('GET', '/ui/local-clusters')).body as { clusters: unknown[] }).clusters).toHaveLength(1);
  });

  it('answers a name taken with 409 AlreadyExists and an unknown one with 404 NotFound', async () => {
    expect((await call('POST', '/ui/local-clusters', { body: { name: 'b' } })).status).toBe(201);
    expect(await call('POST', '/ui/local-clusters', { body: { name: 'b' } })).toMatchObject({ status: 409, body: { reason: 'AlreadyExists', message: 'localclusters.kubedesk.dev "b" already exists' } });
    expect(await call('POST', '/ui/local-clusters/nope/start')).toMatchObject({ status: 404, body: { reason: 'NotFound', message: 'localclusters.kubedesk.dev "nope" not found' } });
    expect(await call('DELETE', '/ui/local-clusters/nope')).toMatchObject({ status: 404 });
  });

  it.each([
    [{ name: 'Bad_Name' }, 'name'],
    [{ name: 'default' }, 'name'],
    [{}, 'name'],
    [{ name: 'b', nodes: 0 }, 'nodes'],
    [{ name: 'b', nodes: '2' }, 'nodes'],
  ])('refuses the body %j with 422 Invalid on the field %s', async (body, field) => {
    const reply = await call('POST', '/ui/local-clusters', { body });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field }] } });
  });

  it('refuses to stop or delete the cluster that serves the UI, and to delete the default one', async () => {
    expect(await call('POST', '/ui/local-clusters/default/stop')).toMatchObject({ status: 409, body: { reason: 'Conflict' } });
    expect(await call('DELETE', '/ui/local-clusters/default')).toMatchObject({ status: 409, body: { reason: 'Conflict' } });
  });

  it('needs the session cookie, refuses bearer tokens, and needs the own Origin to change anything', async () => {
    expect((await call('GET', '/ui/local-clusters', { headers: { cookie: '' } })).status).toBe(401);
    expect(await call('GET', '/ui/local-clusters', { headers: { cookie: '', authorization: 'Bearer admin' } })).toMatchObject({ status: 403, body: { reason: 'Forbidden' } });
    expect(await call('POST', '/ui/local-clusters', { body: { name: 'b' }, headers: { origin: 'https://evil.example' } })).toMatchObject({ status: 403, body: { message: 'forbidden: local clusters cannot be changed from origin "https://evil.example"' } });
    expect((await call('POST', '/ui/local-clusters', { body: { name: 'b' }, headers: { origin: '' } })).status).toBe(403);
    expect(await clusters.get('b')).toBeUndefined();
  });

  it('answers other methods with 405 and the allowed ones, and a non-JSON body with 415', async () => {
    const reply = await call('PUT', '/ui/local-clusters');
    expect(reply).toMatchObject({ status: 405, body: { reason: 'MethodNotAllowed' } });
    expect(reply.headers.allow).toBe('GET, HEAD, POST');
    expect((await call('POST', '/ui/local-clusters', { headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await call('GET', '/ui/local-clusters/%E0%A4%A/start')).status).toBe(404);
  });
});
