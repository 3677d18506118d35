// Drives services/<id>/proxy and pods/<id>/proxy through the real ApiServer + HttpServer, wired the
// way the composition root wires them, with local HTTP(S) servers standing in for a pod (a fake
// dialer maps the pod IP's ports to them), and with the real kubectl (`get --raw`, `kubectl proxy`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { WebSocket, WebSocketServer } from 'ws';
import { httpsRequest, startHttpsApiServer, type HttpsApiServer } from '../../../test/fixtures/httpsApiServer';
import { apiRequest } from '../../../test/fixtures/inMemoryApiServer';
import { kubectlPath, startKubectl, type KubectlRun } from '../../../test/fixtures/kubectl';
import { until as pollUntil } from '../../../test/fixtures/until';
import type { ApiReply } from '../apiServer';
import { apiServerLookup, createProxyHandlers, type ProxyDialer, type ProxyHandlers } from './proxyHandler';

const TOKEN = 'proxy-test-token';
const TIMEOUT = 60_000;
const POD_IP = '10.1.0.5';
const NS = '/api/v1/namespaces/default';

let cluster: HttpsApiServer;
let proxy: ProxyHandlers;
let caPem: string;
let apiPort: number;
let backend: http.Server;
let secureBackend: https.Server;
let directFront: http.Server;
let directPort: number;
const routes = new Map<string, number>();
const dialed: string[] = [];
const pendingStreams: ServerResponse[] = [];

const dialer: ProxyDialer = {
  dial(ip, port) {
    dialed.push(`${ip}:${port}`);
    const local = routes.get(`${ip}:${port}`);
    if (local === undefined) return Promise.reject(Object.assign(new Error(`connect ECONNREFUSED ${ip}:${port}`), { code: 'ECONNREFUSED' }));
    return new Promise((resolve, reject) => {
      const socket = net.connect(local, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });
  },
};

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** the stand-in pod: echoes requests as JSON, plus a few pages exercising the rewriting */
async function servePod(request: IncomingMessage, response: ServerResponse, secure: boolean): Promise<void> {
  const body = await readAll(request);
  const url = request.url ?? '/';
  if (url === '/index.html' || url === '/') {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(`<html><body>${secure ? 'secure' : 'plain'} <a href="/docs/">docs</a> <a href="other">other</a></body></html>`);
    return;
  }
  if (url === '/gzip') {
    response.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': 'gzip' });
    response.end(gzipSync('<img src="/logo.png">'));
    return;
  }
  if (url === '/redirect') {
    response.writeHead(302, { Location: `http://${POD_IP}:8080/target/?from=redirect` });
    response.end();
    return;
  }
  if (url === '/stream') {
    response.writeHead(200, { 'Content-Type': 'text/plain' });
    response.write('first\n');
    pendingStreams.push(response);
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/json', 'Access-Control-Allow-Origin': '*', 'X-Backend': secure ? 'secure' : 'plain', 'Set-Cookie': ['a=1', 'b=2'] });
  response.end(JSON.stringify({ method: request.method, url, headers: request.headers, body: body.toString() }));
}

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)));
}

function request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<ApiReply> {
  return apiRequest(cluster.api, method, path, body, contentType);
}

async function create(path: string, object: unknown): Promise<void> {
  const created = await request('POST', path, object);
  expect(created.status, String(created.body)).toBe(201);
}

async function createPod(name: string, ip: string | undefined, ports: unknown[]): Promise<void> {
  await create(`${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'nginx', ports }] } });
  const status = ip ? { phase: 'Running', podIP: ip, podIPs: [{ ip }] } : { phase: 'Pending' };
  const patched = await request('PATCH', `${NS}/pods/${name}/status`, { status }, 'application/merge-patch+json');
  expect(patched.status, String(patched.body)).toBe(200);
}

async function createService(name: string, ports: unknown[], slicePorts: unknown[], endpoints: Array<{ ip: string; pod: string }>): Promise<void> {
  await create(`${NS}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports } });
  await create('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${name}-abcde`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    ports: slicePorts,
    endpoints: endpoints.map(({ ip, pod }) => ({ addresses: [ip], conditions: { ready: true }, targetRef: { kind: 'Pod', namespace: 'default', name: pod } })),
  });
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function call(method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Reply> {
  const length: Record<string, string> = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
  return httpsRequest(cluster, method, path, { headers: { authorization: `Bearer ${TOKEN}`, ...length, ...options.headers }, body: options.body });
}

function echoOf(reply: Reply): { method: string; url: string; headers: Record<string, string>; body: string } {
  expect(reply.status, reply.body).toBe(200);
  return JSON.parse(reply.body) as { method: string; url: string; headers: Record<string, string>; body: string };
}

function statusOf(reply: Reply): { code: number; reason?: string; message: string } {
  const status = JSON.parse(reply.body) as { kind: string; code: number; reason?: string; message: string };
  expect(status.kind).toBe('Status');
  expect(status.code).toBe(reply.status);
  return { code: status.code, reason: status.reason, message: status.message };
}

function kubectl(args: string[]): KubectlRun {
  return startKubectl(args, { kubeconfig: cluster.kubeconfig, home: cluster.directory });
}

function until(check: () => boolean, what: string): Promise<void> {
  return pollUntil(check, what, 20_000);
}

beforeAll(async () => {
  cluster = await startHttpsApiServer({ token: TOKEN, namespaces: ['default'] });
  ({ port: apiPort } = cluster);
  caPem = cluster.pki.caCertPem;
  const { pki } = cluster;

  // the wiring the composition root uses
  proxy = createProxyHandlers({ lookup: apiServerLookup(cluster.api), dialer, random: () => 0 });
  cluster.api.provideSubresource('serviceProxy', proxy.services);
  cluster.api.provideSubresource('podProxy', proxy.pods);
  cluster.server.addUpgradeHandler(proxy.upgrade);

  const webSockets = new WebSocketServer({ noServer: true });
  const onUpgrade = (request: IncomingMessage, socket: net.Socket, head: Buffer) => {
    if (request.url?.startsWith('/refuse')) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope');
      return;
    }
    if (request.url?.startsWith('/ws-less')) {
      socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
      return;
    }
    webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      webSocket.send(`hello ${request.url} auth=${request.headers.authorization ?? 'none'}`);
      webSocket.on('message', (data: Buffer) => webSocket.send(`echo:${data.toString()}`));
    });
  };
  backend = http.createServer((request, response) => void servePod(request, response, false));
  backend.on('upgrade', onUpgrade);
  routes.set(`${POD_IP}:8080`, await listen(backend));
  secureBackend = https.createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (request, response) => void servePod(request, response, true));
  secureBackend.on('upgrade', onUpgrade);
  routes.set(`${POD_IP}:8443`, await listen(secureBackend));
  routes.set(`${POD_IP}:80`, routes.get(`${POD_IP}:8080`) ?? 0);
  directFront = http.createServer((request, response) => {
    if (!proxy.serveHttp(request, response)) response.writeHead(404).end();
  });
  directPort = await listen(directFront);

  await createPod('web-1', POD_IP, [
    { name: 'http', containerPort: 8080 },
    { name: 'https', containerPort: 8443 },
  ]);
  await createPod('starting', undefined, [{ containerPort: 8080 }]);
  await createPod('down-1', '10.1.0.99', []);
  await createService(
    'web',
    [
      { name: 'http', port: 80, targetPort: 'http' },
      { name: 'https', port: 443, targetPort: 'https' },
    ],
    [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'https', port: 8443, protocol: 'TCP' },
    ],
    [{ ip: POD_IP, pod: 'web-1' }],
  );
  await createService('lonely', [{ port: 80 }], [{ port: 80, protocol: 'TCP' }], []);
  await createService('down', [{ port: 80 }], [{ port: 80, protocol: 'TCP' }], [{ ip: '10.1.0.99', pod: 'down-1' }]);

}, TIMEOUT);

afterAll(async () => {
  for (const response of pendingStreams) response.destroy();
  for (const each of [backend, secureBackend, directFront]) {
    each?.closeAllConnections();
    await new Promise<void>((resolve) => (each ? each.close(() => resolve()) : resolve()));
  }
  await cluster?.close();
});

describe('services/proxy and pods/proxy through the API server', () => {
  it.each([
    ['services/web:80', `${POD_IP}:8080`, 'plain'],
    ['services/web:http', `${POD_IP}:8080`, 'plain'],
    ['services/http:web:http', `${POD_IP}:8080`, 'plain'],
    ['services/https:web:443', `${POD_IP}:8443`, 'secure'],
    ['services/https:web:https', `${POD_IP}:8443`, 'secure'],
    ['pods/web-1', `${POD_IP}:8080`, 'plain'],
    ['pods/web-1:8080', `${POD_IP}:8080`, 'plain'],
    ['pods/web-1:http', `${POD_IP}:8080`, 'plain'],
    ['pods/https:web-1:https', `${POD_IP}:8443`, 'secure'],
  ])('%s/proxy/… reaches %s with path and query intact', async (target, address, flavour) => {
    const reply = await call('GET', `${NS}/${target}/proxy/echo/a%20b/?x=1&y=two%2Bthree`);
    const echo = echoOf(reply);
    expect(dialed.at(-1)).toBe(address);
    expect(reply.headers['x-backend']).toBe(flavour);
    expect(echo.method).toBe('GET');
    expect(echo.url).toBe('/echo/a%20b/?x=1&y=two%2Bthree');
    expect(echo.headers.authorization).toBeUndefined();
    expect(echo.headers['x-forwarded-uri']).toBe(`${NS}/${target}/proxy/echo/a%20b/`);
    // the backend's CORS grants never reach the browser, as upstream strips them
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('forwards %s with its body', async (method) => {
    const payload = JSON.stringify({ method, data: 'x'.repeat(100_000) });
    const echo = echoOf(await call(method, `${NS}/services/web:80/proxy/submit?ok=1`, { body: payload, headers: { 'content-type': 'application/json', 'x-custom': 'kept' } }));
    expect(echo).toMatchObject({ method, url: '/submit?ok=1', body: payload });
    expect(echo.headers['content-type']).toBe('application/json');
    expect(echo.headers['x-custom']).toBe('kept');
  });

  it('answers HEAD with the headers and no body', async () => {
    const reply = await call('HEAD', `${NS}/services/web:80/proxy/echo`);
    expect(reply.status).toBe(200);
    expect(reply.headers['x-backend']).toBe('plain');
    expect(reply.body).toBe('');
  });

  it('redirects a GET of …/proxy to …/proxy/ keeping the query, as upstream does', async () => {
    const reply = await call('GET', `${NS}/services/web:80/proxy?a=1`);
    expect(reply.status).toBe(301);
    expect(reply.headers.location).toBe(`${NS}/services/web:80/proxy/?a=1`);
    // other methods go to the backend's root (which serves the index page)
    expect((await call('POST', `${NS}/services/web:80/proxy`, { body: 'x' })).body).toContain('<html><body>plain');
  });

  it('rewrites redirects and HTML links to stay under the proxy prefix', async () => {
    const redirect = await call('GET', `${NS}/services/web:80/proxy/redirect`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe(`${NS}/services/web:80/proxy/target/?from=redirect`);
    const page = await call('GET', `${NS}/services/web:80/proxy/`);
    expect(page.body).toBe(`<html><body>plain <a href="${NS}/services/web:80/proxy/docs/">docs</a> <a href="other">other</a></body></html>`);
    const compressed = await new Promise<Buffer>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: apiPort, path: `${NS}/pods/web-1/proxy/gzip`, ca: caPem, agent: false, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
          expect(response.headers['content-encoding']).toBe('gzip');
          readAll(response).then(resolve, reject);
        })
        .on('error', reject);
    });
    expect(gunzipSync(compressed).toString()).toBe(`<img src="${NS}/pods/web-1/proxy/logo.png">`);
  });

  it('streams the backend response as it comes', async () => {
    const received = new PassThrough();
    let text = '';
    received.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const done = new Promise<void>((resolve, reject) => {
      https
        .get({ host: '127.0.0.1', port: apiPort, path: `${NS}/services/web:80/proxy/stream`, ca: caPem, agent: false, headers: { authorization: `Bearer ${TOKEN}` } }, (response) => {
          response.pipe(received);
          response.on('end', resolve);
        })
        .on('error', reject);
    });
    await until(() => text === 'first\n', 'the first chunk');
    await until(() => pendingStreams.length > 0, 'the backend stream');
    pendingStreams.shift()?.end('second\n');
    await done;
    expect(text).toBe('first\nsecond\n');
  });

  it.each([
    ['services/lonely/proxy/', 503, 'ServiceUnavailable', 'no endpoints available for service "lonely"'],
    ['services/nosuch/proxy/', 404, 'NotFound', 'endpoints "nosuch" not found'],
    ['services/nosuch:80/proxy/', 404, 'NotFound', 'services "nosuch" not found'],
    ['services/web:81/proxy/', 503, 'ServiceUnavailable', 'no service port 81 found for service "web"'],
    ['services/down/proxy/', 503, 'ServiceUnavailable', 'error trying to reach service: dial tcp 10.1.0.99:80: connect: connection refused'],
    ['services/ftp:web:80/proxy/', 400, 'BadRequest', 'invalid service request "ftp:web:80"'],
    ['pods/starting/proxy/', 400, 'BadRequest', 'address not allowed'],
    ['pods/nosuch/proxy/', 404, 'NotFound', 'pods "nosuch" not found'],
    ['pods/web-1:9999/proxy/', 503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${POD_IP}:9999: connect: connection refused`],
  ])('answers %s with %i %s as a Status', async (path, code, reason, message) => {
    expect(statusOf(await call('GET', `${NS}/${path}`))).toEqual({ code, reason, message });
  });

  it('refuses methods upstream does not connect', async () => {
    expect((await call('TRACE', `${NS}/services/web:80/proxy/`)).status).toBe(405);
  });

  it('splices a WebSocket upgrade through to the backend without the caller credentials', async () => {
    const socket = new WebSocket(`wss://127.0.0.1:${apiPort}${NS}/services/web:http/proxy/ws?q=1`, { ca: caPem, headers: { authorization: `Bearer ${TOKEN}` } });
    const messages: string[] = [];
    socket.on('message', (data: Buffer) => messages.push(data.toString()));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send('ping');
    await until(() => messages.length === 2, 'two messages');
    expect(messages).toEqual(['hello /ws?q=1 auth=none', 'echo:ping']);
    socket.close();
  });

  it.each([
    ['services/lonely/proxy/ws', 503],
    ['services/https:web:https/proxy/refuse', 403],
    ['services/down/proxy/ws', 500],
    // a backend that answers an upgrade with 200 is an error, as upstream
    ['services/web:http/proxy/ws-less', 500],
  ])('answers a failed upgrade to %s with %i', async (path, code) => {
    const socket = new WebSocket(`wss://127.0.0.1:${apiPort}${NS}/${path}`, { ca: caPem, headers: { authorization: `Bearer ${TOKEN}` } });
    const status = await new Promise<number>((resolve, reject) => {
      socket.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
        response.resume();
      });
      socket.once('open', () => reject(new Error('unexpectedly upgraded')));
      socket.once('error', () => undefined);
    });
    expect(status).toBe(code);
    socket.terminate();
  });
});

describe('serveHttp, the streaming entry point', () => {
  function direct(method: string, path: string, body?: NodeJS.ReadableStream | string, headers: Record<string, string> = {}): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const outgoing = http.request({ host: '127.0.0.1', port: directPort, path, method, agent: false, headers: { authorization: 'Bearer secret', ...headers } }, (response) => {
        readAll(response).then((data) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: data.toString() }), reject);
      });
      outgoing.on('error', reject);
      if (body === undefined || typeof body === 'string') outgoing.end(body);
      else body.pipe(outgoing);
    });
  }

  it('streams a chunked upload and passes the raw query, repeated headers and credentials rules', async () => {
    const upload = new PassThrough();
    const pending = direct('PUT', `${NS}/services/web:80/proxy/upload?flag&a=b+c`, upload, { 'x-hop': 'dropped', connection: 'x-hop', 'impersonate-user': 'mallory' });
    for (let index = 0; index < 10; index++) upload.write('y'.repeat(10_000));
    upload.end();
    const reply = await pending;
    const echo = echoOf(reply);
    expect(echo.url).toBe('/upload?flag&a=b+c');
    expect(echo.body.length).toBe(100_000);
    expect(echo.headers.authorization).toBeUndefined();
    expect(echo.headers['impersonate-user']).toBeUndefined();
    expect(echo.headers['x-hop']).toBeUndefined();
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(reply.headers['set-cookie']).toEqual(['a=1', 'b=2']);
  });

  it('answers errors and the root redirect like the subresource', async () => {
    const missing = await direct('GET', `${NS}/services/lonely/proxy/`);
    expect(statusOf(missing)).toEqual({ code: 503, reason: 'ServiceUnavailable', message: 'no endpoints available for service "lonely"' });
    const redirect = await direct('GET', `${NS}/pods/web-1/proxy`);
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`${NS}/pods/web-1/proxy/`);
  });
});

describe.skipIf(!existsSync(kubectlPath))('with the real kubectl', () => {
  it('kubectl get --raw reads a page through a named-port service proxy', { timeout: TIMEOUT }, async () => {
    const run = kubectl(['get', '--raw', '/api/v1/namespaces/default/services/http:web:http/proxy/index.html']);
    expect(await run.done).toBe(0);
    expect(run.stdout()).toContain('plain <a href="/api/v1/namespaces/default/services/http:web:http/proxy/docs/">docs</a>');
  });

  it('kubectl get --raw prints the upstream error for a service without endpoints', { timeout: TIMEOUT }, async () => {
    const run = kubectl(['get', '--raw', '/api/v1/namespaces/default/services/lonely/proxy/']);
    expect(await run.done).toBe(1);
    expect(run.stderr()).toContain('Error from server (ServiceUnavailable): no endpoints available for service "lonely"');
  });

  it('kubectl proxy serves a service proxy on a local port', { timeout: TIMEOUT }, async () => {
    const run = kubectl(['proxy', '--port=0']);
    try {
      await until(() => /Starting to serve on 127\.0\.0\.1:(\d+)/.test(run.stdout()), 'kubectl proxy to start');
      const port = Number(/Starting to serve on 127\.0\.0\.1:(\d+)/.exec(run.stdout())?.[1]);
      const body = await new Promise<string>((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/api/v1/namespaces/default/services/web:80/proxy/', agent: false }, (response) => readAll(response).then((data) => resolve(data.toString()), reject)).on('error', reject);
      });
      expect(body).toContain('plain <a href="/api/v1/namespaces/default/services/web:80/proxy/docs/">docs</a>');
    } finally {
      run.child.kill('SIGTERM');
      await run.done;
    }
  });
});
