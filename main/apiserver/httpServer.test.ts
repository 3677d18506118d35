// The HttpServer's two ways in — bearer token, then the UI's session cookie — and the Origin rules
// that hold for the cookie, with the real ApiServer behind it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsRequest, startHttpsApiServer, webSocketStatus as openWebSocket, type HttpsApiServer, type HttpsReply } from '../../test/fixtures/httpsApiServer';
import { ApiError } from './apiError';
import { isOwnOrigin, sessionRequestRefusal } from './httpServer';

const TOKEN = 'http-test-token';
const COOKIE = 'kubedesk-session=good-session';
let cluster: HttpsApiServer;
let port: number;

function request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpsReply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return httpsRequest(cluster, method, path, { headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json' } : {}), ...headers }, body: payload });
}

function webSocketStatus(path: string, headers: Record<string, string>): Promise<number> {
  return openWebSocket(cluster, path, headers);
}

beforeAll(async () => {
  cluster = await startHttpsApiServer({
    token: TOKEN,
    sessionAuthenticator: { authenticate: (headers) => (headers.cookie === COOKIE ? { name: 'kubedesk-admin', groups: ['system:masters'] } : undefined) },
    namespaces: ['default'],
  });
  port = cluster.port;
});

afterAll(() => cluster.close());

describe('isOwnOrigin', () => {
  it.each([
    ['https://127.0.0.1:6443', true],
    ['https://localhost:6443', true],
    ['https://127.0.0.1:6444', false],
    ['http://127.0.0.1:6443', false],
    ['https://127.0.0.1', false],
    ['https://evil.example', false],
    ['https://127.0.0.1:6443/', false],
    ['null', false],
    [undefined, false],
  ])('treats %s as own origin: %s', (origin, own) => {
    expect(isOwnOrigin(origin, 6443)).toBe(own);
  });
});

describe('sessionRequestRefusal', () => {
  const own = 'https://127.0.0.1:6443';
  it.each([
    ['GET', '/api/v1/pods', undefined, false, undefined],
    ['HEAD', '/api/v1/pods', 'https://evil.example', false, undefined],
    ['OPTIONS', '/api/v1/pods', undefined, false, undefined],
    ['POST', '/api/v1/namespaces/default/pods', own, false, undefined],
    ['POST', '/api/v1/namespaces/default/pods', undefined, false, 'must carry an Origin header'],
    ['PUT', '/api/v1/namespaces/default/pods/web', 'https://evil.example', false, 'cannot be used from origin "https://evil.example"'],
    ['PATCH', '/api/v1/namespaces/default/pods/web', 'https://localhost:6443', false, undefined],
    ['DELETE', '/api/v1/namespaces/default/pods/web', 'null', false, 'cannot be used from origin "null"'],
    ['GET', '/api/v1/namespaces/default/pods?watch=true', undefined, true, 'must carry an Origin header'],
    ['GET', '/api/v1/namespaces/default/pods/web/exec', 'https://127.0.0.1:1', true, 'cannot be used from origin'],
    ['GET', '/api/v1/namespaces/default/pods/web/exec', own, true, undefined],
    ['GET', '/api/v1/namespaces/default/services/web:80/proxy/', own, false, 'proxy is not available'],
    ['GET', '/api/v1/namespaces/default/pods/web/proxy', own, false, 'proxy is not available'],
    ['GET', '/api/v1/nodes/node-0/proxy/metrics', own, false, 'proxy is not available'],
  ])('%s %s from %s (upgrade %s): %s', (method, path, origin, upgrade, refusal) => {
    const error = sessionRequestRefusal({ method, path: path.split('?')[0], origin, upgrade }, 6443);
    if (refusal === undefined) expect(error).toBeUndefined();
    else {
      expect(error?.code).toBe(403);
      expect(error?.reason).toBe('Forbidden');
      expect(error?.message).toContain(refusal);
    }
  });
});

describe('authentication by bearer token or session cookie', () => {
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

  it('answers 401 without a token or a session', async () => {
    expect((await request('GET', '/api/v1/namespaces/default/configmaps', {})).status).toBe(401);
    expect((await request('GET', '/api/v1/namespaces/default/configmaps', { cookie: 'kubedesk-session=unknown' })).status).toBe(401);
  });

  it('reads with the session cookie from anywhere the cookie comes', async () => {
    expect((await request('GET', '/api/v1/namespaces/default/configmaps', { cookie: COOKIE })).status).toBe(200);
  });

  it.each([
    ['no Origin', {}, 403],
    ['a foreign Origin', { origin: 'https://evil.example' }, 403],
    ['this server as Origin', { origin: 'ORIGIN' }, 201],
  ])('answers a write with the session cookie and %s with %i', async (name, extra: Record<string, string>, status) => {
    const headers = { cookie: COOKIE, ...Object.fromEntries(Object.entries(extra).map(([key, value]) => [key, value.replace('ORIGIN', `https://127.0.0.1:${port}`)])) };
    const reply = await request('POST', '/api/v1/namespaces/default/configmaps', headers, configMap(`session-${name.replace(/\W+/g, '-').toLowerCase()}`));
    expect(reply.status).toBe(status);
    if (status === 403) expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a bearer token write without an Origin, whatever cookie comes along', async () => {
    const reply = await request('POST', '/api/v1/namespaces/default/configmaps', { authorization: `Bearer ${TOKEN}`, cookie: COOKIE, origin: 'https://evil.example' }, configMap('bearer'));
    expect(reply.status).toBe(201);
  });

  it.each([
    ['the session cookie and no Origin', { cookie: COOKIE }, 403],
    ['the session cookie and a foreign Origin', { cookie: COOKIE, origin: 'https://evil.example' }, 403],
    ['the session cookie and this server as Origin', { cookie: COOKIE, origin: 'ORIGIN' }, 101],
    ['the bearer token and no Origin', { authorization: `Bearer ${TOKEN}` }, 101],
    ['nothing', {}, 401],
  ])('answers a WebSocket watch with %s with %i', async (_name, headers: Record<string, string>, status) => {
    const withOrigin = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, value.replace('ORIGIN', `https://127.0.0.1:${port}`)]));
    expect(await webSocketStatus('/api/v1/namespaces/default/configmaps?watch=true', withOrigin)).toBe(status);
  });

  it('answers an upgrade on a path nothing serves with 400', async () => {
    expect(await webSocketStatus('/not-an-api-path', { authorization: `Bearer ${TOKEN}` })).toBe(400);
  });
});

describe('hooks for the UI relay', () => {
  let hooked: HttpsApiServer;
  const taken: string[] = [];
  beforeAll(async () => {
    hooked = await startHttpsApiServer({
      token: TOKEN,
      sessionAuthenticator: { authenticate: (headers) => (headers.cookie === COOKIE ? { name: 'kubedesk-admin', groups: ['system:masters'] } : undefined) },
      namespaces: ['default'],
      hooks: {
        staticUpgradeHandler: (request, socket) => {
          if (!request.url?.startsWith('/ui/clusters/')) return false;
          taken.push(request.url);
          socket.end('HTTP/1.1 418 I am a teapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
          return true;
        },
        sessionGuard: ({ method, path }) => (method === 'DELETE' ? new ApiError(403, 'Forbidden', `read-only: ${path}`) : undefined),
      },
    });
  });
  afterAll(() => hooked.close());

  it('hands upgrades to the static upgrade handler before authenticating them', async () => {
    expect(await openWebSocket(hooked, '/ui/clusters/other/api/v1/pods?watch=1', {})).toBe(418);
    expect(taken).toEqual(['/ui/clusters/other/api/v1/pods?watch=1']);
    expect(await openWebSocket(hooked, '/api/v1/namespaces/default/configmaps?watch=1', {})).toBe(401);
  });

  it('applies the session guard to the session only, never to a bearer token', async () => {
    const origin = `https://127.0.0.1:${hooked.port}`;
    await httpsRequest(hooked, 'POST', '/api/v1/namespaces/default/configmaps', { headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'guarded' } }) });
    const refused = await httpsRequest(hooked, 'DELETE', '/api/v1/namespaces/default/configmaps/guarded', { headers: { cookie: COOKIE, origin } });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).message).toBe('read-only: /api/v1/namespaces/default/configmaps/guarded');
    expect((await httpsRequest(hooked, 'GET', '/api/v1/namespaces/default/configmaps/guarded', { headers: { cookie: COOKIE } })).status).toBe(200);
    expect((await httpsRequest(hooked, 'DELETE', '/api/v1/namespaces/default/configmaps/guarded', { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
