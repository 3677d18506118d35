// The UI relay (docs/architecture.md, "Other clusters: the UI relay"): the web UI, signed in to the
// cluster that serves it, reaches every other context of the user's kubeconfig through this
// server, which holds the contexts' credentials in the main process and never hands one to the
// page. Routes, all for the UI's session only (a bearer token — kubectl — gets 403: the relay is
// never an open proxy), with this server's Origin on every write and WebSocket:
//   GET  /ui/clusters                    the contexts, the serving cluster always among them (self)
//   ANY  /ui/clusters/<ctx>/<api path>   the request on the context's server, streamed both ways
//   GET  /ui/clusters/<ctx>/-/status     /version and SelfSubjectReview on the context
//   PUT  /ui/clusters/<ctx>/-/settings   {"readOnly": boolean}, kept in <data dir>/ui-clusters.json
// WebSocket upgrades (watch, logs, exec, portforward) are relayed by forwarding the handshake with
// the client's subprotocol offer and piping the two sockets once the server switched protocols,
// so every subprotocol (v5.channel.k8s.io, binary.k8s.io, …) passes unchanged. Headers pass
// through allow-lists both ways: cookies, Origin, Authorization, Impersonate-* and X-Remote-* of
// the browser never leave this process. A 401 is retried once when the connection says fresh
// credentials may help (client-go re-runs an exec plugin on 401 the same way).
import http from 'node:http';
import https from 'node:https';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError } from '../../apiserver/apiError';
import { bearerTokenOf, isOwnOrigin, sessionRequestRefusal, type Authenticator } from '../../apiserver/httpServer';
import { writeUpgradeRefusal } from '../../apiserver/websocketStreams';
import { MAX_BODY_BYTES } from '../../apiserver/content';
import { isRecord } from '../../../shared/kubernetes/types';
import { clientConfigOf, type ClientConfig, type MergedKubeconfig } from '../../remote/kubeconfig';
import type { ClusterConnection, ContextSummary } from '../../remote/clusterConnection';
import { KubeconfigSource } from './kubeconfigSource';
import { parseRelayPath, relayBasePath, type RelayRoute } from './relayPaths';
import { readOnlyRefusal } from './readOnly';
import { RelaySettings } from './relaySettings';
import { classifyFailure, connectionStateOf, relayFailureError, withFingerprint, type RelayFailure } from './relayFailures';
import { isPortForwardGroupPath, PORT_FORWARD_GROUP_VERSION_PATH, type PortForwardEmulation, type PortForwardEmulationFactory } from './portForwardHandOff';
import { readSmallBody, sendJson, sendStatus } from '../ui/uiReplies';
import type { ClusterEntry, ClusterStatus } from '../../../shared/clusters';
import { serverCertificate } from '../../remote';

export interface UiRelayOptions {
  /** the UI's sessions: the only way into the relay */
  sessions: Authenticator;
  /** this server's port (its own Origin is https://127.0.0.1:<port> or localhost) */
  port: () => number;
  /** this server's URL, for the serving cluster's entry when the kubeconfig has no context for it */
  selfServer: () => string;
  /** the serving cluster's context name (the one it writes into the kubeconfig) */
  selfContext: () => string;
  /** where ui-clusters.json lives */
  dataDir: string;
  /** the kubeconfig files, in kubectl's precedence order */
  kubeconfigFiles: readonly string[];
  /** reaches a context's cluster with its credentials */
  connectionFor: (config: ClientConfig) => ClusterConnection;
  /** the contexts as the UI may see them */
  listContexts: (merged: MergedKubeconfig) => ContextSummary[];
  /** serves PortForwards for clusters without kubedesk's own kind; without it such requests are relayed as they are */
  portForwardEmulation?: PortForwardEmulationFactory;
  /** how long a TCP connect may take before the cluster counts as unreachable (default 10 s) */
  connectTimeoutMs?: number;
  /** the read-only switches (default: read from dataDir), shared with whoever answers for the serving cluster before the relay loads */
  settings?: RelaySettings;
}

/** One entry of GET /ui/clusters. */
export type RelayCluster = ClusterEntry;

export type ConnectionStatus = ClusterStatus;

interface ContextEntry {
  /** the kubeconfig entries it was made from: a changed entry makes a new connection */
  key: string;
  /** the kubeconfig reading the key was last checked against */
  version: number;
  connection: ClusterConnection;
  /** the context's client configuration: the fingerprint of an untrusted certificate is read with it (through its proxy) */
  config: ClientConfig;
  /** whether the cluster serves kubedesk.dev/v1alpha1 (asked once) */
  servesPortForwards?: Promise<boolean>;
  emulation?: PortForwardEmulation;
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * request headers the relay passes on (user-agent is replaced); accept-encoding lets a cluster that
 * compresses large replies (kube-apiserver gzips those over 128 KiB for clients that accept it)
 * send the browser the compressed bytes through both hops
 */
const REQUEST_HEADERS = ['accept', 'accept-encoding', 'content-type', 'content-length', 'content-encoding'];
const UPGRADE_HEADERS = ['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-protocol', 'sec-websocket-extensions'];
/** response headers the relay passes back */
const RESPONSE_HEADERS = ['content-type', 'content-encoding', 'content-length', 'cache-control', 'vary', 'warning', 'audit-id'];
const SWITCH_HEADERS = ['upgrade', 'connection', 'sec-websocket-accept', 'sec-websocket-protocol', 'sec-websocket-extensions'];
const USER_AGENT = 'kubedesk-ui';
const MAX_SETTINGS_BODY_BYTES = 16 * 1024;
const PROBE_TIMEOUT_MS = 15_000;

export class UiRelay {
  private readonly kubeconfig: KubeconfigSource;
  private readonly settings: RelaySettings;
  private readonly entries = new Map<string, ContextEntry>();
  private closed = false;

  constructor(private readonly options: UiRelayOptions) {
    this.kubeconfig = new KubeconfigSource(options.kubeconfigFiles);
    this.settings = options.settings ?? new RelaySettings(options.dataDir);
  }

  /** Answers requests under /ui/clusters; false for every other path. */
  handleRequest(request: IncomingMessage, response: ServerResponse): boolean {
    const route = parseRelayPath(request.url ?? '/');
    if (route === undefined) return false;
    this.serve(request, response, route).catch((error: unknown) => {
      if (!response.headersSent) sendStatus(response, error instanceof ApiError ? error : ApiError.internal(`the relay failed: ${error instanceof Error ? error.message : String(error)}`));
      else response.destroy();
    });
    return true;
  }

  /** Takes WebSocket upgrades under /ui/clusters (before the API server authenticates them); false for other paths. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const route = parseRelayPath(request.url ?? '/');
    if (route === undefined) return false;
    socket.on('error', () => socket.destroy());
    this.serveUpgrade(request, socket, head, route).catch((error: unknown) => {
      writeUpgradeRefusal(socket, statusReply(error instanceof ApiError ? error : ApiError.internal(`the relay failed: ${error instanceof Error ? error.message : String(error)}`)));
    });
    return true;
  }

  /**
   * The read-only switch of the serving cluster itself, for requests the UI's session makes to
   * this server's own API (`path` without prefix): the 403 to answer, or undefined.
   */
  selfSessionRefusal(request: { method: string; path: string }): ApiError | undefined {
    const self = this.options.selfContext();
    return readOnlyRefusal(self, this.settings.readOnly(self), request.method, request.path);
  }

  dispose(): void {
    this.closed = true;
    for (const entry of this.entries.values()) closeEntry(entry);
    this.entries.clear();
  }

  /** GET /ui/clusters's body. */
  clusters(): { self: string; kubeconfigFiles: string[]; clusters: RelayCluster[]; error?: string } {
    const reading = this.kubeconfig.read();
    const self = this.options.selfContext();
    const summaries = this.options.listContexts(reading.merged);
    // the serving cluster first, then the contexts in kubectl's order (`kubectl config get-contexts`: by name)
    const others: RelayCluster[] = summaries.filter((summary) => summary.name !== self).map((summary) => this.entryOf(summary, false));
    const own = summaries.find((summary) => summary.name === self);
    const clusters = [this.entryOf(own ?? { name: self, cluster: self, user: self, server: this.options.selfServer(), insecure: false, authKind: 'token', current: false }, true), ...others];
    return { self, kubeconfigFiles: [...this.kubeconfig.files], clusters, ...(reading.error ? { error: reading.error } : {}) };
  }

  private entryOf(summary: ContextSummary, self: boolean): RelayCluster {
    return { ...summary, self, basePath: self ? '' : relayBasePath(summary.name), readOnly: this.settings.readOnly(summary.name) };
  }

  private async serve(request: IncomingMessage, response: ServerResponse, route: RelayRoute): Promise<void> {
    const method = request.method ?? 'GET';
    const refusal = this.accessRefusal(request, method, false);
    if (refusal) return refuse(request, response, refusal);
    switch (route.kind) {
      case 'refused':
        return refuse(request, response, ApiError.badRequest(route.message));
      case 'not-api':
        return refuse(request, response, new ApiError(404, 'NotFound', `the relay serves only the Kubernetes API's paths, not "${route.apiPath}"`));
      case 'list':
        if (method !== 'GET' && method !== 'HEAD') return refuse(request, response, ApiError.methodNotAllowed(), { Allow: 'GET, HEAD' });
        request.resume();
        return sendJson(response, 200, this.clusters());
      case 'status':
        if (method !== 'GET') return refuse(request, response, ApiError.methodNotAllowed(), { Allow: 'GET' });
        request.resume();
        return sendJson(response, 200, await this.status(route.context, request));
      case 'settings':
        return this.serveSettings(request, response, route.context);
      case 'api':
        return this.relay(request, response, route.context, route.apiPath, route.search);
    }
  }

  /** Only the UI's session; its Origin on writes and upgrades; never a bearer token. */
  private accessRefusal(request: IncomingMessage, method: string, upgrade: boolean): ApiError | undefined {
    if (bearerTokenOf(request.headers) !== undefined || request.headers.authorization !== undefined) {
      return new ApiError(403, 'Forbidden', 'forbidden: /ui/clusters serves only the kubedesk UI\'s session; kubectl and other clients reach a cluster with its own kubeconfig context');
    }
    if (!this.options.sessions.authenticate(request.headers)) return ApiError.unauthorized();
    if (upgrade || !SAFE_METHODS.has(method)) {
      const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
      if (origin === undefined) return new ApiError(403, 'Forbidden', 'forbidden: a request signed in with the UI session must carry an Origin header');
      if (!isOwnOrigin(origin, this.options.port())) return new ApiError(403, 'Forbidden', `forbidden: the UI session cannot be used from origin "${origin}"`);
    }
    return undefined;
  }

  private unknownContext(context: string): ApiError {
    return new ApiError(404, 'NotFound', `context "${context}" not found in the kubeconfig (${this.kubeconfig.files.join(', ')})`, { name: context, kind: 'contexts' });
  }

  private isKnown(context: string): boolean {
    return context === this.options.selfContext() || this.kubeconfig.read().merged.contexts.has(context);
  }

  /** The context's connection (kept while its kubeconfig entries stay the same), a 404, or why it cannot be made. */
  private connection(context: string): ContextEntry | ApiError | RelayFailure {
    const { merged, version } = this.kubeconfig.read();
    const current = this.entries.get(context);
    if (current && current.version === version) return current;
    const contextEntry = merged.contexts.get(context);
    if (!contextEntry) return this.unknownContext(context);
    const clusterName = typeof contextEntry.value.cluster === 'string' ? contextEntry.value.cluster : '';
    const userName = typeof contextEntry.value.user === 'string' ? contextEntry.value.user : '';
    const cluster = merged.clusters.get(clusterName);
    const user = merged.users.get(userName);
    const key = JSON.stringify([contextEntry.value, contextEntry.file, cluster?.value, cluster?.file, user?.value, user?.file]);
    const existing = this.entries.get(context);
    if (existing && existing.key === key) {
      existing.version = version;
      return existing;
    }
    if (existing) {
      closeEntry(existing);
      this.entries.delete(context);
    }
    let server: URL;
    try {
      server = new URL(typeof cluster?.value.server === 'string' ? cluster.value.server : '');
    } catch {
      server = new URL('https://invalid.invalid');
    }
    let config: ClientConfig;
    try {
      config = clientConfigOf(merged, { context });
      const connection = this.options.connectionFor(config);
      const entry: ContextEntry = { key, version, connection, config };
      if (!this.closed) this.entries.set(context, entry);
      return entry;
    } catch (error) {
      return classifyFailure(error, server);
    }
  }

  private async failureError(failure: RelayFailure, entry: ContextEntry | undefined): Promise<ApiError> {
    if (!entry) return relayFailureError(failure);
    return relayFailureError(await withFingerprint(failure, entry.connection.server, entry.config.tls.serverName, fingerprintProbe(entry.config)));
  }

  // ---- the HTTP relay ----

  private async relay(request: IncomingMessage, response: ServerResponse, context: string, apiPath: string, search: string): Promise<void> {
    const method = request.method ?? 'GET';
    const entry = this.connection(context);
    if (entry instanceof ApiError) return refuse(request, response, entry);
    if (!('connection' in entry)) return refuse(request, response, relayFailureError(entry));
    const refusal = sessionRequestRefusal({ method, path: apiPath, origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined, upgrade: false }, this.options.port()) ?? readOnlyRefusal(context, this.settings.readOnly(context), method, apiPath);
    if (refusal) return refuse(request, response, refusal);
    if (isPortForwardGroupPath(apiPath) && (await this.emulates(entry))) {
      const emulation = (entry.emulation ??= this.options.portForwardEmulation?.({ connection: entry.connection, context }));
      if (emulation) return emulation.handleRequest(request, response, apiPath, new URLSearchParams(search));
    }
    const headers = forwardedHeaders(request.headers, REQUEST_HEADERS);
    const body = new ReplayableBody(request);
    let retried = false;
    const attempt = async (): Promise<void> => {
      let options: RequestOptions;
      try {
        options = await entry.connection.requestOptions(method, apiPath + search, headers);
      } catch (error) {
        body.discard();
        return refuse(request, response, await this.failureError(classifyFailure(error, entry.connection.server), entry));
      }
      const upstream = this.send(entry.connection, options);
      response.on('close', () => {
        if (!response.writableFinished) upstream.destroy();
      });
      let superseded = false;
      upstream.on('error', (error) => {
        if (superseded) return;
        if (response.headersSent) {
          response.destroy();
          return;
        }
        body.discard();
        void this.failureError(classifyFailure(error, entry.connection.server), entry).then((failure) => {
          if (!response.headersSent && !response.destroyed) sendStatus(response, failure);
        });
      });
      upstream.on('response', (reply) => {
        if (reply.statusCode === 401 && !retried && body.replayable() && entry.connection.credentialsRejected()) {
          retried = true;
          superseded = true;
          reply.resume();
          // the first request may still wait for the rest of its body: it is done with
          upstream.destroy();
          void body.complete().then((complete) => {
            if (complete) return attempt();
            sendStatus(response, ApiError.unauthorized());
          });
          return;
        }
        response.writeHead(reply.statusCode ?? 502, { ...relayedResponseHeaders(reply.headers), 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" });
        // a stream (a watch, a followed log) shows its headers at once; a sized reply sends them with its first bytes
        if (reply.headers['content-length'] === undefined) response.flushHeaders();
        reply.on('error', () => response.destroy());
        reply.on('aborted', () => response.destroy());
        pipeCorked(reply, response);
      });
      body.sendTo(upstream);
    };
    await attempt();
  }

  private send(connection: ClusterConnection, options: RequestOptions): ClientRequest {
    const upstream = (connection.server.protocol === 'http:' ? http : https).request(options);
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    upstream.on('socket', (socket: Socket) => {
      socket.setNoDelay(true);
      if (!socket.connecting) return;
      const timer = setTimeout(() => upstream.destroy(Object.assign(new Error(`connect timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' })), timeoutMs);
      socket.once('connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    return upstream;
  }

  /** A small request on the context (probes), with the one 401 retry. */
  private async request(entry: ContextEntry, method: string, path: string, body?: unknown): Promise<Reply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: OutgoingHttpHeaders = { Accept: 'application/json', 'User-Agent': USER_AGENT, ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}) };
    for (let attempt = 0; ; attempt++) {
      const options = await entry.connection.requestOptions(method, path, headers);
      const reply = await new Promise<Reply>((resolve, reject) => {
        const upstream = this.send(entry.connection, options);
        const timer = setTimeout(() => upstream.destroy(Object.assign(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })), PROBE_TIMEOUT_MS);
        upstream.on('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
        upstream.on('response', (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            clearTimeout(timer);
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
          });
          response.on('error', reject);
        });
        upstream.end(payload);
      });
      if (reply.status === 401 && attempt === 0 && entry.connection.credentialsRejected()) continue;
      return reply;
    }
  }

  /** Whether the context's cluster lacks kubedesk's PortForward kind (asked once per connection). */
  private emulates(entry: ContextEntry): Promise<boolean> {
    if (!this.options.portForwardEmulation) return Promise.resolve(false);
    entry.servesPortForwards ??= this.request(entry, 'GET', PORT_FORWARD_GROUP_VERSION_PATH).then(
      (reply) => reply.status !== 404,
      () => {
        // unknown: ask again next time
        entry.servesPortForwards = undefined;
        return true;
      },
    );
    return entry.servesPortForwards.then((serves) => !serves);
  }

  // ---- the WebSocket relay ----

  private async serveUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, route: RelayRoute): Promise<void> {
    const refusal = this.accessRefusal(request, request.method ?? 'GET', true);
    if (refusal) return writeUpgradeRefusal(socket, statusReply(refusal));
    if (route.kind === 'refused') return writeUpgradeRefusal(socket, statusReply(ApiError.badRequest(route.message)));
    if (route.kind !== 'api') return writeUpgradeRefusal(socket, statusReply(new ApiError(400, 'BadRequest', 'upgrade is not supported for this path')));
    const { context, apiPath, search } = route;
    const upgrade = typeof request.headers.upgrade === 'string' ? request.headers.upgrade : '';
    if (request.method !== 'GET' || upgrade.toLowerCase() !== 'websocket') {
      return writeUpgradeRefusal(socket, statusReply(new ApiError(400, 'BadRequest', 'the relay passes on WebSocket upgrades only')));
    }
    const entry = this.connection(context);
    if (entry instanceof ApiError) return writeUpgradeRefusal(socket, statusReply(entry));
    if (!('connection' in entry)) return writeUpgradeRefusal(socket, statusReply(relayFailureError(entry)));
    const pathRefusal =
      sessionRequestRefusal({ method: 'GET', path: apiPath, origin: typeof request.headers.origin === 'string' ? request.headers.origin : undefined, upgrade: true }, this.options.port()) ??
      readOnlyRefusal(context, this.settings.readOnly(context), 'GET', apiPath);
    if (pathRefusal) return writeUpgradeRefusal(socket, statusReply(pathRefusal));
    if (isPortForwardGroupPath(apiPath) && (await this.emulates(entry))) {
      const emulation = (entry.emulation ??= this.options.portForwardEmulation?.({ connection: entry.connection, context }));
      if (emulation) return emulation.handleUpgrade(request, socket, head, apiPath, new URLSearchParams(search));
    }
    const headers: OutgoingHttpHeaders = { ...forwardedHeaders(request.headers, [...REQUEST_HEADERS, ...UPGRADE_HEADERS]), Connection: 'Upgrade', Upgrade: 'websocket' };
    let retried = false;
    const attempt = async (): Promise<void> => {
      let options: RequestOptions;
      try {
        options = await entry.connection.requestOptions('GET', apiPath + search, headers);
      } catch (error) {
        return writeUpgradeRefusal(socket, statusReply(await this.failureError(classifyFailure(error, entry.connection.server), entry)));
      }
      if (socket.destroyed) return;
      const upstream = this.send(entry.connection, options);
      const abandon = () => upstream.destroy();
      socket.once('close', abandon);
      upstream.on('error', (error) => {
        if (socket.destroyed) return;
        void this.failureError(classifyFailure(error, entry.connection.server), entry).then((failure) => writeUpgradeRefusal(socket, statusReply(failure)));
      });
      upstream.on('response', (reply) => {
        if (reply.statusCode === 401 && !retried && entry.connection.credentialsRejected()) {
          retried = true;
          socket.off('close', abandon);
          reply.resume();
          void attempt();
          return;
        }
        // the server refused the upgrade: its answer, as it gave it
        const chunks: Buffer[] = [];
        reply.on('data', (chunk: Buffer) => chunks.push(chunk));
        reply.on('error', () => socket.destroy());
        reply.on('end', () => {
          const replyHeaders = relayedResponseHeaders(reply.headers);
          delete replyHeaders['content-length'];
          writeUpgradeRefusal(socket, { status: reply.statusCode ?? 502, headers: { ...stringHeaders(replyHeaders), 'X-Content-Type-Options': 'nosniff' }, body: Buffer.concat(chunks) });
        });
      });
      upstream.on('upgrade', (reply, upstreamSocket, upstreamHead) => {
        socket.off('close', abandon);
        if (socket.destroyed) {
          upstreamSocket.destroy();
          return;
        }
        const lines = ['HTTP/1.1 101 Switching Protocols'];
        for (const name of SWITCH_HEADERS) {
          const value = reply.headers[name];
          if (typeof value === 'string') lines.push(`${switchHeaderName(name)}: ${value}`);
        }
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (upstreamHead.length > 0) socket.write(upstreamHead);
        if (head.length > 0) upstreamSocket.write(head);
        pipeSockets(socket, upstreamSocket);
      });
      upstream.end();
    };
    await attempt();
  }

  // ---- status and settings ----

  private async status(context: string, request: IncomingMessage): Promise<ConnectionStatus> {
    if (context === this.options.selfContext()) {
      const user = this.options.sessions.authenticate(request.headers);
      return { state: 'connected', message: 'the cluster serving this UI', ...(user ? { user: { username: user.name, groups: user.groups } } : {}), kubedesk: true, warnings: [] };
    }
    const entry = this.connection(context);
    if (entry instanceof ApiError) throw entry;
    if (!('connection' in entry)) return failureStatus(entry, []);
    const warnings = [...entry.connection.warnings];
    try {
      const version = await this.request(entry, 'GET', '/version');
      if (version.status === 401) return { state: 'unauthorized', message: `the server at ${entry.connection.server.host} does not accept the credentials of context "${context}" (401 Unauthorized)`, kubedesk: false, warnings };
      const [review, group] = await Promise.all([
        this.request(entry, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
        this.request(entry, 'GET', '/apis/history.kubedesk.dev'),
      ]);
      if (review.status === 401) return { state: 'unauthorized', message: `the server at ${entry.connection.server.host} does not accept the credentials of context "${context}" (401 Unauthorized)`, kubedesk: false, warnings };
      const user = userOf(review);
      if (!user) warnings.push(`the server did not say who you are (SelfSubjectReview answered ${review.status})`);
      const kubernetesVersion = gitVersionOf(version);
      return {
        state: 'connected',
        message: `connected to ${entry.connection.server.host}${kubernetesVersion ? ` (Kubernetes ${kubernetesVersion})` : ''}`,
        ...(user ? { user } : {}),
        kubedesk: group.status === 200,
        warnings,
      };
    } catch (error) {
      const failure = await withFingerprint(classifyFailure(error, entry.connection.server), entry.connection.server, entry.config.tls.serverName, fingerprintProbe(entry.config));
      return failureStatus(failure, warnings);
    }
  }

  private async serveSettings(request: IncomingMessage, response: ServerResponse, context: string): Promise<void> {
    const method = request.method ?? 'GET';
    if (method !== 'GET' && method !== 'PUT') return refuse(request, response, ApiError.methodNotAllowed(), { Allow: 'GET, PUT' });
    if (!this.isKnown(context)) return refuse(request, response, this.unknownContext(context));
    if (method === 'PUT') {
      const contentType = (typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : '').split(';')[0].trim().toLowerCase();
      if (contentType !== 'application/json') return refuse(request, response, ApiError.unsupportedMediaType(contentType || 'none'));
      const body = await readSmallBody(request, MAX_SETTINGS_BODY_BYTES);
      if (body === undefined) return sendStatus(response, new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_SETTINGS_BODY_BYTES}`));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (error) {
        return sendStatus(response, ApiError.badRequest(`the settings body is not JSON: ${error instanceof Error ? error.message : String(error)}`));
      }
      if (!isRecord(parsed) || typeof parsed.readOnly !== 'boolean') {
        const value = isRecord(parsed) ? JSON.stringify(parsed.readOnly ?? null) : JSON.stringify(parsed);
        const message = `readOnly: Invalid value: ${value}: must be true or false`;
        return sendStatus(response, new ApiError(422, 'Invalid', `cluster settings "${context}" is invalid: ${message}`, { name: context, kind: 'ClusterSettings', causes: [{ reason: 'FieldValueInvalid', message, field: 'readOnly' }] }));
      }
      this.settings.setReadOnly(context, parsed.readOnly);
    } else {
      request.resume();
    }
    const cluster = this.clusters().clusters.find((candidate) => candidate.name === context);
    if (!cluster) return sendStatus(response, this.unknownContext(context));
    sendJson(response, 200, cluster);
  }
}

function failureStatus(failure: RelayFailure, warnings: string[]): ConnectionStatus {
  return {
    state: connectionStateOf(failure),
    message: failure.message,
    ...(failure.fingerprint ? { fingerprint: failure.fingerprint } : {}),
    ...(failure.stderr ? { stderr: failure.stderr } : {}),
    kubedesk: false,
    warnings,
  };
}

function userOf(review: Reply): { username: string; groups: string[] } | undefined {
  if (review.status !== 200 && review.status !== 201) return undefined;
  const parsed = parseJson(review.body);
  const userInfo = isRecord(parsed) && isRecord(parsed.status) && isRecord(parsed.status.userInfo) ? parsed.status.userInfo : undefined;
  if (!userInfo || typeof userInfo.username !== 'string') return undefined;
  const groups = Array.isArray(userInfo.groups) ? userInfo.groups.filter((group): group is string => typeof group === 'string') : [];
  return { username: userInfo.username, groups };
}

function gitVersionOf(version: Reply): string | undefined {
  if (version.status !== 200) return undefined;
  const parsed = parseJson(version.body);
  return isRecord(parsed) && typeof parsed.gitVersion === 'string' ? parsed.gitVersion : undefined;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Reads an untrusted server's certificate fingerprint as the context connects (its proxy-url included). */
function fingerprintProbe(config: ClientConfig): () => Promise<string | undefined> {
  return () => serverCertificate(config, {}, 5_000).then(
    (certificate) => certificate.fingerprint.toUpperCase(),
    () => undefined,
  );
}

function closeEntry(entry: ContextEntry): void {
  entry.emulation?.close();
  entry.connection.close();
}

/** The allow-listed headers of a request, user-agent replaced. */
export function forwardedHeaders(headers: IncomingHttpHeaders, allowed: readonly string[]): OutgoingHttpHeaders {
  const forwarded: OutgoingHttpHeaders = { 'User-Agent': USER_AGENT };
  for (const name of allowed) {
    const value = headers[name];
    if (value !== undefined) forwarded[name] = value;
  }
  return forwarded;
}

/** The allow-listed headers of the server's reply. */
export function relayedResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const relayed: OutgoingHttpHeaders = {};
  for (const name of RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) relayed[name] = value;
  }
  return relayed;
}

function stringHeaders(headers: OutgoingHttpHeaders): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = Array.isArray(value) ? value.join(', ') : String(value);
  return result;
}

function switchHeaderName(name: string): string {
  return name === 'sec-websocket-accept' ? 'Sec-WebSocket-Accept' : name === 'sec-websocket-protocol' ? 'Sec-WebSocket-Protocol' : name === 'sec-websocket-extensions' ? 'Sec-WebSocket-Extensions' : name === 'upgrade' ? 'Upgrade' : 'Connection';
}

/**
 * Pipes a reply into the response, writing what arrived in one turn of the event loop as one
 * batch (one writev, one run of TLS records) instead of a syscall per TLS record read.
 */
/** How much of a reply may wait for a slow browser before the relay stops reading the cluster. */
const RELAY_BUFFER_BYTES = 4 * 1024 * 1024;

export function pipeCorked(reply: IncomingMessage, response: ServerResponse): void {
  let corked = false;
  const uncork = () => {
    corked = false;
    response.uncork();
  };
  reply.on('data', (chunk: Buffer) => {
    if (!corked) {
      corked = true;
      response.cork();
      setImmediate(uncork);
    }
    // a reply goes on while up to RELAY_BUFFER_BYTES wait for the browser: pausing at the socket's
    // 16 KiB mark would turn a 2.5 MB list into a hundred pause/drain round trips
    response.write(chunk);
    if (response.writableLength > RELAY_BUFFER_BYTES && !reply.isPaused()) {
      reply.pause();
      response.once('drain', () => reply.resume());
    }
  });
  reply.on('end', () => {
    if (corked) uncork();
    response.end();
  });
}

function pipeSockets(client: Duplex, server: Duplex): void {
  for (const socket of [client, server]) if ('setNoDelay' in socket && typeof socket.setNoDelay === 'function') (socket as Socket).setNoDelay(true);
  const close = () => {
    client.destroy();
    server.destroy();
  };
  client.on('error', close);
  server.on('error', close);
  client.on('close', close);
  server.on('close', close);
  server.pipe(client);
  client.pipe(server);
}

/**
 * A request body sent on as it arrives, with a copy kept (up to the API's own body limit) so the
 * one retry after a 401 can send it again.
 */
class ReplayableBody {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private overflow = false;
  private ended = false;
  private readonly hasBody: boolean;
  private readonly ending: Promise<void>;

  constructor(private readonly request: IncomingMessage) {
    const length = request.headers['content-length'];
    // HTTP/1.1: a request has a body only when it says so (RFC 9112 §6.3)
    this.hasBody = request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    this.ending = new Promise((resolve) => {
      request.once('end', () => {
        this.ended = true;
        resolve();
      });
      request.once('close', () => resolve());
    });
    request.pause();
  }

  /** Sends the body (the live stream the first time, the copy after) and ends the request. */
  sendTo(upstream: ClientRequest): void {
    if (!this.hasBody) {
      this.request.resume();
      upstream.end();
      return;
    }
    if (this.ended) {
      upstream.end(Buffer.concat(this.chunks));
      return;
    }
    this.request.on('data', (chunk: Buffer) => {
      if (!this.overflow) {
        this.size += chunk.length;
        if (this.size > MAX_BODY_BYTES) {
          this.overflow = true;
          this.chunks.length = 0;
        } else {
          this.chunks.push(chunk);
        }
      }
      if (!upstream.destroyed && !upstream.write(chunk)) {
        this.request.pause();
        upstream.once('drain', () => this.request.resume());
      }
    });
    this.request.once('end', () => {
      if (!upstream.destroyed) upstream.end();
    });
    this.request.resume();
  }

  replayable(): boolean {
    return !this.overflow;
  }

  /** Waits until the client sent everything; true when the copy holds all of it. */
  async complete(): Promise<boolean> {
    this.request.removeAllListeners('data');
    this.request.resume();
    if (!this.hasBody) return true;
    this.request.on('data', (chunk: Buffer) => {
      if (this.overflow) return;
      this.size += chunk.length;
      if (this.size > MAX_BODY_BYTES) {
        this.overflow = true;
        this.chunks.length = 0;
      } else {
        this.chunks.push(chunk);
      }
    });
    await this.ending;
    return this.ended && !this.overflow;
  }

  discard(): void {
    this.request.resume();
  }
}

function statusReply(error: ApiError): { status: number; headers: Record<string, string>; body: string } {
  return { status: error.code, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(error.toStatus()) };
}

function refuse(request: IncomingMessage, response: ServerResponse, error: ApiError, extraHeaders: Record<string, string> = {}): void {
  request.resume();
  sendStatus(response, error, extraHeaders);
}



