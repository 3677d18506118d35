// Requests without credentials through the HTTPS front with the real RBAC authorizer and bootstrap
// policy: they are system:anonymous in system:unauthenticated (upstream's anonymous authenticator),
// the health and version endpoints answer them (system:public-info-viewer), everything else is 403
// with upstream's message, and a credential that does not authenticate is still 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsRequest, startHttpsApiServer, webSocketStatus as openWebSocket, type HttpsApiServer } from '../../../test/fixtures/httpsApiServer';
import { ensureBootstrapPolicy } from './bootstrapPolicy';
import { RbacAuthorizer } from './rbacAuthorizer';
import { StoreRbacSource } from './rbacSource';
import { requestAuthorization } from './requestAuthorization';

const TOKEN = 'anonymous-test-token';
const SESSION = 'kubedesk-session=good';
let cluster: HttpsApiServer;
let source: StoreRbacSource | undefined;

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return httpsRequest(cluster, 'GET', path, { headers: { accept: 'application/json', ...headers } });
}

function webSocketStatus(path: string, headers: Record<string, string>): Promise<number> {
  return openWebSocket(cluster, path, headers);
}

beforeAll(async () => {
  cluster = await startHttpsApiServer({
    token: TOKEN,
    authenticator: {
      authenticate: (headers) => (headers.authorization === `Bearer ${TOKEN}` ? { name: 'admin', groups: ['system:masters', 'system:authenticated'] } : undefined),
      presents: (headers) => typeof headers.authorization === 'string' && /^bearer \S/i.test(headers.authorization),
    },
    sessionAuthenticator: {
      authenticate: (headers) => (headers.cookie === SESSION ? { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] } : undefined),
      presents: (headers) => typeof headers.cookie === 'string' && headers.cookie.includes('kubedesk-session='),
    },
    authorization: ({ api, store }) => {
      ensureBootstrapPolicy(api);
      source = new StoreRbacSource(store);
      return requestAuthorization(new RbacAuthorizer(source));
    },
    anonymous: true,
  });
});

afterAll(async () => {
  source?.dispose();
  await cluster.close();
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
