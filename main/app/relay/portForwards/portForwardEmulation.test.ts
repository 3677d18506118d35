import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { resources } from '../../../client/resources';
import { FakeTransport } from '../../../../test/doubles/fakeTransport';
import { StaticClusterConnection } from '../../../../test/doubles/staticClusterConnection';
import { createPortForwardEmulation, type PortForwardEmulation } from './portForwardEmulation';
import { PortForwardFailure, TunnelRefused, type TunnelTarget } from './podTunnel';

const base = '/apis/kubedesk.dev/v1alpha1/namespaces/default/portforwards';

/** A "pod" behind a fake tunnel: says its name, then echoes until the connection closes. */
interface FakePod {
  server: TcpServer;
  port: number;
  sockets: Set<Socket>;
}

let transport: FakeTransport;
let emulation: PortForwardEmulation;
let relay: Server;
let relayPort = 0;
let pods: Map<string, FakePod>;
let tunnels: TunnelTarget[];
let failing: Map<string, string>;
const connection = new StaticClusterConnection({ server: 'http://127.0.0.1:1' });

async function startPod(name: string): Promise<void> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write(`${name}\n`);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pods.set(name, { server, port: (server.address() as AddressInfo).port, sockets });
}

/** A tunnel that fails the way the kubelet reports it: error-channel text. */
function failingTunnel(message: string): Duplex {
  const tunnel = new Duplex({ read() {}, write(_chunk, _encoding, callback) { callback(); } });
  setImmediate(() => tunnel.destroy(new PortForwardFailure(message)));
  return tunnel;
}

async function openTunnel(target: TunnelTarget): Promise<Duplex> {
  tunnels.push(target);
  const failure = failing.get(target.pod);
  if (failure) return failingTunnel(failure);
  const pod = pods.get(target.pod);
  if (!pod) throw new TunnelRefused(`pods "${target.pod}" not found`, 404);
  const socket = connect(pod.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

function pod(name: string, options: { ready?: boolean; labels?: Record<string, string>; created?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: options.labels ?? { app: 'web', 'pod-template-hash': name.slice(-3) }, creationTimestamp: options.created ?? '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'web', image: 'web', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }] },
  };
}

beforeEach(async () => {
  transport = new FakeTransport();
  pods = new Map();
  tunnels = [];
  failing = new Map();
  emulation = createPortForwardEmulation({ connection, context: 'remote', transport, openTunnel, retryIntervalMs: 100 });
  relay = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://relay');
    void emulation.handleRequest(request, response, url.pathname, url.searchParams);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayPort = (relay.address() as AddressInfo).port;
});

afterEach(async () => {
  emulation.close();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  for (const fake of pods.values()) {
    for (const socket of fake.sockets) socket.destroy();
    await new Promise<void>((resolve) => fake.server.close(() => resolve()));
  }
});

function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: relayPort, method, path, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

interface ForwardStatus {
  phase?: string;
  localPort?: number;
  url?: string;
  pod?: string;
  message?: string;
  podSelector?: Record<string, string>;
}

async function create(name: string, spec: Record<string, unknown>): Promise<void> {
  const reply = await call('POST', base, { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name }, spec });
  expect(reply.status).toBe(201);
}

async function statusOf(name: string): Promise<ForwardStatus> {
  return ((await call('GET', `${base}/${name}`)).json.status ?? {}) as ForwardStatus;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 4000;
  let last: unknown;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    last = value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function statusWhere(name: string, test: (status: ForwardStatus) => boolean): Promise<ForwardStatus> {
  return until(`the status of ${name}`, async () => {
    const status = await statusOf(name);
    return test(status) ? status : undefined;
  });
}

/** Connects to the forward and reads the first line (the pod's name); the socket stays open. */
async function firstLine(port: number): Promise<{ line: string; socket: Socket }> {
  const socket = connect(port, '127.0.0.1');
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('\n')) resolve(text.split('\n')[0]);
    });
    socket.once('close', () => resolve(text));
    socket.once('error', reject);
  });
  return { line, socket };
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

describe('PortForward emulation', () => {
  it('listens on 127.0.0.1, reports Active with url, pod and selector, and tunnels to the named pod', async () => {
    await startPod('web-aaa');
    transport.seed(resources.pods, pod('web-aaa'));
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 'http' });
    const status = await statusWhere('web', (current) => current.phase === 'Active');
    expect(status).toEqual({ phase: 'Active', localPort: status.localPort, url: `http://127.0.0.1:${status.localPort}`, pod: 'web-aaa', podSelector: { app: 'web' } });
    const { line, socket } = await firstLine(status.localPort ?? 0);
    expect(line).toBe('web-aaa');
    expect(tunnels).toEqual([{ namespace: 'default', pod: 'web-aaa', port: 8080 }]);
    socket.write('ping\n');
    const echoed = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
    expect(echoed).toBe('ping\n');
    socket.destroy();
  });

  it('waits with a message while the pod is not ready, and becomes Active when it is', async () => {
    transport.seed(resources.pods, pod('web-aaa', { ready: false }));
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080 });
    const waiting = await statusWhere('web', (current) => current.phase === 'Waiting' && current.localPort !== undefined);
    expect(waiting.message).toBe('pod "web-aaa" is not running and ready and no ready pod matches app=web');
    // nothing ready: a connection is closed at once
    const { line } = await firstLine(waiting.localPort ?? 0);
    expect(line).toBe('');
    await startPod('web-aaa');
    await transport.request({ method: 'PUT', path: '/api/v1/namespaces/default/pods/web-aaa/status', body: pod('web-aaa') });
    await statusWhere('web', (current) => current.phase === 'Active' && current.message === undefined);
  });

  it('closes the connections to a deleted pod and sends the next connection to its replacement', async () => {
    await startPod('web-aaa');
    await startPod('web-bbb');
    transport.seed(resources.pods, pod('web-aaa'));
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080 });
    const { localPort } = await statusWhere('web', (current) => current.phase === 'Active');
    const first = await firstLine(localPort ?? 0);
    expect(first.line).toBe('web-aaa');
    transport.seed(resources.pods, pod('web-bbb', { created: '2026-01-01T00:01:00Z' }));
    await transport.request({ method: 'DELETE', path: '/api/v1/namespaces/default/pods/web-aaa' });
    await closed(first.socket);
    const second = await firstLine(localPort ?? 0);
    expect(second.line).toBe('web-bbb');
    second.socket.destroy();
    await statusWhere('web', (current) => current.pod === 'web-bbb' && current.phase === 'Active');
  });

  it('forwards a Service port to a ready endpoint\'s pod on the resolved target port, round robin', async () => {
    await startPod('web-aaa');
    await startPod('web-bbb');
    transport.seed(resources.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    transport.seed(resources.endpointslices, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['10.0.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-aaa', namespace: 'default' } },
        { addresses: ['10.0.0.2'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-bbb', namespace: 'default' } },
        { addresses: ['10.0.0.3'], conditions: { ready: false }, targetRef: { kind: 'Pod', name: 'web-ccc', namespace: 'default' } },
      ],
    } as KubeObject);
    await create('svc', { target: { kind: 'Service', name: 'web' }, port: 80 });
    const { localPort } = await statusWhere('svc', (current) => current.phase === 'Active');
    const answers: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const { line, socket } = await firstLine(localPort ?? 0);
      answers.push(line);
      socket.destroy();
    }
    expect(answers).toEqual(['web-aaa', 'web-bbb']);
    expect(tunnels.map((target) => target.port)).toEqual([8080, 8080]);
  });

  it('says in status why a connection failed: a refused handshake or the kubelet\'s error text', async () => {
    transport.seed(resources.pods, pod('web-aaa'));
    failing.set('web-aaa', 'error forwarding port 8080 to pod web-aaa, uid 1: connection refused');
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080 });
    const { localPort } = await statusWhere('web', (current) => current.phase === 'Active');
    const { socket } = await firstLine(localPort ?? 0);
    await closed(socket);
    const failed = await statusWhere('web', (current) => current.message !== undefined);
    expect(failed).toMatchObject({ phase: 'Active', message: 'connection to pod "web-aaa" port 8080 failed: error forwarding port 8080 to pod web-aaa, uid 1: connection refused' });
    failing.delete('web-aaa');
    const refused = await firstLine(localPort ?? 0);
    await closed(refused.socket);
    expect((await statusWhere('web', (current) => current.message?.includes('not found') === true)).message).toBe('connection to pod "web-aaa" port 8080 failed: pods "web-aaa" not found');
    await startPod('web-aaa');
    const working = await firstLine(localPort ?? 0);
    expect(working.line).toBe('web-aaa');
    working.socket.destroy();
    await statusWhere('web', (current) => current.message === undefined);
  });

  it('shows a list the cluster refuses in the message, and recovers when the list succeeds', async () => {
    transport.failNext('GET', '/api/v1/namespaces/default/pods', 403, 'Forbidden', 'pods is forbidden: User "jane" cannot list resource "pods" in the namespace "default"');
    transport.seed(resources.pods, pod('web-aaa'));
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080 });
    const waiting = await statusWhere('web', (current) => current.message?.startsWith('cannot read') === true);
    expect(waiting).toMatchObject({ phase: 'Waiting', message: 'cannot read pods of namespace "default" in context "remote": pods is forbidden: User "jane" cannot list resource "pods" in the namespace "default"' });
    // the informer lists again after its back-off
    await statusWhere('web', (current) => current.phase === 'Active' && current.message === undefined);
  });

  it('fails with a message when the fixed local port is taken', async () => {
    const holder = createTcpServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    try {
      transport.seed(resources.pods, pod('web-aaa'));
      await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080, localPort: taken });
      const failed = await statusWhere('web', (current) => current.phase === 'Failed');
      expect(failed.localPort).toBe(taken);
      expect(failed.message).toMatch(new RegExp(`^port ${taken} on 127\\.0\\.0\\.1 is already in use`));
    } finally {
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    }
    await statusWhere('web', (current) => current.phase === 'Active' && current.localPort === taken);
  });

  it('closes the listener and its connections when the forward is deleted', async () => {
    await startPod('web-aaa');
    transport.seed(resources.pods, pod('web-aaa'));
    await create('web', { target: { kind: 'Pod', name: 'web-aaa' }, port: 8080 });
    const { localPort } = await statusWhere('web', (current) => current.phase === 'Active');
    const open = await firstLine(localPort ?? 0);
    expect((await call('DELETE', `${base}/web`)).status).toBe(200);
    await closed(open.socket);
    const refused = await until('the port to refuse connections', () =>
      new Promise<boolean | undefined>((resolve) => {
        const socket = connect(localPort ?? 0, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(undefined);
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? true : undefined));
      }),
    );
    expect(refused).toBe(true);
    expect(transport.openWatchCount()).toBe(0);
  });
});
