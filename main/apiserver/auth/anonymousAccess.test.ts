// Requests without credentials through the HTTPS front with the real RBAC authorizer and bootstrap
// policy: they are system:anonymous in system:unauthenticated (upstream's anonymous authenticator),
// the health and version endpoints answer them (system:public-info-viewer), everything else is 403
// with upstream's message, and a credential that does not authenticate is still 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import { ApiServer } from '../apiServer';
import { HttpServer } from '../httpServer';
import { OpenApiService } from '../openapi/openapiDocuments';
import { ensurePki } from '../pki';
import { ResourceRegistry } from '../resourceRegistry';
import { ensureBootstrapPolicy } from './bootstrapPolicy';
import { RbacAuthorizer } from './rbacAuthorizer';
import { StoreRbacSource } from './rbacSource';
import { requestAuthorization } from './requestAuthorization';

const TOKEN = 'anonymous-test-token';
const SESSION = 'kubedesk-session=good';
let directory: string;
let store: SqliteStore;
let source: StoreRbacSource;
let server: HttpServer;
let caPem: string;
let port: number;

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = https.request({ host: '127.0.0.1', port, path, ca: caPem, agent: false, headers: { accept: 'application/json', ...headers } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function webSocketStatus(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`wss://127.0.0.1:${port}${path}`, { ca: caPem, headers });
    socket.once('open', () => {
      socket.close();
      resolve(101);
    });
    socket.once('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    socket.on('error', () => undefined);
  });
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'kubedesk-anonymous-'));
  const pki = await ensurePki(directory);
  caPem = pki.caCertPem;
  store = SqliteStore.open(':memory:');
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  const api = new ApiServer({ store, registry, openapi, serverAddress: () => `127.0.0.1:${port}`, version: { major: '1', minor: '35', gitVersion: 'v1.35.0' } });
  ensureBootstrapPolicy(api);
  source = new StoreRbacSource(store);
  server = new HttpServer({
    api,
    authenticator: {
      authenticate: (headers) => (headers.authorization === `Bearer ${TOKEN}` ? { name: 'admin', groups: ['system:masters', 'system:authenticated'] } : undefined),
      presents: (headers) => typeof headers.authorization === 'string' && /^bearer \S/i.test(headers.authorization),
    },
    sessionAuthenticator: {
      authenticate: (headers) => (headers.cookie === SESSION ? { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] } : undefined),
      presents: (headers) => typeof headers.cookie === 'string' && headers.cookie.includes('kubedesk-session='),
    },
    authorization: requestAuthorization(new RbacAuthorizer(source)),
    anonymous: true,
    cert: pki.serverCertPem,
    key: pki.serverKeyPem,
    port: 0,
    isReady: () => true,
  });
  port = await server.listen();
});

afterAll(async () => {
  await server.close();
  source.dispose();
  store.dispose();
  rmSync(directory, { recursive: true, force: true });
});

describe('requests without credentials', () => {
  it.each(['/healthz', '/livez', '/readyz', '/version', '/version/'])('may GET %s (system:public-info-viewer)', async (path) => {
    const reply = await get(path);
    expect(reply.status, reply.body).toBe(200);
  });

  it.each([
    ['/api/v1/namespaces/default/pods', 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"'],
    ['/apis/apps/v1/namespaces/default/deployments/web', 'deployments.apps "web" is forbidden: User "system:anonymous" cannot get resource "deployments" in API group "apps" in the namespace "default"'],
    ['/api/v1/nodes', 'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope'],
    ['/apis', 'forbidden: User "system:anonymous" cannot get path "/apis"'],
    ['/readyz/ping', 'forbidden: User "system:anonymous" cannot get path "/readyz/ping"'],
  ])('is refused %s with 403 as system:anonymous', async (path, message) => {
    const reply = await get(path);
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message });
  });

  it.each([
    ['basic credentials', { authorization: 'Basic YWRtaW46YWRtaW4=' }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
    ['a token without the Bearer scheme', { authorization: TOKEN }],
    ['a cookie of another site', { cookie: 'theme=dark' }],
  ])('counts %s as no credentials', async (_name, headers: Record<string, string>) => {
    expect((await get('/api/v1/namespaces', headers)).status).toBe(403);
    expect((await get('/version', headers)).status).toBe(200);
  });

  it('refuses an anonymous WebSocket watch with 403', async () => {
    expect(await webSocketStatus('/api/v1/namespaces/default/configmaps?watch=true', {})).toBe(403);
  });
});

describe('credentials that do not authenticate', () => {
  it.each([
    ['a wrong bearer token', { authorization: 'Bearer wrong' }],
    ['a lower-case bearer scheme with a wrong token', { authorization: 'bearer wrong' }],
    ['an unknown UI session', { cookie: 'kubedesk-session=stale' }],
  ])('answer 401 for %s, the health endpoints included', async (_name, headers: Record<string, string>) => {
    for (const path of ['/api/v1/namespaces', '/version', '/readyz']) {
      const reply = await get(path, headers);
      expect(reply.status, path).toBe(401);
      expect(JSON.parse(reply.body), path).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
    expect(await webSocketStatus('/api/v1/namespaces/default/configmaps?watch=true', headers)).toBe(401);
  });

  it('let the valid ones in as before', async () => {
    expect((await get('/api/v1/namespaces', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await get('/api/v1/namespaces', { cookie: SESSION })).status).toBe(200);
    expect((await get('/readyz', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });
});
