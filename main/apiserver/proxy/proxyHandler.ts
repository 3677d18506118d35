// The services/<id>/proxy and pods/<id>/proxy subresources: an HTTP reverse proxy from the API
// server to one endpoint, as apimachinery's UpgradeAwareHandler (pkg/util/proxy/upgradeaware.go)
// with the wrapping Transport (transport.go) does for kube-apiserver: every connect method is
// forwarded with its body, hop-by-hop headers and the caller's credentials stay behind, the
// backend's CORS grants are dropped, redirects and HTML links are moved under the proxy prefix,
// `…/proxy` without a trailing slash answers 301 to `…/proxy/` for GET and HEAD, and Upgrade
// requests (WebSocket) are spliced through raw. `https:` ids speak TLS to the backend without
// verifying it, as upstream's proxy transport does. Failures are Status replies with upstream's
// codes and texts (503 `error trying to reach service: dial tcp …: connect: connection refused`).
import { STATUS_CODES, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { posix } from 'node:path';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { gunzip, gzip, deflateRaw, inflateRaw } from 'node:zlib';
import type { KubeObject, Status } from '../../../shared/kubernetes/types';
import { hopByHopTest } from '../../../shared/http/hopByHop';
import { serviceNameLabel } from '../../../shared/kubernetes/serviceEndpoints';
import { socketErrorText } from '../../../shared/net/dialErrors';
import { ApiError } from '../apiError';
import type { ApiReply, ApiRequest, ApiResponse, ApiServerContext, ApiStreamReply, SubresourceHandler } from '../handlers/request';
import type { UpgradeHandler } from '../httpServer';
import { resolveProxyLocation, type ProxyKind, type ProxyLocation, type ProxyLookup } from './proxyLocation';
import { rewriteHtml, rewriteUrl, type RewriteContext } from './urlRewrite';
import { closeTogether } from '../../../shared/net/closeTogether';

/** What the proxy needs from host networking (main/network's PodDialer has this shape). */
export interface ProxyDialer {
  dial(ip: string, port: number): Promise<Socket>;
}

export interface ProxyOptions {
  lookup: ProxyLookup;
  dialer: ProxyDialer;
  /** endpoint choice, replaceable in tests */
  random?: () => number;
}

export interface ProxyHandlers {
  /** for the provider services name `serviceProxy` */
  services: SubresourceHandler;
  /** for the provider pods name `podProxy` */
  pods: SubresourceHandler;
  /** for HttpServer.addUpgradeHandler: WebSocket and other Upgrade requests to a proxy path */
  upgrade: UpgradeHandler;
  /**
   * The same proxy straight on Node's request/response, streaming the request body instead of the
   * buffered ApiRequest body; true when the path was a proxy path (the request is then answered).
   * Meant for a hook in HttpServer that runs after authentication.
   */
  serveHttp(request: IncomingMessage, response: ServerResponse): boolean;
  /** the core, transport-free: one request in, one response (or a redirect) out; throws ApiError */
  forward(input: ProxyRequest): Promise<ProxyResult>;
}

export interface ProxyRequest {
  method: string;
  /** the request path as received (still percent-encoded), e.g. /api/v1/namespaces/default/services/web:80/proxy/index.html */
  path: string;
  /** the raw query string without '?' */
  rawQuery: string;
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>;
  body: Buffer | Readable;
  /** the client's address, appended to X-Forwarded-For */
  remoteAddress?: string;
}

export type ProxyResult = { kind: 'redirect'; location: string } | { kind: 'response'; status: number; headers: Record<string, string[]>; body: Buffer | Readable };

export interface ProxyPath {
  kind: ProxyKind;
  namespace: string;
  /** `[scheme:]name[:port]`, decoded */
  id: string;
  /** the path up to and including `/proxy`, as received */
  prefix: string;
  /** what follows `/proxy/` as received; undefined when the path ends at `/proxy` */
  rest: string | undefined;
}

/** upstream ProxyREST.ConnectMethods */
export const PROXY_METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/** removed by upstream's authentication and impersonation filters before any handler runs */
const CREDENTIALS = new Set(['authorization', 'proxy-authorization']);
/** upstream corsRemovingTransport */
const CORS_HEADERS = new Set(['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']);
const MAX_UPGRADE_RESPONSE_HEAD = 64 * 1024;

const PROXY_PATH = /^\/api\/v1\/namespaces\/([^/]+)\/(services|pods)\/([^/]+)\/proxy(?:\/(.*))?$/;

export function parseProxyPath(path: string): ProxyPath | undefined {
  const match = PROXY_PATH.exec(path);
  if (!match) return undefined;
  const [, namespace, kind, id, rest] = match;
  const prefix = path.slice(0, path.length - (rest === undefined ? 0 : rest.length + 1));
  try {
    return { kind: kind as ProxyKind, namespace: decodeURIComponent(namespace), id: decodeURIComponent(id), prefix, rest };
  } catch {
    return undefined;
  }
}

export function createProxyHandlers(options: ProxyOptions): ProxyHandlers {
  const forward = (input: ProxyRequest) => forwardRequest(options, input);
  const subresource: SubresourceHandler = async (request) => toApiResponse(await forward(fromApiRequest(request)));
  return {
    services: subresource,
    pods: subresource,
    upgrade: (request, socket, head) => {
      const url = new URL(request.url ?? '/', 'https://localhost');
      const target = parseProxyPath(url.pathname);
      if (!target) return false;
      // Node's HTTP server lets go of an upgraded socket; a client reset must not become an uncaught error
      socket.on('error', () => socket.destroy());
      serveUpgrade(options, target, url, request, socket, head).catch((error: unknown) => {
        if (!socket.destroyed) writeSocketError(socket, error);
      });
      return true;
    },
    serveHttp: (request, response) => {
      const url = new URL(request.url ?? '/', 'https://localhost');
      if (!parseProxyPath(url.pathname)) return false;
      const input: ProxyRequest = { method: request.method ?? 'GET', path: url.pathname, rawQuery: url.search.slice(1), headers: request.headers, body: request, remoteAddress: request.socket.remoteAddress };
      forward(input).then(
        (result) => writeResult(request, response, result),
        (error: unknown) => {
          request.resume();
          writeErrorResponse(response, error);
        },
      );
      return true;
    },
    forward,
  };
}

/** A ProxyLookup reading the API server's store directly. */
export function apiServerLookup(api: ApiServerContext): ProxyLookup {
  const services = () => api.registry.lookup('', 'v1', 'services');
  const pods = () => api.registry.lookup('', 'v1', 'pods');
  const slices = () => api.registry.lookup('discovery.k8s.io', 'v1', 'endpointslices');
  return {
    service: (namespace, name) => {
      const def = services();
      return def ? api.objects.tryGet(def, namespace, name) : undefined;
    },
    endpointSlices: (namespace, serviceName): KubeObject[] => {
      const def = slices();
      return def ? api.objects.list(def, { namespace, labels: [{ key: serviceNameLabel, operator: 'In', values: [serviceName] }], fields: [] }).items : [];
    },
    pod: (namespace, name) => {
      const def = pods();
      return def ? api.objects.tryGet(def, namespace, name) : undefined;
    },
  };
}

export async function forwardRequest(options: ProxyOptions, input: ProxyRequest): Promise<ProxyResult> {
  const target = parseProxyPath(input.path);
  if (!target) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
  const method = input.method.toUpperCase();
  if (!PROXY_METHODS.has(method)) throw ApiError.methodNotAllowed();
  const location = resolveProxyLocation(options.lookup, target.kind, target.namespace, target.id, options.random);
  if (target.rest === undefined && (method === 'GET' || method === 'HEAD')) {
    return { kind: 'redirect', location: `${input.path}/${input.rawQuery ? '?' + input.rawQuery : ''}` };
  }
  const backendPath = backendPathOf(target.rest);
  const pathPrepend = target.rest ? target.prefix + '/' : target.prefix;
  const headers = forwardedHeaders(input.headers, input.remoteAddress);
  headers['x-forwarded-uri'] = [joinPreservingTrailingSlash(pathPrepend, backendPath)];
  let body = input.body;
  if (Buffer.isBuffer(body)) {
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) headers['content-length'] = [String(body.length)];
    else delete headers['content-length'];
  } else if (headers['content-length'] === undefined) {
    if (headerValue(input.headers, 'transfer-encoding') !== undefined) {
      // Node frames only POST/PUT/PATCH bodies by default; a chunked DELETE must stay chunked
      headers['transfer-encoding'] = ['chunked'];
    } else {
      // no length and no chunking: by HTTP/1.1 the request has no body
      body.resume();
      body = Buffer.alloc(0);
    }
  }
  const socket = await openBackend(options.dialer, location).catch((error: unknown) => {
    throw reachError(error, location);
  });
  const response = await sendRequest(socket, method, backendPath + (input.rawQuery ? '?' + input.rawQuery : ''), headers, body).catch((error: unknown) => {
    socket.destroy();
    throw reachError(error, location);
  });
  const rewrite: RewriteContext = { pathPrepend, backendHost: location.host, requestHost: headerValue(input.headers, 'host') ?? '' };
  return shapeResponse(method, response, rewrite);
}

/** the backend path: the rest decoded, cleaned as Go's path.Join does, re-escaped as url.URL.String() does */
export function backendPathOf(rest: string | undefined): string {
  if (rest === undefined || rest === '') return '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    decoded = rest;
  }
  let cleaned = posix.normalize('/' + decoded);
  if (rest.endsWith('/') && !cleaned.endsWith('/')) cleaned += '/';
  return escapePath(cleaned);
}

function escapePath(path: string): string {
  let escaped = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const character = String.fromCharCode(byte);
    escaped += /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(character) ? character : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return escaped;
}

function joinPreservingTrailingSlash(base: string, path: string): string {
  const joined = posix.join(base, path);
  return path.endsWith('/') && !joined.endsWith('/') ? joined + '/' : joined;
}

function headerValue(headers: ProxyRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function forwardedHeaders(incoming: ProxyRequest['headers'], remoteAddress: string | undefined): Record<string, string[]> {
  const isHopByHop = hopByHopTest(incoming['connection']);
  const headers: Record<string, string[]> = {};
  for (const [rawName, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (isHopByHop(name) || CREDENTIALS.has(name) || name.startsWith('impersonate-')) continue;
    headers[name] = Array.isArray(value) ? [...value] : [value];
  }
  if (remoteAddress) {
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = [prior ? `${prior.join(', ')}, ${clientIp(remoteAddress)}` : clientIp(remoteAddress)];
  }
  return headers;
}

function clientIp(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

async function openBackend(dialer: ProxyDialer, location: ProxyLocation): Promise<Socket> {
  if (typeof location.port === 'string') throw Object.assign(new Error(`lookup tcp/${location.port}: unknown port`), { code: 'UNKNOWN_PORT' });
  if (location.port < 1 || location.port > 65535) throw Object.assign(new Error(`address ${location.port}: invalid port`), { code: 'INVALID_PORT' });
  const socket = await dialer.dial(location.ip, location.port);
  if (location.scheme === 'http') return socket;
  return new Promise((resolve, reject) => {
    // upstream's proxy transport sets InsecureSkipVerify: pods serve self-signed certificates
    const secure = tlsConnect({ socket, rejectUnauthorized: false });
    secure.once('secureConnect', () => {
      secure.off('error', reject);
      resolve(secure);
    });
    secure.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

function sendRequest(socket: Socket, method: string, path: string, headers: Record<string, string[]>, body: Buffer | Readable): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing: OutgoingHttpHeaders = {};
    for (const [name, values] of Object.entries(headers)) outgoing[name] = values.length === 1 ? values[0] : values;
    const request = httpRequest({ method, path, headers: outgoing, createConnection: () => socket, setHost: false });
    request.once('response', resolve);
    request.once('error', reject);
    if (Buffer.isBuffer(body)) {
      request.end(body);
    } else {
      body.once('error', (error) => request.destroy(error));
      body.pipe(request);
    }
  });
}

/** Go's wording for the errors a dial or exchange can end in (the text kubectl shows). */
function goErrorText(error: unknown, location: ProxyLocation): string {
  const address = `${location.ip}:${location.port}`;
  const known = socketErrorText(error, address);
  if (known !== undefined) return known;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'EPIPE':
      return `write tcp ${address}: write: broken pipe`;
    case 'UNKNOWN_PORT':
    case 'INVALID_PORT':
      return `dial tcp: ${message}`;
    default:
      if (/i\/o timeout/.test(message)) return `dial tcp ${address}: i/o timeout`;
      if (message === 'socket hang up') return 'EOF';
      return message;
  }
}

function reachError(error: unknown, location: ProxyLocation): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(503, 'ServiceUnavailable', `error trying to reach service: ${goErrorText(error, location)}`);
}

async function shapeResponse(method: string, response: IncomingMessage, rewrite: RewriteContext): Promise<ProxyResult> {
  const isHopByHop = hopByHopTest(response.headers['connection']);
  const headers: Record<string, string[]> = {};
  const raw = response.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index].toLowerCase();
    if (isHopByHop(name) || CORS_HEADERS.has(name)) continue;
    (headers[name] ??= []).push(raw[index + 1]);
  }
  const status = response.statusCode ?? 502;
  const location = headers['location']?.[0];
  if (location !== undefined && location !== '') {
    headers['location'] = [rewriteUrl(location, rewrite)];
    return { kind: 'response', status, headers, body: response };
  }
  const contentType = (headers['content-type']?.[0] ?? '').split(';')[0].trim().toLowerCase();
  if (contentType !== 'text/html' || method === 'HEAD' || status === 204 || status === 304) return { kind: 'response', status, headers, body: response };
  const encoding = (headers['content-encoding']?.[0] ?? '').trim().toLowerCase();
  const codec = CODECS.get(encoding);
  if (!codec) return { kind: 'response', status, headers, body: response };
  const original = await readAll(response);
  let body = original;
  try {
    const html = (await codec.decode(original)).toString('utf8');
    body = await codec.encode(Buffer.from(rewriteHtml(html, (url) => rewriteUrl(url, rewrite)), 'utf8'));
  } catch {
    // upstream passes a body it cannot decode through untouched
  }
  delete headers['content-length'];
  headers['content-length'] = [String(body.length)];
  return { kind: 'response', status, headers, body };
}

const identity = (data: Buffer) => Promise.resolve(data);
const CODECS = new Map<string, { decode(data: Buffer): Promise<Buffer>; encode(data: Buffer): Promise<Buffer> }>([
  ['', { decode: identity, encode: identity }],
  ['gzip', { decode: promisify(gunzip), encode: promisify(gzip) }],
  // Go's compress/flate is raw DEFLATE, which is what upstream reads and writes for `deflate`
  ['deflate', { decode: promisify(inflateRaw), encode: promisify(deflateRaw) }],
]);

function readAll(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

// ---- adapters -------------------------------------------------------------------------------

function fromApiRequest(request: ApiRequest): ProxyRequest {
  // ApiRequest keeps only the parsed query; serializing it again is the closest to the raw text
  // unless the transport also hands over the query as received
  const rawQuery = 'rawQuery' in request && typeof request.rawQuery === 'string' ? request.rawQuery : request.query.toString();
  return { method: request.method, path: request.path, rawQuery, headers: request.headers, body: request.body ?? Buffer.alloc(0) };
}

/** Header names as Go's canonical MIME form, so the HTTP server's own Cache-Control default sees the backend's. */
function canonicalName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_whole, dash: string, letter: string) => dash + letter.toUpperCase());
}

function toApiResponse(result: ProxyResult): ApiResponse {
  if (result.kind === 'redirect') return { status: 301, headers: { Location: result.location }, body: '' } satisfies ApiReply;
  const headers: Record<string, string> = {};
  // ApiReply headers hold one value each; repeated headers other than Set-Cookie fold losslessly
  for (const [name, values] of Object.entries(result.headers)) headers[canonicalName(name)] = name === 'set-cookie' ? values[0] : values.join(', ');
  if (Buffer.isBuffer(result.body)) return { status: result.status, headers, body: result.body } satisfies ApiReply;
  delete headers['Content-Length'];
  const stream = result.body;
  const passThrough = new PassThrough();
  stream.on('error', (error) => passThrough.destroy(error));
  // the HTTP server destroys the reply stream when the client leaves; the backend goes with it
  passThrough.on('close', () => {
    if (!stream.destroyed) stream.destroy();
  });
  stream.pipe(passThrough);
  return { status: result.status, headers, body: '', stream: passThrough } satisfies ApiStreamReply;
}

function statusBody(error: unknown): { code: number; body: string } {
  if (error instanceof ApiError) return { code: error.code, body: JSON.stringify(error.toStatus()) };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 500, body: JSON.stringify(unknownStatus(500, message)) };
}

/** upstream ErrorToAPIStatus for an error that is not a Status: code 500, no reason */
function unknownStatus(code: number, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
}

function writeErrorResponse(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const { code, body } = statusBody(error);
  response.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-cache, private' });
  response.end(body);
}

function writeResult(request: IncomingMessage, response: ServerResponse, result: ProxyResult): void {
  if (result.kind === 'redirect') {
    request.resume();
    response.writeHead(301, { Location: result.location, 'Content-Length': '0', 'Cache-Control': 'no-cache, private' });
    response.end();
    return;
  }
  const headers: OutgoingHttpHeaders = {};
  for (const [name, values] of Object.entries(result.headers)) headers[name] = values.length === 1 ? values[0] : values;
  headers['cache-control'] ??= 'no-cache, private';
  response.writeHead(result.status, headers);
  if (Buffer.isBuffer(result.body)) {
    response.end(result.body);
    return;
  }
  const body = result.body;
  body.on('error', () => response.destroy());
  response.on('close', () => {
    if (!body.destroyed) body.destroy();
  });
  body.pipe(response);
}

// ---- upgrades -------------------------------------------------------------------------------

async function serveUpgrade(options: ProxyOptions, target: ProxyPath, url: URL, request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
  const method = (request.method ?? 'GET').toUpperCase();
  if (!PROXY_METHODS.has(method)) throw ApiError.methodNotAllowed();
  const location = resolveProxyLocation(options.lookup, target.kind, target.namespace, target.id, options.random);
  let backend: Socket;
  try {
    backend = await openBackend(options.dialer, location);
  } catch (error) {
    throw new Error(`error dialing backend: ${goErrorText(error, location)}`);
  }
  if (client.destroyed) {
    backend.destroy();
    return;
  }
  backend.write(upgradeRequestHead(method, backendPathOf(target.rest) + url.search, request));
  if (head.length > 0) backend.write(head);
  const responseHead = await readResponseHead(backend).catch((error: unknown) => {
    backend.destroy();
    throw error;
  });
  if (responseHead.status !== 101 && responseHead.status < 400) {
    backend.destroy();
    throw new Error(`invalid upgrade response: status code ${responseHead.status}`);
  }
  client.write(responseHead.bytes);
  closeTogether(backend, client);
  backend.pipe(client);
  backend.resume();
  // a refusal (>= 400) is passed on as the backend wrote it and then the connection ends
  if (responseHead.status === 101) client.pipe(backend);
}

function upgradeRequestHead(method: string, path: string, request: IncomingMessage): string {
  const lines = [`${method} ${path} HTTP/1.1`];
  let forwardedFor: string | undefined;
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index].toLowerCase();
    if (CREDENTIALS.has(name) || name.startsWith('impersonate-')) continue;
    if (name === 'x-forwarded-for') {
      forwardedFor = forwardedFor === undefined ? raw[index + 1] : `${forwardedFor}, ${raw[index + 1]}`;
      continue;
    }
    lines.push(`${raw[index]}: ${raw[index + 1]}`);
  }
  const remote = request.socket.remoteAddress;
  if (remote) forwardedFor = forwardedFor === undefined ? clientIp(remote) : `${forwardedFor}, ${clientIp(remote)}`;
  if (forwardedFor !== undefined) lines.push(`X-Forwarded-For: ${forwardedFor}`);
  return lines.join('\r\n') + '\r\n\r\n';
}

function readResponseHead(socket: Socket): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_UPGRADE_RESPONSE_HEAD) {
          cleanup();
          reject(new Error('net/http: response header too large'));
        }
        return;
      }
      cleanup();
      socket.pause();
      const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(buffered.subarray(0, Math.min(end, 64)).toString('latin1'));
      if (!statusLine) {
        reject(new Error('malformed HTTP response'));
        return;
      }
      // bytes after the head (the first frames) go out with it
      resolve({ status: Number(statusLine[1]), bytes: buffered });
    };
    const onEnd = () => {
      cleanup();
      reject(new Error(buffered.length === 0 ? 'EOF' : 'unexpected EOF'));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

function writeSocketError(socket: Duplex, error: unknown): void {
  const { code, body } = statusBody(error);
  socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
