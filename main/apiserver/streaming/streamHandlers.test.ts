// Drives the streaming subresources with the real kubectl against the real ApiServer + HttpServer,
// with a fake PodStreams (exec = a local process, port-forward = a local HTTP server), so no Docker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { WebSocket } from 'ws';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { httpsRequest, startHttpsApiServer, type HttpsApiServer } from '../../../test/fixtures/httpsApiServer';
import { apiRequest } from '../../../test/fixtures/inMemoryApiServer';
import { kubectlPath, runKubectl, startKubectl, type KubectlRun } from '../../../test/fixtures/kubectl';
import { until as pollUntil } from '../../../test/fixtures/until';
import { ApiError } from '../apiError';
import { createStreamHandlers, type StreamHandlers } from './streamHandlers';
import type { PodLogOptions, PodStreamOptions, PodStreams, PodStreamSession } from './podStreams';

const TOKEN = 'stream-test-token';
const TIMEOUT = 60_000;

let cluster: HttpsApiServer;
let handlers: StreamHandlers;
let podServer: http.Server;
let podServerPort: number;
const logCalls: PodLogOptions[] = [];
const followStreams: PassThrough[] = [];
const execCalls: Array<{ command: string[]; options: PodStreamOptions }> = [];

function processSession(child: ChildProcess, options: PodStreamOptions): PodStreamSession {
  if (!options.stdin) child.stdin?.end();
  return {
    stdin: options.stdin ? (child.stdin ?? undefined) : undefined,
    stdout: options.stdout ? (child.stdout ?? undefined) : undefined,
    stderr: options.stderr ? (child.stderr ?? undefined) : undefined,
    resize: () => undefined,
    exitCode: new Promise((resolve) => child.on('close', (code) => resolve(code ?? 137))),
    close: () => child.kill('SIGKILL'),
  };
}

const fakeStreams: PodStreams = {
  async logs(_pod, options) {
    logCalls.push(options);
    let lines = [`${options.container} line 1`, `${options.container} line 2`, `${options.container} line 3`];
    if (options.tailLines !== undefined) lines = lines.slice(Math.max(0, lines.length - options.tailLines));
    const text = lines.map((line) => line + '\n').join('');
    if (!options.follow) return Readable.from([Buffer.from(text)]);
    const stream = new PassThrough();
    stream.write(text);
    followStreams.push(stream);
    return stream;
  },
  async exec(_pod, command, options) {
    execCalls.push({ command, options });
    if (command[0] === 'no-such-command') {
      // How a runtime reports a failed start after the upgrade: the session fails.
      return { resize: () => undefined, close: () => undefined, exitCode: Promise.reject(new Error('error executing command in container: exec: "no-such-command": executable file not found in $PATH')) };
    }
    if (_pod.metadata.name === 'pending') throw new ApiError(404, 'NotFound', `container not found ("${options.container}")`);
    return processSession(spawn(command[0], command.slice(1), { stdio: 'pipe' }), options);
  },
  async attach(_pod, options) {
    return processSession(spawn('sh', ['-c', 'echo attached output; echo attached error >&2; exit 5'], { stdio: 'pipe' }), options);
  },
  async portForward(_pod, port) {
    if (port !== 8080) throw new Error(`dial tcp 127.0.0.1:${port}: connect: connection refused`);
    return new Promise((resolve, reject) => {
      const socket = net.connect(podServerPort, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });
  },
};

async function request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  const reply = await apiRequest(cluster.api, method, path, body, { 'content-type': contentType, accept: 'application/json' });
  return { status: reply.status, body: reply.body.toString() };
}

async function createRunningPod(name: string, containers: string[]): Promise<void> {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'node-1', containers: containers.map((container) => ({ name: container, image: 'busybox' })) } };
  const created = await request('POST', '/api/v1/namespaces/default/pods', pod);
  expect(created.status, created.body).toBe(201);
  const patched = await request('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, { status: { phase: 'Running' } }, 'application/merge-patch+json');
  expect(patched.status, patched.body).toBe(200);
}

function kubectl(args: string[], options: { input?: string; env?: Record<string, string> } = {}): KubectlRun {
  return startKubectl(args, { kubeconfig: cluster.kubeconfig, home: cluster.directory, ...options });
}

function run(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return runKubectl(args, { kubeconfig: cluster.kubeconfig, home: cluster.directory, ...options });
}

function until(check: () => boolean, what: string): Promise<void> {
  return pollUntil(check, what, 20_000);
}

function httpGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

async function apiGet(path: string): Promise<{ status: number; contentType: string; body: string }> {
  const reply = await httpsRequest(cluster, 'GET', path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return { status: reply.status, contentType: String(reply.headers['content-type']), body: reply.body };
}

beforeAll(async () => {
  cluster = await startHttpsApiServer({ token: TOKEN, namespaces: ['default'] });
  await createRunningPod('web', ['c1']);
  await createRunningPod('multi', ['a', 'b']);
  await createRunningPod('pending', ['c1']);
  const pods = cluster.registry.lookup('', 'v1', 'pods');
  if (!pods) throw new Error('no pods resource');
  handlers = createStreamHandlers({ getPod: (namespace, name): KubeObject => cluster.api.objects.get(pods, namespace, name), streams: fakeStreams });
  cluster.api.provideSubresource('podLog', handlers.logs);
  cluster.server.addUpgradeHandler(handlers.upgrade);
  podServer = http.createServer((_request, response) => response.end('hello from the pod\n'));
  await new Promise<void>((resolve) => podServer.listen(0, '127.0.0.1', resolve));
  podServerPort = (podServer.address() as net.AddressInfo).port;
}, TIMEOUT);

afterAll(async () => {
  handlers?.dispose();
  await new Promise<void>((resolve) => (podServer ? podServer.close(() => resolve()) : resolve()));
  await cluster?.close();
});

describe.skipIf(!existsSync(kubectlPath))('streams with the real kubectl', () => {
  it('exec prints the output and propagates the exit code', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', 'web', '--', 'sh', '-c', 'echo hi; echo oops >&2; exit 3']);
    expect(result.stdout).toBe('hi\n');
    expect(result.stderr).toContain('oops\n');
    expect(result.stderr).toContain('command terminated with exit code 3');
    expect(result.code).toBe(3);
    expect(execCalls.at(-1)).toEqual({ command: ['sh', '-c', 'echo hi; echo oops >&2; exit 3'], options: { container: 'c1', stdin: false, stdout: true, stderr: true, tty: false } });
  });

  it('exec -i passes stdin through and ends it on EOF', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', '-i', 'web', '--', 'cat'], { input: 'abc\nq\n' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('abc\nq\n');
    expect(result.code).toBe(0);
  });

  it('exec over SPDY (KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false) propagates output, stdin and the exit code', { timeout: TIMEOUT }, async () => {
    const env = { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' };
    const result = await run(['exec', 'web', '--', 'sh', '-c', 'echo hi; echo oops >&2; exit 3'], { env });
    expect(result.stdout).toBe('hi\n');
    expect(result.stderr).toContain('oops\n');
    expect(result.stderr).toContain('command terminated with exit code 3');
    expect(result.code).toBe(3);
    const piped = await run(['exec', '-i', 'web', '--', 'cat'], { input: 'over spdy\n', env });
    expect(piped).toMatchObject({ code: 0, stdout: 'over spdy\n' });
  });

  it('exec moves a large output intact', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', 'web', '--', 'sh', '-c', 'head -c 3000000 /dev/zero | tr "\\0" x']);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBe(3_000_000);
  });

  it('exec reports a failure to start as the error from the server', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', 'web', '--', 'no-such-command']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toBe('error: Internal error occurred: error executing command in container: exec: "no-such-command": executable file not found in $PATH\n');
  });

  it('exec into a container that is not running prints the node\'s refusal as upstream does', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', 'pending', '--', 'true']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: unable to upgrade connection: container not found ("c1")\n');
  });

  it('exec into a container the pod does not have fails with the upstream message', { timeout: TIMEOUT }, async () => {
    const result = await run(['exec', 'web', '-c', 'nope', '--', 'true']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('container nope is not valid for pod web');
  });

  it('attach streams the output and ends with success', { timeout: TIMEOUT }, async () => {
    const result = await run(['attach', 'web']);
    expect(result.stdout).toBe('attached output\n');
    expect(result.stderr).toContain('attached error');
    expect(result.code).toBe(0);
  });

  it('logs prints the log, honours --tail and -c', { timeout: TIMEOUT }, async () => {
    const all = await run(['logs', 'web']);
    expect(all).toMatchObject({ code: 0, stdout: 'c1 line 1\nc1 line 2\nc1 line 3\n' });
    const tail = await run(['logs', 'web', '--tail=2', '--timestamps']);
    expect(tail.stdout).toBe('c1 line 2\nc1 line 3\n');
    expect(logCalls.at(-1)).toMatchObject({ container: 'c1', tailLines: 2, timestamps: true, follow: false, previous: false });
    const second = await run(['logs', 'multi', '-c', 'b', '--since=1h', '--limit-bytes=100']);
    expect(second.stdout).toBe('b line 1\nb line 2\nb line 3\n');
    expect(logCalls.at(-1)).toMatchObject({ container: 'b', sinceSeconds: 3600, limitBytes: 100 });
  });

  it('logs -f streams new lines as they come and ends with the stream', { timeout: TIMEOUT }, async () => {
    const before = followStreams.length;
    const follow = kubectl(['logs', '-f', 'web']);
    await until(() => follow.stdout().includes('c1 line 3\n'), 'the first lines');
    await until(() => followStreams.length > before, 'the follow stream');
    const stream = followStreams[followStreams.length - 1];
    stream.write('a later line\n');
    await until(() => follow.stdout().includes('a later line\n'), 'the later line');
    stream.end();
    expect(await follow.done).toBe(0);
  });

  it('logs -f stops the log stream when kubectl goes away', { timeout: TIMEOUT }, async () => {
    const before = followStreams.length;
    const follow = kubectl(['logs', '-f', 'web']);
    await until(() => follow.stdout().includes('c1 line 3\n') && followStreams.length > before, 'the follow stream');
    const stream = followStreams[followStreams.length - 1];
    follow.child.kill('SIGKILL');
    await until(() => stream.destroyed, 'the stream to be destroyed');
  });

  for (const websockets of ['true', 'false']) {
    it(`port-forward forwards connections (KUBECTL_PORT_FORWARD_WEBSOCKETS=${websockets})`, { timeout: TIMEOUT }, async () => {
      const forward = kubectl(['port-forward', 'pod/web', '0:8080'], { env: { KUBECTL_PORT_FORWARD_WEBSOCKETS: websockets } });
      try {
        await until(() => /Forwarding from 127\.0\.0\.1:(\d+) -> 8080/.test(forward.stdout()), `the forwarding line (${forward.stderr()})`);
        const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(forward.stdout())?.[1]);
        expect(await httpGet(port)).toBe('hello from the pod\n');
        expect(await httpGet(port)).toBe('hello from the pod\n');
        expect(forward.stderr()).not.toContain('error');
      } finally {
        forward.child.kill('SIGINT');
        await forward.done;
      }
    });
  }

  it('port-forward to a closed port reports the kubelet-style error', { timeout: TIMEOUT }, async () => {
    const forward = kubectl(['port-forward', 'pod/web', '0:81']);
    try {
      await until(() => /Forwarding from 127\.0\.0\.1:(\d+) -> 81/.test(forward.stdout()), 'the forwarding line');
      const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(forward.stdout())?.[1]);
      await httpGet(port).catch(() => '');
      await until(() => forward.stderr().includes('error forwarding port 81 to pod web_default'), `the error (${forward.stderr()})`);
    } finally {
      forward.child.kill('SIGINT');
      await forward.done;
    }
  });
});

describe('stream handlers over HTTPS', () => {
  it('answers a log request without a container on a pod with several with the upstream 400', async () => {
    const reply = await apiGet('/api/v1/namespaces/default/pods/multi/log');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'a container name must be specified for pod multi, choose one of: [a b]' });
  });

  it('validates log options as ValidatePodLogOptions does', async () => {
    const reply = await apiGet('/api/v1/namespaces/default/pods/web/log?tailLines=-1&sinceSeconds=0');
    expect(reply.status).toBe(422);
    expect(JSON.parse(reply.body).message).toBe('PodLogOptions "web" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, sinceSeconds: Invalid value: 0: must be greater than 0]');
    const both = await apiGet('/api/v1/namespaces/default/pods/web/log?sinceSeconds=10&sinceTime=2024-01-01T00:00:00Z');
    expect(JSON.parse(both.body).message).toContain('at most one of `sinceTime` or `sinceSeconds` may be specified');
    const bad = await apiGet('/api/v1/namespaces/default/pods/web/log?tailLines=x');
    expect(bad.status).toBe(400);
  });

  it('serves logs as text/plain', async () => {
    const reply = await apiGet('/api/v1/namespaces/default/pods/web/log?container=c1');
    expect(reply).toMatchObject({ status: 200, contentType: 'text/plain', body: 'c1 line 1\nc1 line 2\nc1 line 3\n' });
  });

  function openWebSocket(path: string, protocols: string[]): Promise<{ socket?: WebSocket; status?: number; body?: string; protocol?: string }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`wss://127.0.0.1:${cluster.port}${path}`, protocols, { ca: cluster.pki.caCertPem, headers: { authorization: `Bearer ${TOKEN}` } });
      socket.on('open', () => resolve({ socket, protocol: socket.protocol }));
      socket.on('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode, body }));
      });
      socket.on('error', reject);
    });
  }

  it('refuses an exec upgrade for a missing pod with 404 and a Status body', async () => {
    const result = await openWebSocket('/api/v1/namespaces/default/pods/nope/exec?command=true&stdout=true', ['v5.channel.k8s.io']);
    expect(result.status).toBe(404);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'pods "nope" not found' });
  });

  it('refuses an exec without any stream', async () => {
    const result = await openWebSocket('/api/v1/namespaces/default/pods/web/exec?command=true', ['v5.channel.k8s.io']);
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body ?? '').message).toBe('you must specify at least 1 of stdin, stdout, stderr');
  });

  it('runs exec over v4.channel.k8s.io with a JSON status, as client-node sees it', async () => {
    const { socket, protocol } = await openWebSocket('/api/v1/namespaces/default/pods/web/exec?command=sh&command=-c&command=echo%20out%3B%20exit%202&stdout=true&stderr=true&stdin=false', ['v5.channel.k8s.io', 'v4.channel.k8s.io'].reverse());
    if (!socket) throw new Error('no socket');
    expect(protocol).toBe('v5.channel.k8s.io');
    const messages: Buffer[] = [];
    socket.on('message', (data: Buffer) => messages.push(data));
    const code = await new Promise<number>((resolve) => socket.on('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(1000);
    const stdout = messages.filter((message) => message[0] === 1).map((message) => message.subarray(1).toString());
    expect(stdout.join('')).toBe('out\n');
    const status = messages.find((message) => message[0] === 3);
    expect(JSON.parse(status?.subarray(1).toString() ?? '')).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } });
  });

  it('forwards a port over v4.channel.k8s.io with the 2-byte port prefix per channel', async () => {
    const { socket, protocol } = await openWebSocket('/api/v1/namespaces/default/pods/web/portforward?ports=8080', ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io']);
    if (!socket) throw new Error('no socket');
    expect(protocol).toBe('v4.channel.k8s.io');
    const messages: Buffer[] = [];
    socket.on('message', (data: Buffer) => {
      messages.push(data);
      if (messages.length === 2) socket.send(Buffer.concat([Buffer.from([0]), Buffer.from('GET / HTTP/1.0\r\n\r\n')]));
    });
    const code = await new Promise<number>((resolve) => socket.on('close', (closeCode) => resolve(closeCode)));
    expect(code).toBe(1000);
    expect([...messages[0]]).toEqual([0, 0x90, 0x1f]);
    expect([...messages[1]]).toEqual([1, 0x90, 0x1f]);
    const data = Buffer.concat(messages.slice(2).filter((message) => message[0] === 0).map((message) => message.subarray(1))).toString();
    expect(data).toMatch(/^HTTP\/1\.[01] 200 OK/);
    expect(data).toContain('hello from the pod');
  });
});
