import { createSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../../test/doubles/fakeApi';
import { resources } from '../../client/resources';
import type { PodDialer } from '../dialer';
import { HostPortController } from './hostPortController';
import { FakeDialer } from '../../../test/doubles/fakeDialer';
import { until } from '../../../test/fixtures/until';
import { makeEndpointSlice, sliceEndpoints } from '../../../test/fixtures/networkObjects';

function portOf(server: Server): number {
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return address.port;
}

function listen(server: Server, port = 0): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A port nobody listens on right now (the OS hands out ephemeral ports in rotation). */
async function freePort(): Promise<number> {
  const server = await listen(createServer());
  const port = portOf(server);
  await closeServer(server);
  return port;
}

async function canBind(port: number): Promise<boolean> {
  try {
    await closeServer(await listen(createServer(), port));
    return true;
  } catch {
    return false;
  }
}

/** A backend that answers every connection with its name, then what it read (upper-cased) once the client ends. */
async function backend(name: string): Promise<Server> {
  return listen(
    createServer({ allowHalfOpen: true }, (socket) => {
      socket.write(`${name}:`);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => socket.end(Buffer.concat(chunks).toString().toUpperCase()));
      socket.on('error', () => undefined);
    }),
  );
}

/** Sends `text`, half-closes, and returns everything the server said before closing. */
function exchange(port: number, text = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('end', () => {
      socket.end();
      resolve(received);
    });
    socket.on('error', reject);
    socket.on('connect', () => socket.end(text));
  });
}

function service(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { clusterIP: '10.96.0.10', selector: { app: name }, ...spec } };
}

function slice(serviceName: string, endpoints: { ip: string; ready?: boolean }[], ports: Record<string, unknown>[] = [{ name: '', port: 8080, protocol: 'TCP' }]): KubeObject {
  return makeEndpointSlice(serviceName, { ports, endpoints: sliceEndpoints(endpoints) });
}

interface Harness {
  transport: FakeTransport;
  client: ApiClient;
  controller: HostPortController;
  events: () => KubeObject[];
  ingress: (name: string) => unknown;
}


async function harness(dialer: PodDialer, seed: (transport: FakeTransport) => void): Promise<Harness> {
  const transport = new FakeTransport();
  seed(transport);
  const { client, controller } = await startOnFakeApi(transport, (client, factory) => new HostPortController(client, factory, { dialer, retryIntervalMs: 50, describePortHolder: () => Promise.resolve(undefined), onError: () => undefined }));
  return {
    transport,
    client,
    controller,
    events: () => transport.objectsOf(resources.events),
    ingress: (name) => {
      const stored = transport.objectsOf(resources.services).find((object) => object.metadata.name === name);
      const status = stored?.status as { loadBalancer?: { ingress?: unknown } } | undefined;
      return status?.loadBalancer?.ingress;
    },
  };
}

async function servers(...names: string[]): Promise<Server[]> {
  const started = await Promise.all(names.map((name) => backend(name)));
  onTestFinished(() => Promise.all(started.map((server) => closeServer(server))).then(() => undefined));
  return started;
}

describe('HostPortController over TCP', () => {
  it('forwards a node port round robin to ready backends, passing half-closes both ways', async () => {
    const [first, second] = await servers('a', 'b');
    const nodePort = await freePort();
    const dialer = new FakeDialer(new Map([['10.0.0.1', portOf(first)], ['10.0.0.2', portOf(second)]]));
    const { controller } = await harness(dialer, (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }, { ip: '10.0.0.3', ready: false }]));
    });
    await until(() => controller.listening().length === 1, 'listening');
    expect(controller.listening()).toEqual([{ namespace: 'default', name: 'web', port: 80, protocol: 'TCP', hostPort: nodePort }]);
    const replies = [await exchange(nodePort, 'hello'), await exchange(nodePort, 'again'), await exchange(nodePort, 'third')];
    expect(replies).toEqual(['a:HELLO', 'b:AGAIN', 'a:THIRD']);
    expect(dialer.dialed).not.toContain('10.0.0.3:8080');
  });

  it('tries the next backend when dialing one fails', async () => {
    const [only] = await servers('b');
    const nodePort = await freePort();
    const dialer = new FakeDialer(new Map([['10.0.0.2', portOf(only)]]));
    const { controller } = await harness(dialer, (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]));
    });
    await until(() => controller.listening().length === 1, 'listening');
    expect([await exchange(nodePort, 'x'), await exchange(nodePort, 'y')]).toEqual(['b:X', 'b:Y']);
    expect(dialer.dialed).toContain('10.0.0.1:8080');
  });

  it('sends every connection of a client to the same backend with ClientIP affinity', async () => {
    const [first, second] = await servers('a', 'b');
    const nodePort = await freePort();
    const dialer = new FakeDialer(new Map([['10.0.0.1', portOf(first)], ['10.0.0.2', portOf(second)]]));
    const { controller } = await harness(dialer, (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', sessionAffinity: 'ClientIP', ports: [{ port: 80, targetPort: 8080, nodePort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }]));
    });
    await until(() => controller.listening().length === 1, 'listening');
    const replies = [await exchange(nodePort), await exchange(nodePort), await exchange(nodePort)];
    expect(new Set(replies).size).toBe(1);
  });

  it('closes a connection at once when the service has no ready backend', async () => {
    const nodePort = await freePort();
    const { controller } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1', ready: false }]));
    });
    await until(() => controller.listening().length === 1, 'listening');
    const outcome = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: nodePort });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      socket.on('close', () => resolve('closed'));
      socket.resume();
    });
    expect(outcome).toBe('ECONNRESET');
  });

  it('follows a changed node port and releases ports when the type changes or the service goes', async () => {
    const [only] = await servers('a');
    const [firstPort, secondPort] = [await freePort(), await freePort()];
    const { client, controller } = await harness(new FakeDialer(new Map([['10.0.0.1', portOf(only)]])), (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort: firstPort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1' }]));
    });
    await until(() => controller.listening()[0]?.hostPort === firstPort, 'first port');
    const services = client.resource(resources.services);
    await services.patch('default', 'web', { spec: { ports: [{ port: 80, targetPort: 8080, nodePort: secondPort }] } }, 'merge');
    await until(() => controller.listening()[0]?.hostPort === secondPort, 'second port');
    await until(() => canBind(firstPort), 'first port released');
    expect(await exchange(secondPort, 'moved')).toBe('a:MOVED');

    await services.patch('default', 'web', { spec: { type: 'ClusterIP', ports: [{ port: 80, targetPort: 8080 }] } }, 'merge');
    await until(() => controller.listening().length === 0, 'closed on type change');
    await until(() => canBind(secondPort), 'second port released');

    await services.patch('default', 'web', { spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort: secondPort }] } }, 'merge');
    await until(() => controller.listening().length === 1, 'reopened');
    await services.delete('default', 'web');
    await until(() => controller.listening().length === 0, 'closed on delete');
    await until(() => canBind(secondPort), 'port released after delete');
  });

  it('warns about a node port another program has and opens it once free', async () => {
    const [only] = await servers('a');
    const squatter = await listen(createServer());
    const nodePort = portOf(squatter);
    const { controller, events } = await harness(new FakeDialer(new Map([['10.0.0.1', portOf(only)]])), (transport) => {
      transport.seed(resources.services, service('web', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort }] }));
      transport.seed(resources.endpointslices, slice('web', [{ ip: '10.0.0.1' }]));
    });
    await until(() => events().some((event) => event.reason === 'FailedToOpenNodePort'), 'warning event');
    const warning = events().find((event) => event.reason === 'FailedToOpenNodePort');
    expect(warning?.type).toBe('Warning');
    expect(warning?.message).toContain(`port ${nodePort} on 127.0.0.1 is already in use`);
    expect(controller.listening()).toEqual([]);
    await closeServer(squatter);
    await until(() => controller.listening().length === 1, 'opened after retry');
    expect(await exchange(nodePort, 'in')).toBe('a:IN');
  });
});

describe('HostPortController load balancers', () => {
  it('stays Pending with a warning while its port is taken, then sets the 127.0.0.1 ingress', async () => {
    const [only] = await servers('a');
    const squatter = await listen(createServer());
    const lbPort = portOf(squatter);
    const nodePort = await freePort();
    const { controller, events, ingress, transport } = await harness(new FakeDialer(new Map([['10.0.0.1', portOf(only)]])), (seeded) => {
      seeded.seed(resources.services, service('lb', { type: 'LoadBalancer', ports: [{ port: lbPort, targetPort: 8080, nodePort }] }));
      seeded.seed(resources.endpointslices, slice('lb', [{ ip: '10.0.0.1' }]));
    });
    await until(() => events().some((event) => event.reason === 'SyncLoadBalancerFailed'), 'warning event');
    const warning = events().find((event) => event.reason === 'SyncLoadBalancerFailed');
    expect(warning).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Service', name: 'lb', namespace: 'default' } });
    expect(warning?.message).toBe(`Error syncing load balancer: failed to ensure load balancer: port ${lbPort} on 127.0.0.1 is already in use`);
    // the node port works meanwhile
    await until(() => controller.listening().some((entry) => entry.hostPort === nodePort), 'node port');
    expect(ingress('lb')).toBeUndefined();
    const patchesWhilePending = transport.requests.filter((request) => request.method === 'PATCH' && request.path.endsWith('/status')).length;
    expect(patchesWhilePending).toBe(0);

    await closeServer(squatter);
    await until(() => JSON.stringify(ingress('lb')) === JSON.stringify([{ ip: '127.0.0.1', ipMode: 'VIP' }]), 'ingress');
    expect(controller.listening().map((entry) => entry.hostPort).sort()).toEqual([lbPort, nodePort].sort());
    expect(await exchange(lbPort, 'lb')).toBe('a:LB');
    expect(events().some((event) => event.reason === 'EnsuredLoadBalancer')).toBe(true);
  });

  it('clears the ingress when the Service stops being a LoadBalancer and releases its ports', async () => {
    const lbPort = await freePort();
    const { client, controller, ingress } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(resources.services, service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: lbPort, targetPort: 8080 }] }));
    });
    await until(() => Array.isArray(ingress('lb')), 'ingress');
    await client.resource(resources.services).patch('default', 'lb', { spec: { type: 'ClusterIP' } }, 'merge');
    await until(() => ingress('lb') === undefined && controller.listening().length === 0, 'cleared');
    await until(() => canBind(lbPort), 'port released');
  });

  it('keeps a second Service on the same port Pending until the first is deleted', async () => {
    const lbPort = await freePort();
    const { client, controller, events, ingress } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(resources.services, service('a-first', { type: 'LoadBalancer', ports: [{ port: lbPort, targetPort: 8080 }] }));
      transport.seed(resources.services, service('b-second', { type: 'LoadBalancer', ports: [{ port: lbPort, targetPort: 8080 }] }));
    });
    await until(() => Array.isArray(ingress('a-first')), 'first ingress');
    await until(() => events().some((event) => event.reason === 'SyncLoadBalancerFailed'), 'warning');
    expect(events().find((event) => event.reason === 'SyncLoadBalancerFailed')?.message).toContain(`port ${lbPort} on 127.0.0.1 is already in use by Service default/a-first`);
    expect(ingress('b-second')).toBeUndefined();
    await client.resource(resources.services).delete('default', 'a-first');
    await until(() => Array.isArray(ingress('b-second')), 'second ingress');
    expect(controller.listening()).toEqual([{ namespace: 'default', name: 'b-second', port: lbPort, protocol: 'TCP', hostPort: lbPort }]);
  });

  it('closes every listener on dispose', async () => {
    const lbPort = await freePort();
    const { controller } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(resources.services, service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: lbPort, targetPort: 8080 }] }));
    });
    await until(() => controller.listening().length === 1, 'listening');
    await controller.dispose();
    expect(controller.listening()).toEqual([]);
    expect(await canBind(lbPort)).toBe(true);
  });
});

describe('HostPortController load balancer cleanup finalizer', () => {
  const finalizer = 'service.kubernetes.io/load-balancer-cleanup';
  const stored = (transport: FakeTransport, name: string) => transport.objectsOf(resources.services).find((object) => object.metadata.name === name);

  it('adds service.kubernetes.io/load-balancer-cleanup to a LoadBalancer Service it serves', async () => {
    const lbPort = await freePort();
    const { transport, events, ingress } = await harness(new FakeDialer(new Map()), (seeded) => {
      seeded.seed(resources.services, service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: lbPort, targetPort: 8080 }] }));
      seeded.seed(resources.services, service('other-class', { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, targetPort: 8080 }] }));
      seeded.seed(resources.services, service('plain', { type: 'NodePort', ports: [{ port: 80, targetPort: 8080, nodePort: 30000 + (lbPort % 2000) }] }));
    });
    await until(() => Array.isArray(ingress('lb')), 'ingress');
    expect(stored(transport, 'lb')?.metadata.finalizers).toEqual([finalizer]);
    expect(stored(transport, 'other-class')?.metadata.finalizers).toBeUndefined();
    expect(stored(transport, 'plain')?.metadata.finalizers).toBeUndefined();
    expect(events().filter((event) => event.involvedObject && (event.involvedObject as { name?: string }).name === 'lb').map((event) => event.reason)).toEqual(expect.arrayContaining(['EnsuringLoadBalancer', 'EnsuredLoadBalancer']));
  });

  it('removes the finalizer once the Service is no longer a LoadBalancer and its port is closed', async () => {
    const lbPort = await freePort();
    const { transport, client, controller, ingress } = await harness(new FakeDialer(new Map()), (seeded) => {
      seeded.seed(resources.services, service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: lbPort, targetPort: 8080 }] }));
    });
    await until(() => (stored(transport, 'lb')?.metadata.finalizers ?? []).includes(finalizer) && Array.isArray(ingress('lb')), 'finalizer and ingress');
    await client.resource(resources.services).patch('default', 'lb', { spec: { type: 'ClusterIP' } }, 'merge');
    await until(() => stored(transport, 'lb')?.metadata.finalizers === undefined, 'finalizer removed');
    expect(ingress('lb')).toBeUndefined();
    expect(controller.listening()).toEqual([]);
    expect(await canBind(lbPort)).toBe(true);
  });

  it('keeps a deleted LoadBalancer Service until its load balancer is gone, then lets it go', async () => {
    const lbPort = await freePort();
    const { transport, client, events } = await harness(new FakeDialer(new Map()), (seeded) => {
      seeded.seed(resources.services, service('lb', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: lbPort, targetPort: 8080 }] }));
    });
    await until(() => (stored(transport, 'lb')?.metadata.finalizers ?? []).includes(finalizer), 'finalizer');
    await until(() => canBind(lbPort).then((free) => !free), 'listening');
    await client.resource(resources.services).delete('default', 'lb');
    await until(() => stored(transport, 'lb') === undefined, 'service gone');
    expect(await canBind(lbPort)).toBe(true);
    const reasons = events().map((event) => event.reason);
    expect(reasons).toEqual(expect.arrayContaining(['DeletingLoadBalancer', 'DeletedLoadBalancer']));
    expect(reasons.indexOf('DeletingLoadBalancer')).toBeLessThan(reasons.indexOf('DeletedLoadBalancer'));
  });
});

describe('HostPortController over UDP', () => {
  it('relays datagrams to a backend and its replies back to the client', async () => {
    const echo = createSocket('udp4');
    echo.on('message', (message, remote) => echo.send(Buffer.from(`echo:${message.toString()}`), remote.port, remote.address));
    await new Promise<void>((resolve) => echo.bind(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => echo.close(() => resolve())));
    const nodePort = await freePort();
    const { controller } = await harness(new FakeDialer(new Map()), (transport) => {
      transport.seed(resources.services, service('dns', { type: 'NodePort', ports: [{ port: 53, protocol: 'UDP', nodePort }] }));
      transport.seed(resources.endpointslices, slice('dns', [{ ip: '127.0.0.1' }], [{ name: '', port: echo.address().port, protocol: 'UDP' }]));
    });
    await until(() => controller.listening().length === 1, 'listening');
    expect(controller.listening()[0].protocol).toBe('UDP');
    const client = createSocket('udp4');
    onTestFinished(() => new Promise<void>((resolve) => client.close(() => resolve())));
    const replies: string[] = [];
    client.on('message', (message) => replies.push(message.toString()));
    client.send('one', nodePort, '127.0.0.1');
    await until(() => replies.length === 1, 'first reply');
    client.send('two', nodePort, '127.0.0.1');
    await until(() => replies.length === 2, 'second reply');
    expect(replies).toEqual(['echo:one', 'echo:two']);
  });
});
