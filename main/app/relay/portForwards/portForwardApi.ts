// The HTTP face of the emulated PortForward kind (kubedesk.dev/v1alpha1) for one context: the
// paths the UI uses against kubedesk's own API server, answered from the in-memory store —
// discovery (`/apis/kubedesk.dev/v1alpha1`, short name pf), list (limit/continue, label and field
// selectors, Table output for `Accept: …;as=Table`), get, create (the real kind's validation: 422
// Invalid with field paths), delete (preconditions, dryRun) and watch, as a chunked HTTP stream or
// a WebSocket of JSON text frames (upstream endpoints/handlers/watch.go). Selectors on a watch
// follow the watch cache: an object that stops matching is sent as DELETED, one that starts as ADDED.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { KubeObject, Status } from '../../../../shared/kubernetes/types';
import { isRecord } from '../../../../shared/kubernetes/types';
import { ApiError } from '../../../apiserver/apiError';
import { decodeBody, negotiate, requireObjectBody } from '../../../apiserver/content';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, validateFieldSelector } from '../../../apiserver/selectors';
import { parseIncludeObject, toTable } from '../../../apiserver/tables';
import { writeUpgradeRefusal } from '../../../apiserver/websocketStreams';
import { PORT_FORWARD_GROUP, PORT_FORWARD_KIND, PORT_FORWARD_RESOURCE, PORT_FORWARD_VERSION, portForwardResourceDef } from '../../../network/portForwards/portForwardResource';
import { PORT_FORWARD_API_VERSION, type PortForwardStore, type StoredEvent } from './portForwardStore';

const GROUP_PATH = `/apis/${PORT_FORWARD_GROUP}`;
const VERSION_PATH = `${GROUP_PATH}/${PORT_FORWARD_VERSION}`;
/** What the emulation serves; update and patch are not (the UI never edits a forward). */
export const EMULATED_VERBS = ['create', 'delete', 'get', 'list', 'watch'];
const MAX_BODY_BYTES = 3 * 1024 * 1024;
const definition = portForwardResourceDef();

export type Route =
  | { kind: 'group' }
  | { kind: 'resources' }
  | { kind: 'collection'; namespace?: string; watch: boolean }
  | { kind: 'object'; namespace: string; name: string; watch: boolean; subresource?: string };

/** The route of an API path under /apis/kubedesk.dev; undefined for a path the kind does not have. */
export function parseRoute(apiPath: string): Route | undefined {
  const path = apiPath.replace(/\/+$/, '');
  if (path === GROUP_PATH) return { kind: 'group' };
  if (path === VERSION_PATH) return { kind: 'resources' };
  if (!path.startsWith(`${VERSION_PATH}/`)) return undefined;
  let segments: string[];
  try {
    segments = path.slice(VERSION_PATH.length + 1).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const watch = segments[0] === 'watch';
  if (watch) segments = segments.slice(1);
  if (segments.length === 1 && segments[0] === PORT_FORWARD_RESOURCE) return { kind: 'collection', watch };
  if (segments.length < 3 || segments[0] !== 'namespaces' || segments[1] === '' || segments[2] !== PORT_FORWARD_RESOURCE) return undefined;
  const namespace = segments[1];
  if (segments.length === 3) return { kind: 'collection', namespace, watch };
  if (segments[3] === '' || segments.length > 5) return undefined;
  if (segments.length === 5 && (watch || segments[4] !== 'status')) return undefined;
  return { kind: 'object', namespace, name: segments[3], watch, ...(segments.length === 5 ? { subresource: segments[4] } : {}) };
}

export function apiGroupDocument(): unknown {
  const version = { groupVersion: PORT_FORWARD_API_VERSION, version: PORT_FORWARD_VERSION };
  return { kind: 'APIGroup', apiVersion: 'v1', name: PORT_FORWARD_GROUP, versions: [version], preferredVersion: version };
}

export function apiResourceListDocument(): unknown {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: PORT_FORWARD_API_VERSION,
    resources: [{ name: PORT_FORWARD_RESOURCE, singularName: definition.singular, namespaced: true, kind: PORT_FORWARD_KIND, verbs: EMULATED_VERBS, shortNames: definition.shortNames }],
  };
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', { causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }] });
}

/** Label selector, field selector and namespace of a list or watch, as one predicate. */
export function objectFilter(query: URLSearchParams, namespace: string | undefined, name?: string): (object: KubeObject) => boolean {
  const labels = parseLabelSelector(query.get('labelSelector') ?? '');
  const fields = parseFieldSelector(query.get('fieldSelector') ?? '');
  validateFieldSelector(fields, new Set(['metadata.name', 'metadata.namespace', 'spec.target.kind', 'spec.target.name', 'status.phase']), PORT_FORWARD_KIND);
  return (object) => {
    if (namespace !== undefined && object.metadata.namespace !== namespace) return false;
    if (name !== undefined && object.metadata.name !== name) return false;
    const selectable = { 'metadata.name': object.metadata.name ?? '', 'metadata.namespace': object.metadata.namespace ?? '', ...definition.selectableFields(object) };
    return matchesLabels(labels, object.metadata.labels) && matchesFields(fields, selectable);
  };
}

/** What a watch with `matches` is told of a stored event (undefined: nothing). */
export function watchEventFor(event: StoredEvent, matches: (object: KubeObject) => boolean): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject } | undefined {
  const now = matches(event.object);
  if (event.type !== 'MODIFIED') return now ? { type: event.type, object: event.object } : undefined;
  const before = event.previous ? matches(event.previous) : now;
  if (now) return { type: before ? 'MODIFIED' : 'ADDED', object: event.object };
  return before ? { type: 'DELETED', object: event.object } : undefined;
}

function isTrue(value: string | null): boolean {
  return value === '1' || value === 'true';
}

function dryRunOf(query: URLSearchParams, options?: Record<string, unknown>): boolean {
  const values = [...query.getAll('dryRun'), ...(Array.isArray(options?.dryRun) ? options.dryRun.filter((item): item is string => typeof item === 'string') : [])];
  for (const value of values) if (value !== 'All') throw ApiError.badRequest(`dryRun: Unsupported value: "${value}": supported values: "All"`);
  return values.length > 0;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function headerText(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

interface Reply {
  status: number;
  body: unknown;
}

function statusOf(error: unknown): Status {
  if (error instanceof ApiError) return error.toStatus();
  return ApiError.internal(error instanceof Error ? error.message : String(error)).toStatus();
}

function encodeContinue(after: string): string {
  return Buffer.from(JSON.stringify({ after })).toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (isRecord(value) && typeof value.after === 'string') return value.after;
  } catch {
    // falls through to the error
  }
  throw ApiError.badRequest(`continue key is not valid: ${token}`);
}

interface OpenWatch {
  stop(): void;
}

export interface PortForwardApiOptions {
  now?: () => Date;
}

export class PortForwardApi {
  private readonly webSockets = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024, handleProtocols: () => false });
  private readonly watches = new Set<OpenWatch>();
  private readonly now: () => Date;

  constructor(
    private readonly store: PortForwardStore,
    options: PortForwardApiOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async handleRequest(request: IncomingMessage, response: ServerResponse, apiPath: string, query: URLSearchParams): Promise<void> {
    try {
      const route = parseRoute(apiPath);
      if (!route) throw notFoundPath();
      if (request.method === 'GET' && this.isWatch(route, query)) {
        this.serveHttpWatch(request, response, route, query);
        return;
      }
      const body = request.method === 'POST' || request.method === 'DELETE' || request.method === 'PUT' || request.method === 'PATCH' ? await readBody(request) : Buffer.alloc(0);
      const reply = this.answer(request.method ?? 'GET', route, query, request.headers, body);
      this.sendJson(response, reply.status, reply.body);
    } catch (error) {
      const status = statusOf(error);
      this.sendJson(response, status.code ?? 500, status);
    }
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, apiPath: string, query: URLSearchParams): void {
    let reply: Reply;
    try {
      const route = parseRoute(apiPath);
      if (!route) throw notFoundPath();
      if (request.method === 'GET' && this.isWatch(route, query)) {
        const start = this.prepareWatch(route, query);
        this.webSockets.handleUpgrade(request, socket, head, (webSocket) => this.serveWebSocketWatch(webSocket, start));
        return;
      }
      // an upgrade that is no watch gets the plain reply, which the client sees as a failed handshake
      reply = this.answer(request.method ?? 'GET', route, query, request.headers, Buffer.alloc(0));
    } catch (error) {
      const status = statusOf(error);
      reply = { status: status.code ?? 500, body: status };
    }
    writeUpgradeRefusal(socket, { status: reply.status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(reply.body) });
  }

  /** Ends every open watch (the emulation is closing). */
  close(): void {
    for (const watch of [...this.watches]) watch.stop();
    this.watches.clear();
    for (const client of this.webSockets.clients) client.terminate();
    this.webSockets.close();
  }

  private isWatch(route: Route, query: URLSearchParams): boolean {
    if (route.kind !== 'collection' && route.kind !== 'object') return false;
    return route.watch || (route.kind === 'collection' && isTrue(query.get('watch')));
  }

  private answer(method: string, route: Route, query: URLSearchParams, headers: IncomingHttpHeaders, body: Buffer): Reply {
    if (route.kind === 'group' || route.kind === 'resources') {
      if (method !== 'GET') throw ApiError.methodNotAllowed();
      return { status: 200, body: route.kind === 'group' ? apiGroupDocument() : apiResourceListDocument() };
    }
    if (route.kind === 'collection') {
      if (method === 'GET') return { status: 200, body: this.list(route.namespace, query, headers) };
      if (method === 'POST' && route.namespace !== undefined) {
        const object = requireObjectBody(decodeBody(body, headerText(headers, 'content-type'), ['application/json', 'application/yaml']));
        const created = this.store.create(route.namespace, object, { dryRun: dryRunOf(query) });
        return { status: 201, body: created };
      }
      throw ApiError.methodNotAllowed();
    }
    if (route.subresource === 'status') {
      if (method !== 'GET') throw ApiError.methodNotAllowed();
      return { status: 200, body: this.store.get(route.namespace, route.name) };
    }
    if (method === 'GET') {
      const object = this.store.get(route.namespace, route.name);
      return { status: 200, body: this.shape([object], headers, query, object.metadata.resourceVersion ?? '', undefined, true) };
    }
    if (method === 'DELETE') {
      const options = body.length > 0 ? requireObjectBody(decodeBody(body, headerText(headers, 'content-type') ?? 'application/json', ['application/json', 'application/yaml'])) : {};
      const preconditions = isRecord(options.preconditions) ? options.preconditions : {};
      const deleted = this.store.delete(route.namespace, route.name, {
        uid: typeof preconditions.uid === 'string' ? preconditions.uid : undefined,
        resourceVersion: typeof preconditions.resourceVersion === 'string' ? preconditions.resourceVersion : undefined,
        dryRun: dryRunOf(query, options),
      });
      return { status: 200, body: deleted };
    }
    throw ApiError.methodNotAllowed();
  }

  private list(namespace: string | undefined, query: URLSearchParams, headers: IncomingHttpHeaders): unknown {
    const matches = objectFilter(query, namespace);
    const resourceVersion = this.store.resourceVersion();
    let items = this.store.list(namespace).filter(matches);
    const token = query.get('continue');
    if (token) {
      const after = decodeContinue(token);
      items = items.filter((object) => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}` > after);
    }
    const limit = Number(query.get('limit') ?? '0');
    let next: string | undefined;
    let remaining: number | undefined;
    if (Number.isInteger(limit) && limit > 0 && items.length > limit) {
      remaining = items.length - limit;
      items = items.slice(0, limit);
      const last = items[items.length - 1];
      next = encodeContinue(`${last.metadata.namespace ?? ''}/${last.metadata.name ?? ''}`);
    }
    return this.shape(items, headers, query, resourceVersion, next === undefined ? undefined : { continue: next, remainingItemCount: remaining }, false);
  }

  private shape(items: KubeObject[], headers: IncomingHttpHeaders, query: URLSearchParams, resourceVersion: string, more: { continue: string; remainingItemCount?: number } | undefined, single: boolean): unknown {
    const negotiated = negotiate(headerText(headers, 'accept'));
    if (negotiated.shape === 'table') {
      return toTable(definition, items, { includeObject: parseIncludeObject(query.get('includeObject')), listMeta: { resourceVersion, ...(more ?? {}) }, now: this.now(), tableVersion: negotiated.tableVersion });
    }
    if (single) return items[0];
    return { kind: `${PORT_FORWARD_KIND}List`, apiVersion: PORT_FORWARD_API_VERSION, metadata: { resourceVersion, ...(more ?? {}) }, items };
  }

  // ---------------------------------------------------------------- watch

  private prepareWatch(route: Route, query: URLSearchParams): WatchPlan {
    if (route.kind !== 'collection' && route.kind !== 'object') throw notFoundPath();
    const matches = route.kind === 'object' ? objectFilter(query, route.namespace, route.name) : objectFilter(query, route.namespace);
    const timeoutText = query.get('timeoutSeconds');
    const timeoutSeconds = timeoutText === null || timeoutText === '' ? 0 : Number(timeoutText);
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0) throw ApiError.badRequest(`timeoutSeconds: Invalid value: "${timeoutText ?? ''}": must be a non-negative integer`);
    const initialEvents = query.get('sendInitialEvents');
    return {
      matches,
      resourceVersion: isTrue(initialEvents) ? '' : (query.get('resourceVersion') ?? ''),
      initialEventsEnd: isTrue(initialEvents) && isTrue(query.get('allowWatchBookmarks')),
      timeoutMs: timeoutSeconds * 1000,
    };
  }

  /** Starts a watch: replays, then follows the store until the timeout or `stop`. */
  private startWatch(plan: WatchPlan, send: (line: string) => void, end: () => void): OpenWatch {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const emit = (event: StoredEvent) => {
      const shown = watchEventFor(event, plan.matches);
      if (shown) send(JSON.stringify(shown) + '\n');
    };
    const unsubscribe = this.store.subscribe((event) => {
      if (!stopped) emit(event);
    });
    const watch: OpenWatch = {
      stop: () => {
        if (stopped) return;
        stopped = true;
        unsubscribe();
        if (timer) clearTimeout(timer);
        this.watches.delete(watch);
        end();
      },
    };
    this.watches.add(watch);
    const start = this.store.watchStart(plan.resourceVersion);
    if ('expired' in start) {
      const status = ApiError.expired(start.expired).toStatus();
      send(JSON.stringify({ type: 'ERROR', object: status }) + '\n');
      watch.stop();
      return watch;
    }
    for (const event of start.events) emit(event);
    if (plan.initialEventsEnd) {
      const bookmark = { kind: PORT_FORWARD_KIND, apiVersion: PORT_FORWARD_API_VERSION, metadata: { resourceVersion: this.store.resourceVersion(), annotations: { 'k8s.io/initial-events-end': 'true' } } };
      send(JSON.stringify({ type: 'BOOKMARK', object: bookmark }) + '\n');
    }
    if (plan.timeoutMs > 0) timer = setTimeout(() => watch.stop(), plan.timeoutMs);
    return watch;
  }

  private serveHttpWatch(request: IncomingMessage, response: ServerResponse, route: Route, query: URLSearchParams): void {
    const plan = this.prepareWatch(route, query);
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    const watch = this.startWatch(
      plan,
      (line) => {
        if (!response.destroyed) response.write(line);
      },
      () => {
        if (!response.destroyed && !response.writableEnded) response.end();
      },
    );
    request.on('close', () => watch.stop());
    response.on('close', () => watch.stop());
  }

  private serveWebSocketWatch(webSocket: WebSocket, plan: WatchPlan): void {
    const watch = this.startWatch(
      plan,
      (line) => {
        if (webSocket.readyState === webSocket.OPEN) webSocket.send(line);
      },
      () => {
        if (webSocket.readyState === webSocket.OPEN) webSocket.close(1000);
      },
    );
    webSocket.on('close', () => watch.stop());
    webSocket.on('error', () => watch.stop());
  }

  private sendJson(response: ServerResponse, status: number, body: unknown): void {
    if (response.headersSent) {
      response.end();
      return;
    }
    const text = JSON.stringify(body);
    response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), 'Cache-Control': 'no-cache, private' });
    response.end(text);
  }
}

interface WatchPlan {
  matches: (object: KubeObject) => boolean;
  resourceVersion: string;
  initialEventsEnd: boolean;
  timeoutMs: number;
}
