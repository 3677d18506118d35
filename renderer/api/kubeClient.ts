// The UI's Kubernetes client: REST calls and watches against the API server that serves the UI,
// on the same origin — or, under a base path (`/ui/clusters/<context>`), against another
// kubeconfig context through the serving cluster's relay, which adds that context's credentials. The session cookie authenticates (the server checks Origin on writes and
// WebSocket upgrades), so no token lives in the page. Watches run over WebSocket, as the API
// server allows for any watch (upstream endpoints/handlers/watch.go), so many of them do not use
// up the browser's six HTTP/1.1 connections per host.
import type { KubeList, KubeObject, Status, StatusCause, WatchEvent } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';

/** A failed API call, carrying the Kubernetes Status (reason, field causes) when there was one. */
export class KubeApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: StatusCause[] = [],
  ) {
    super(message);
    this.name = 'KubeApiError';
  }

  /** the request that failed (a refused one is shown with its verb and resource) */
  request?: { method: string; path: string; query: string };

  static fromStatus(code: number, body: unknown): KubeApiError {
    if (isRecord(body) && body.kind === 'Status') {
      const status = body as unknown as Status;
      return new KubeApiError(status.code ?? code, status.reason ?? 'Unknown', status.message ?? `request failed (${code})`, status.details?.causes ?? []);
    }
    return new KubeApiError(code, code === 401 ? 'Unauthorized' : 'Unknown', typeof body === 'string' && body ? body : `request failed (${code})`);
  }
}

/** The server could not be reached at all (fetch rejected: refused, reset, offline). */
export class ConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

/** True for failures that mean "the server is not there" rather than an answer from it. */
export function isConnectionFailure(error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof KubeApiError && (error.code === 502 || error.code === 503 || error.code === 504));
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** the Accept header (default application/json): aggregated discovery, PartialObjectMetadataList */
  accept?: string;
}

export interface ListPage<T extends KubeObject = KubeObject> {
  items: T[];
  resourceVersion: string;
  continueToken?: string;
}

export interface WatchHandlers {
  onEvent(event: WatchEvent): void;
  /**
   * The stream ended (closed by the server, network, or an error frame); `gone` = 410, relist
   * needed; `opened` = false when the connection never got established.
   */
  onClose(reason: { gone: boolean; message?: string; opened?: boolean; unauthorized?: boolean }): void;
}

export interface WatchHandle {
  close(): void;
}

/** What the UI needs from a cluster; the store and views depend on this, tests give a fake. */
export interface KubeClient {
  get<T = KubeObject>(path: string, options?: RequestOptions): Promise<T>;
  list<T extends KubeObject = KubeObject>(path: string, options?: RequestOptions & { limit?: number; continueToken?: string; labelSelector?: string; fieldSelector?: string }): Promise<ListPage<T>>;
  create<T = KubeObject>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
  replace<T = KubeObject>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
  patch<T = KubeObject>(path: string, body: unknown, type: PatchType, options?: RequestOptions): Promise<T>;
  delete<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  /** Raw text (pod logs without follow). */
  text(path: string, options?: RequestOptions): Promise<string>;
  watch(path: string, resourceVersion: string, handlers: WatchHandlers): WatchHandle;
  /** A WebSocket to an API path (exec, attach, logs with follow, port-forward), same origin. */
  openSocket(path: string, query: URLSearchParams, protocols: string[]): WebSocket;
}

export function queryString(query: Record<string, string | undefined> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The client for the page's own origin, over fetch and WebSocket; every path goes under `basePath` ('' = the serving cluster). */
export class HttpKubeClient implements KubeClient {
  constructor(
    private readonly origin: string = globalThis.location?.origin ?? 'https://127.0.0.1',
    readonly basePath: string = '',
  ) {}

  async get<T>(path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.request('GET', path, undefined, undefined, options)) as T;
  }

  async list<T extends KubeObject>(path: string, options: RequestOptions & { limit?: number; continueToken?: string; labelSelector?: string; fieldSelector?: string } = {}): Promise<ListPage<T>> {
    const query = { ...options.query, limit: options.limit ? String(options.limit) : undefined, continue: options.continueToken, labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
    const list = (await this.request('GET', path, undefined, undefined, { ...options, query })) as KubeList<T>;
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '', continueToken: list.metadata?.continue || undefined };
  }

  async create<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return (await this.request('POST', path, JSON.stringify(body), 'application/json', options)) as T;
  }

  async replace<T>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return (await this.request('PUT', path, JSON.stringify(body), 'application/json', options)) as T;
  }

  async patch<T>(path: string, body: unknown, type: PatchType, options: RequestOptions = {}): Promise<T> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return (await this.request('PATCH', path, text, PATCH_CONTENT_TYPES[type], options)) as T;
  }

  async delete<T>(path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    return (await this.request('DELETE', path, body === undefined ? undefined : JSON.stringify(body), body === undefined ? undefined : 'application/json', options)) as T;
  }

  async text(path: string, options: RequestOptions = {}): Promise<string> {
    const response = await send(`${this.origin}${this.basePath}${path}${queryString(options.query)}`, { credentials: 'same-origin', signal: options.signal });
    const body = await response.text();
    if (!response.ok) throw withRequest(KubeApiError.fromStatus(response.status, parseJson(body) ?? body), 'GET', path, options.query);
    return body;
  }

  watch(path: string, resourceVersion: string, handlers: WatchHandlers): WatchHandle {
    const query = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true' });
    if (resourceVersion) query.set('resourceVersion', resourceVersion);
    const socket = this.openSocket(path, query, []);
    let closed = false;
    let opened = false;
    const finish = (reason: { gone: boolean; message?: string; unauthorized?: boolean }) => {
      if (closed) return;
      closed = true;
      handlers.onClose({ ...reason, opened });
    };
    socket.onopen = () => {
      opened = true;
    };
    socket.onmessage = (message: MessageEvent) => {
      if (typeof message.data !== 'string') return;
      const event = parseJson(message.data);
      if (!isRecord(event) || typeof event.type !== 'string') return;
      if (event.type === 'ERROR') {
        const status = isRecord(event.object) ? event.object : {};
        finish({ gone: status.code === 410, unauthorized: status.code === 401, message: typeof status.message === 'string' ? status.message : 'watch error' });
        socket.close();
        return;
      }
      handlers.onEvent(event as unknown as WatchEvent);
    };
    socket.onerror = () => finish({ gone: false, message: 'connection error' });
    socket.onclose = () => finish({ gone: false });
    return {
      close() {
        closed = true;
        socket.close();
      },
    };
  }

  openSocket(path: string, query: URLSearchParams, protocols: string[]): WebSocket {
    const base = this.origin.replace(/^http/, 'ws');
    const text = query.toString();
    return new WebSocket(`${base}${this.basePath}${path}${text ? `?${text}` : ''}`, protocols);
  }

  private async request(method: string, path: string, body: string | undefined, contentType: string | undefined, options: RequestOptions): Promise<unknown> {
    const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
    if (contentType) headers['Content-Type'] = contentType;
    const response = await send(`${this.origin}${this.basePath}${path}${queryString(options.query)}`, { method, headers, body, credentials: 'same-origin', signal: options.signal });
    const text = await response.text();
    const parsed = parseJson(text);
    if (!response.ok) throw withRequest(KubeApiError.fromStatus(response.status, parsed ?? text), method, path, options.query);
    return parsed;
  }
}

function withRequest(error: KubeApiError, method: string, path: string, query: RequestOptions['query']): KubeApiError {
  error.request = { method, path, query: queryString(query).slice(1) };
  return error;
}

/** fetch, with a rejection (nothing answered) turned into a ConnectionError; aborts stay aborts. */
async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw new ConnectionError(`the cluster did not answer (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The JSON in a reply's text, or undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
