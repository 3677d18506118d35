// The WebSocket channel protocol of exec/attach (and client-node's port-forward): every message
// starts with a channel byte — 0 stdin, 1 stdout, 2 stderr, 3 error/status, 4 resize, and in
// v5.channel.k8s.io 255 "close stream N". Follows apimachinery util/httpstream/wsstream (conn.go:
// binary and base64 variants) and the kubelet's remotecommand server: v4+ ends with a JSON
// metav1.Status on channel 3 (Success, or NonZeroExitCode with an ExitCode cause), older versions
// write a plain error text there; then the socket is closed with 1000.
import type { WebSocket, RawData } from 'ws';
import { CHANNEL_PROTOCOL_V4, CHANNEL_PROTOCOL_V5, StreamChannel } from '../../../shared/kubernetes/streamChannels';
import type { Status } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import type { PodStreamSession } from './podStreams';

export interface ChannelProtocol {
  /** the negotiated Sec-WebSocket-Protocol ('' when the client offered none) */
  name: string;
  /** 1 for channel.k8s.io, else N of vN.channel.k8s.io */
  version: number;
  /** base64 variants send text frames: an ASCII digit channel then base64 data */
  base64: boolean;
}

const EXEC_PROTOCOLS = [CHANNEL_PROTOCOL_V5, CHANNEL_PROTOCOL_V4, 'v4.base64.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io'];
/** The kubelet's port-forward WebSocket server speaks v4 framing (port prefix on each channel), not v5. */
const PORT_FORWARD_PROTOCOLS = [CHANNEL_PROTOCOL_V4, 'v4.base64.channel.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io'];

export function parseChannelProtocol(name: string): ChannelProtocol | undefined {
  if (name === '') return { name, version: 1, base64: false };
  const match = /^(?:v(\d+)\.)?(base64\.)?channel\.k8s\.io$/.exec(name);
  if (!match) return undefined;
  return { name, version: match[1] ? Number(match[1]) : 1, base64: match[2] !== undefined };
}

/** The protocol to answer for an exec/attach upgrade offering `offered`, best first; undefined if none fits. */
export function negotiateExecProtocol(offered: readonly string[]): ChannelProtocol | undefined {
  return negotiate(offered, EXEC_PROTOCOLS);
}

export function negotiatePortForwardProtocol(offered: readonly string[]): ChannelProtocol | undefined {
  return negotiate(offered, PORT_FORWARD_PROTOCOLS);
}

function negotiate(offered: readonly string[], supported: readonly string[]): ChannelProtocol | undefined {
  if (offered.length === 0) return parseChannelProtocol('');
  for (const name of supported) if (offered.includes(name)) return parseChannelProtocol(name);
  return undefined;
}

export function supportedExecProtocols(): readonly string[] {
  return EXEC_PROTOCOLS;
}

export function supportedPortForwardProtocols(): readonly string[] {
  return PORT_FORWARD_PROTOCOLS;
}

export function encodeChannelMessage(protocol: ChannelProtocol, channel: number, data: Buffer): Buffer | string {
  if (protocol.base64) return String.fromCharCode(48 + channel) + data.toString('base64');
  const message = Buffer.allocUnsafe(data.length + 1);
  message[0] = channel;
  data.copy(message, 1);
  return message;
}

export function decodeChannelMessage(protocol: ChannelProtocol, message: Buffer | string): { channel: number; data: Buffer } | undefined {
  if (typeof message === 'string' || protocol.base64) {
    const text = typeof message === 'string' ? message : message.toString('latin1');
    if (text.length === 0) return undefined;
    const channel = text.charCodeAt(0) - 48;
    return { channel, data: protocol.base64 ? Buffer.from(text.slice(1), 'base64') : Buffer.from(text.slice(1), 'latin1') };
  }
  if (message.length === 0) return undefined;
  return { channel: message[0], data: message.subarray(1) };
}

export function rawDataToBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** `{"Width":100,"Height":40}` lines (client-go's TerminalSize JSON, one per resize). */
export function parseResizeMessages(data: Buffer): Array<{ width: number; height: number }> {
  const sizes: Array<{ width: number; height: number }> = [];
  for (const line of data.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value !== 'object' || value === null) continue;
      const width = (value as Record<string, unknown>)['Width'];
      const height = (value as Record<string, unknown>)['Height'];
      if (typeof width === 'number' && typeof height === 'number') sizes.push({ width, height });
    } catch {
      // a malformed resize is ignored, as the kubelet's decoder loop logs and continues
    }
  }
  return sizes;
}

/** A metav1.Status as the kubelet marshals it on channel 3: TypeMeta and code are usually absent. */
export type ChannelStatus = Omit<Status, 'kind' | 'apiVersion' | 'code'> & Partial<Pick<Status, 'kind' | 'apiVersion' | 'code'>>;

/** The Status the kubelet writes when the command ended. */
export function exitStatus(exitCode: number, command?: readonly string[]): ChannelStatus {
  if (exitCode === 0) return { metadata: {}, status: 'Success' };
  const what = command && command.length > 0 ? `command '${command.join(' ')}' exited with ${exitCode}: ` : `exit code ${exitCode}`;
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: ${what}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** The Status for a failure of the stream itself (InternalError unless it is an ApiError already). */
export function errorStatus(error: unknown): ChannelStatus {
  if (error instanceof ApiError) return error.toStatus();
  const message = error instanceof Error ? error.message : String(error);
  return ApiError.internal(message).toStatus();
}

export interface RemoteCommandOptions {
  protocol: ChannelProtocol;
  /** exec reports the exit code; attach always ends in Success, as the kubelet's ServeAttach does */
  kind: 'exec' | 'attach';
  command?: readonly string[];
  /** Stdout bytes in flight before the process output is paused. */
  highWaterMark?: number;
  /** How long output may still drain after the command exited (a background child can hold the pipe open). */
  drainGraceMs?: number;
}

/**
 * Bridges an open WebSocket and a running exec/attach session until the command ends (then the
 * final status and close 1000) or the client goes away (then the session is closed).
 */
export function serveRemoteCommand(socket: WebSocket, session: PodStreamSession, options: RemoteCommandOptions): void {
  const { protocol } = options;
  const highWaterMark = options.highWaterMark ?? 1024 * 1024;
  let finished = false;
  let inFlight = 0;
  const paused = new Set<NodeJS.ReadableStream>();

  const send = (channel: number, data: Buffer, done?: () => void) => {
    if (socket.readyState !== socket.OPEN) return;
    inFlight += data.length;
    socket.send(encodeChannelMessage(protocol, channel, data), { binary: !protocol.base64 }, () => {
      inFlight -= data.length;
      // Resume only once below the low-water mark; a stream paused now must stay in the set, or
      // nothing would ever resume it and the command would block on a full pipe.
      if (inFlight < highWaterMark / 2) {
        for (const stream of paused) stream.resume();
        paused.clear();
      }
      done?.();
    });
  };

  const outputs: Array<Promise<void>> = [];
  const pump = (stream: NodeJS.ReadableStream | undefined, channel: number) => {
    if (!stream) return;
    outputs.push(
      new Promise<void>((resolve) => {
        stream.on('data', (chunk: Buffer | string) => {
          send(channel, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
          if (inFlight > highWaterMark) {
            stream.pause();
            paused.add(stream);
          }
        });
        stream.on('end', () => resolve());
        stream.on('close', () => resolve());
        stream.on('error', () => resolve());
      }),
    );
  };
  pump(session.stdout, StreamChannel.stdout);
  pump(session.stderr, StreamChannel.stderr);

  const stdin = session.stdin;
  stdin?.on('error', () => undefined);
  const endStdin = () => {
    if (stdin && !stdin.writableEnded && !stdin.destroyed) stdin.end();
  };

  socket.on('message', (raw: RawData, isBinary: boolean) => {
    const buffer = rawDataToBuffer(raw);
    const message = decodeChannelMessage(protocol, isBinary ? buffer : buffer.toString('latin1'));
    if (!message) return;
    switch (message.channel) {
      case StreamChannel.stdin:
        if (stdin && !stdin.writableEnded && !stdin.destroyed && message.data.length > 0) {
          if (!stdin.write(message.data)) {
            socket.pause();
            stdin.once('drain', () => socket.resume());
          }
        }
        return;
      case StreamChannel.resize:
        if (protocol.version >= 3) for (const size of parseResizeMessages(message.data)) session.resize(size.width, size.height);
        return;
      case StreamChannel.close:
        if (protocol.version >= 5 && message.data[0] === StreamChannel.stdin) endStdin();
        return;
      default:
        return;
    }
  });

  const writeStatus = (status: ChannelStatus) => {
    if (protocol.version >= 4) {
      send(StreamChannel.error, Buffer.from(JSON.stringify(status)));
    } else if (status.status !== 'Success' && status.message) {
      send(StreamChannel.error, Buffer.from(status.message));
    }
  };

  const finish = (status: ChannelStatus) => {
    if (finished) return;
    finished = true;
    writeStatus(status);
    if (socket.readyState === socket.OPEN) socket.close(1000);
  };

  socket.on('close', () => {
    if (!finished) {
      finished = true;
      endStdin();
      session.close();
    }
  });
  socket.on('error', () => undefined);

  finishWhenDrained(session, outputs, options, finish, options.drainGraceMs);
}

/**
 * Once the session ends, waits for its output to be on the wire (or for `drainGraceMs`: a background
 * child can hold a pipe open), or kubectl may miss the tail, then finishes with its Status: an
 * attach always with Success, an exec with its exit code, a failed session with its error.
 */
export function finishWhenDrained(
  session: PodStreamSession,
  outputs: readonly Promise<void>[],
  options: { kind: 'exec' | 'attach'; command?: readonly string[] },
  finish: (status: ChannelStatus) => void,
  drainGraceMs = 2000,
): void {
  const drained = () => {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainGraceMs);
    });
    return Promise.race([Promise.all(outputs), grace]).finally(() => clearTimeout(timer));
  };
  session.exitCode.then(
    async (code) => {
      await drained();
      finish(options.kind === 'attach' ? exitStatus(0) : exitStatus(code, options.command));
    },
    async (error: unknown) => {
      await drained();
      finish(errorStatus(error));
    },
  );
}
