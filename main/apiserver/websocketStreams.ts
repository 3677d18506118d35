// API replies over a WebSocket, as upstream's apiserver serves them when a GET arrives as a
// WebSocket upgrade: a watch sends each event as one text frame of JSON {"type","object"}
// (endpoints/handlers/watch.go HandleWS, text framing for JSON), and a streamed body such as
// pods/log goes through wsstream's Reader (util/wsstream/stream.go): subprotocol "" or
// "binary.k8s.io" sends the bytes as binary frames, "base64.binary.k8s.io" as base64 text frames,
// after an initial empty frame; the socket closes when the stream ends. Anything else — an error,
// or a reply that is not a stream — is answered as a plain HTTP response, which the client sees as
// a failed handshake carrying a Status, as upstream does. Messages from the client are ignored.
// The once-per-turn batching of watch events lives here too and serves the HTTP watch as well.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { Readable, type Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KubeObject, WatchEventType } from '../../shared/kubernetes/types';
import { ApiError } from './apiError';
import type { ApiReply, ApiResponse, ApiStreamReply, ApiWatchReply } from './handlers/request';
import type { WatchSink } from './watch';

/** Largest stream frame: upstream wsstream reads its source in 32 KiB buffers. */
const STREAM_FRAME_BYTES = 32 * 1024;

export const BINARY_STREAM_PROTOCOL = 'binary.k8s.io';
export const BASE64_STREAM_PROTOCOL = 'base64.binary.k8s.io';
/** '' stands for "no subprotocol offered", which upstream treats as binary */
const STREAM_PROTOCOLS: ReadonlyMap<string, { binary: boolean }> = new Map([
  ['', { binary: true }],
  [BINARY_STREAM_PROTOCOL, { binary: true }],
  [BASE64_STREAM_PROTOCOL, { binary: false }],
]);

export interface WebSocketRepliesOptions {
  /** a watcher this far behind is closed (it re-watches), as upstream's cacher drops slow watchers */
  maxWatchBufferBytes?: number;
  /** a stream is paused while more than this is waiting to be written */
  streamHighWaterBytes?: number;
}

export interface ServeOptions {
  /** a plain 2xx reply is sent as a finished stream (pods/log without follow is still a stream upstream) */
  plainBodyAsStream: boolean;
}

/** True for an HTTP/1.1 WebSocket upgrade request (upstream wsstream.IsWebSocketRequest). */
export function isWebSocketRequest(request: IncomingMessage): boolean {
  const connection = headerText(request.headers.connection).toLowerCase();
  const upgrade = headerText(request.headers.upgrade).toLowerCase();
  return upgrade === 'websocket' && connection.split(',').some((token) => token.trim() === 'upgrade');
}

/** The Sec-WebSocket-Protocol list as offered, in order. */
export function offeredProtocols(request: IncomingMessage): string[] {
  return headerText(request.headers['sec-websocket-protocol'])
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

/**
 * The stream subprotocol to answer: '' when none was offered, else the first offered one the
 * server supports; undefined when none is supported (the handshake is refused).
 */
export function negotiateStreamProtocol(offered: readonly string[]): string | undefined {
  if (offered.length === 0) return '';
  return offered.find((protocol) => protocol !== '' && STREAM_PROTOCOLS.has(protocol));
}

/** Serialized events shared across watchers of the same event (fan-out encodes once). */
const eventCache = new WeakMap<object, Map<string, string>>();

/**
 * One watch event as JSON ending in a newline (Go's JSON encoder ends each value so). Objects the
 * request does not reshape are encoded once for all watchers.
 */
function encodeWatchEvent(type: WatchEventType, object: KubeObject, transform: ApiWatchReply['transform'], identity: boolean): string {
  if (!identity) return JSON.stringify({ type, object: transform(object, type) }) + '\n';
  let byType = eventCache.get(object);
  if (!byType) {
    byType = new Map();
    eventCache.set(object, byType);
  }
  let line = byType.get(type);
  if (line === undefined) {
    line = JSON.stringify({ type, object }) + '\n';
    byType.set(type, line);
  }
  return line;
}

/** Whether a watch reply's transform leaves objects as they are (so encodings can be shared). */
function isIdentityTransform(reply: ApiWatchReply): boolean {
  const probe: KubeObject = { metadata: {} };
  return reply.transform(probe, 'ADDED') === probe;
}

/** Where a watch's encoded events go: an HTTP chunked body or a WebSocket. */
export interface WatchEventWriter {
  /** Writes the events of one turn; false when the client is too far behind (the watch is closed). */
  write(lines: string[]): boolean;
  /** Ends the response after the last event. */
  end(): void;
}

/**
 * Starts a watch whose events are queued and written once per turn of the event loop: the write
 * that caused them answers its own client first (fan-out stays off the request path, as upstream's
 * watch cache dispatches asynchronously), and a burst goes out together, in few TLS records instead
 * of many. A watcher that cannot keep up is closed, as upstream's cacher does; it will re-watch.
 * Returns the function to call when the client goes away.
 */
export function startBatchedWatch(reply: ApiWatchReply, writer: WatchEventWriter): () => void {
  const identity = isIdentityTransform(reply);
  let ended = false;
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (ended || pending.length === 0) return;
    const lines = pending;
    pending = [];
    if (!writer.write(lines)) sink.close();
  };
  const sink: WatchSink = {
    send(type: WatchEventType, object: KubeObject) {
      if (ended) return;
      pending.push(encodeWatchEvent(type, object, reply.transform, identity));
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      if (ended) return;
      flush();
      ended = true;
      writer.end();
    },
  };
  const handle = reply.watch(sink);
  return () => {
    ended = true;
    handle.dispose();
  };
}

/** Answers an upgrade that will not happen with a plain HTTP response, then closes the connection. */
export function writeUpgradeRefusal(socket: Duplex, reply: ApiReply): void {
  if (socket.destroyed) return;
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  const headers = { ...reply.headers, 'Content-Length': String(body.length), Connection: 'close' };
  const head = [`HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? 'Error'}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join('\r\n');
  socket.end(Buffer.concat([Buffer.from(head + '\r\n\r\n'), body]));
}

function jsonReply(error: ApiError): ApiReply {
  return { status: error.code, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(error.toStatus()) };
}

export class WebSocketReplies {
  private readonly server: WebSocketServer;
  private readonly chosenProtocols = new WeakMap<IncomingMessage, string>();
  private readonly open = new Set<WebSocket>();
  private readonly maxWatchBufferBytes: number;
  private readonly streamHighWaterBytes: number;

  constructor(options: WebSocketRepliesOptions = {}) {
    this.maxWatchBufferBytes = options.maxWatchBufferBytes ?? 64 * 1024 * 1024;
    this.streamHighWaterBytes = options.streamHighWaterBytes ?? 1024 * 1024;
    this.server = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      // the client is not meant to send anything; whatever it sends is read and dropped
      maxPayload: 64 * 1024,
      handleProtocols: (_offered, request) => this.chosenProtocols.get(request) ?? false,
    });
  }

  /** Answers a WebSocket upgrade with the API's reply to it. */
  serve(request: IncomingMessage, socket: Duplex, head: Buffer, reply: ApiResponse, options: ServeOptions): void {
    if ('watch' in reply) {
      this.serveWatch(request, socket, head, reply);
      return;
    }
    if ('stream' in reply) {
      this.serveStream(request, socket, head, reply);
      return;
    }
    if (options.plainBodyAsStream && reply.status >= 200 && reply.status < 300) {
      const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
      this.serveStream(request, socket, head, { status: reply.status, headers: reply.headers, body: '', stream: Readable.from(body.length > 0 ? [body] : []) });
      return;
    }
    writeUpgradeRefusal(socket, reply);
  }

  /** Closes every open WebSocket (server shutdown). */
  closeAll(): void {
    for (const webSocket of this.open) webSocket.terminate();
    this.open.clear();
  }

  private accept(request: IncomingMessage, socket: Duplex, head: Buffer, protocol: string, onOpen: (webSocket: WebSocket) => void, onRefused: () => void): void {
    if (socket.destroyed) {
      onRefused();
      return;
    }
    if (protocol) this.chosenProtocols.set(request, protocol);
    else delete request.headers['sec-websocket-protocol'];
    let upgraded = false;
    // `ws` answers a malformed handshake itself and never calls back; the source must still stop
    const onClose = () => {
      if (!upgraded) onRefused();
    };
    socket.once('close', onClose);
    this.server.handleUpgrade(request, socket, head, (webSocket) => {
      upgraded = true;
      socket.off('close', onClose);
      this.open.add(webSocket);
      webSocket.on('close', () => this.open.delete(webSocket));
      webSocket.on('error', () => webSocket.terminate());
      webSocket.on('message', () => undefined);
      onOpen(webSocket);
    });
  }

  private serveWatch(request: IncomingMessage, socket: Duplex, head: Buffer, reply: ApiWatchReply): void {
    // Upstream's watch handshake takes any subprotocol; answering the first one offered keeps
    // browsers, which fail a handshake that ignores their offer, connected.
    const protocol = offeredProtocols(request)[0] ?? '';
    this.accept(request, socket, head, protocol, (webSocket) => this.sendWatch(socket, webSocket, reply), () => undefined);
  }

  /** One text frame per event; a turn's frames are corked into few TLS records. */
  private sendWatch(socket: Duplex, webSocket: WebSocket, reply: ApiWatchReply): void {
    const stop = startBatchedWatch(reply, {
      write: (lines) => {
        socket.cork();
        for (const line of lines) webSocket.send(line);
        socket.uncork();
        return webSocket.bufferedAmount <= this.maxWatchBufferBytes;
      },
      end: () => webSocket.close(1000),
    });
    webSocket.once('close', stop);
  }

  private serveStream(request: IncomingMessage, socket: Duplex, head: Buffer, reply: ApiStreamReply): void {
    const { stream } = reply;
    const offered = offeredProtocols(request);
    const protocol = negotiateStreamProtocol(offered);
    const stopSource = () => {
      if (!stream.destroyed) stream.destroy();
    };
    if (protocol === undefined) {
      stopSource();
      const supported = [...STREAM_PROTOCOLS.keys()].filter((name) => name !== '');
      // upstream's handshake function fails, which golang.org/x/net/websocket answers with 403
      writeUpgradeRefusal(socket, jsonReply(new ApiError(403, 'Forbidden', `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supported.join(' ')}]`)));
      return;
    }
    const binary = STREAM_PROTOCOLS.get(protocol)?.binary ?? true;
    this.accept(request, socket, head, protocol, (webSocket) => this.sendStream(webSocket, stream, binary, stopSource), stopSource);
  }

  private sendStream(webSocket: WebSocket, stream: ApiStreamReply['stream'], binary: boolean, stopSource: () => void): void {
    const encode = (chunk: Buffer): Buffer | string => (binary ? chunk : chunk.toString('base64'));
    const resumeIfDrained = () => {
      if (stream.isPaused() && webSocket.bufferedAmount <= this.streamHighWaterBytes / 2) stream.resume();
    };
    // Chunks that arrive in one event-loop turn go out as one frame of at most 32 KiB, as
    // upstream's wsstream sends one frame per read of its 32 KiB buffer: a log read back line by
    // line would otherwise cost the client one message (and one JS callback) per line.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let flushScheduled = false;
    const flush = () => {
      flushScheduled = false;
      if (pendingBytes === 0 || webSocket.readyState !== webSocket.OPEN) {
        pending = [];
        pendingBytes = 0;
        return;
      }
      const frame = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      webSocket.send(encode(frame), resumeIfDrained);
      if (webSocket.bufferedAmount > this.streamHighWaterBytes) stream.pause();
    };
    // the first, empty frame tells the client the stream is open (wsstream's ping)
    webSocket.send(encode(Buffer.alloc(0)));
    stream.on('data', (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (bytes.length === 0 || webSocket.readyState !== webSocket.OPEN) return;
      pending.push(bytes);
      pendingBytes += bytes.length;
      if (pendingBytes >= STREAM_FRAME_BYTES) flush();
      else if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
    stream.once('end', () => {
      flush();
      webSocket.close(1000);
    });
    stream.once('error', () => {
      flush();
      webSocket.close(1011);
    });
    webSocket.once('close', stopSource);
  }
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}
