// The web UI's way into a real `kubedesk serve`: the one-time sign-in link it prints, the session
// cookie on the API with its Origin rules (writes and WebSockets only from the server's own origin),
// watches and pod logs over WebSocket as upstream's apiserver serves them, the static UI with its
// Content-Security-Policy — and kubectl's bearer token unaffected by any of it.
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, type RawData } from 'ws';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage, ensureTestImages } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
let loginUrl: string;
let origin: string;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** HTTPS to the cluster with exactly these headers (no bearer token unless given). */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      new URL(path, cluster.server),
      { method, ca: cluster.caPem, agent: false, timeout: 30_000, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function cookieFrom(reply: Reply): string {
  const setCookie = reply.headers['set-cookie']?.[0];
  if (!setCookie) throw new Error(`no Set-Cookie in a ${reply.status} reply`);
  return setCookie.split(';')[0];
}

async function newSession(): Promise<string> {
  const reply = await send('POST', '/ui/session', { origin, 'content-type': 'application/json' }, JSON.stringify({ token: cluster.token }));
  expect(reply.status).toBe(204);
  return cookieFrom(reply);
}

interface Socket {
  frames: Array<{ binary: boolean; data: Buffer }>;
  opened: Promise<void>;
  refused: Promise<number>;
  closed: Promise<number>;
  socket: WebSocket;
}

function openSocket(path: string, headers: Record<string, string>, protocols: string[] = []): Socket {
  const frames: Socket['frames'] = [];
  const socket = new WebSocket(new URL(path, cluster.server.replace(/^https/, 'wss')), protocols, { ca: cluster.caPem, headers });
  socket.on('message', (data: RawData, binary: boolean) => frames.push({ binary, data: Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer) }));
  socket.on('error', () => undefined);
  return {
    frames,
    socket,
    opened: new Promise((resolve) => socket.once('open', () => resolve())),
    refused: new Promise((resolve) =>
      socket.once('unexpected-response', (_request, response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      }),
    ),
    closed: new Promise((resolve) => socket.once('close', (code) => resolve(code))),
  };
}

beforeAll(async () => {
  await ensureTestImages();
  cluster = await startCluster();
  loginUrl = await until('the UI sign-in line in the log', () => /kubedesk: UI at (https:\/\/\S+)/.exec(cluster.logs())?.[1], 30_000, 100);
  origin = new URL(cluster.server).origin;
  await kubectlOk(cluster, ['run', 'talker', `--image=${busyboxImage}`, '--restart=Never', '--command', '--', 'sh', '-c', 'echo hello-over-websocket; exec sleep 3600']);
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('UI access', () => {
  it('prints a sign-in link that sets a session cookie once and is refused the second time', async () => {
    expect(loginUrl.startsWith(`${cluster.server}/ui/login?token=`)).toBe(true);
    const path = new URL(loginUrl).pathname + new URL(loginUrl).search;
    const first = await send('GET', path);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/ui/');
    const cookie = cookieFrom(first);
    expect(first.headers['set-cookie']?.[0]).toContain('HttpOnly; Secure; SameSite=Strict');
    expect((await send('GET', '/api/v1/pods', { cookie })).status).toBe(200);
    const second = await send('GET', path);
    expect(second.status).toBe(401);
    expect(second.body).toContain('already used or has expired');
  });

  it('answers the API with 403 (anonymous) without a session, 401 with a stale one and 200 with one', async () => {
    expect((await send('GET', '/api/v1/pods')).status).toBe(403);
    const cookie = await newSession();
    const stale = `${cookie.split('=')[0]}=not-a-session`;
    expect((await send('GET', '/api/v1/pods', { cookie: stale })).status).toBe(401);
    const reply = await send('GET', '/api/v1/pods', { cookie });
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'PodList' });
    expect((await send('GET', '/ui/session', { cookie })).body).toBe('{"user":"kubedesk-admin"}');
  });

  it('lets a session write and delete only from the server origin', async () => {
    const cookie = await newSession();
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-ui' }, data: { a: '1' } });
    const json = { cookie, 'content-type': 'application/json' };
    const collection = '/api/v1/namespaces/default/configmaps';
    const foreign = await send('POST', collection, { ...json, origin: 'https://evil.example' }, manifest);
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect((await send('POST', collection, json, manifest)).status).toBe(403);
    expect((await send('POST', collection, { ...json, origin }, manifest)).status).toBe(201);
    expect((await send('DELETE', `${collection}/from-ui`, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('DELETE', `${collection}/from-ui`, { cookie })).status).toBe(403);
    expect((await send('DELETE', `${collection}/from-ui`, { cookie, origin })).status).toBe(200);
  });

  it('refuses a WebSocket watch with the session from a foreign origin and streams events from its own', async () => {
    const cookie = await newSession();
    const path = '/api/v1/namespaces/default/configmaps?watch=true&fieldSelector=metadata.name%3Dwatched';
    expect(await openSocket(path, { cookie, origin: 'https://evil.example' }).refused).toBe(403);
    expect(await openSocket(path, { cookie }).refused).toBe(403);
    const watch = openSocket(path, { cookie, origin });
    await watch.opened;
    await kubectlOk(cluster, ['create', 'configmap', 'watched', '--from-literal=a=1']);
    await kubectlOk(cluster, ['patch', 'configmap', 'watched', '-p', '{"data":{"a":"2"}}']);
    const events = () => watch.frames.map((frame) => JSON.parse(frame.data.toString('utf8')) as { type: string; object: { data?: Record<string, string> } }).filter((event) => event.type !== 'BOOKMARK');
    await until('ADDED and MODIFIED over the WebSocket', () => (events().length >= 2 ? true : undefined), 30_000, 100);
    expect(events().map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(events()[1].object.data).toEqual({ a: '2' });
    expect(watch.frames.every((frame) => !frame.binary)).toBe(true);
    watch.socket.close();
    await watch.closed;
  });

  it('streams a running pod’s log over a WebSocket', async () => {
    await until('talker to run', async () => ((await kubectlOk(cluster, ['get', 'pod', 'talker', '-o', 'jsonpath={.status.phase}'])) === 'Running' ? true : undefined), 90_000);
    const cookie = await newSession();
    const log = openSocket('/api/v1/namespaces/default/pods/talker/log?follow=true', { cookie, origin }, ['base64.binary.k8s.io']);
    await log.opened;
    expect(log.socket.protocol).toBe('base64.binary.k8s.io');
    const text = () => log.frames.map((frame) => Buffer.from(frame.data.toString('utf8'), 'base64').toString('utf8')).join('');
    await until('the log line over the WebSocket', () => (text().includes('hello-over-websocket') ? true : undefined), 30_000, 100);
    log.socket.close();
    await log.closed;
  });

  it('keeps the bearer token working everywhere, the API path list at / included', async () => {
    const bearer = { authorization: `Bearer ${cluster.token}` };
    expect((await send('GET', '/api/v1/pods', bearer)).status).toBe(200);
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-kubectl' } });
    expect((await send('POST', '/api/v1/namespaces/default/configmaps', { ...bearer, 'content-type': 'application/json' }, manifest)).status).toBe(201);
    const watch = openSocket('/api/v1/namespaces/default/configmaps?watch=true', bearer);
    await watch.opened;
    watch.socket.close();
    const root = JSON.parse(await kubectlOk(cluster, ['get', '--raw', '/'])) as { paths: string[] };
    expect(root.paths).toContain('/api/v1');
    expect(await kubectlOk(cluster, ['get', 'configmap', 'from-kubectl', '-o', 'name'])).toBe('configmap/from-kubectl\n');
  });

  it('sends a browser at / to the UI, which is served with a strict Content-Security-Policy', async () => {
    const browser = await send('GET', '/', { accept: 'text/html,application/xhtml+xml' });
    expect(browser.status).toBe(303);
    expect(browser.headers.location).toBe('/ui/');
    const page = await send('GET', '/ui/');
    expect([200, 404]).toContain(page.status);
    expect(page.headers['content-security-policy']).toContain("script-src 'self';");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
  });
});
