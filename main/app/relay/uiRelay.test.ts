import { X509Certificate } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createObject } from '../../../test/fixtures/inMemoryApiServer';
import { RbacAuthorizer } from '../../apiserver/auth/rbacAuthorizer';
import { StoreRbacSource } from '../../apiserver/auth/rbacSource';
import { registerReviewApis } from '../../apiserver/auth/reviews';
import { startHttpsApiServer, type HttpsApiServer } from '../../../test/fixtures/httpsApiServer';
import { until } from '../../../test/fixtures/until';
import type { ClientConfig } from '../../remote/kubeconfig';
import type { ClusterConnection } from '../../remote/clusterConnection';
import { connectionFor as staticConnection, listContexts as summarizeContexts } from '../../remote';
import { UiRelay } from './uiRelay';
import type { PortForwardEmulation } from './portForwardHandOff';

const REMOTE_TOKEN = 'remote-token-4f9c1e';
const ECHO_STALE_TOKEN = 'echo-stale-token-77a1';
const ECHO_FRESH_TOKEN = 'echo-fresh-token-b20d';
const SESSION = 'kubedesk-session=good';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTPS server standing for a cluster that shows what reached it (and wants a fresh token). */
function startEchoServer(remote: HttpsApiServer): Promise<{ port: number; seen: IncomingHttpHeaders[]; close(): void }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = https.createServer({ cert: remote.pki.serverCertPem, key: remote.pki.serverKeyPem }, (request: IncomingMessage, response: ServerResponse) => {
    seen.push(request.headers);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.headers.authorization !== `Bearer ${ECHO_FRESH_TOKEN}`) {
        response.writeHead(401, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 }));
        return;
      }
      response.writeHead(request.method === 'POST' ? 201 : 200, {
        'Content-Type': 'application/json',
        'Set-Cookie': 'tracker=1',
        'X-Served-By': 'echo',
        Warning: '299 - "deprecated"',
        'Audit-Id': 'audit-1',
      });
      response.end(JSON.stringify({ method: request.method, path: request.url, body: Buffer.concat(chunks).toString() }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, seen, close: () => server.close() })));
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A connection whose token is refreshed when the server rejects it, as an exec plugin's would be. */
function refreshingConnection(config: ClientConfig, counter: { rejected: number }): ClusterConnection {
  let token = ECHO_STALE_TOKEN;
  const inner = staticConnection({ ...config, auth: {} });
  return {
    context: inner.context,
    server: inner.server,
    warnings: inner.warnings,
    async requestOptions(method, path, headers = {}) {
      const options = await inner.requestOptions(method, path, headers);
      return { ...options, headers: { ...options.headers, Authorization: `Bearer ${token}` } };
    },
    credentialsRejected() {
      counter.rejected++;
      token = ECHO_FRESH_TOKEN;
      return true;
    },
    close: () => inner.close(),
  };
}

describe('UiRelay', () => {
  let remote: HttpsApiServer;
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let relayServer: https.Server;
  let relay: UiRelay;
  let port: number;
  let directory: string;
  let kubeconfig: string;
  let origin: string;
  const rejected = { rejected: 0 };
  const emulated: { apiPath: string; query: string }[] = [];
  const bodies: string[] = [];

  beforeAll(async () => {
    remote = await startHttpsApiServer({ token: REMOTE_TOKEN, namespaces: ['team'] });
    // SelfSubjectReview and the access reviews, as the real cluster serves them
    registerReviewApis(remote.api, { authorizer: new RbacAuthorizer(new StoreRbacSource(remote.store)), authenticator: { authenticate: () => undefined } });
    echo = await startEchoServer(remote);
    const down = await closedPort();
    directory = mkdtempSync(join(tmpdir(), 'ui-relay-'));
    kubeconfig = join(directory, 'kubeconfig');
    const ca = Buffer.from(remote.pki.caCertPem).toString('base64');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: remote',
        'clusters:',
        `- {name: remote, cluster: {server: "https://127.0.0.1:${remote.port}", certificate-authority-data: ${ca}}}`,
        `- {name: insecure, cluster: {server: "https://127.0.0.1:${remote.port}", insecure-skip-tls-verify: true}}`,
        `- {name: untrusted, cluster: {server: "https://127.0.0.1:${remote.port}"}}`,
        `- {name: echo, cluster: {server: "https://localhost:${echo.port}", certificate-authority-data: ${ca}}}`,
        `- {name: down, cluster: {server: "https://127.0.0.1:${down}", certificate-authority-data: ${ca}}}`,
        'users:',
        `- {name: admin, user: {token: ${REMOTE_TOKEN}}}`,
        '- {name: wrong, user: {token: not-the-token}}',
        '- {name: plugin, user: {token: replaced-by-the-fake-connection}}',
        'contexts:',
        '- {name: remote, context: {cluster: remote, user: admin, namespace: team}}',
        '- {name: insecure, context: {cluster: insecure, user: admin}}',
        '- {name: untrusted, context: {cluster: untrusted, user: admin}}',
        '- {name: echo, context: {cluster: echo, user: plugin}}',
        '- {name: down, context: {cluster: down, user: admin}}',
        '- {name: bad-token, context: {cluster: remote, user: wrong}}',
        '',
      ].join('\n'),
    );
    relay = new UiRelay({
      sessions: { authenticate: (headers) => (headers.cookie === SESSION ? { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] } : undefined) },
      port: () => port,
      selfServer: () => `https://127.0.0.1:${port}`,
      selfContext: () => 'kubedesk',
      dataDir: directory,
      kubeconfigFiles: [kubeconfig],
      // the echo context's user is an exec plugin: a fake connection stands in for it
      connectionFor: (config) => (config.contextName === 'echo' ? refreshingConnection(config, rejected) : staticConnection(config)),
      listContexts: summarizeContexts,
      portForwardEmulation: ({ context }): PortForwardEmulation => ({
        handleRequest: async (_request, response, apiPath, query) => {
          emulated.push({ apiPath, query: query.toString() });
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end(JSON.stringify({ kind: 'PortForwardList', apiVersion: 'kubedesk.dev/v1alpha1', metadata: {}, items: [], emulatedFor: context }));
        },
        handleUpgrade: (_request: IncomingMessage, socket: Duplex) => socket.destroy(),
        close: () => undefined,
      }),
      connectTimeoutMs: 2000,
    });
    relayServer = https.createServer({ cert: remote.pki.serverCertPem, key: remote.pki.serverKeyPem }, (request, response) => {
      if (!relay.handleRequest(request, response)) {
        response.writeHead(404);
        response.end();
      }
    });
    relayServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (!relay.handleUpgrade(request, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => relayServer.listen(0, '127.0.0.1', resolve));
    port = (relayServer.address() as AddressInfo).port;
    origin = `https://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    relay.dispose();
    relayServer.closeAllConnections();
    relayServer.close();
    echo.close();
    await remote.close();
    rmSync(directory, { recursive: true, force: true });
    // what a browser could read never holds a credential of the kubeconfig
    for (const body of bodies) for (const secret of [REMOTE_TOKEN, ECHO_FRESH_TOKEN, ECHO_STALE_TOKEN, 'not-the-token']) expect(body).not.toContain(secret);
  });

  function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const request = https.request({ host: '127.0.0.1', port, method, path, ca: remote.pki.caCertPem, agent: false, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          bodies.push(text);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text });
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  const session = (extra: Record<string, string> = {}) => ({ cookie: SESSION, ...extra });
  const json = (reply: Reply) => JSON.parse(reply.body) as Record<string, unknown> & { details?: { causes?: { reason: string; field?: string; message: string }[] } };

  it('lists every context with its base path, the serving cluster first (also when the kubeconfig lacks it), the others by name as kubectl lists them', async () => {
    const reply = await send('GET', '/ui/clusters', session());
    expect(reply.status).toBe(200);
    const list = json(reply) as { self: string; kubeconfigFiles: string[]; clusters: { name: string; self: boolean; basePath: string; readOnly: boolean; server: string; authKind: string; current: boolean; namespace?: string }[] };
    expect(list.self).toBe('kubedesk');
    expect(list.kubeconfigFiles).toEqual([kubeconfig]);
    expect(list.clusters.map((cluster) => cluster.name)).toEqual(['kubedesk', 'bad-token', 'down', 'echo', 'insecure', 'remote', 'untrusted']);
    expect(list.clusters[0]).toMatchObject({ self: true, basePath: '', server: `https://127.0.0.1:${port}`, readOnly: false });
    expect(list.clusters.find((cluster) => cluster.name === 'remote')).toMatchObject({ self: false, basePath: '/ui/clusters/remote', authKind: 'token', current: true, namespace: 'team' });
    expect(list.clusters.find((cluster) => cluster.name === 'echo')).toMatchObject({ name: 'echo', authKind: 'token' });
  });

  it('reads the kubeconfig again when it changed', async () => {
    appendFileSync(kubeconfig, '');
    const text = readFileSync(kubeconfig, 'utf8');
    writeFileSync(kubeconfig, text.replace('contexts:\n', 'contexts:\n- {name: "kubedesk", context: {cluster: remote, user: admin}}\n'));
    try {
      const list = json(await send('GET', '/ui/clusters', session())) as { clusters: { name: string; self: boolean; basePath: string }[] };
      expect(list.clusters.filter((cluster) => cluster.self)).toEqual([expect.objectContaining({ name: 'kubedesk', basePath: '' })]);
      expect(list.clusters.map((cluster) => cluster.name)).toEqual(['kubedesk', 'bad-token', 'down', 'echo', 'insecure', 'remote', 'untrusted']);
    } finally {
      writeFileSync(kubeconfig, text);
    }
  });

  it('serves only the UI session: a bearer token is refused 403, no session 401, writes and upgrades need the own Origin', async () => {
    expect((await send('GET', '/ui/clusters', { authorization: `Bearer ${REMOTE_TOKEN}` })).status).toBe(403);
    expect((await send('GET', '/ui/clusters', { ...session(), authorization: `Bearer ${REMOTE_TOKEN}` })).status).toBe(403);
    expect((await send('GET', '/ui/clusters/remote/api/v1/pods', { authorization: `Bearer ${REMOTE_TOKEN}` })).status).toBe(403);
    expect((await send('GET', '/ui/clusters')).status).toBe(401);
    expect((await send('GET', '/ui/clusters', { cookie: 'kubedesk-session=stale' })).status).toBe(401);
    const create = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-origin' } });
    expect((await send('POST', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session({ 'content-type': 'application/json' }), create)).status).toBe(403);
    expect((await send('POST', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session({ 'content-type': 'application/json', origin: 'https://evil.example' }), create)).status).toBe(403);
    const socket = await openSocket('/ui/clusters/remote/api/v1/namespaces/team/configmaps?watch=1', session(), ['binary.k8s.io']);
    expect(socket.refused).toBe(403);
  });

  it('relays reads and writes to the context with its credentials and streams a watch', async () => {
    const watch = streamLines('/ui/clusters/remote/api/v1/namespaces/team/configmaps?watch=1');
    const created = await send('POST', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session({ 'content-type': 'application/json', origin }), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'through-relay' }, data: { a: 'b' } }));
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    const list = await send('GET', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session());
    expect(list.status).toBe(200);
    expect((json(list).items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toContain('through-relay');
    await until(() => watch.lines.some((line) => line.includes('"ADDED"') && line.includes('through-relay')), 'the watch event through the relay');
    watch.close();
  });

  it('passes on only allow-listed headers both ways and replaces the user agent', async () => {
    const reply = await send('GET', '/ui/clusters/echo/api/v1/echo?x=1', session({ accept: 'application/json', 'accept-encoding': 'gzip', origin, 'impersonate-user': 'someone', 'x-remote-user': 'someone', 'x-forwarded-for': '1.2.3.4', 'user-agent': 'Mozilla' }));
    expect(reply.status).toBe(200);
    const last = echo.seen[echo.seen.length - 1];
    expect(last['user-agent']).toBe('kubedesk-ui');
    expect(last.accept).toBe('application/json');
    // a cluster that compresses large replies may: the bytes go back as they came, with their encoding
    expect(last['accept-encoding']).toBe('gzip');
    for (const name of ['cookie', 'origin', 'impersonate-user', 'x-remote-user', 'x-forwarded-for']) expect(last[name]).toBeUndefined();
    expect(last.authorization).toBe(`Bearer ${ECHO_FRESH_TOKEN}`);
    expect(reply.headers['set-cookie']).toBeUndefined();
    expect(reply.headers['x-served-by']).toBeUndefined();
    expect(reply.headers.warning).toBe('299 - "deprecated"');
    expect(reply.headers['audit-id']).toBe('audit-1');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(json(reply)).toMatchObject({ method: 'GET', path: '/api/v1/echo?x=1' });
  });

  it('retries once with fresh credentials after a 401, sending the body again', async () => {
    // a new connection starts with the stale token again
    const text = readFileSync(kubeconfig, 'utf8');
    writeFileSync(kubeconfig, text.replace('{cluster: echo, user: plugin}', '{cluster: echo, user: plugin, namespace: other}'));
    try {
      const before = rejected.rejected;
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'retried' } });
      const reply = await send('POST', '/ui/clusters/echo/api/v1/namespaces/a/configmaps', session({ 'content-type': 'application/json', origin }), body);
      expect(reply.status).toBe(201);
      expect(json(reply)).toMatchObject({ method: 'POST', body });
      expect(rejected.rejected).toBe(before + 1);
    } finally {
      writeFileSync(kubeconfig, text);
    }
  });

  it('relays a WebSocket watch with the subprotocol the server chose', async () => {
    const socket = await openSocket('/ui/clusters/remote/api/v1/namespaces/team/configmaps?watch=1', session({ origin }), ['binary.k8s.io']);
    expect(socket.refused).toBeUndefined();
    expect(socket.protocol).toBe('binary.k8s.io');
    await createObject(remote.api, '/api/v1/namespaces/team/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'seen-by-socket' } });
    await until(() => socket.messages.some((message) => message.includes('seen-by-socket')), 'the watch event over the relayed WebSocket');
    socket.close();
  });

  it('enforces the read-only switch: writes and exec refused, reads and access reviews allowed', async () => {
    const on = await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: true }));
    expect(on.status).toBe(200);
    expect(json(on)).toMatchObject({ name: 'remote', readOnly: true, basePath: '/ui/clusters/remote' });
    expect(JSON.parse(readFileSync(join(directory, 'ui-clusters.json'), 'utf8'))).toEqual({ clusters: { remote: { readOnly: true } } });
    try {
      const create = await send('POST', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session({ 'content-type': 'application/json', origin }), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused' } }));
      expect(create.status).toBe(403);
      expect(json(create).message).toBe('the cluster "remote" is read-only in kubedesk (turn it off in Settings → Clusters)');
      const review = await send(
        'POST',
        '/ui/clusters/remote/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        session({ 'content-type': 'application/json', origin }),
        JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'team' } } }),
      );
      expect(review.status).toBe(201);
      expect((await send('GET', '/ui/clusters/remote/api/v1/namespaces/team/configmaps', session())).status).toBe(200);
      expect((await openSocket('/ui/clusters/remote/api/v1/namespaces/team/pods/web/exec?command=sh', session({ origin }), ['v5.channel.k8s.io'])).refused).toBe(403);
      expect((json(await send('GET', '/ui/clusters', session())).clusters as { name: string; readOnly: boolean }[]).find((cluster) => cluster.name === 'remote')?.readOnly).toBe(true);
    } finally {
      expect((await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: false }))).status).toBe(200);
    }
  });

  it('keeps the read-only switch of the serving cluster for its own API', async () => {
    expect(relay.selfSessionRefusal({ method: 'DELETE', path: '/api/v1/namespaces/a/pods/web' })).toBeUndefined();
    expect((await send('PUT', '/ui/clusters/kubedesk/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: true }))).status).toBe(200);
    try {
      expect(relay.selfSessionRefusal({ method: 'DELETE', path: '/api/v1/namespaces/a/pods/web' })?.code).toBe(403);
      expect(relay.selfSessionRefusal({ method: 'POST', path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews' })).toBeUndefined();
      expect(relay.selfSessionRefusal({ method: 'GET', path: '/api/v1/pods' })).toBeUndefined();
    } finally {
      await send('PUT', '/ui/clusters/kubedesk/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: false }));
    }
  });

  it('refuses settings that are not a boolean switch, and contexts it does not know', async () => {
    const invalid = await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: 'yes' }));
    expect(invalid.status).toBe(422);
    expect(json(invalid)).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'readOnly' }] } });
    expect((await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'text/plain', origin }), 'readOnly')).status).toBe(415);
    expect((await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'application/json', origin }), '{')).status).toBe(400);
    expect((await send('PUT', '/ui/clusters/remote/-/settings', session({ 'content-type': 'application/json' }), JSON.stringify({ readOnly: true }))).status).toBe(403);
    expect((await send('PUT', '/ui/clusters/nowhere/-/settings', session({ 'content-type': 'application/json', origin }), JSON.stringify({ readOnly: true }))).status).toBe(404);
    const unknown = await send('GET', '/ui/clusters/nowhere/api/v1/pods', session());
    expect(unknown.status).toBe(404);
    expect(json(unknown).reason).toBe('NotFound');
  });

  it('refuses paths that try to escape, the pod and service proxy, and non-API paths', async () => {
    for (const path of ['/ui/clusters/../api/v1/secrets', '/ui/clusters/remote%2F..%2Fx/api/v1/pods', '/ui/clusters/remote/api/v1/../../../kubedesk/api/v1/secrets', '/ui/clusters/remote/api/v1/namespaces/%2e%2e/secrets']) {
      const reply = await send('GET', path, session());
      expect(reply.status, path).toBe(400);
      expect(json(reply).reason).toBe('BadRequest');
    }
    expect((await send('GET', '/ui/clusters/remote/api/v1/namespaces/team/pods/web/proxy/', session())).status).toBe(403);
    expect((await send('GET', '/ui/clusters/remote/ui/index.html', session())).status).toBe(404);
  });

  it('answers 503 with the cause when the cluster cannot be reached or its certificate is not trusted', async () => {
    const down = await send('GET', '/ui/clusters/down/api/v1/pods', session());
    expect(down.status).toBe(503);
    const downStatus = json(down);
    expect(downStatus.reason).toBe('ServiceUnavailable');
    expect(downStatus.details?.causes?.[0].reason).toBe('Unreachable');
    expect(downStatus.message).toMatch(/127\.0\.0\.1:\d+/);

    const untrusted = await send('GET', '/ui/clusters/untrusted/api/v1/pods', session());
    expect(untrusted.status).toBe(503);
    const fingerprint = new X509Certificate(remote.pki.serverCertPem).fingerprint256;
    expect(json(untrusted).details?.causes?.[0]).toMatchObject({ reason: 'CertificateNotTrusted', field: fingerprint });
    expect(json(untrusted).message).toContain(`SHA-256 fingerprint ${fingerprint}`);

    expect((await openSocket('/ui/clusters/down/api/v1/pods?watch=1', session({ origin }), ['binary.k8s.io'])).refused).toBe(503);
  });

  it('reports each context\'s connection state, and the serving cluster\'s from the session', async () => {
    const status = async (context: string) => json(await send('GET', `/ui/clusters/${context}/-/status`, session()));
    expect(await status('remote')).toMatchObject({ state: 'connected', user: { username: 'admin', groups: expect.arrayContaining(['system:masters']) }, warnings: [] });
    expect(typeof (await status('remote')).kubedesk).toBe('boolean');
    expect(await status('kubedesk')).toMatchObject({ state: 'connected', user: { username: 'kubedesk-admin' }, kubedesk: true });
    expect(await status('bad-token')).toMatchObject({ state: 'unauthorized' });
    expect(await status('down')).toMatchObject({ state: 'unreachable', kubedesk: false });
    expect(await status('untrusted')).toMatchObject({ state: 'certificate-not-trusted', fingerprint: new X509Certificate(remote.pki.serverCertPem).fingerprint256 });
    const insecure = await status('insecure');
    expect(insecure.state).toBe('connected');
    expect((insecure.warnings as string[])[0]).toContain('insecure-skip-tls-verify');
    expect((await send('GET', '/ui/clusters/nowhere/-/status', session())).status).toBe(404);
  });

  it('hands PortForwards to the emulation when the cluster does not serve kubedesk.dev/v1alpha1', async () => {
    const emulatedReply = await send('GET', '/ui/clusters/remote/apis/kubedesk.dev/v1alpha1/namespaces/team/portforwards?limit=5', session());
    expect(emulatedReply.status).toBe(200);
    expect(json(emulatedReply)).toMatchObject({ kind: 'PortForwardList', emulatedFor: 'remote' });
    expect(emulated).toEqual([{ apiPath: '/apis/kubedesk.dev/v1alpha1/namespaces/team/portforwards', query: 'limit=5' }]);
    // the echo cluster answers discovery for the group: its requests go to it as they are
    const served = await send('GET', '/ui/clusters/echo/apis/kubedesk.dev/v1alpha1/portforwards', session());
    expect(json(served)).toMatchObject({ path: '/apis/kubedesk.dev/v1alpha1/portforwards' });
    expect(emulated).toHaveLength(1);
  });

  function streamLines(path: string): { lines: string[]; close(): void } {
    const lines: string[] = [];
    const request = https.request({ host: '127.0.0.1', port, path, ca: remote.pki.caCertPem, agent: false, headers: session() }, (response) => {
      response.setEncoding('utf8');
      let buffered = '';
      response.on('data', (chunk: string) => {
        buffered += chunk;
        const parts = buffered.split('\n');
        buffered = parts.pop() ?? '';
        lines.push(...parts);
      });
      response.on('error', () => undefined);
    });
    request.on('error', () => undefined);
    request.end();
    return { lines, close: () => request.destroy() };
  }

  async function openSocket(path: string, headers: Record<string, string>, protocols: string[]): Promise<{ refused?: number; protocol?: string; messages: string[]; close(): void }> {
    const messages: string[] = [];
    const socket = new WebSocket(`wss://127.0.0.1:${port}${path}`, protocols, { ca: remote.pki.caCertPem, headers });
    socket.on('message', (data: Buffer) => messages.push(data.toString()));
    socket.on('error', () => undefined);
    return new Promise((resolve) => {
      socket.once('open', () => resolve({ protocol: socket.protocol, messages, close: () => socket.close() }));
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => bodies.push(Buffer.concat(chunks).toString()));
        resolve({ refused: response.statusCode ?? 0, messages, close: () => socket.terminate() });
      });
    });
  }
});
