// The UI relay between two real `kubedesk serve` clusters (docs/architecture.md, "Other clusters:
// the UI relay"): the first cluster's kubeconfig gains a context for the second, and the UI's
// session on the first reaches the second through /ui/clusters/<context>/… exactly as a browser's
// fetch and WebSocket would (plain HTTPS and WebSockets from node with the session cookie and the
// Origin): lists, a watch over WebSocket, logs, exec over v5.channel.k8s.io, the read-only switch,
// the causes of a cluster that cannot be reached or not trusted, and that kubectl's bearer token
// cannot use the relay and no credential of the kubeconfig reaches a reply.
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, type RawData } from 'ws';
import { parse, stringify } from 'yaml';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage, ensureTestImages } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let first: TestCluster;
let second: TestCluster;
let origin: string;
let cookie: string;
const bodies: string[] = [];

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** HTTPS to the first cluster with exactly these headers. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      new URL(path, first.server),
      { method, ca: first.caPem, agent: false, timeout: 30_000, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          bodies.push(text);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text });
        });
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

interface Socket {
  frames: Buffer[];
  opened: Promise<void>;
  refused: Promise<number>;
  closed: Promise<number>;
  socket: WebSocket;
}

function openSocket(path: string, headers: Record<string, string>, protocols: string[] = []): Socket {
  const frames: Buffer[] = [];
  const socket = new WebSocket(new URL(path, first.server.replace(/^https/, 'wss')), protocols, { ca: first.caPem, headers });
  socket.on('message', (data: RawData) => frames.push(Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer)));
  socket.on('error', () => undefined);
  return {
    frames,
    socket,
    opened: new Promise((resolve) => socket.once('open', () => resolve())),
    refused: new Promise((resolve) =>
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => bodies.push(Buffer.concat(chunks).toString('utf8')));
        resolve(response.statusCode ?? 0);
      }),
    ),
    closed: new Promise((resolve) => socket.once('close', (code) => resolve(code))),
  };
}

function freePortNobodyListensOn(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

type StatusBody = { reason?: string; message?: string; details?: { causes?: Array<{ reason: string; field?: string; message: string }> } };

const session = (extra: Record<string, string> = {}) => ({ cookie, ...extra });
const writeHeaders = () => session({ origin, 'content-type': 'application/json' });

beforeAll(async () => {
  await ensureTestImages();
  [first, second] = await Promise.all([startCluster(), startCluster()]);
  origin = new URL(first.server).origin;
  // the second cluster's context, and two that cannot work, join the first cluster's kubeconfig
  const secondConfig = parse(readFileSync(second.kubeconfig, 'utf8')) as { clusters: Array<{ cluster: Record<string, unknown> }> };
  const secondCa = secondConfig.clusters[0].cluster['certificate-authority-data'];
  const config = parse(readFileSync(first.kubeconfig, 'utf8')) as { clusters: unknown[]; users: unknown[]; contexts: unknown[] };
  const nobody = await freePortNobodyListensOn();
  config.clusters.push(
    { name: 'second', cluster: { server: second.server, 'certificate-authority-data': secondCa } },
    { name: 'nowhere', cluster: { server: `https://127.0.0.1:${nobody}`, 'certificate-authority-data': secondCa } },
    { name: 'untrusted', cluster: { server: second.server } },
  );
  config.users.push({ name: 'second', user: { token: second.token } });
  config.contexts.push(
    { name: 'second', context: { cluster: 'second', user: 'second' } },
    { name: 'nowhere', context: { cluster: 'nowhere', user: 'second' } },
    { name: 'untrusted', context: { cluster: 'untrusted', user: 'second' } },
  );
  writeFileSync(first.kubeconfig, stringify(config), { mode: 0o600 });
  const signIn = await send('POST', '/ui/session', { origin, 'content-type': 'application/json' }, JSON.stringify({ token: first.token }));
  expect(signIn.status).toBe(204);
  cookie = (signIn.headers['set-cookie']?.[0] ?? '').split(';')[0];
  await kubectlOk(second, ['run', 'remote-talker', `--image=${busyboxImage}`, '--restart=Never', '--command', '--', 'sh', '-c', 'echo hello-from-the-second-cluster; exec sleep 3600']);
}, 240_000);

afterAll(async () => {
  await Promise.all([first?.destroy(), second?.destroy()]);
  // nothing a browser could read holds a credential of the kubeconfig
  for (const body of bodies) {
    expect(body).not.toContain(first.token);
    expect(body).not.toContain(second.token);
  }
});

describe('the UI relay between two kubedesk clusters', () => {
  it('lists the kubeconfig contexts, the serving cluster as self', async () => {
    const reply = await send('GET', '/ui/clusters', session());
    expect(reply.status).toBe(200);
    const list = JSON.parse(reply.body) as { self: string; kubeconfigFiles: string[]; clusters: Array<{ name: string; self: boolean; basePath: string; server: string; readOnly: boolean }> };
    expect(list.self).toBe('kubedesk');
    expect(list.kubeconfigFiles[0]).toBe(first.kubeconfig);
    expect(list.clusters.map((cluster) => [cluster.name, cluster.self, cluster.basePath])).toEqual([
      ['kubedesk', true, ''],
      ['nowhere', false, '/ui/clusters/nowhere'],
      ['second', false, '/ui/clusters/second'],
      ['untrusted', false, '/ui/clusters/untrusted'],
    ]);
    expect(list.clusters.find((cluster) => cluster.name === 'second')?.server).toBe(second.server);
  });

  it('refuses kubectl\'s bearer token: the relay is only for the UI session', async () => {
    const bearer = { authorization: `Bearer ${first.token}` };
    expect((await send('GET', '/ui/clusters', bearer)).status).toBe(403);
    expect((await send('GET', '/ui/clusters/second/api/v1/pods', bearer)).status).toBe(403);
    expect((await send('GET', '/ui/clusters')).status).toBe(401);
    expect((await send('GET', '/ui/clusters/..%2Fkubedesk/api/v1/pods', session())).status).toBe(400);
  });

  it('lists the second cluster\'s pods and reads their logs', async () => {
    const pods = await send('GET', '/ui/clusters/second/api/v1/namespaces/default/pods', session({ accept: 'application/json' }));
    expect(pods.status).toBe(200);
    expect((JSON.parse(pods.body) as { items: Array<{ metadata: { name: string } }> }).items.map((pod) => pod.metadata.name)).toContain('remote-talker');
    // the first cluster has no such pod: the reply came from the second
    expect((await first.request('GET', '/api/v1/namespaces/default/pods/remote-talker')).status).toBe(404);
    await until('remote-talker to run', async () => ((await kubectlOk(second, ['get', 'pod', 'remote-talker', '-o', 'jsonpath={.status.phase}'])) === 'Running' ? true : undefined), 90_000);
    const log = await until(
      'the log through the relay',
      async () => {
        const reply = await send('GET', '/ui/clusters/second/api/v1/namespaces/default/pods/remote-talker/log', session());
        return reply.status === 200 && reply.body.includes('hello-from-the-second-cluster') ? reply : undefined;
      },
      30_000,
      200,
    );
    expect(log.headers['content-type']).toContain('text/plain');
    // and followed over a WebSocket, as the UI's log viewer reads it
    const follow = openSocket('/ui/clusters/second/api/v1/namespaces/default/pods/remote-talker/log?follow=true', session({ origin }), ['base64.binary.k8s.io']);
    await follow.opened;
    expect(follow.socket.protocol).toBe('base64.binary.k8s.io');
    const text = () => follow.frames.map((frame) => Buffer.from(frame.toString('utf8'), 'base64').toString('utf8')).join('');
    await until('the followed log line through the relay', () => (text().includes('hello-from-the-second-cluster') ? true : undefined), 30_000, 100);
    follow.socket.close();
    await follow.closed;
  });

  it('delivers a watch event of the second cluster over a relayed WebSocket', async () => {
    const watch = openSocket('/ui/clusters/second/api/v1/namespaces/default/configmaps?watch=true', session({ origin }), ['binary.k8s.io']);
    await watch.opened;
    expect(watch.socket.protocol).toBe('binary.k8s.io');
    await kubectlOk(second, ['create', 'configmap', 'watched-through-relay', '--from-literal=a=1']);
    const events = () => watch.frames.map((frame) => JSON.parse(frame.toString('utf8')) as { type: string; object: { metadata: { name: string } } });
    await until('the ADDED event through the relay', () => (events().some((event) => event.type === 'ADDED' && event.object.metadata.name === 'watched-through-relay') ? true : undefined), 30_000, 100);
    watch.socket.close();
    await watch.closed;
  });

  it('runs an exec in the second cluster\'s pod over v5.channel.k8s.io', async () => {
    await until('remote-talker to run', async () => ((await kubectlOk(second, ['get', 'pod', 'remote-talker', '-o', 'jsonpath={.status.phase}'])) === 'Running' ? true : undefined), 90_000);
    const exec = openSocket('/ui/clusters/second/api/v1/namespaces/default/pods/remote-talker/exec?command=echo&command=relayed-exec&stdout=true&stderr=true', session({ origin }), ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    await exec.opened;
    expect(exec.socket.protocol).toBe('v5.channel.k8s.io');
    await exec.closed;
    const stdout = Buffer.concat(exec.frames.filter((frame) => frame[0] === 1).map((frame) => frame.subarray(1))).toString('utf8');
    expect(stdout).toBe('relayed-exec\n');
    const status = exec.frames.filter((frame) => frame[0] === 3).map((frame) => JSON.parse(frame.subarray(1).toString('utf8')) as { status: string });
    expect(status).toEqual([expect.objectContaining({ status: 'Success' })]);
  });

  it('reports the second cluster connected, as kubedesk, with the user its context signs in as', async () => {
    const reply = await send('GET', '/ui/clusters/second/-/status', session());
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toMatchObject({ state: 'connected', kubedesk: true, user: { username: 'kubedesk-admin' }, warnings: [] });
  });

  it('keeps a read-only cluster read-only: a create is refused, an access review and reads go through', async () => {
    const on = await send('PUT', '/ui/clusters/second/-/settings', writeHeaders(), JSON.stringify({ readOnly: true }));
    expect(on.status).toBe(200);
    expect(JSON.parse(on.body)).toMatchObject({ name: 'second', readOnly: true });
    try {
      const create = await send('POST', '/ui/clusters/second/api/v1/namespaces/default/configmaps', writeHeaders(), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-while-read-only' } }));
      expect(create.status).toBe(403);
      expect((JSON.parse(create.body) as StatusBody).message).toBe('the cluster "second" is read-only in kubedesk (turn it off in Settings → Clusters)');
      const review = await send(
        'POST',
        '/ui/clusters/second/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        writeHeaders(),
        JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'create', resource: 'configmaps', namespace: 'default' } } }),
      );
      expect(review.status).toBe(201);
      expect(JSON.parse(review.body)).toMatchObject({ status: { allowed: true } });
      expect((await send('GET', '/ui/clusters/second/api/v1/namespaces/default/configmaps', session())).status).toBe(200);
      const exec = openSocket('/ui/clusters/second/api/v1/namespaces/default/pods/remote-talker/exec?command=true&stdout=true', session({ origin }), ['v5.channel.k8s.io']);
      expect(await exec.refused).toBe(403);
      expect((await second.request('GET', '/api/v1/namespaces/default/configmaps/not-while-read-only')).status).toBe(404);
      expect(JSON.parse(readFileSync(join(first.dataDir, 'ui-clusters.json'), 'utf8'))).toEqual({ clusters: { second: { readOnly: true } } });
    } finally {
      expect((await send('PUT', '/ui/clusters/second/-/settings', writeHeaders(), JSON.stringify({ readOnly: false }))).status).toBe(200);
    }
    const allowed = await send('POST', '/ui/clusters/second/api/v1/namespaces/default/configmaps', writeHeaders(), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-read-only' } }));
    expect(allowed.status).toBe(201);
  });

  it('keeps the serving cluster read-only for the UI session when its switch is on, not for kubectl', async () => {
    expect((await send('PUT', '/ui/clusters/kubedesk/-/settings', writeHeaders(), JSON.stringify({ readOnly: true }))).status).toBe(200);
    try {
      const create = await send('POST', '/api/v1/namespaces/default/configmaps', writeHeaders(), JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'own-read-only' } }));
      expect(create.status).toBe(403);
      expect((JSON.parse(create.body) as StatusBody).message).toBe('the cluster "kubedesk" is read-only in kubedesk (turn it off in Settings → Clusters)');
      expect((await send('GET', '/api/v1/namespaces/default/configmaps', session())).status).toBe(200);
      await kubectlOk(first, ['create', 'configmap', 'kubectl-still-writes']);
    } finally {
      expect((await send('PUT', '/ui/clusters/kubedesk/-/settings', writeHeaders(), JSON.stringify({ readOnly: false }))).status).toBe(200);
    }
  });

  it('answers 503 Unreachable for a server nobody listens on, naming host:port', async () => {
    const reply = await send('GET', '/ui/clusters/nowhere/api/v1/pods', session());
    expect(reply.status).toBe(503);
    const status = JSON.parse(reply.body) as StatusBody;
    expect(status.reason).toBe('ServiceUnavailable');
    expect(status.details?.causes?.[0].reason).toBe('Unreachable');
    const listed = JSON.parse((await send('GET', '/ui/clusters', session())).body) as { clusters: Array<{ name: string; server: string }> };
    expect(status.message).toContain(new URL(listed.clusters.find((cluster) => cluster.name === 'nowhere')?.server ?? '').host);
    expect(JSON.parse((await send('GET', '/ui/clusters/nowhere/-/status', session())).body)).toMatchObject({ state: 'unreachable' });
  });

  it('answers 503 CertificateNotTrusted with the fingerprint of the server\'s certificate', async () => {
    const reply = await send('GET', '/ui/clusters/untrusted/api/v1/pods', session());
    expect(reply.status).toBe(503);
    const fingerprint = new X509Certificate(readFileSync(join(second.dataDir, 'pki', 'apiserver.crt'))).fingerprint256;
    const status = JSON.parse(reply.body) as StatusBody;
    expect(status.details?.causes?.[0]).toMatchObject({ reason: 'CertificateNotTrusted', field: fingerprint });
    expect(status.message).toContain(`SHA-256 fingerprint ${fingerprint}`);
    expect(JSON.parse((await send('GET', '/ui/clusters/untrusted/-/status', session())).body)).toMatchObject({ state: 'certificate-not-trusted', fingerprint });
  });
});
