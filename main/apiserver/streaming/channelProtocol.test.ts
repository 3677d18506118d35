import { afterEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { StreamChannel } from '../../../shared/kubernetes/streamChannels';
import { ApiError } from '../apiError';
import {
  decodeChannelMessage,
  encodeChannelMessage,
  errorStatus,
  exitStatus,
  negotiateExecProtocol,
  negotiatePortForwardProtocol,
  parseChannelProtocol,
  parseResizeMessages,
  serveRemoteCommand,
  type ChannelProtocol,
} from './channelProtocol';
import type { PodStreamSession } from './podStreams';

const v5 = parseChannelProtocol('v5.channel.k8s.io') as ChannelProtocol;

describe('channel protocol negotiation', () => {
  it.each([
    [['v5.channel.k8s.io'], 'v5.channel.k8s.io'],
    [['v4.channel.k8s.io', 'v5.channel.k8s.io'], 'v5.channel.k8s.io'],
    [['channel.k8s.io', 'v4.channel.k8s.io'], 'v4.channel.k8s.io'],
    [['base64.channel.k8s.io'], 'base64.channel.k8s.io'],
    [[], ''],
    [['SPDY/3.1+portforward.k8s.io'], undefined],
  ])('answers exec offers %j with %j', (offered, expected) => {
    expect(negotiateExecProtocol(offered)?.name).toBe(expected);
  });

  it('answers client-node port-forward offers with v4, whose channels carry the port prefix', () => {
    expect(negotiatePortForwardProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'])?.name).toBe('v4.channel.k8s.io');
  });

  it('reads version and encoding from the protocol name', () => {
    expect(parseChannelProtocol('v4.base64.channel.k8s.io')).toEqual({ name: 'v4.base64.channel.k8s.io', version: 4, base64: true });
    expect(parseChannelProtocol('channel.k8s.io')).toEqual({ name: 'channel.k8s.io', version: 1, base64: false });
    expect(parseChannelProtocol('v5.other')).toBeUndefined();
  });
});

describe('channel framing', () => {
  it('prefixes binary messages with the channel byte', () => {
    const message = encodeChannelMessage(v5, StreamChannel.stdout, Buffer.from('hi'));
    expect(message).toEqual(Buffer.from([1, 0x68, 0x69]));
    expect(decodeChannelMessage(v5, message as Buffer)).toEqual({ channel: 1, data: Buffer.from('hi') });
  });

  it('uses an ASCII digit and base64 in the base64 variants', () => {
    const base64 = parseChannelProtocol('base64.channel.k8s.io') as ChannelProtocol;
    const message = encodeChannelMessage(base64, StreamChannel.stderr, Buffer.from('oops'));
    expect(message).toBe('2' + Buffer.from('oops').toString('base64'));
    expect(decodeChannelMessage(base64, message)).toEqual({ channel: 2, data: Buffer.from('oops') });
  });

  it('ignores empty messages', () => {
    expect(decodeChannelMessage(v5, Buffer.alloc(0))).toBeUndefined();
  });

  it('parses resize messages, one JSON object per line', () => {
    expect(parseResizeMessages(Buffer.from('{"Width":100,"Height":40}\n{"Width":80,"Height":24}\nnot json\n'))).toEqual([
      { width: 100, height: 40 },
      { width: 80, height: 24 },
    ]);
  });
});

describe('statuses', () => {
  it('writes Success without TypeMeta, as the kubelet marshals it', () => {
    expect(JSON.stringify(exitStatus(0))).toBe('{"metadata":{},"status":"Success"}');
  });

  it('writes NonZeroExitCode with an ExitCode cause kubectl turns into its exit code', () => {
    expect(exitStatus(3, ['sh', '-c', 'exit 3'])).toEqual({
      metadata: {},
      status: 'Failure',
      message: "command terminated with non-zero exit code: command 'sh -c exit 3' exited with 3: ",
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
  });

  it('keeps an ApiError as it is and wraps anything else as InternalError', () => {
    expect(errorStatus(ApiError.badRequest('nope'))).toMatchObject({ code: 400, reason: 'BadRequest', message: 'nope' });
    expect(errorStatus(new Error('boom'))).toMatchObject({ code: 500, reason: 'InternalError', message: 'Internal error occurred: boom' });
  });
});

describe('serveRemoteCommand', () => {
  let server: WebSocketServer | undefined;
  afterEach(() => server?.close());

  async function connect(protocol: string, session: PodStreamSession, kind: 'exec' | 'attach' = 'exec'): Promise<{ client: WebSocket; messages: Buffer[]; closed: Promise<number> }> {
    const started = new WebSocketServer({ port: 0, host: '127.0.0.1', handleProtocols: () => protocol });
    server = started;
    const parsed = parseChannelProtocol(protocol) as ChannelProtocol;
    started.on('connection', (socket) => serveRemoteCommand(socket, session, { protocol: parsed, kind, command: ['cmd'] }));
    await new Promise((resolve) => started.once('listening', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(started.address() as AddressInfo).port}`, [protocol]);
    const messages: Buffer[] = [];
    client.on('message', (data: Buffer) => messages.push(data));
    const closed = new Promise<number>((resolve) => client.on('close', (code) => resolve(code)));
    await new Promise((resolve) => client.once('open', resolve));
    return { client, messages, closed };
  }

  function fakeSession(): { session: PodStreamSession; stdin: PassThrough; stdout: PassThrough; resizes: string[]; exit: (code: number) => void; closed: () => boolean } {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const resizes: string[] = [];
    let exit: (code: number) => void = () => undefined;
    let closed = false;
    const session: PodStreamSession = {
      stdin,
      stdout,
      resize: (width, height) => resizes.push(`${width}x${height}`),
      exitCode: new Promise((resolve) => (exit = resolve)),
      close: () => (closed = true),
    };
    return { session, stdin, stdout, resizes, exit: (code) => exit(code), closed: () => closed };
  }

  it('passes stdin and resizes, ends stdin on the v5 close message, then sends output, status and close 1000', async () => {
    const fake = fakeSession();
    const { client, messages, closed } = await connect('v5.channel.k8s.io', fake.session);
    let input = '';
    fake.stdin.on('data', (chunk: Buffer) => (input += chunk.toString()));
    const stdinEnded = new Promise((resolve) => fake.stdin.on('end', resolve));
    client.send(Buffer.from('\x04{"Width":120,"Height":30}\n', 'latin1'));
    client.send(Buffer.from('\x00typed'));
    client.send(Buffer.from([255, 0]));
    await stdinEnded;
    expect(input).toBe('typed');
    expect(fake.resizes).toEqual(['120x30']);
    fake.stdout.end('the output');
    fake.exit(0);
    expect(await closed).toBe(1000);
    expect(messages.map((message) => [message[0], message.subarray(1).toString()])).toEqual([
      [1, 'the output'],
      [3, '{"metadata":{},"status":"Success"}'],
    ]);
  });

  it('writes a plain error text on channel 3 for v1 clients, and nothing on success', async () => {
    const fake = fakeSession();
    const { messages, closed } = await connect('channel.k8s.io', fake.session);
    fake.stdout.end();
    fake.exit(2);
    expect(await closed).toBe(1000);
    expect(messages.map((message) => [message[0], message.subarray(1).toString()])).toEqual([[3, "command terminated with non-zero exit code: command 'cmd' exited with 2: "]]);
  });

  it('reports Success for attach whatever the exit code, as ServeAttach does', async () => {
    const fake = fakeSession();
    const { messages, closed } = await connect('v5.channel.k8s.io', fake.session, 'attach');
    fake.stdout.end();
    fake.exit(1);
    await closed;
    expect(messages.map((message) => message.subarray(1).toString())).toEqual(['{"metadata":{},"status":"Success"}']);
  });

  it('closes the session when the client goes away', async () => {
    const fake = fakeSession();
    const { client } = await connect('v5.channel.k8s.io', fake.session);
    client.terminate();
    const deadline = Date.now() + 5000;
    while (!fake.closed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fake.closed()).toBe(true);
  });
});
