import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Probe } from '../env/podSpec';
import { decodeHealthCheckResponse, encodeHealthCheckRequest, firstGrpcMessage } from './grpcHealth';
import { goDuration } from './dialErrors';
import { probeHeaders, probeUserAgent, resolveContainerPort, runProbe, type ProbeContext } from './prober';

type ExecReply = { exitCode: number; stdout: string; stderr: string; timedOut: boolean };

function context(overrides: Partial<ProbeContext> = {}, exec?: (id: string, command: string[], timeoutMs: number) => Promise<ExecReply>): ProbeContext {
  return {
    podIP: '127.0.0.1',
    containerId: 'abc',
    timeoutSeconds: 1,
    runtime: { execSync: exec ?? (async () => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false })) },
    ...overrides,
  };
}

/** A port nothing listens on: bound then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('exec probes', () => {
  it('succeeds on exit code 0 and passes the command and timeout', async () => {
    const calls: unknown[] = [];
    const outcome = await runProbe({ exec: { command: ['cat', '/tmp/healthy'] } }, context({ timeoutSeconds: 5 }, async (id, command, timeoutMs) => {
      calls.push({ id, command, timeoutMs });
      return { exitCode: 0, stdout: 'ok\n', stderr: '', timedOut: false };
    }));
    expect(outcome).toEqual({ result: 'success', output: 'ok\n' });
    expect(calls).toEqual([{ id: 'abc', command: ['cat', '/tmp/healthy'], timeoutMs: 5000 }]);
  });

  it('fails with the output on a non-zero exit code', async () => {
    const outcome = await runProbe({ exec: { command: ['cat', '/tmp/healthy'] } }, context({}, async () => ({ exitCode: 1, stdout: '', stderr: 'cat: can\'t open \'/tmp/healthy\': No such file or directory\n', timedOut: false })));
    expect(outcome).toEqual({ result: 'failure', output: "cat: can't open '/tmp/healthy': No such file or directory\n" });
  });

  it('fails with upstream text on a timeout', async () => {
    const outcome = await runProbe({ exec: { command: ['sleep', '10'] } }, context({}, async () => ({ exitCode: -1, stdout: '', stderr: '', timedOut: true })));
    expect(outcome).toEqual({ result: 'failure', output: 'command "sleep 10" timed out' });
  });

  it('is unknown when the runtime cannot exec', async () => {
    const outcome = await runProbe({ exec: { command: ['true'] } }, context({}, async () => {
      throw new Error('container not running');
    }));
    expect(outcome.result).toBe('unknown');
  });

  it('caps the output at 10 KiB', async () => {
    const outcome = await runProbe({ exec: { command: ['x'] } }, context({}, async () => ({ exitCode: 1, stdout: 'a'.repeat(20_000), stderr: '', timedOut: false })));
    expect(outcome.output).toHaveLength(10 * 1024);
  });
});

describe('httpGet probes', () => {
  let server: http.Server;
  let port: number;
  const seen: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      seen.push(request.headers);
      const url = new URL(request.url ?? '/', 'http://x');
      if (url.pathname === '/healthz') return void response.end('fine');
      if (url.pathname === '/fail') return void (response.writeHead(500), response.end('boom'));
      if (url.pathname === '/moved') return void (response.writeHead(302, { location: '/healthz' }), response.end());
      if (url.pathname === '/away') return void (response.writeHead(301, { location: 'http://elsewhere.invalid/' }), response.end('gone'));
      if (url.pathname === '/loop') return void (response.writeHead(302, { location: '/loop' }), response.end());
      if (url.pathname === '/slow') return; // never answers
      if (url.pathname === '/big') return void response.end('b'.repeat(100_000));
      response.writeHead(404);
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('succeeds on 200 with the body and sends kube-probe headers', async () => {
    seen.length = 0;
    const outcome = await runProbe({ httpGet: { path: '/healthz', port, httpHeaders: [{ name: 'X-Custom', value: 'yes' }] } }, context());
    expect(outcome).toEqual({ result: 'success', output: 'fine' });
    expect(seen[0]['user-agent']).toBe(probeUserAgent);
    expect(seen[0].accept).toBe('*/*');
    expect(seen[0]['x-custom']).toBe('yes');
  });

  it('resolves a named port from the container', async () => {
    const outcome = await runProbe({ httpGet: { path: '/healthz', port: 'web' } }, context({ container: { ports: [{ name: 'web', containerPort: port }] } }));
    expect(outcome.result).toBe('success');
  });

  it('fails with the status code', async () => {
    expect(await runProbe({ httpGet: { path: '/fail', port } }, context())).toEqual({ result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
  });

  it('follows a redirect to the same host', async () => {
    expect(await runProbe({ httpGet: { path: '/moved', port } }, context())).toEqual({ result: 'success', output: 'fine' });
  });

  it('does not follow a redirect to another host and warns', async () => {
    expect(await runProbe({ httpGet: { path: '/away', port } }, context())).toEqual({ result: 'success', output: 'Probe terminated redirects, Response body: gone', warning: true });
  });

  it('stops after 10 redirects', async () => {
    const outcome = await runProbe({ httpGet: { path: '/loop', port } }, context());
    expect(outcome).toEqual({ result: 'failure', output: `Get "http://127.0.0.1:${port}/loop": stopped after 10 redirects` });
  });

  it('reads at most 10 KiB of the body', async () => {
    const outcome = await runProbe({ httpGet: { path: '/big', port } }, context());
    expect(outcome.result).toBe('success');
    expect(outcome.output.length).toBe(10 * 1024);
  });

  it('fails on a timeout with Go client text', async () => {
    const outcome = await runProbe({ httpGet: { path: '/slow', port } }, context());
    expect(outcome).toEqual({ result: 'failure', output: `Get "http://127.0.0.1:${port}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
  });

  it('fails on a refused connection with Go dial text', async () => {
    const closed = await closedPort();
    const outcome = await runProbe({ httpGet: { path: '/', port: closed } }, context());
    expect(outcome).toEqual({ result: 'failure', output: `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
  });

  it('is unknown for a port name the container does not have', async () => {
    expect(await runProbe({ httpGet: { path: '/', port: 'nope' } }, context())).toEqual({ result: 'unknown', output: 'port nope not found' });
  });
});

describe('tcpSocket probes', () => {
  it('succeeds when the port accepts and fails with Go text when refused', async () => {
    const server = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(await runProbe({ tcpSocket: { port } }, context())).toEqual({ result: 'success', output: '' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const closed = await closedPort();
    expect(await runProbe({ tcpSocket: { port: closed } }, context())).toEqual({ result: 'failure', output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
  });
});

describe('grpc probes', () => {
  let server: http2.Http2Server;
  let port: number;
  const statuses: Record<string, number> = { '': 1, sick: 2 };
  const seenServices: string[] = [];
  const seenAgents: string[] = [];

  function grpcFrame(message: Buffer): Buffer {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(message.length, 1);
    return Buffer.concat([header, message]);
  }

  beforeAll(async () => {
    server = http2.createServer();
    server.on('stream', (stream, headers) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        seenAgents.push(String(headers['user-agent']));
        if (headers[':path'] !== '/grpc.health.v1.Health/Check') {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown%20service' }, { endStream: true });
          return;
        }
        // Decode the request by hand: field 1 (service), length-delimited.
        const message = firstGrpcMessage(Buffer.concat(chunks));
        const service = message.length > 0 ? message.subarray(2, 2 + message[1]).toString() : '';
        seenServices.push(service);
        if (service === 'unimplemented') {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12', 'grpc-message': 'unknown service grpc.health.v1.Health' }, { endStream: true });
          return;
        }
        if (!(service in statuses)) {
          stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'unknown service' }, { endStream: true });
          return;
        }
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(grpcFrame(Buffer.from([0x08, statuses[service]])));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each<[string, string, { result: string; output: string }]>([
    ['a serving server', '', { result: 'success', output: 'service healthy' }],
    ['a not serving service', 'sick', { result: 'failure', output: 'service unhealthy (responded with "NOT_SERVING")' }],
    ['an unknown service', 'other', { result: 'failure', output: 'error: health rpc probe failed: rpc error: code = NotFound desc = unknown service' }],
    ['a server without the health service', 'unimplemented', { result: 'failure', output: 'error: this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health' }],
  ])('checks %s', async (_name, service, expected) => {
    const probe: Probe = { grpc: { port, service } };
    expect(await runProbe(probe, context())).toEqual(expected);
    expect(seenServices.at(-1)).toBe(service);
    expect(seenAgents.at(-1)).toBe(probeUserAgent);
  });

  it('fails when nothing listens', async () => {
    const closed = await closedPort();
    expect(await runProbe({ grpc: { port: closed } }, context())).toEqual({ result: 'failure', output: `error: failed to connect service at "127.0.0.1:${closed}": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
  });
});

describe('probe helpers', () => {
  it('encodes and decodes health messages', () => {
    expect(encodeHealthCheckRequest('')).toEqual(Buffer.from([0, 0, 0, 0, 0]));
    expect(encodeHealthCheckRequest('db')).toEqual(Buffer.from([0, 0, 0, 0, 4, 0x0a, 2, 0x64, 0x62]));
    expect(decodeHealthCheckResponse(Buffer.from([0x08, 0x02]))).toBe(2);
    expect(decodeHealthCheckResponse(Buffer.from([0x12, 0x01, 0x41, 0x08, 0x01]))).toBe(1);
    expect(decodeHealthCheckResponse(Buffer.alloc(0))).toBe(0);
  });

  it('builds headers as upstream: defaults, overrides, an empty Accept removed', () => {
    expect(probeHeaders(undefined)).toEqual({ 'User-Agent': probeUserAgent, Accept: '*/*' });
    expect(probeHeaders([{ name: 'user-agent', value: 'mine' }, { name: 'Accept', value: '' }])).toEqual({ 'user-agent': 'mine' });
    expect(probeHeaders([{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }])).toMatchObject({ 'X-A': ['1', '2'] });
  });

  it.each<[number | string, number | string]>([
    [8080, 8080],
    ['http', 80],
    ['9090', 9090],
    [0, 'invalid port number: 0'],
    ['nope', 'port nope not found'],
  ])('resolves port %j', (port, expected) => {
    const container = { ports: [{ name: 'http', containerPort: 80 }] };
    if (typeof expected === 'number') expect(resolveContainerPort(port, container)).toBe(expected);
    else expect(() => resolveContainerPort(port, container)).toThrow(expected);
  });

  it('formats durations as Go', () => {
    expect([1, 30, 90, 3600].map(goDuration)).toEqual(['1s', '30s', '1m30s', '1h0m0s']);
  });
});
