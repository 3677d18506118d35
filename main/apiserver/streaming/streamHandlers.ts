// The streaming pod subresources over HTTP: pods/log (a plain-text reply, streamed under follow),
// and the upgrades pods/exec, pods/attach (WebSocket channel protocol) and pods/portforward (SPDY/3.1
// tunnelled in a WebSocket or over a direct upgrade, or WebSocket channels for client-node).
// Request checks and messages follow pkg/registry/core/pod/strategy.go (LogLocation, streamLocation,
// validateContainer), pkg/apis/core/validation ValidatePodLogOptions, apimachinery's query-parameter
// conversion (only absent, "0" and "false" are false) and the kubelet's remotecommand options.
// Errors before an upgrade are answered as HTTP errors with a Status body, which client-go decodes
// (and, being a Status, does not fall back to SPDY for).
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../../registry/fieldErrors';
import { ApiError } from '../apiError';
import type { ApiRequest, ApiResponse, SubresourceHandler } from '../handlers/request';
import type { UpgradeHandler, UserInfo } from '../httpServer';
import { negotiateExecProtocol, negotiatePortForwardProtocol, serveRemoteCommand, supportedExecProtocols, supportedPortForwardProtocols } from './channelProtocol';
import type { PodLogOptions, PodStreamOptions, PodStreams, PodStreamSession } from './podStreams';
import { createSpdyPortForwardSession, serveWebSocketPortForward, type PortForwardTarget } from './portForward';
import { createSpdyRemoteCommandSession, negotiateSpdyRemoteCommandProtocol, SPDY_REMOTE_COMMAND_PROTOCOLS } from './remoteCommandSpdy';
import type { SpdySession } from './spdy';

export interface StreamHandlerOptions {
  /** The pod as stored; throws ApiError NotFound (`pods "x" not found`) when absent. */
  getPod(namespace: string, name: string): KubeObject | Promise<KubeObject>;
  streams: PodStreams;
}

export interface StreamHandlers {
  /** for HttpServer.addUpgradeHandler: exec, attach, portforward */
  upgrade: UpgradeHandler;
  /** the provider pods name `podLog` */
  logs: SubresourceHandler;
  /** closes every open stream session (shutdown) */
  dispose(): void;
}

/** kubectl's tunnelled port-forward subprotocol; contains '/', which `ws` refuses to parse. */
export const SPDY_PORT_FORWARD_WEBSOCKET_PROTOCOL = 'SPDY/3.1+portforward.k8s.io';
const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
const UPGRADE_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/(exec|attach|portforward)\/?$/;
/** stands in for the real subprotocol header while `ws` validates the handshake */
const PLACEHOLDER_PROTOCOL = 'kubedesk-negotiated';

export function createStreamHandlers(options: StreamHandlerOptions): StreamHandlers {
  const chosenProtocols = new WeakMap<IncomingMessage, string>();
  const webSockets = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    maxPayload: 64 * 1024 * 1024,
    handleProtocols: (_offered, request) => chosenProtocols.get(request) ?? false,
  });
  const open = new Set<{ close(): void }>();

  const track = (closer: { close(): void }, socket: Duplex) => {
    open.add(closer);
    socket.once('close', () => open.delete(closer));
  };

  /** Completes a WebSocket handshake answering `protocol` ('' = no subprotocol header). */
  const acceptWebSocket = (request: IncomingMessage, socket: Duplex, head: Buffer, protocol: string): Promise<WebSocket> =>
    new Promise((resolve, reject) => {
      // The client may have left while the pod was looked up or the command started.
      if (socket.destroyed) {
        reject(new Error('connection closed before the upgrade'));
        return;
      }
      if (protocol) {
        chosenProtocols.set(request, protocol);
        request.headers['sec-websocket-protocol'] = PLACEHOLDER_PROTOCOL;
      } else {
        delete request.headers['sec-websocket-protocol'];
      }
      const onClose = () => reject(new Error('WebSocket handshake failed'));
      socket.once('close', onClose);
      webSockets.handleUpgrade(request, socket, head, (webSocket) => {
        socket.off('close', onClose);
        resolve(webSocket);
      });
    });

  const handleRemoteCommand = async (kind: 'exec' | 'attach', request: IncomingMessage, socket: Duplex, head: Buffer, pod: KubeObject, query: URLSearchParams) => {
    const streamOptions = remoteCommandOptions(query);
    const command = query.getAll('command');
    if (kind === 'exec' && command.length === 0) throw ApiError.badRequest('you must specify at least 1 command');
    streamOptions.container = validateContainer(pod, query.get('container') ?? '');
    requireHost(pod);
    const start = async () => {
      try {
        return holdOutput(kind === 'exec' ? await options.streams.exec(pod, command, streamOptions) : await options.streams.attach(pod, streamOptions));
      } catch (error) {
        throw new NodeStreamError(error);
      }
    };
    if (isWebSocketUpgrade(request)) {
      const offered = offeredProtocols(request);
      const protocol = negotiateExecProtocol(offered);
      if (!protocol) throw ApiError.badRequest(`requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${supportedExecProtocols().join(' ')}]`);
      const session: PodStreamSession = await start();
      let webSocket: WebSocket;
      try {
        webSocket = await acceptWebSocket(request, socket, head, protocol.name);
      } catch (error) {
        session.close();
        throw error;
      }
      track(session, socket);
      serveRemoteCommand(webSocket, session, { protocol, kind, command });
      return;
    }
    // kubectl falls back to SPDY when the WebSocket attempt fails, so errors must read the same here.
    const versions = spdyProtocolVersions(request);
    const protocol = negotiateSpdyRemoteCommandProtocol(versions);
    if (!protocol) throw new ApiError(403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(' ')}], server accepts [${SPDY_REMOTE_COMMAND_PROTOCOLS.join(' ')}]`);
    const session = await start();
    track(session, socket);
    serveSpdy(socket, head, protocol, (transport) => createSpdyRemoteCommandSession(transport, session, { protocol, kind, command }));
  };

  const handlePortForward = async (request: IncomingMessage, socket: Duplex, head: Buffer, pod: KubeObject, query: URLSearchParams) => {
    requireHost(pod);
    const metadata = pod.metadata;
    const target: PortForwardTarget = {
      connect: (port) => options.streams.portForward(pod, port),
      podDescription: `${metadata.name ?? ''}_${metadata.namespace ?? ''}`,
      podUid: metadata.uid ?? '',
    };
    if (isWebSocketUpgrade(request)) {
      const offered = offeredProtocols(request);
      if (offered.includes(SPDY_PORT_FORWARD_WEBSOCKET_PROTOCOL)) {
        const webSocket = await acceptWebSocket(request, socket, head, SPDY_PORT_FORWARD_WEBSOCKET_PROTOCOL);
        const session = createSpdyPortForwardSession(
          {
            write: (data, done) => {
              if (webSocket.readyState === webSocket.OPEN) webSocket.send(data, { binary: true }, (error) => done(error));
              else done(new Error('WebSocket closed'));
            },
            end: () => {
              if (webSocket.readyState === webSocket.OPEN) webSocket.close(1000);
            },
          },
          target,
        );
        track(session, socket);
        webSocket.on('message', (data) => session.receive(toBuffer(data)));
        webSocket.on('close', () => session.close());
        webSocket.on('error', () => session.close());
        return;
      }
      const ports = parsePorts(query);
      const protocol = negotiatePortForwardProtocol(offered);
      if (!protocol) throw ApiError.badRequest(`requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${[...supportedPortForwardProtocols(), SPDY_PORT_FORWARD_WEBSOCKET_PROTOCOL].join(' ')}]`);
      const webSocket = await acceptWebSocket(request, socket, head, protocol.name);
      track({ close: () => webSocket.terminate() }, socket);
      serveWebSocketPortForward(webSocket, protocol, ports, target);
      return;
    }
    const versions = spdyProtocolVersions(request);
    if (!versions.includes(PORT_FORWARD_PROTOCOL)) {
      throw new ApiError(403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(' ')}], server accepts [${PORT_FORWARD_PROTOCOL}]`);
    }
    serveSpdy(socket, head, PORT_FORWARD_PROTOCOL, (transport) => {
      const session = createSpdyPortForwardSession(transport, target);
      track(session, socket);
      return session;
    });
  };

  const upgrade: UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer, _user: UserInfo) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const match = UPGRADE_PATH.exec(url.pathname);
    if (!match) return false;
    socket.on('error', () => undefined);
    const run = async () => {
      const [namespace, name] = [decodeSegment(match[1]), decodeSegment(match[2])];
      const subresource = match[3];
      if (request.method !== 'GET' && request.method !== 'POST') throw ApiError.methodNotAllowed();
      const pod = await options.getPod(namespace, name);
      if (subresource === 'portforward') await handlePortForward(request, socket, head, pod, url.searchParams);
      else await handleRemoteCommand(subresource === 'exec' ? 'exec' : 'attach', request, socket, head, pod, url.searchParams);
    };
    run().catch((error: unknown) => rejectUpgrade(socket, error));
    return true;
  };

  const logs: SubresourceHandler = async (request: ApiRequest, context): Promise<ApiResponse> => {
    if (context.rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    if (request.method !== 'GET') throw ApiError.methodNotAllowed();
    const pod = await options.getPod(context.namespace, context.name);
    const logOptions = podLogOptions(request.query, pod.metadata.name ?? context.name);
    logOptions.container = validateContainer(pod, request.query.get('container') ?? '');
    const headers = { 'Content-Type': 'text/plain' };
    // Upstream returns an empty body for a pod no node has taken yet (LogLocation gives no location).
    if (!nodeName(pod)) return { status: 200, headers, body: '' };
    const stream = await options.streams.logs(pod, logOptions);
    return { status: 200, headers, body: '', stream };
  };

  return {
    upgrade,
    logs,
    dispose() {
      for (const closer of [...open]) {
        try {
          closer.close();
        } catch {
          // already gone
        }
      }
      open.clear();
      for (const client of webSockets.clients) client.terminate();
      webSockets.close();
    },
  };
}

/**
 * The command starts before the upgrade completes; its output is taken into buffers at once so
 * nothing is lost (a child process's unread pipes are drained and discarded when it exits) while the
 * buffers' high-water mark still holds the producer back until the client reads.
 */
function holdOutput(session: PodStreamSession): PodStreamSession {
  // Observed later (after the upgrade); until then a failure must not count as unhandled.
  session.exitCode.catch(() => undefined);
  const hold = (source: Readable | undefined): Readable | undefined => {
    if (!source) return undefined;
    const buffer = new PassThrough();
    source.on('error', (error: Error) => buffer.destroy(error));
    source.pipe(buffer);
    return buffer;
  };
  return {
    stdin: session.stdin,
    stdout: hold(session.stdout),
    stderr: hold(session.stderr),
    exitCode: session.exitCode,
    resize: (width, height) => session.resize(width, height),
    close: () => session.close(),
  };
}

/** Answers 101 for a direct SPDY/3.1 upgrade and runs a SPDY session on the raw connection. */
function serveSpdy(socket: Duplex, head: Buffer, protocol: string, create: (transport: { write(data: Buffer, done: (error?: Error | null) => void): void; end(): void }) => SpdySession): void {
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  const session = create({
    write: (data, done) => {
      if (socket.writable) socket.write(data, done);
      else done(new Error('connection closed'));
    },
    end: () => {
      if (!socket.destroyed) socket.end();
    },
  });
  if (socket.destroyed) {
    session.close();
    return;
  }
  socket.on('data', (chunk: Buffer) => session.receive(chunk));
  socket.on('close', () => session.close());
  socket.on('end', () => session.close());
  if (head.length > 0) session.receive(head);
}

/** The X-Stream-Protocol-Version list of a SPDY upgrade (the header may repeat or be comma-joined). */
function spdyProtocolVersions(request: IncomingMessage): string[] {
  if (!isSpdyUpgrade(request)) throw ApiError.badRequest('unable to upgrade: missing upgrade headers in request');
  const versions = (headerValue(request.headers['x-stream-protocol-version']) ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (versions.length === 0) throw ApiError.badRequest('unable to upgrade: X-Stream-Protocol-Version is required');
  return versions;
}

function toBuffer(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function isWebSocketUpgrade(request: IncomingMessage): boolean {
  return (headerValue(request.headers.upgrade) ?? '').toLowerCase() === 'websocket';
}

function isSpdyUpgrade(request: IncomingMessage): boolean {
  return (headerValue(request.headers.upgrade) ?? '').toLowerCase().startsWith('spdy/3');
}

function offeredProtocols(request: IncomingMessage): string[] {
  return (headerValue(request.headers['sec-websocket-protocol']) ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ApiError.badRequest(`invalid path segment: ${segment}`);
  }
}

/**
 * A failure of the node side (PodStreams) to start a stream. Upstream the kubelet answers those in
 * plain text, not as a Status, and client-go then prints `unable to upgrade connection: <text>`
 * (e.g. `container not found ("c1")`) — after falling back from WebSocket to SPDY, which it only
 * does when the refusal is not a Status.
 */
class NodeStreamError extends Error {
  readonly code: number;

  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.code = cause instanceof ApiError ? cause.code : 500;
  }
}

/** Answers a refused upgrade with a plain HTTP error — a Status body, or text for node-side failures — then closes. */
export function rejectUpgrade(socket: Duplex, error: unknown): void {
  if (socket.destroyed || !socket.writable) return;
  if (error instanceof NodeStreamError) {
    const text = error.message;
    socket.end(`HTTP/1.1 ${error.code} ${STATUS_CODES[error.code] ?? 'Error'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
    return;
  }
  const apiError = error instanceof ApiError ? error : ApiError.internal(error instanceof Error ? error.message : String(error));
  if (!(error instanceof ApiError)) console.error('kubedesk: stream upgrade failed:', error);
  const body = JSON.stringify(apiError.toStatus());
  socket.end(`HTTP/1.1 ${apiError.code} ${STATUS_CODES[apiError.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** apimachinery's query conversion: absent, "0" and "false" (any case) are false, anything else true. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}

function queryInt(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value)) throw ApiError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw ApiError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return parsed;
}

/** PodExecOptions/PodAttachOptions streams, with the kubelet's checks (tty drops stderr). */
export function remoteCommandOptions(query: URLSearchParams): PodStreamOptions {
  const tty = queryBool(query, 'tty');
  const options: PodStreamOptions = {
    container: '',
    stdin: queryBool(query, 'stdin'),
    stdout: queryBool(query, 'stdout'),
    stderr: queryBool(query, 'stderr') && !tty,
    tty,
  };
  if (!options.stdin && !options.stdout && !options.stderr) throw ApiError.badRequest('you must specify at least 1 of stdin, stdout, stderr');
  return options;
}

/** PodLogOptions from the query, validated as ValidatePodLogOptions (422 PodLogOptions … is invalid). */
export function podLogOptions(query: URLSearchParams, podName: string): PodLogOptions {
  const options: PodLogOptions = {
    container: query.get('container') ?? '',
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
  };
  const tailLines = queryInt(query, 'tailLines');
  const limitBytes = queryInt(query, 'limitBytes');
  const sinceSeconds = queryInt(query, 'sinceSeconds');
  const sinceTimeText = query.get('sinceTime');
  let sinceTime: Date | undefined;
  if (sinceTimeText !== null && sinceTimeText !== '') {
    sinceTime = parseRfc3339(sinceTimeText);
    if (!sinceTime) throw ApiError.badRequest(`parsing time ${JSON.stringify(sinceTimeText)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTimeText)} as "2006"`);
  }
  const errors: FieldError[] = [];
  if (tailLines !== undefined && tailLines < 0) errors.push(fieldErrors.invalid('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== undefined && limitBytes < 1) errors.push(fieldErrors.invalid('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== undefined && sinceTime !== undefined) errors.push(fieldErrors.forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== undefined && sinceSeconds < 1) errors.push(fieldErrors.invalid('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (errors.length > 0) throw ApiError.invalid('PodLogOptions', '', podName, errors);
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  if (sinceTime !== undefined) options.sinceTime = sinceTime;
  return options;
}

function parseRfc3339(text: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text)) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function parsePorts(query: URLSearchParams): number[] {
  const values = query
    .getAll('ports')
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
  if (values.length === 0) throw ApiError.badRequest('query parameter "port" is required');
  return values.map((value) => {
    if (!/^\d+$/.test(value) || Number(value) > 65535) throw ApiError.badRequest(`unable to parse "${value}" as a port: strconv.ParseUint: parsing "${value}": invalid syntax`);
    const port = Number(value);
    if (port < 1) throw ApiError.badRequest(`port "${value}" must be > 0`);
    return port;
  });
}

function containerNames(pod: KubeObject): string[] {
  const spec = isRecord(pod['spec']) ? pod['spec'] : {};
  const names: string[] = [];
  // Init, regular, then ephemeral containers: the order of podutil.VisitContainers.
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) {
    const list = spec[key];
    if (!Array.isArray(list)) continue;
    for (const container of list) if (isRecord(container) && typeof container['name'] === 'string') names.push(container['name']);
  }
  return names;
}

function regularContainerNames(pod: KubeObject): string[] {
  const spec = isRecord(pod['spec']) ? pod['spec'] : {};
  const list = spec['containers'];
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).flatMap((container) => (typeof container['name'] === 'string' ? [container['name']] : []));
}

/** strategy.go validateContainer: the container to use, defaulted when the pod has exactly one. */
export function validateContainer(pod: KubeObject, container: string): string {
  const name = pod.metadata.name ?? '';
  if (container === '') {
    const regular = regularContainerNames(pod);
    if (regular.length === 1) return regular[0];
    if (regular.length === 0) throw ApiError.badRequest(`a container name must be specified for pod ${name}`);
    throw ApiError.badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`);
  }
  if (!containerNames(pod).includes(container)) throw ApiError.badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

function nodeName(pod: KubeObject): string {
  const spec = pod['spec'];
  return isRecord(spec) && typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
}

function requireHost(pod: KubeObject): void {
  if (!nodeName(pod)) throw ApiError.badRequest(`pod ${pod.metadata.name ?? ''} does not have a host assigned`);
}
