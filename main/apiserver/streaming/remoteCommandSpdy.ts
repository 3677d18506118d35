// exec/attach over SPDY (remotecommand protocols v4…v2), the path kubectl falls back to when its
// WebSocket upgrade is refused. Follows the kubelet's pkg/kubelet/cri/streaming/remotecommand
// httpstream.go: the client opens one stream per `streamtype` header (error, stdin, stdout, stderr,
// resize); the server writes the outcome on the error stream — a JSON metav1.Status in v4, plain
// text before — then finishes every stream and the connection.
import type { Readable } from 'node:stream';
import { SpdySession, type SpdyStream } from './spdy';
import { finishWhenDrained, parseResizeMessages, type ChannelStatus } from './channelProtocol';
import type { PodStreamSession } from './podStreams';

/** What the kubelet accepts over SPDY, best first (v5 exists only for WebSockets). */
export const SPDY_REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io'];

export function negotiateSpdyRemoteCommandProtocol(offered: readonly string[]): string | undefined {
  return SPDY_REMOTE_COMMAND_PROTOCOLS.find((protocol) => offered.includes(protocol));
}

export interface SpdyRemoteCommandOptions {
  protocol: string;
  kind: 'exec' | 'attach';
  command?: readonly string[];
}

export function createSpdyRemoteCommandSession(
  transport: { write(data: Buffer, done: (error?: Error | null) => void): void; end(): void },
  session: PodStreamSession,
  options: SpdyRemoteCommandOptions,
): SpdySession {
  const version = Number(/^v(\d+)\./.exec(options.protocol)?.[1] ?? '1');
  const opened: SpdyStream[] = [];
  let errorStream: SpdyStream | undefined;
  let finished = false;
  // The command may already be running (it starts before the 101): its output waits in the
  // readables until the client's streams arrive, and the outcome waits for that output.
  const waitFor = (source: Readable | undefined) =>
    source
      ? new Promise<void>((resolve) => {
          // 'end' only: it comes once the client has been given everything ('close' may come earlier).
          source.on('end', resolve);
          source.on('error', () => resolve());
        })
      : Promise.resolve();
  let errorStreamArrived: () => void = () => undefined;
  const outputs: Array<Promise<void>> = [waitFor(session.stdout), waitFor(session.stderr), new Promise<void>((resolve) => (errorStreamArrived = resolve))];

  const pipeOutput = (source: Readable | undefined, stream: SpdyStream) => {
    if (!source) {
      stream.end();
      return;
    }
    source.pipe(stream, { end: false });
  };

  const spdy: SpdySession = new SpdySession({
    write: transport.write,
    end: () => {
      if (!finished) {
        finished = true;
        session.close();
      }
      transport.end();
    },
    onStream(stream) {
      stream.on('error', () => undefined);
      stream.reply();
      opened.push(stream);
      switch (stream.headers['streamtype']) {
        case 'error':
          errorStream = stream;
          stream.resume();
          errorStreamArrived();
          return;
        case 'stdout':
          pipeOutput(session.stdout, stream);
          return;
        case 'stderr':
          pipeOutput(session.stderr, stream);
          return;
        case 'stdin': {
          const stdin = session.stdin;
          if (!stdin) {
            stream.resume();
            return;
          }
          stdin.on('error', () => undefined);
          stream.pipe(stdin);
          return;
        }
        case 'resize': {
          let pending = '';
          stream.on('data', (chunk: Buffer) => {
            pending += chunk.toString('utf8');
            const complete = pending.lastIndexOf('\n');
            if (complete < 0) return;
            for (const size of parseResizeMessages(Buffer.from(pending.slice(0, complete + 1)))) session.resize(size.width, size.height);
            pending = pending.slice(complete + 1);
          });
          return;
        }
        default:
          stream.resume();
      }
    },
  });

  const finish = (status: ChannelStatus) => {
    if (finished) return;
    finished = true;
    if (errorStream && !errorStream.destroyed) {
      if (version >= 4) errorStream.write(JSON.stringify(status));
      else if (status.status !== 'Success' && status.message) errorStream.write(status.message);
    }
    for (const stream of opened) if (!stream.destroyed && !stream.writableEnded) stream.end();
    spdy.goAway();
    transport.end();
  };

  finishWhenDrained(session, outputs, options, finish);
  return spdy;
}
