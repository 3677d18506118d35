import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiClient } from '../../client/apiClient';
import { FakeTransport } from '../../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import type { PodDialer } from '../dialer';
import { createSelfSignedCertificate, fallbackCommonName } from './ingressCertificates';
import { IngressController, chooseIngressPorts, ingressClassesResource } from './ingressController';
import { until } from '../../../test/fixtures/until';
import { makeEndpointSlice, sliceEndpoints } from '../../../test/fixtures/networkObjects';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(port: number, host: string, path: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { host, ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function getTls(port: number, serverName: string, ca?: string): Promise<{ status: number; commonName: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ agent: false, host: '127.0.0.1', port, path: '/', servername: serverName, headers: { host: serverName }, ca, rejectUnauthorized: ca !== undefined }, (res) => {
      const commonName = String((res.socket as TLSSocket).getPeerCertificate().subject.CN);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, commonName, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A pod: a real HTTP server on 127.0.0.1 that echoes what it received. */
async function startPod(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.end(JSON.stringify({ pod: name, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

interface Harness {
  transport: FakeTransport;
  controller: IngressController;
  factory: SharedInformerFactory;
  dials: string[];
  pods: Map<string, { server: Server; port: number }>;
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Pod IPs map to local servers; an IP without a server refuses the connection. */
async function startHarness(seed: (transport: FakeTransport) => void, podNames: Record<string, string> = {}): Promise<Harness> {
  const transport = new FakeTransport();
  seed(transport);
  const pods = new Map<string, { server: Server; port: number }>();
  for (const [ip, name] of Object.entries(podNames)) {
    const pod = await startPod(name);
    pods.set(ip, pod);
    cleanups.push(() => new Promise<void>((resolve) => pod.server.close(() => resolve())));
  }
  const dials: string[] = [];
  const dialer: PodDialer = {
    dial(ip, port) {
      dials.push(`${ip}:${port}`);
      const pod = pods.get(ip);
      if (!pod || port !== 8080) return Promise.reject(new Error(`dial ${ip}:${port}: connection refused`));
      return new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: pod.port }, () => resolve(socket));
        socket.once('error', reject);
      });
    },
  };
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const controller = new IngressController(client, factory, { dialer, httpPort: 0, httpsPort: 0 });
  factory.start();
  await controller.start();
  cleanups.push(async () => {
    await controller.dispose();
    factory.dispose();
  });
  await factory.waitForCacheSync();
  return { transport, controller, factory, dials, pods };
}

function service(name: string, ports: Record<string, unknown>[] = [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }], type = 'ClusterIP'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type, clusterIP: '10.96.0.20', ports } };
}

function slice(serviceName: string, endpoints: { ip: string; ready?: boolean }[]): KubeObject {
  return makeEndpointSlice(serviceName, { ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], endpoints: sliceEndpoints(endpoints) });
}

function ingress(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace: 'default' }, spec };
}

function rule(host: string, path: string, backend: Record<string, unknown>): Record<string, unknown> {
  return { host, http: { paths: [{ path, pathType: 'Prefix', backend }] } };
}

const webBackend = { service: { name: 'web', port: { number: 80 } } };

function seedWeb(transport: FakeTransport, endpoints: { ip: string; ready?: boolean }[], extraRules: Record<string, unknown>[] = [], extraSpec: Record<string, unknown> = {}): void {
  transport.seed(resources.services, service('web'));
  transport.seed(resources.endpointslices, slice('web', endpoints));
  transport.seed(resources.ingresses, ingress('web', { ingressClassName: 'kubedesk', rules: [rule('web.test', '/', webBackend), ...extraRules], ...extraSpec }));
}

describe('IngressController', () => {
  it('creates the kubedesk IngressClass as the default class when it is missing', async () => {
    const { transport } = await startHarness(() => undefined);
    await until(() => transport.objectsOf(ingressClassesResource).length === 1, 'IngressClass created');
    const [created] = transport.objectsOf(ingressClassesResource);
    expect(created.metadata.name).toBe('kubedesk');
    expect(created.metadata.annotations).toEqual({ 'ingressclass.kubernetes.io/is-default-class': 'true' });
    expect(created.spec).toEqual({ controller: 'kubedesk.dev/ingress' });
  });

  it('leaves an IngressClass the user edited alone and then ignores class-less Ingresses', async () => {
    const edited: KubeObject = { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'kubedesk', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'false' } }, spec: { controller: 'kubedesk.dev/ingress' } };
    const { transport, controller } = await startHarness((seed) => {
      seed.seed(ingressClassesResource, edited);
      seed.seed(resources.ingresses, ingress('classless', { rules: [rule('web.test', '/', webBackend)] }));
    });
    await until(() => transport.requests.some((req) => req.method === 'GET' && req.path.endsWith('/ingressclasses/kubedesk')), 'class checked');
    expect(transport.objectsOf(ingressClassesResource)[0].metadata.annotations).toEqual({ 'ingressclass.kubernetes.io/is-default-class': 'false' });
    expect(transport.requests.filter((req) => req.method !== 'GET').map((req) => `${req.method} ${req.path}`)).not.toContain('POST /apis/networking.k8s.io/v1/ingressclasses');
    expect((await get(controller.ports().http, 'web.test', '/')).status).toBe(404);
  });

  it('publishes 127.0.0.1 and its ports in the status of the Ingresses it handles only', async () => {
    const { transport, controller } = await startHarness((seed) => {
      seed.seed(resources.ingresses, ingress('ours', { ingressClassName: 'kubedesk', rules: [rule('a.test', '/', webBackend)] }));
      seed.seed(resources.ingresses, ingress('theirs', { ingressClassName: 'nginx', rules: [rule('b.test', '/', webBackend)] }));
      seed.seed(resources.ingresses, ingress('classless', { rules: [rule('c.test', '/', webBackend)] }));
    });
    const statusOf = (name: string) => transport.objectsOf(resources.ingresses).find((object) => object.metadata.name === name)?.status;
    const { http, https } = controller.ports();
    const expected = { loadBalancer: { ingress: [{ ip: '127.0.0.1', ports: [{ port: http, protocol: 'TCP' }, { port: https, protocol: 'TCP' }] }] } };
    await until(() => JSON.stringify(statusOf('ours')) === JSON.stringify(expected), 'status of ours');
    // The class-less one is ours once the kubedesk class (created as the default) is seen.
    await until(() => JSON.stringify(statusOf('classless')) === JSON.stringify(expected), 'status of the class-less Ingress');
    expect(statusOf('theirs')).toBeUndefined();
  });

  it('proxies to the ready endpoints round robin, keeping Host, setting X-Forwarded headers and streaming bodies', async () => {
    const { controller, dials } = await startHarness((seed) => seedWeb(seed, [{ ip: '10.244.0.1' }, { ip: '10.244.0.2' }, { ip: '10.244.0.3', ready: false }]), { '10.244.0.1': 'one', '10.244.0.2': 'two', '10.244.0.3': 'unready' });
    const port = controller.ports().http;
    await until(async () => (await get(port, 'web.test', '/')).status === 200, 'route ready');
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 4; attempt++) {
      const reply = await get(port, 'web.test:1234', '/upload?x=1', { method: 'POST', body: 'hello pod', headers: { 'x-forwarded-for': '192.0.2.7', connection: 'keep-alive, x-drop', 'x-drop': 'secret' } });
      expect(reply.status).toBe(200);
      expect(reply.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      const echoed = JSON.parse(reply.body) as { pod: string; method: string; url: string; body: string; headers: Record<string, string> };
      seen.add(echoed.pod);
      expect(echoed).toMatchObject({ method: 'POST', url: '/upload?x=1', body: 'hello pod' });
      expect(echoed.headers).toMatchObject({ host: 'web.test:1234', 'x-forwarded-for': '192.0.2.7, 127.0.0.1', 'x-forwarded-host': 'web.test:1234', 'x-forwarded-proto': 'http', 'x-forwarded-port': String(port), 'x-real-ip': '127.0.0.1' });
      expect(echoed.headers['x-drop']).toBeUndefined();
      // One request per pod connection: nothing is left open towards the pod.
      expect(echoed.headers.connection).toBe('close');
    }
    expect([...seen].sort()).toEqual(['one', 'two']);
    expect(dials).not.toContain('10.244.0.3:8080');
  });

  it('moves on to another endpoint when a dial fails, and answers 502 when every dial fails', async () => {
    const { controller, transport, dials } = await startHarness((seed) => seedWeb(seed, [{ ip: '10.244.0.1' }, { ip: '10.244.0.9' }]), { '10.244.0.1': 'one' });
    const port = controller.ports().http;
    await until(async () => (await get(port, 'web.test', '/')).status === 200, 'route ready');
    for (let attempt = 0; attempt < 3; attempt++) expect((await get(port, 'web.test', '/')).status).toBe(200);
    expect(dials).toContain('10.244.0.9:8080');
    const [existing] = transport.objectsOf(resources.endpointslices);
    await new ApiClient(transport).resource(resources.endpointslices).update({ ...existing, endpoints: [{ addresses: ['10.244.0.8'], conditions: { ready: true } }] } as KubeObject);
    await until(async () => (await get(port, 'web.test', '/')).status === 502, '502 after every dial fails');
  });

  it.each([
    { name: 'answers 404 when no rule matches and there is no default backend', host: 'nowhere.test', path: '/', status: 404, text: 'No Ingress rule matches' },
    { name: 'answers 503 when the Service has no ready endpoints', host: 'empty.test', path: '/', status: 503, text: 'has no ready endpoints' },
    { name: 'answers 503 when the Service does not exist', host: 'missing.test', path: '/', status: 503, text: 'does not exist' },
    { name: 'answers 503 for resource backends, which kubedesk does not support', host: 'bucket.test', path: '/', status: 503, text: 'kubedesk does not support resource backends' },
  ])('$name', async ({ host, path, status, text }) => {
    const { controller } = await startHarness((seed) => {
      seed.seed(resources.services, service('empty'));
      seed.seed(resources.endpointslices, slice('empty', [{ ip: '10.244.0.5', ready: false }]));
      seed.seed(
        resources.ingresses,
        ingress('mixed', {
          ingressClassName: 'kubedesk',
          rules: [
            rule('empty.test', '/', { service: { name: 'empty', port: { name: 'http' } } }),
            rule('missing.test', '/', { service: { name: 'missing', port: { number: 80 } } }),
            rule('bucket.test', '/', { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'assets' } }),
          ],
        }),
      );
    });
    const port = controller.ports().http;
    await until(() => controller.routeFor('empty.test', '/') !== undefined, 'routes loaded');
    const reply = await get(port, host, path);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toContain('text/html');
    expect(reply.body).toContain(text);
  });

  it('uses the default backend when no rule matches', async () => {
    const { controller } = await startHarness((seed) => {
      seed.seed(resources.services, service('web'));
      seed.seed(resources.endpointslices, slice('web', [{ ip: '10.244.0.1' }]));
      seed.seed(resources.ingresses, ingress('fallback', { ingressClassName: 'kubedesk', defaultBackend: webBackend }));
    }, { '10.244.0.1': 'one' });
    await until(async () => (await get(controller.ports().http, 'anything.test', '/x')).status === 200, 'default backend answers');
  });

  it('relays WebSocket upgrades both ways', async () => {
    const { controller, pods } = await startHarness((seed) => seedWeb(seed, [{ ip: '10.244.0.1' }]), { '10.244.0.1': 'one' });
    const pod = pods.get('10.244.0.1');
    if (!pod) throw new Error('no pod');
    const sockets = new WebSocketServer({ server: pod.server });
    const forwardedHosts: string[] = [];
    sockets.on('connection', (socket, req) => {
      forwardedHosts.push(String(req.headers['x-forwarded-host']));
      socket.on('message', (data) => socket.send(`echo ${String(data)}`));
    });
    cleanups.push(() => new Promise<void>((resolve) => sockets.close(() => resolve())));
    await until(() => controller.routeFor('web.test', '/ws') !== undefined, 'route loaded');
    const client = new WebSocket(`ws://127.0.0.1:${controller.ports().http}/ws`, { headers: { host: 'web.test' } });
    const reply = await new Promise<string>((resolve, reject) => {
      client.on('open', () => client.send('ping'));
      client.on('message', (data) => resolve(String(data)));
      client.on('error', reject);
    });
    client.close();
    expect(reply).toBe('echo ping');
    expect(forwardedHosts).toEqual(['web.test']);
  });

  it('serves the TLS Secret named for a host by SNI, follows Secret changes and falls back to a self-signed certificate', async () => {
    const first = await createSelfSignedCertificate('first.secure.test', ['secure.test', '*.wild.test']);
    const second = await createSelfSignedCertificate('second.secure.test', ['secure.test', '*.wild.test']);
    const secret = (pair: { certPem: string; keyPem: string }): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'secure-tls', namespace: 'default' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': Buffer.from(pair.certPem).toString('base64'), 'tls.key': Buffer.from(pair.keyPem).toString('base64') },
    } as KubeObject);
    const { controller, transport } = await startHarness((seed) => {
      seedWeb(seed, [{ ip: '10.244.0.1' }], [rule('secure.test', '/', webBackend), rule('a.wild.test', '/', webBackend)], { tls: [{ hosts: ['secure.test', '*.wild.test'], secretName: 'secure-tls' }] });
      seed.seed(resources.secrets, secret(first));
    }, { '10.244.0.1': 'one' });
    const port = controller.ports().https;
    await until(async () => (await getTls(port, 'secure.test')).commonName === 'first.secure.test', 'the Secret is served');
    const verified = await getTls(port, 'secure.test', first.certPem);
    expect(verified.status).toBe(200);
    expect(JSON.parse(verified.body)).toMatchObject({ pod: 'one', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-port': String(port) } });
    expect((await getTls(port, 'a.wild.test')).commonName).toBe('first.secure.test');
    expect((await getTls(port, 'other.test')).commonName).toBe(fallbackCommonName);
    expect((await getTls(port, 'b.a.wild.test')).commonName).toBe(fallbackCommonName);

    const [stored] = transport.objectsOf(resources.secrets);
    await new ApiClient(transport).resource(resources.secrets).update({ ...secret(second), metadata: stored.metadata });
    await until(async () => (await getTls(port, 'secure.test')).commonName === 'second.secure.test', 'the changed Secret is served');
  });
});

describe('chooseIngressPorts', () => {
  it('falls back to other ports when the preferred ones are taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as AddressInfo).port;
    const chosen = await chooseIngressPorts({ http: taken, https: 0 });
    expect(chosen).not.toEqual({ http: taken, https: 0 });
    expect([{ http: 8080, https: 8443 }, { http: 0, https: 0 }]).toContainEqual(chosen);
    expect(await IngressController.chooseIngressPorts({ http: 0, https: 0 })).toEqual({ http: 0, https: 0 });
  });

  it('binds the fallback ports when a chosen port was taken in between, and fails when the user named the ports', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as AddressInfo).port;
    const client = new ApiClient(new FakeTransport());
    const dialer: PodDialer = { dial: () => Promise.reject(new Error('no pods here')) };
    const fallingBack = new IngressController(client, new SharedInformerFactory(client), { dialer, httpPort: taken, httpsPort: 0, fallbackPorts: [{ http: 0, https: 0 }] });
    cleanups.push(() => fallingBack.dispose());
    await fallingBack.start();
    const ports = fallingBack.ports();
    expect(ports.http).not.toBe(taken);
    expect(ports.http).toBeGreaterThan(0);
    expect(ports.https).toBeGreaterThan(0);
    const named = new IngressController(client, new SharedInformerFactory(client), { dialer, httpPort: taken, httpsPort: 0 });
    cleanups.push(() => named.dispose());
    await expect(named.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
