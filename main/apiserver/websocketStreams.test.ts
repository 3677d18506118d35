// Watches and pod logs over WebSocket through the real ApiServer + HttpServer (a fake log
// subresource stands in for the kubelet), framed as upstream's watch.go and wsstream do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { WebSocket, type RawData } from 'ws';
import { httpsRequest, startHttpsApiServer, type HttpsApiServer, type HttpsReply } from '../../test/fixtures/httpsApiServer';
import { until as pollUntil } from '../../test/fixtures/until';
import { negotiateStreamProtocol } from './websocketStreams';

const TOKEN = 'websocket-test-token';
const TIMEOUT = 30_000;
let cluster: HttpsApiServer;
const followStreams: PassThrough[] = [];

interface Frame {
  binary: boolean;
  data: Buffer;
}

/** A WebSocket client that records frames, the close code and a refused handshake's status. */
function connect(path: string, protocols: string[] = []): { frames: Frame[]; opened: Promise<string>; closed: Promise<number>; refused: Promise<{ status: number; body: string }>; socket: WebSocket } {
  const frames: Frame[] = [];
  const socket = new WebSocket(`wss://127.0.0.1:${cluster.port}${path}`, protocols, { ca: cluster.pki.caCertPem, headers: { authorization: `Bearer ${TOKEN}` } });
  socket.on('message', (data: RawData, binary: boolean) => frames.push({ binary, data: Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer) }));
  const opened = new Promise<string>((resolve) => socket.once('open', () => resolve(socket.protocol)));
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  const refused = new Promise<{ status: number; body: string }>((resolve) => {
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
  });
  socket.on('error', () => undefined);
  return { frames, opened, closed, refused, socket };
}

function request(method: string, path: string, body?: unknown): Promise<HttpsReply> {
  return httpsRequest(cluster, method, path, { headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

function until(check: () => boolean, what: string): Promise<void> {
  return pollUntil(check, what, TIMEOUT);
}

beforeAll(async () => {
  cluster = await startHttpsApiServer({ token: TOKEN, namespaces: ['default'] });
  // a stand-in for pods/log: "follow" streams until the test ends it, otherwise a finished stream
  cluster.api.provideSubresource('podLog', (apiRequest) => {
    if (apiRequest.query.get('follow') === 'true') {
      const stream = new PassThrough();
      followStreams.push(stream);
      return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: '', stream };
    }
    if (apiRequest.query.get('plain') === 'true') return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'plain line\n' };
    return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: '', stream: Readable.from([Buffer.from('line 1\n'), Buffer.from('line 2\n')]) };
  });
  await request('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c1', image: 'busybox' }] } });
});

afterAll(() => cluster.close());

describe('negotiateStreamProtocol', () => {
  it.each([
    [[], ''],
    [['binary.k8s.io'], 'binary.k8s.io'],
    [['base64.binary.k8s.io'], 'base64.binary.k8s.io'],
    [['v4.channel.k8s.io', 'base64.binary.k8s.io', 'binary.k8s.io'], 'base64.binary.k8s.io'],
    [['v4.channel.k8s.io'], undefined],
  ])('answers an offer of %j with %j', (offered, chosen) => {
    expect(negotiateStreamProtocol(offered)).toBe(chosen);
  });
});

describe('watch over WebSocket', () => {
  it('sends each event as one JSON text frame', async () => {
    const client = connect('/api/v1/namespaces/default/configmaps?watch=true');
    await client.opened;
    await request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
    await request('PUT', '/api/v1/namespaces/default/configmaps/one', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '2' } });
    const events = () =>
      client.frames
        .map((frame) => {
          expect(frame.binary).toBe(false);
          return JSON.parse(frame.data.toString('utf8')) as { type: string; object: { metadata: { name: string }; data: Record<string, string> } };
        })
        .filter((event) => event.type !== 'BOOKMARK');
    await until(() => events().length >= 2, 'two watch events');
    expect(events().map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
    expect(events()[1].object.data).toEqual({ a: '2' });
    client.socket.close();
    expect(await client.closed).toBe(1005);
  });

  it('answers the first offered subprotocol, as browsers need', async () => {
    const client = connect('/api/v1/namespaces/default/configmaps?watch=true', ['kubedesk.watch', 'other']);
    expect(await client.opened).toBe('kubedesk.watch');
    client.socket.close();
    await client.closed;
  });

  it('closes normally when the watch times out', async () => {
    const client = connect('/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    expect(await client.closed).toBe(1000);
  });

  it('refuses the handshake with the Status of a failed request', async () => {
    const client = connect('/api/v1/namespaces/default/nosuchthings?watch=true');
    const refused = await client.refused;
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toMatchObject({ kind: 'Status', code: 404 });
  });

  it('refuses a request that is not a stream with its plain reply', async () => {
    const client = connect('/api/v1/namespaces/default/configmaps');
    const refused = await client.refused;
    expect(refused.status).toBe(200);
    expect(JSON.parse(refused.body)).toMatchObject({ kind: 'ConfigMapList' });
  });
});

describe('pod logs over WebSocket', () => {
  it('sends a finished log as binary frames after an empty first frame, then closes', async () => {
    const client = connect('/api/v1/namespaces/default/pods/web/log');
    expect(await client.opened).toBe('');
    expect(await client.closed).toBe(1000);
    expect(client.frames[0]).toEqual({ binary: true, data: Buffer.alloc(0) });
    expect(client.frames.every((frame) => frame.binary)).toBe(true);
    expect(Buffer.concat(client.frames.map((frame) => frame.data)).toString()).toBe('line 1\nline 2\n');
  });

  it('sends base64 text frames under base64.binary.k8s.io', async () => {
    const client = connect('/api/v1/namespaces/default/pods/web/log', ['base64.binary.k8s.io']);
    expect(await client.opened).toBe('base64.binary.k8s.io');
    await client.closed;
    expect(client.frames.every((frame) => !frame.binary)).toBe(true);
    expect(client.frames.map((frame) => Buffer.from(frame.data.toString(), 'base64').toString()).join('')).toBe('line 1\nline 2\n');
  });

  it('streams a plain log reply as a finished stream', async () => {
    const client = connect('/api/v1/namespaces/default/pods/web/log?plain=true', ['binary.k8s.io']);
    await client.closed;
    expect(Buffer.concat(client.frames.map((frame) => frame.data)).toString()).toBe('plain line\n');
  });

  it('follows a log as lines come and stops the source when the client leaves', async () => {
    const before = followStreams.length;
    const client = connect('/api/v1/namespaces/default/pods/web/log?follow=true', ['binary.k8s.io']);
    await client.opened;
    await until(() => followStreams.length > before, 'the log stream');
    const source = followStreams[followStreams.length - 1];
    source.write('first\n');
    await until(() => Buffer.concat(client.frames.map((frame) => frame.data)).toString() === 'first\n', 'the first line');
    client.socket.close();
    await client.closed;
    await until(() => source.destroyed, 'the source to stop');
  });

  it('pauses a fast source while the client is not reading', async () => {
    const before = followStreams.length;
    const client = connect('/api/v1/namespaces/default/pods/web/log?follow=true', ['binary.k8s.io']);
    await client.opened;
    await until(() => followStreams.length > before, 'the log stream');
    const source = followStreams[followStreams.length - 1];
    // the client's socket stops reading, so the server's send buffer fills up
    (client.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const chunk = Buffer.alloc(256 * 1024, 'x');
    for (let index = 0; index < 64; index++) source.write(chunk);
    await until(() => source.isPaused(), 'the source to pause');
    client.socket.terminate();
    await until(() => source.destroyed, 'the source to stop');
  });

  it('refuses a handshake that offers only unsupported subprotocols', async () => {
    const client = connect('/api/v1/namespaces/default/pods/web/log', ['v4.channel.k8s.io']);
    const refused = await client.refused;
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ message: 'requested protocol(s) are not supported: [v4.channel.k8s.io]; supports [binary.k8s.io base64.binary.k8s.io]' });
  });
});
