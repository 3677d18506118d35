import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../../test/doubles/fakeApi';
import { resources } from '../../client/resources';
import type { PodDialer } from '../dialer';
import { PortForwardController } from './portForwardController';
import { portForwardsResource, portForwardStatus } from './portForwardResource';
import { FakeDialer } from '../../../test/doubles/fakeDialer';
import { until } from '../../../test/fixtures/until';

function listen(server: Server, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

function portOf(server: Server): number {
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return address.port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A backend that greets every connection with its name and keeps it open. */
async function backend(name: string): Promise<Server> {
  return listen(
    createServer((socket) => {
      socket.write(`${name}\n`);
      socket.on('error', () => undefined);
    }),
  );
}

/** Connects and resolves with the first line, or '' when the connection is closed without one. */
function greeting(port: number, keep?: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('\n')) {
        if (keep) keep(socket);
        else socket.destroy();
        resolve(received.trim());
      }
    });
    socket.on('close', () => resolve(received.trim()));
    socket.on('error', reject);
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function pod(name: string, ip: string, labels: Record<string, string> = { app: 'web', 'pod-template-hash': 'abc' }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels, creationTimestamp: new Date().toISOString() },
    spec: { containers: [{ name: 'web', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function forward(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name, namespace: 'default' }, spec, ...(status ? { status } : {}) };
}


async function servers(...names: string[]): Promise<Server[]> {
  const started = await Promise.all(names.map((name) => backend(name)));
  onTestFinished(() => Promise.all(started.map((server) => closeServer(server))).then(() => undefined));
  return started;
}

async function harness(dialer: PodDialer, seed: (transport: FakeTransport) => void) {
  const transport = new FakeTransport();
  seed(transport);
  const { client, controller } = await startOnFakeApi(transport, (client, factory) => new PortForwardController(client, factory, { dialer, retryIntervalMs: 50, describePortHolder: () => Promise.resolve(undefined), onError: () => undefined }));
  const status = (name: string) => {
    const stored = transport.objectsOf(portForwardsResource).find((object) => object.metadata.name === name);
    return stored ? portForwardStatus(stored) : undefined;
  };
  return { transport, client, controller, status };
}

describe('PortForwardController', () => {
  it('forwards to the named pod, then to its replacement, closing connections to the deleted pod', async () => {
    const [first, second] = await servers('web-1', 'web-2');
    const dialer = new FakeDialer(new Map([['10.0.0.1', portOf(first)], ['10.0.0.2', portOf(second)]]));
    const { client, controller, status } = await harness(dialer, (transport) => {
      transport.seed(resources.pods, pod('web-1', '10.0.0.1'));
      transport.seed(portForwardsResource, forward('web', { target: { kind: 'Pod', name: 'web-1' }, port: 'http' }));
    });
    await until(() => status('web')?.phase === 'Active', 'Active');
    const active = status('web');
    expect(active).toMatchObject({ pod: 'web-1', podSelector: { app: 'web' }, url: `http://127.0.0.1:${active?.localPort ?? 0}` });
    const localPort = active?.localPort ?? 0;
    let open: Socket | undefined;
    expect(await greeting(localPort, (socket) => (open = socket))).toBe('web-1');
    const closed = new Promise<void>((resolve) => open?.once('close', () => resolve()));

    await client.resource(resources.pods).delete('default', 'web-1');
    await closed;
    await until(() => status('web')?.phase === 'Waiting', 'Waiting');
    expect(status('web')?.message).toBe('pod "web-1" not found and no ready pod matches app=web');
    expect(await greeting(localPort)).toBe('');

    await client.resource(resources.pods).create(pod('web-2', '10.0.0.2', { app: 'web', 'pod-template-hash': 'def' }));
    await until(() => status('web')?.phase === 'Active', 'Active again');
    expect(status('web')).toMatchObject({ pod: 'web-2', localPort });
    expect(await greeting(localPort)).toBe('web-2');
    expect(controller.listening()).toEqual([{ namespace: 'default', name: 'web', localPort }]);
  });

  it('forwards to a Service port round robin over its ready endpoints', async () => {
    const [first, second] = await servers('a', 'b');
    const dialer = new FakeDialer(new Map([['10.0.0.1', portOf(first)], ['10.0.0.2', portOf(second)]]));
    const { status } = await harness(dialer, (transport) => {
      transport.seed(resources.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
      transport.seed(resources.endpointslices, {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'web-x', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }, { addresses: ['10.0.0.2'], conditions: { ready: true } }],
      } as KubeObject);
      transport.seed(portForwardsResource, forward('svc', { target: { kind: 'Service', name: 'web' }, port: 80 }));
    });
    await until(() => status('svc')?.phase === 'Active', 'Active');
    const localPort = status('svc')?.localPort ?? 0;
    expect([await greeting(localPort), await greeting(localPort), await greeting(localPort)]).toEqual(['a', 'b', 'a']);
  });

  it('fails with a message naming a taken port, and listens once it is free', async () => {
    const [holder] = await servers('holder');
    const taken = portOf(holder);
    const { status } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(portForwardsResource, forward('busy', { target: { kind: 'Pod', name: 'web-1' }, port: 80, localPort: taken }));
    });
    await until(() => status('busy')?.phase === 'Failed', 'Failed');
    expect(status('busy')).toMatchObject({ message: `port ${taken} on 127.0.0.1 is already in use`, localPort: taken });
    await closeServer(holder);
    await until(() => status('busy')?.phase === 'Waiting', 'retried');
    expect(status('busy')?.url).toBe(`http://127.0.0.1:${taken}`);
  });

  it('comes back on the port in status after a restart and frees it when the forward is deleted', async () => {
    const probe = await listen(createServer());
    const remembered = portOf(probe);
    await closeServer(probe);
    const { client, status } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(portForwardsResource, forward('again', { target: { kind: 'Pod', name: 'web-1' }, port: 80 }, { localPort: remembered, phase: 'Active' }));
    });
    await until(() => status('again')?.phase === 'Waiting', 'Waiting');
    expect(status('again')?.localPort).toBe(remembered);
    expect(await refused(remembered)).toBe(false);
    await client.resource(portForwardsResource).delete('default', 'again');
    await until(() => refused(remembered), 'port freed');
  });
});
