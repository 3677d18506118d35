// The HTTPS front of the API server: TLS on loopback, authentication in upstream's order
// (staging/src/k8s.io/apiserver/pkg/authentication: a bearer token, here also the UI's session
// cookie, then the anonymous authenticator): a credential that does not authenticate is a 401, a
// request without one is system:anonymous in system:unauthenticated, which RBAC lets see only the
// health and version endpoints (system:public-info-viewer) and refuses the rest with 403. Then
// authorization, body size limits, and streaming of watch replies (headers flushed at once, one JSON event per
// line — kubectl wait hangs otherwise). Upgrade requests (exec, attach, port-forward) are passed to
// registered upgrade handlers; other WebSocket GETs on API paths get the API's reply as frames
// (watches, logs: websocketStreams.ts), as upstream's apiserver serves them.
// The web UI signs in with a session cookie instead of a bearer token. Browsers send cookies on
// requests other sites start, so a cookie-authenticated request that changes state, and every
// cookie-authenticated WebSocket (which the same-origin policy does not guard), must carry this
// server's own Origin; no CORS headers are ever sent, so other origins cannot read replies.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { rmSync } from 'node:fs';
import { ApiError } from './apiError';
import { MAX_BODY_BYTES } from './content';
import { servingTlsOptions } from './pki';
import { gzipBody, shouldCompress } from './responseCompression';
import { certificateIdentity } from './auth/clientCertificates';
import type { ApiServer } from './apiServer';
import type { ApiRequest, ApiResponse, ApiStreamReply, ApiWatchReply } from './handlers/request';
import { errorReply } from './handlers/replies';
import { WebSocketReplies, isWebSocketRequest, startBatchedWatch, writeUpgradeRefusal } from './websocketStreams';

export interface UserInfo {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

export interface Authenticator {
  authenticate(headers: IncomingMessage['headers']): UserInfo | undefined;
  /**
   * Whether the request carries this kind of credential at all (valid or not): one that does not
   * authenticate is then refused with 401 instead of the request going on as anonymous.
   */
  presents?(headers: IncomingMessage['headers']): boolean;
}

/** upstream's anonymous authenticator's user (--anonymous-auth, on by default) */
export const ANONYMOUS_USER: Readonly<UserInfo> = Object.freeze({ name: 'system:anonymous', groups: ['system:unauthenticated'] });

/**
 * The bearer token of a request as upstream's bearertoken authenticator reads it: `Authorization`
 * trimmed, split on spaces, scheme `bearer` in any case and a non-empty second part. Anything else
 * (no header, Basic, an empty token) is no token at all.
 */
export function bearerTokenOf(headers: IncomingMessage['headers']): string | undefined {
  const header = typeof headers.authorization === 'string' ? headers.authorization.trim() : '';
  if (header === '') return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer, user: UserInfo) => boolean;

export interface HttpServerOptions {
  api: ApiServer;
  authenticator: Authenticator;
  cert: string;
  key: string;
  /**
   * The CA whose client certificates authenticate (upstream --client-ca-file): the subject's CN is
   * the user, its Organizations the groups (auth/clientCertificates.ts). Without it no certificate is asked for.
   */
  clientCertificateAuthority?: string;
  host?: string;
  port: number;
  isReady: () => boolean;
  /** other same-origin routes (the UI) tried before the API, unauthenticated: they do their own checks */
  staticHandler?: (request: IncomingMessage, response: ServerResponse) => boolean;
  /** impersonation and authorization after authentication (auth/requestAuthorization.ts); without it every authenticated user may do anything */
  authorization?: { admit(request: IncomingMessage, user: UserInfo, url?: URL): UserInfo };
  /**
   * Requests without credentials go on as system:anonymous (upstream --anonymous-auth) for the
   * authorizer to judge; only with `authorization` set. Otherwise they are refused with 401.
   */
  anonymous?: boolean;
  /**
   * Browser sessions (the UI's cookie), tried when the bearer-token authenticator does not know the
   * request. Such requests must come from this server's own origin (sessionRequestRefusal).
   */
  sessionAuthenticator?: Authenticator;
  /**
   * Upgrades of same-origin routes that authenticate for themselves (the UI's relay to other
   * clusters), tried before authentication as staticHandler is for plain requests; returns true
   * when it took the socket.
   */
  staticUpgradeHandler?: (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /**
   * A further rule for requests the UI's session makes (the serving cluster's read-only switch):
   * the error to answer, or undefined to go on. `path` has no query.
   */
  sessionGuard?: (request: { method: string; path: string; upgrade: boolean }) => ApiError | undefined;
}

/** Methods that do not change state: a cookie-authenticated request with one of them needs no Origin. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The API server's proxy subresources, which serve whatever a pod answers. */
const PROXY_PATH = /^\/api\/v1\/(?:namespaces\/[^/]+\/)?(?:pods|services|nodes)\/[^/]+\/proxy(?:\/|$)/;

/** True when `origin` is exactly this server's own origin as a browser names it. */
export function isOwnOrigin(origin: string | undefined, port: number): boolean {
  return origin === `https://127.0.0.1:${port}` || origin === `https://localhost:${port}`;
}

/**
 * Why a request authenticated by the session cookie is refused, or undefined when it may go on:
 * state-changing methods and every upgrade need this server's Origin (a missing one too, since
 * browsers always send it on those), and the proxy subresources are closed to sessions because
 * they would serve a pod's pages — and scripts — on the UI's own origin.
 */
export function sessionRequestRefusal(request: { method: string; path: string; origin: string | undefined; upgrade: boolean }, port: number): ApiError | undefined {
  if (request.upgrade || !SAFE_METHODS.has(request.method)) {
    if (request.origin === undefined) return new ApiError(403, 'Forbidden', 'forbidden: a request signed in with the UI session must carry an Origin header');
    if (!isOwnOrigin(request.origin, port)) return new ApiError(403, 'Forbidden', `forbidden: the UI session cannot be used from origin "${request.origin}"`);
  }
  if (PROXY_PATH.test(request.path)) return new ApiError(403, 'Forbidden', 'forbidden: the API server proxy is not available to UI sessions; use a bearer token (kubectl proxy) or port-forward');
  return undefined;
}

const HEALTH_PATHS = new Set(['/healthz', '/livez', '/readyz']);

function isHealthPath(path: string): boolean {
  return HEALTH_PATHS.has(path) || path.startsWith('/livez/') || path.startsWith('/readyz/') || path.startsWith('/healthz/');
}
const MAX_WATCH_BUFFER = 64 * 1024 * 1024;

/** `user` is who the request acts as, after authentication, impersonation and RBAC on the request. */
export type RawRequestHandler = (request: IncomingMessage, response: ServerResponse, user: UserInfo) => boolean;

export class HttpServer {
  private readonly server: https.Server;
  private readonly upgradeHandlers: UpgradeHandler[] = [];
  private readonly sockets = new Set<Duplex>();
  private readonly unixServers: NetServer[] = [];
  private readonly requestHandlers: RawRequestHandler[] = [];
  private readonly webSocketReplies = new WebSocketReplies({ maxWatchBufferBytes: MAX_WATCH_BUFFER });

  constructor(private readonly options: HttpServerOptions) {
    const clientCertificates = options.clientCertificateAuthority ? { ca: options.clientCertificateAuthority, requestCert: true, rejectUnauthorized: false } : {};
    this.server = https.createServer({ ...servingTlsOptions, ...clientCertificates, cert: options.cert, key: options.key, keepAlive: true, keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (request, response) => {
      this.onRequest(request, response).catch((error: unknown) => {
        console.error('kubedesk: request failed:', error);
        if (!response.headersSent) writeReply(response, errorReply(error));
        else response.destroy();
      });
    });
    this.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(request, socket, head));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('tlsClientError', () => undefined);
    this.server.on('clientError', (_error, socket) => socket.destroy());
  }

  addUpgradeHandler(handler: UpgradeHandler): void {
    this.upgradeHandlers.push(handler);
  }

  /**
   * A handler that takes an authenticated request before its body is read (the service and pod
   * proxy streams bodies of any size); returns true when it handled the request.
   */
  addRequestHandler(handler: RawRequestHandler): void {
    this.requestHandlers.push(handler);
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host ?? '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Serves the same API (TLS, same authentication) on a unix socket too. Pods reach the API server
   * through it (the `kubernetes` Service's backend in kd-netd), so the TCP listener can stay on
   * loopback. A stale socket file from a killed process is replaced.
   */
  async listenUnix(path: string): Promise<void> {
    rmSync(path, { force: true });
    const unixServer = createNetServer((socket) => this.server.emit('connection', socket));
    await new Promise<void>((resolve, reject) => {
      unixServer.once('error', reject);
      unixServer.listen(path, () => {
        unixServer.off('error', reject);
        resolve();
      });
    });
    this.unixServers.push(unixServer);
  }

  async close(): Promise<void> {
    for (const unixServer of this.unixServers.splice(0)) unixServer.close();
    this.webSocketReplies.closeAll();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const path = url.pathname;
    if (this.options.staticHandler?.(request, response)) return;
    const authenticated = this.authenticate(request, path, false);
    if (authenticated instanceof ApiError) {
      request.resume();
      writeReply(response, errorReply(authenticated));
      return;
    }
    let user: UserInfo;
    try {
      user = this.options.authorization ? this.options.authorization.admit(request, authenticated, url) : authenticated;
    } catch (error) {
      request.resume();
      writeReply(response, errorReply(error));
      return;
    }
    if (isHealthPath(path)) {
      request.resume();
      return this.health(path, url.searchParams, response);
    }
    for (const handler of this.requestHandlers) if (handler(request, response, user)) return;
    const body = await readBody(request);
    if (body === 'too-large') {
      writeReply(response, errorReply(new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`)));
      return;
    }
    const apiRequest: ApiRequest = { method: request.method ?? 'GET', path, query: url.searchParams, headers: flattenHeaders(request.headers), body, user };
    if (user !== authenticated) apiRequest.impersonator = authenticated.name;
    const reply: ApiResponse = await this.options.api.handle(apiRequest);
    if ('watch' in reply) streamWatch(request, response, reply);
    else if ('stream' in reply) streamBody(response, reply);
    else await writeReply(response, reply, request.headers['accept-encoding']);
  }

  private health(path: string, query: URLSearchParams, response: ServerResponse): void {
    const ready = path.startsWith('/readyz') ? this.options.isReady() : true;
    const name = path.split('/')[1];
    let text = ready ? 'ok' : `[-]ready failed: reason withheld\n${name} check failed`;
    if (query.has('verbose')) text = `[+]ping ok\n[+]etcd ok\n[${ready ? '+' : '-'}]informer-sync ${ready ? 'ok' : 'failed'}\n${name} check ${ready ? 'passed' : 'failed'}\n`;
    response.writeHead(ready ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    response.end(text);
  }

  /**
   * A verified client certificate first (upstream's union runs x509 before the tokens), then the
   * bearer token (kubectl, pods), else the UI's session cookie, which must also pass
   * sessionRequestRefusal; a request that carries neither is anonymous when that is allowed.
   * Returns the error to answer when the request may not go on.
   */
  private authenticate(request: IncomingMessage, path: string, upgrade: boolean): UserInfo | ApiError {
    const { authenticator, sessionAuthenticator } = this.options;
    const byCertificate = this.options.clientCertificateAuthority ? certificateIdentity(request.socket) : undefined;
    if (byCertificate && 'user' in byCertificate) return byCertificate.user;
    const byToken = authenticator.authenticate(request.headers);
    if (byToken) return byToken;
    const bySession = sessionAuthenticator?.authenticate(request.headers);
    if (bySession) {
      const origin = request.headers.origin;
      const method = request.method ?? 'GET';
      const refusal = sessionRequestRefusal({ method, path, origin: typeof origin === 'string' ? origin : undefined, upgrade }, this.port()) ?? this.options.sessionGuard?.({ method, path, upgrade });
      return refusal ?? bySession;
    }
    // a credential that does not authenticate fails the request (upstream's union authenticator fails on error)
    if (byCertificate || authenticator.presents?.(request.headers) || sessionAuthenticator?.presents?.(request.headers)) return ApiError.unauthorized();
    if (this.options.anonymous && this.options.authorization) return { name: ANONYMOUS_USER.name, groups: [...ANONYMOUS_USER.groups] };
    return ApiError.unauthorized();
  }

  private onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // a client reset after Node lets go of the upgraded socket must not become an uncaught error
    socket.on('error', () => socket.destroy());
    if (this.options.staticUpgradeHandler?.(request, socket, head)) return;
    const url = new URL(request.url ?? '/', 'https://localhost');
    const authenticated = this.authenticate(request, url.pathname, true);
    if (authenticated instanceof ApiError) {
      writeUpgradeRefusal(socket, errorReply(authenticated));
      return;
    }
    let user: UserInfo;
    try {
      user = this.options.authorization ? this.options.authorization.admit(request, authenticated, url) : authenticated;
    } catch (error) {
      writeUpgradeRefusal(socket, errorReply(error));
      return;
    }
    for (const handler of this.upgradeHandlers) if (handler(request, socket, head, user)) return;
    const path = url.pathname;
    if (isWebSocketRequest(request) && request.method === 'GET' && /^\/apis?(?:\/|$)/.test(path)) {
      const apiRequest: ApiRequest = { method: 'GET', path, query: url.searchParams, headers: flattenHeaders(request.headers), body: Buffer.alloc(0), user };
      this.options.api
        .handle(apiRequest)
        .then((reply) => this.webSocketReplies.serve(request, socket, head, reply, { plainBodyAsStream: /\/pods\/[^/]+\/log$/.test(path) }))
        .catch((error: unknown) => writeUpgradeRefusal(socket, errorReply(error)));
      return;
    }
    writeUpgradeRefusal(socket, errorReply(new ApiError(400, 'BadRequest', 'upgrade is not supported for this path')));
  }
}

function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  // node joins repeated headers itself, except set-cookie: most requests need no copy
  if (!Array.isArray(headers['set-cookie'])) return headers as Record<string, string | undefined>;
  const flat: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(headers)) flat[key] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}

function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Writes a whole reply; one over 128 KiB goes out gzipped when the request accepts it (responseCompression.ts). */
function writeReply(response: ServerResponse, reply: { status: number; headers: Record<string, string>; body: string | Buffer }, acceptEncoding?: string): void | Promise<void> {
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
  const cacheControl = reply.headers['Cache-Control'] ?? 'no-cache, private';
  if (acceptEncoding !== undefined && shouldCompress(acceptEncoding, reply.headers, body.length)) {
    return gzipBody(body).then((compressed) => {
      if (response.destroyed) return;
      response.writeHead(reply.status, { ...reply.headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding', 'Content-Length': String(compressed.length), 'Cache-Control': cacheControl });
      response.end(compressed);
    });
  }
  response.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(body.length), 'Cache-Control': cacheControl });
  response.end(body);
}

function streamWatch(request: IncomingMessage, response: ServerResponse, reply: ApiWatchReply): void {
  response.writeHead(200, { ...reply.headers, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  response.flushHeaders();
  // a turn's events go out as one chunk, one TLS record per watcher
  const stop = startBatchedWatch(reply, {
    write: (lines) => {
      response.write(lines.length === 1 ? lines[0] : lines.join(''));
      return response.writableLength <= MAX_WATCH_BUFFER;
    },
    end: () => response.end(),
  });
  request.on('close', stop);
  response.on('close', stop);
}

/** A streamed plain reply (pod logs): headers at once, chunks as they come, the source destroyed if the client leaves. */
function streamBody(response: ServerResponse, reply: ApiStreamReply): void {
  const { stream } = reply;
  response.writeHead(reply.status, { ...reply.headers, 'Cache-Control': reply.headers['Cache-Control'] ?? 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  response.flushHeaders();
  stream.on('error', () => response.destroy());
  response.on('close', () => {
    if (!stream.destroyed) stream.destroy();
  });
  stream.pipe(response);
}
