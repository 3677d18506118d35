// The tunnel and the informer transport against a stand-in API server on http://127.0.0.1 that
// serves pods/portforward with kubedesk's own WebSocket port-forward server (the kubelet's
// websocket.go protocol), a pod list and a watch, and answers 401 to a stale token.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Server as TcpServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { negotiatePortForwardProtocol, parseChannelProtocol, type ChannelProtocol } from '../../../apiserver/streaming/channelProtocol';
import { serveWebSocketPortForward } from '../../../apiserver/streaming/portForward';
import { offeredProtocols } from '../../../apiserver/websocketStreams';
import { StaticClusterConnection } from '../../../../test/doubles/staticClusterConnection';
import { ConnectionTransport } from './connectionTransport';
import { openPodTunnel, PortForwardFailure, TunnelRefused, webSocketUrl } from './podTunnel';

let api: Server;
let echo: TcpServer;
let apiPort = 0;
let echoPort = 0;
const chosenProtocols: string[] = [];
const seenPaths: string[] = [];
/** the pod `web-base64` answers in the base64 variant, as a server preferring it would */
function protocolFor(request: IncomingMessage): ChannelProtocol | undefined {
  const offered = offeredProtocols(request);
  return request.url?.includes('/web-base64/') ? parseChannelProtocol(offered.find((name) => name === 'v4.base64.channel.k8s.io') ?? 'none') : negotiatePortForwardProtocol(offered);
}
const webSockets = new WebSocketServer({ noServer: true, handleProtocols: (_offered, request) => protocolFor(request)?.name ?? false });

function authorized(request: IncomingMessage): boolean {
  return request.headers.authorization === 'Bearer fresh';
}

function status(code: number, reason: string, message: string): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message });
}

beforeEach(async () => {
  chosenProtocols.length = 0;
  seenPaths.length = 0;
  echo = createTcpServer((socket) => {
    socket.write('hello\n');
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
  api = createServer((request, response) => {
    seenPaths.push(request.url ?? '');
    if (!authorized(request)) {
      response.writeHead(401, { 'Content-Type': 'application/json' }).end(status(401, 'Unauthorized', 'Unauthorized'));
      return;
    }
    const url = new URL(request.url ?? '/', 'http://api');
    if (url.searchParams.get('watch') === 'true') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'web', resourceVersion: '2' } } })}\n{"type":"MODI`);
      response.end(`FIED","object":{"metadata":{"name":"web","resourceVersion":"3"}}}\n`);
      return;
    }
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  api.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://api');
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/portforward$/.exec(url.pathname);
    if (!authorized(request) || !match || match[2] === 'gone') {
      const body = !authorized(request) ? status(401, 'Unauthorized', 'Unauthorized') : status(404, 'NotFound', `pods "${match?.[2] ?? ''}" not found`);
      socket.end(`HTTP/1.1 ${!authorized(request) ? '401 Unauthorized' : '404 Not Found'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    const protocol = protocolFor(request);
    webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      chosenProtocols.push(webSocket.protocol);
      const ports = (url.searchParams.get('ports') ?? '').split(',').map(Number);
      serveWebSocketPortForward(webSocket, protocol ?? { name: '', version: 1, base64: false }, ports, {
        podDescription: `${match[2]}_${match[1]}`,
        podUid: 'uid-1',
        connect: (port) =>
          new Promise<Duplex>((resolve, reject) => {
            // the "pod" has only the echo server; any other port is refused, as inside a pod
            const socket = connect(port === 8080 ? echoPort : 1, '127.0.0.1');
            socket.once('connect', () => resolve(socket));
            socket.once('error', reject);
          }),
      });
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiPort = (api.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const client of webSockets.clients) client.terminate();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

function connection(token: string, refreshed: string[] = []): StaticClusterConnection {
  return new StaticClusterConnection({ server: `http://127.0.0.1:${apiPort}`, token, refreshedTokens: refreshed });
}

function readLine(stream: Duplex): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) {
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
    stream.once('error', reject);
  });
}

function readBytes(stream: Duplex, count: number): Promise<Buffer> {
  return new Promise((resolve) => {
    let bytes = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes.length >= count) {
        stream.off('data', onData);
        resolve(bytes);
      }
    };
    stream.on('data', onData);
  });
}

describe('openPodTunnel', () => {
  it('tunnels bytes both ways through the v4 channel protocol, the port prefixes stripped', async () => {
    const tunnel = await openPodTunnel(connection('fresh'), { namespace: 'default', pod: 'web', port: 8080 });
    expect(chosenProtocols).toEqual(['v4.channel.k8s.io']);
    expect(await readLine(tunnel)).toBe('hello\n');
    tunnel.write('ping\n');
    expect(await readLine(tunnel)).toBe('ping\n');
    const ended = new Promise<void>((resolve) => tunnel.once('close', () => resolve()));
    tunnel.destroy();
    await ended;
  });

  it('speaks the base64 variant when the server chooses it', async () => {
    const tunnel = await openPodTunnel(connection('fresh'), { namespace: 'default', pod: 'web-base64', port: 8080 });
    expect(chosenProtocols).toEqual(['v4.base64.channel.k8s.io']);
    expect(await readLine(tunnel)).toBe('hello\n');
    const echoed = readBytes(tunnel, 3);
    tunnel.write(Buffer.from([0xff, 0x00, 0x0a]));
    expect([...(await echoed)]).toEqual([0xff, 0x00, 0x0a]);
    tunnel.destroy();
  });

  it('ends with the kubelet\'s error text when the pod refuses the port', async () => {
    const tunnel = await openPodTunnel(connection('fresh'), { namespace: 'default', pod: 'web', port: 9999 });
    const error = await new Promise<Error>((resolve) => tunnel.once('error', resolve));
    expect(error).toBeInstanceOf(PortForwardFailure);
    expect(error.message).toMatch(/^error forwarding port 9999 to pod web_default, uid uid-1: .*ECONNREFUSED/);
  });

  it('rejects with the Status message of a refused handshake', async () => {
    const refusal = openPodTunnel(connection('fresh'), { namespace: 'default', pod: 'gone', port: 8080 });
    await expect(refusal).rejects.toBeInstanceOf(TunnelRefused);
    await expect(refusal).rejects.toThrow('pods "gone" not found');
  });

  it('retries a 401 once with refreshed credentials, and gives up when there are none', async () => {
    const refreshing = connection('stale', ['fresh']);
    const tunnel = await openPodTunnel(refreshing, { namespace: 'default', pod: 'web', port: 8080 });
    expect(refreshing.rejections).toBe(1);
    tunnel.destroy();
    const stuck = connection('stale');
    await expect(openPodTunnel(stuck, { namespace: 'default', pod: 'web', port: 8080 })).rejects.toThrow('Unauthorized');
    expect(stuck.rejections).toBe(1);
  });

  it('builds the WebSocket URL from the request options, brackets for IPv6', () => {
    expect(webSocketUrl(new URL('https://example.test:6443/prefix'), { hostname: 'example.test', port: 6443, path: '/prefix/api/v1/x' }, '/api/v1/x')).toBe('wss://example.test:6443/prefix/api/v1/x');
    expect(webSocketUrl(new URL('http://[::1]:8080'), { hostname: '::1', port: 8080 }, '/api')).toBe('ws://[::1]:8080/api');
  });
});

describe('ConnectionTransport', () => {
  it('lists with the query through the connection and retries a 401 with fresh credentials', async () => {
    const refreshing = connection('stale', ['fresh']);
    const reply = await new ConnectionTransport(refreshing).request({ method: 'GET', path: '/api/v1/namespaces/default/pods', query: { limit: '500' } });
    expect(reply).toEqual({ status: 200, body: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] } });
    expect(seenPaths).toEqual(['/api/v1/namespaces/default/pods?limit=500', '/api/v1/namespaces/default/pods?limit=500']);
  });

  it('decodes a watch whose events are split over chunks and reports its end', async () => {
    const events: string[] = [];
    const done = await new Promise<Error | undefined>((resolve) => {
      new ConnectionTransport(connection('fresh')).watch('/api/v1/namespaces/default/pods', { watch: 'true' }, (event) => events.push(`${event.type} ${event.object.metadata.resourceVersion ?? ''}`), resolve);
    });
    expect(done).toBeUndefined();
    expect(events).toEqual(['ADDED 2', 'MODIFIED 3']);
  });

  it('fails a watch the server refuses with its Status', async () => {
    const done = await new Promise<Error | undefined>((resolve) => {
      new ConnectionTransport(connection('stale')).watch('/api/v1/pods', { watch: 'true' }, () => undefined, resolve);
    });
    expect(done?.message).toBe('Unauthorized');
  });
});
