// Port-forward servers, as the kubelet's pkg/kubelet/cri/streaming/portforward does it:
// - SPDY (httpstream.go): the client opens an error stream and a data stream per connection, both
//   with headers `streamtype`, `port` and `requestid`; the pair is forwarded once both arrived. When
//   the pod side closes, both streams get FIN (kubectl waits for the error stream to finish); a
//   failure is written as text on the error stream first.
// - WebSocket channels (websocket.go, v4.channel.k8s.io; client-node): `?ports=a,b` → channels 2i
//   (data) and 2i+1 (error) for port i, and the server's first message on each channel is the port
//   as 2 bytes little-endian.
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';
import { SpdySession, RstStatus, type SpdyStream } from './spdy';
import { type ChannelProtocol, decodeChannelMessage, encodeChannelMessage, rawDataToBuffer } from './channelProtocol';

/** Opens a connection to `port` inside the pod (PodStreams.portForward bound to a pod). */
export type PortConnector = (port: number) => Promise<Duplex>;

export interface PortForwardTarget {
  connect: PortConnector;
  /** `web_default` — how the kubelet names the pod in error texts */
  podDescription: string;
  podUid: string;
}

/** The kubelet gives up on a half-created stream pair after streamCreationTimeout (30 s). */
const STREAM_PAIR_TIMEOUT_MS = 30_000;

export function forwardingError(target: PortForwardTarget, port: number, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `error forwarding port ${port} to pod ${target.podDescription}, uid ${target.podUid}: ${message}`;
}

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
  port?: number;
  timer: NodeJS.Timeout;
}

/** A SPDY port-forward session; hook `write`/`end` to the transport and feed it with `receive`. */
export function createSpdyPortForwardSession(transport: { write(data: Buffer, done: (error?: Error | null) => void): void; end(): void }, target: PortForwardTarget): SpdySession {
  const pairs = new Map<string, StreamPair>();
  const session: SpdySession = new SpdySession({
    write: transport.write,
    end: () => {
      for (const pair of pairs.values()) clearTimeout(pair.timer);
      pairs.clear();
      transport.end();
    },
    onStream(stream) {
      stream.on('error', () => undefined);
      const headers = stream.headers;
      const port = Number(headers['port']);
      if (!/^\d+$/.test(headers['port'] ?? '') || port <= 0 || port > 65535) {
        stream.resetStream(RstStatus.refusedStream);
        return;
      }
      const type = headers['streamtype'];
      if (type !== 'data' && type !== 'error') {
        stream.resetStream(RstStatus.refusedStream);
        return;
      }
      stream.reply();
      // Clients older than requestid paired streams by id; the kubelet falls back to the stream id too.
      const requestId = headers['requestid'] ?? String(type === 'error' ? stream.id + 2 : stream.id);
      let pair = pairs.get(requestId);
      if (!pair) {
        pair = {
          timer: setTimeout(() => {
            pairs.delete(requestId);
            pair?.data?.resetStream();
            pair?.error?.resetStream();
          }, STREAM_PAIR_TIMEOUT_MS),
        };
        pairs.set(requestId, pair);
      }
      if (pair[type]) {
        stream.resetStream(RstStatus.protocolError);
        return;
      }
      pair[type] = stream;
      pair.port = port;
      if (pair.data && pair.error) {
        clearTimeout(pair.timer);
        pairs.delete(requestId);
        void forwardPair(pair.data, pair.error, port, target);
      }
    },
  });
  return session;
}

function endStream(stream: SpdyStream): void {
  if (!stream.destroyed && !stream.writableEnded) stream.end();
}

async function forwardPair(data: SpdyStream, errorStream: SpdyStream, port: number, target: PortForwardTarget): Promise<void> {
  // The client finishes its half of the error stream at once; reading it lets that complete.
  errorStream.resume();
  let connection: Duplex;
  try {
    connection = await target.connect(port);
  } catch (error) {
    if (!errorStream.destroyed) errorStream.end(forwardingError(target, port, error));
    endStream(data);
    return;
  }
  if (data.destroyed) {
    connection.destroy();
    return;
  }
  let failed = false;
  connection.on('error', (error: Error) => {
    if (failed) return;
    failed = true;
    if (!errorStream.destroyed && !errorStream.writableEnded) errorStream.end(forwardingError(target, port, error));
    endStream(data);
  });
  connection.on('close', () => {
    endStream(data);
    endStream(errorStream);
  });
  connection.on('end', () => {
    endStream(data);
    endStream(errorStream);
  });
  // The local socket closing arrives as RST_STREAM on the data stream.
  data.on('close', () => {
    if (!connection.destroyed) connection.destroy();
    endStream(errorStream);
  });
  data.pipe(connection);
  connection.pipe(data, { end: false });
}

/** client-node's port-forward: WebSocket channel protocol, two channels per port. */
export function serveWebSocketPortForward(socket: WebSocket, protocol: ChannelProtocol, ports: readonly number[], target: PortForwardTarget): void {
  let open = ports.length;
  const connections: Array<Duplex | undefined> = [];
  const send = (channel: number, data: Buffer) => {
    if (socket.readyState === socket.OPEN) socket.send(encodeChannelMessage(protocol, channel, data), { binary: !protocol.base64 });
  };
  const portDone = () => {
    open -= 1;
    if (open === 0 && socket.readyState === socket.OPEN) socket.close(1000);
  };
  const pending = ports.map(async (port, index) => {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    send(2 * index, prefix);
    send(2 * index + 1, prefix);
    try {
      const connection = await target.connect(port);
      if (socket.readyState !== socket.OPEN) {
        connection.destroy();
        return undefined;
      }
      connections[index] = connection;
      connection.on('data', (chunk: Buffer) => send(2 * index, chunk));
      connection.on('error', (error: Error) => send(2 * index + 1, Buffer.from(forwardingError(target, port, error))));
      connection.on('close', portDone);
      return connection;
    } catch (error) {
      send(2 * index + 1, Buffer.from(forwardingError(target, port, error)));
      portDone();
      return undefined;
    }
  });
  socket.on('message', (raw: RawData, isBinary: boolean) => {
    const buffer = rawDataToBuffer(raw);
    const message = decodeChannelMessage(protocol, isBinary ? buffer : buffer.toString('latin1'));
    if (!message || message.channel % 2 !== 0) return;
    const index = message.channel / 2;
    const connection = pending[index];
    if (!connection || message.data.length === 0) return;
    // Chaining on the connect promise keeps the order of writes made before the pod port answered.
    void connection.then((established) => {
      if (established && !established.destroyed) established.write(message.data);
    });
  });
  socket.on('close', () => {
    for (const connection of connections) connection?.destroy();
    void Promise.all(pending).then((established) => {
      for (const connection of established) connection?.destroy();
    });
  });
  socket.on('error', () => undefined);
}
