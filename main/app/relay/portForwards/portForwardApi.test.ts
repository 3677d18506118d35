import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { parseRoute, PortForwardApi, watchEventFor } from './portForwardApi';
import { PortForwardStore } from './portForwardStore';

const base = '/apis/kubedesk.dev/v1alpha1/namespaces/default/portforwards';
let store: PortForwardStore;
let api: PortForwardApi;
let server: Server;
let port = 0;

beforeEach(async () => {
  store = new PortForwardStore({ now: () => new Date('2026-01-01T00:00:00Z') });
  api = new PortForwardApi(store, { now: () => new Date('2026-01-01T00:05:00Z') });
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://test');
    void api.handleRequest(request, response, url.pathname, url.searchParams);
  });
  server.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://test');
    api.handleUpgrade(request, socket, head, url.pathname, url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  api.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {}), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // a watch stream is lines
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

function forward(name: string, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name, ...(labels ? { labels } : {}) }, spec: { target: { kind: 'Pod', name: 'web-1' }, port: 8080 } };
}

/** Opens a WebSocket watch and collects its events until it closes. */
function openWatch(query: string): { events: { type: string; object: Record<string, unknown> }[]; opened: Promise<void>; closed: Promise<void>; socket: WebSocket } {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${base}?${query}`);
  const events: { type: string; object: Record<string, unknown> }[] = [];
  socket.on('message', (data) => events.push(JSON.parse(String(data)) as { type: string; object: Record<string, unknown> }));
  return { events, socket, opened: new Promise((resolve) => socket.once('open', () => resolve())), closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('parseRoute', () => {
  it.each([
    ['/apis/kubedesk.dev', { kind: 'group' }],
    ['/apis/kubedesk.dev/v1alpha1/', { kind: 'resources' }],
    ['/apis/kubedesk.dev/v1alpha1/portforwards', { kind: 'collection', watch: false }],
    ['/apis/kubedesk.dev/v1alpha1/namespaces/a/portforwards', { kind: 'collection', namespace: 'a', watch: false }],
    ['/apis/kubedesk.dev/v1alpha1/watch/namespaces/a/portforwards', { kind: 'collection', namespace: 'a', watch: true }],
    ['/apis/kubedesk.dev/v1alpha1/namespaces/a/portforwards/web', { kind: 'object', namespace: 'a', name: 'web', watch: false }],
    ['/apis/kubedesk.dev/v1alpha1/namespaces/a/portforwards/web/status', { kind: 'object', namespace: 'a', name: 'web', watch: false, subresource: 'status' }],
    ['/apis/kubedesk.dev/v1alpha1/namespaces/a/portforwards/web/scale', undefined],
    ['/apis/kubedesk.dev/v1alpha1/namespaces/a/services', undefined],
    ['/apis/kubedesk.dev/v2', undefined],
  ])('routes %s', (path, route) => {
    expect(parseRoute(path)).toEqual(route);
  });
});

describe('watchEventFor', () => {
  const object = (phase: string): KubeObject => ({ metadata: { name: 'a', namespace: 'default' }, status: { phase } });
  const active = (candidate: KubeObject) => isRecord(candidate.status) && candidate.status.phase === 'Active';
  it('turns a change out of the selection into DELETED and into it into ADDED', () => {
    expect(watchEventFor({ type: 'MODIFIED', object: object('Waiting'), previous: object('Active'), resourceVersion: 2 }, active)?.type).toBe('DELETED');
    expect(watchEventFor({ type: 'MODIFIED', object: object('Active'), previous: object('Waiting'), resourceVersion: 2 }, active)?.type).toBe('ADDED');
    expect(watchEventFor({ type: 'MODIFIED', object: object('Active'), previous: object('Active'), resourceVersion: 2 }, active)?.type).toBe('MODIFIED');
    expect(watchEventFor({ type: 'MODIFIED', object: object('Waiting'), previous: object('Failed'), resourceVersion: 2 }, active)).toBeUndefined();
  });
});

describe('PortForwardApi', () => {
  it('serves discovery with the short name pf and the verbs it supports', async () => {
    const reply = await call('GET', '/apis/kubedesk.dev/v1alpha1');
    expect(reply.json).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'kubedesk.dev/v1alpha1',
      resources: [{ name: 'portforwards', singularName: 'portforward', namespaced: true, kind: 'PortForward', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['pf'] }],
    });
    expect((await call('GET', '/apis/kubedesk.dev')).json).toMatchObject({ kind: 'APIGroup', name: 'kubedesk.dev', preferredVersion: { groupVersion: 'kubedesk.dev/v1alpha1' } });
  });

  it('creates, gets, lists and deletes, answering with Kubernetes Status errors', async () => {
    const created = await call('POST', base, forward('web'));
    expect(created.status).toBe(201);
    expect((await call('GET', `${base}/web`)).json).toMatchObject({ kind: 'PortForward', metadata: { name: 'web', resourceVersion: '1' } });
    const list = await call('GET', '/apis/kubedesk.dev/v1alpha1/portforwards');
    expect(list.json).toMatchObject({ kind: 'PortForwardList', apiVersion: 'kubedesk.dev/v1alpha1', metadata: { resourceVersion: '1' } });
    expect((list.json.items as unknown[]).length).toBe(1);
    expect((await call('POST', base, forward('web'))).json).toMatchObject({ kind: 'Status', code: 409, reason: 'AlreadyExists' });
    expect((await call('PUT', `${base}/web`, forward('web'))).json).toMatchObject({ code: 405, reason: 'MethodNotAllowed' });
    expect((await call('POST', '/apis/kubedesk.dev/v1alpha1/portforwards', forward('x'))).status).toBe(405);
    expect((await call('GET', '/apis/kubedesk.dev/v1alpha1/namespaces/default/widgets')).json).toMatchObject({ code: 404, reason: 'NotFound' });
    expect((await call('POST', base, '{"metadata":')).status).toBe(400);
    const conflict = await call('DELETE', `${base}/web`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } });
    expect(conflict.json).toMatchObject({ code: 409, reason: 'Conflict' });
    expect((await call('DELETE', `${base}/web`)).json).toMatchObject({ kind: 'PortForward', metadata: { name: 'web', resourceVersion: '2' } });
    expect((await call('GET', `${base}/web`)).json).toMatchObject({ code: 404, message: 'portforwards.kubedesk.dev "web" not found' });
  });

  it('refuses an invalid object with 422 and the causes\' field paths', async () => {
    const reply = await call('POST', base, { ...forward('web'), spec: { target: { kind: 'Pod' }, port: 'HTTP_x' } });
    expect(reply.status).toBe(422);
    expect(reply.json).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'web', group: 'kubedesk.dev', kind: 'PortForward' } });
    expect((reply.json.details as { causes: { field: string; reason: string }[] }).causes.map((cause) => [cause.field, cause.reason])).toEqual([
      ['spec.target.name', 'FieldValueRequired'],
      ['spec.port', 'FieldValueInvalid'],
    ]);
  });

  it('pages a list with limit and continue, and filters by label and field selectors', async () => {
    for (const name of ['a', 'b', 'c']) await call('POST', base, forward(name, { tier: name === 'b' ? 'back' : 'front' }));
    const first = await call('GET', `${base}?limit=2`);
    const metadata = first.json.metadata as { continue: string; remainingItemCount: number };
    expect((first.json.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['a', 'b']);
    expect(metadata.remainingItemCount).toBe(1);
    const second = await call('GET', `${base}?limit=2&continue=${metadata.continue}`);
    expect((second.json.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['c']);
    const front = await call('GET', `${base}?labelSelector=tier%3Dfront&fieldSelector=metadata.name!%3Da`);
    expect((front.json.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['c']);
    expect((await call('GET', `${base}?fieldSelector=spec.port%3D80`)).status).toBe(400);
  });

  it('answers a Table when asked for one, with the real kind\'s columns', async () => {
    await call('POST', base, forward('web'));
    const reply = await call('GET', base, undefined, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(reply.json.kind).toBe('Table');
    expect((reply.json.columnDefinitions as { name: string }[]).map((column) => column.name).slice(0, 6)).toEqual(['Name', 'Target', 'Port', 'Local', 'Status', 'Age']);
    expect((reply.json.rows as { cells: unknown[] }[])[0].cells.slice(0, 6)).toEqual(['web', 'pod/web-1', '8080', '<none>', 'Waiting', '5m']);
  });

  it('streams a watch over chunked HTTP from a resourceVersion until timeoutSeconds', async () => {
    await call('POST', base, forward('a'));
    const watching = call('GET', `${base}?watch=1&resourceVersion=1&timeoutSeconds=1`);
    await call('POST', base, forward('b'));
    const reply = await watching;
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text.trim().split('\n').map((line) => (JSON.parse(line) as { type: string; object: { metadata: { name: string } } }))
      .map((event) => [event.type, event.object.metadata.name])).toEqual([['ADDED', 'b']]);
  });

  it('watches over a WebSocket: the current objects first, then changes, a selector\'s leavers as DELETED', async () => {
    const created = await call('POST', base, forward('a', { tier: 'front' }));
    const watch = openWatch('watch=true&labelSelector=tier%3Dfront');
    await watch.opened;
    await waitFor(() => (watch.events.length === 1 ? true : undefined), 'the initial event');
    store.setStatus('default', 'a', (created.json.metadata as { uid: string }).uid, { phase: 'Active' });
    await call('DELETE', `${base}/a`);
    await waitFor(() => (watch.events.length === 3 ? true : undefined), 'three events');
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    watch.socket.close();
    await watch.closed;
  });

  it('ends a watch from a forgotten resourceVersion with a 410 Expired ERROR event', async () => {
    const watch = openWatch('watch=1&resourceVersion=77');
    await watch.closed;
    expect(watch.events).toEqual([{ type: 'ERROR', object: expect.objectContaining({ kind: 'Status', code: 410, reason: 'Expired' }) }]);
  });

  it('sends the initial-events-end bookmark when asked for initial events', async () => {
    await call('POST', base, forward('a'));
    const watch = openWatch('watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan');
    await waitFor(() => (watch.events.length === 2 ? true : undefined), 'two events');
    expect(watch.events.map((event) => event.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(watch.events[1].object).toMatchObject({ metadata: { resourceVersion: '1', annotations: { 'k8s.io/initial-events-end': 'true' } } });
    watch.socket.close();
  });

  it('answers an upgrade that is no watch with the plain reply, a failed handshake carrying the Status', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${base}/missing`);
    socket.on('error', () => undefined);
    const status = await new Promise<{ code: number; body: string }>((resolve) => {
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ code: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
    });
    socket.terminate();
    expect(status.code).toBe(404);
    expect(JSON.parse(status.body)).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'portforwards.kubedesk.dev "missing" not found' });
  });

  it('closes its watches when closed', async () => {
    const watch = openWatch('watch=1');
    await watch.opened;
    api.close();
    await watch.closed;
  });
});
