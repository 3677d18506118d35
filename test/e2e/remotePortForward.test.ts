// The PortForward emulation (main/app/relay/portForwards) against a real cluster reached only
// through a ClusterConnection built from its kubeconfig, as the app's relay reaches a cluster that
// is not kubedesk: the emulated kind is served over HTTP by a stand-in for the relay, a forward to a
// Deployment's busybox httpd pod answers on 127.0.0.1 through the pod's portforward WebSocket, keeps
// answering from the replacement after the pod is deleted, a Service forward reaches a ready
// endpoint's pod, a watch sees the status change, invalid specs get 422 with field paths, and
// deleting the forward closes its port.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createPortForwardEmulation, type PortForwardEmulation } from '../../main/app/relay/portForwards';
import { loadKubeconfig } from '../../main/remote/kubeconfig';
import { connectionForContext, type ClusterConnection } from '../../main/remote';
import { startCluster, type TestCluster } from '../support/cluster';
import { answersWith, portRefused, readyWebPod, webDeployment, webService } from '../support/forwardTargets';
import { kubectlOk, kubectlState, until } from '../support/wait';

let cluster: TestCluster;
let connection: ClusterConnection;
let emulation: PortForwardEmulation;
let relay: Server;
let relayPort = 0;
const namespace = 'remote-pf';
const base = `/apis/kubedesk.dev/v1alpha1/namespaces/${namespace}/portforwards`;

const ok = (...args: string[]) => kubectlOk(cluster, ['-n', namespace, ...args]);

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

function call(method: string, path: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port: relayPort, method, path, headers: payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
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
}

async function statusOf(name: string): Promise<ForwardStatus> {
  const reply = await call('GET', `${base}/${name}`);
  return (reply.body.status ?? {}) as ForwardStatus;
}

function activeForward(name: string): Promise<ForwardStatus> {
  return until(`forward ${name} to be Active`, async () => {
    const status = await statusOf(name);
    return status.phase === 'Active' && status.localPort ? status : undefined;
  }, 60_000, 300, async () => JSON.stringify(await statusOf(name)));
}

function readyPod(): Promise<string> {
  return readyWebPod(cluster, namespace);
}

function answers(port: number, body: string): Promise<string> {
  return answersWith(port, body, kubectlState(cluster, ['-n', namespace, 'get', 'pods', '-o', 'wide']), 300);
}

beforeAll(async () => {
  cluster = await startCluster();
  // the app's own connection to a kubeconfig context (main/remote), as the relay makes it
  connection = connectionForContext(loadKubeconfig([cluster.kubeconfig], true), 'kubedesk');
  emulation = createPortForwardEmulation({ connection, context: 'kubedesk' });
  // stands for the relay: it hands /apis/kubedesk.dev/... to the emulation
  relay = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://relay');
    void emulation.handleRequest(request, response, url.pathname, url.searchParams);
  });
  relay.on('upgrade', (request, socket, head) => {
    const url = new URL(request.url ?? '/', 'http://relay');
    emulation.handleUpgrade(request, socket, head, url.pathname, url.searchParams);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayPort = (relay.address() as AddressInfo).port;
  await kubectlOk(cluster, ['create', 'namespace', namespace]);
  await kubectlOk(cluster, ['-n', namespace, 'apply', '-f', '-'], JSON.stringify(webDeployment(namespace)));
  await kubectlOk(cluster, ['-n', namespace, 'apply', '-f', '-'], JSON.stringify(webService(namespace)));
}, 240_000);

afterAll(async () => {
  emulation?.close();
  connection?.close();
  await new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve()));
  await cluster?.destroy();
});

describe('PortForward emulation on a cluster reached through its kubeconfig', () => {
  it('serves the kind in discovery with its short name', async () => {
    const reply = await call('GET', '/apis/kubedesk.dev/v1alpha1');
    expect(reply.status).toBe(200);
    expect(reply.body.resources).toEqual([expect.objectContaining({ name: 'portforwards', shortNames: ['pf'], namespaced: true, kind: 'PortForward' })]);
  });

  it('refuses an invalid spec with 422 and field paths', async () => {
    const reply = await call('POST', base, { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name: 'bad' }, spec: { target: { kind: 'Deployment', name: 'web' }, port: 0 } });
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    const causes = (reply.body.details as { causes: { field: string }[] }).causes.map((cause) => cause.field);
    expect(causes).toEqual(['spec.target.kind', 'spec.port']);
  });

  it('forwards to a pod through its portforward WebSocket and follows the Deployment to the replacement pod', async () => {
    const first = await readyPod();
    const created = await call('POST', base, { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name: 'to-pod' }, spec: { target: { kind: 'Pod', name: first }, port: 'http' } });
    expect(created.status).toBe(201);

    // a WebSocket watch from the create's resourceVersion sees the forward become Active
    const events: { type: string; object: { status?: ForwardStatus } }[] = [];
    const watch = new WebSocket(`ws://127.0.0.1:${relayPort}${base}?watch=1&resourceVersion=${String((created.body.metadata as { resourceVersion: string }).resourceVersion)}`);
    watch.on('message', (data) => events.push(JSON.parse(String(data)) as { type: string; object: { status?: ForwardStatus } }));

    const active = await activeForward('to-pod');
    const localPort = active.localPort ?? 0;
    expect(active.url).toBe(`http://127.0.0.1:${localPort}`);
    expect(active.pod).toBe(first);
    expect(await answers(localPort, first)).toBe(first);
    await until('the watch to report Active', () => (events.some((event) => event.type === 'MODIFIED' && event.object.status?.phase === 'Active') ? true : undefined), 10_000, 100);
    watch.close();

    await ok('delete', 'pod', first, '--wait=false');
    const replacement = await until('a new ready pod', async () => {
      const name = await readyPod();
      return name !== first ? name : undefined;
    }, 120_000);
    expect(await answers(localPort, replacement)).toBe(replacement);
    await until('status.pod to name the new pod', async () => ((await statusOf('to-pod')).pod === replacement ? true : undefined), 30_000, 300);

    const deleted = await call('DELETE', `${base}/to-pod`);
    expect(deleted.status).toBe(200);
    expect(await until('the local port to be closed', async () => ((await portRefused(localPort)) ? true : undefined), 10_000, 200)).toBe(true);
    expect((await call('GET', `${base}/to-pod`)).status).toBe(404);
  }, 300_000);

  it('forwards to a Service port through a ready endpoint\'s pod', async () => {
    const created = await call('POST', base, { apiVersion: 'kubedesk.dev/v1alpha1', kind: 'PortForward', metadata: { name: 'to-service' }, spec: { target: { kind: 'Service', name: 'web' }, port: 80 } });
    expect(created.status).toBe(201);
    const active = await activeForward('to-service');
    const pod = await readyPod();
    expect(await answers(active.localPort ?? 0, pod)).toBe(pod);
    const list = await call('GET', `/apis/kubedesk.dev/v1alpha1/portforwards`);
    expect((list.body.items as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['to-service']);
    expect((await call('DELETE', `${base}/to-service`)).status).toBe(200);
  }, 180_000);
});
