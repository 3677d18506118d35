// InProcessTransport: the client's Transport over a direct call into ApiServer.handle — same
// routing, admission, validation, resourceVersion and watch semantics as HTTPS, without sockets or
// TLS (in-process callers may use a fast transport with HTTP's semantics).
// A transport with a `user` acts as that user: each request passes the same authorization as an
// HTTPS request of an authenticated user (upstream's components authenticate with their own
// credentials). One without a user is the API server's own loopback client (upstream's
// system:apiserver in system:masters), used for bootstrap objects and the shared informers' cache.
import type { WatchEvent, WatchEventType } from '../../shared/kubernetes/types';
import type { ApiRequest, ApiServer } from '../apiserver/apiServer';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from '../client/transport';
import { ClientApiError, statusFromResponse } from '../client/errors';
import type { RequestAuthorization } from '../apiserver/auth/requestAuthorization';
import { ApiError } from '../apiserver/apiError';

const MAX_STREAM_BYTES = 16 * 1024 * 1024;

export interface InProcessTransportOptions {
  /** sent as User-Agent: the API server names field managers after it (kube-controller-manager, kubelet…) */
  userAgent?: string;
  /** who the requests act as; absent = the API server's privileged loopback identity */
  user?: { username: string; groups: string[]; uid?: string };
  /** checks each request of `user` (impersonation, RBAC) as for HTTPS; required with `user` */
  authorization?: RequestAuthorization;
  /** told about each denied request, so a component missing a permission is visible in the log */
  onForbidden?: (message: string) => void;
}

type Admitted = { user: ApiRequest['user'] } | { denied: ApiError };

export class InProcessTransport implements Transport {
  constructor(
    private readonly api: ApiServer,
    private readonly options: InProcessTransportOptions = {},
  ) {}

  /** The user a request acts as once authorization passes, or the 403 to answer. */
  private admit(method: string, path: string, query: URLSearchParams, headers: Record<string, string>): Admitted {
    const { user, authorization } = this.options;
    if (!user) return { user: undefined };
    const identity = { name: user.username, groups: [...user.groups], ...(user.uid ? { uid: user.uid } : {}) };
    if (!authorization) throw new Error('an in-process client with a user needs an authorization');
    const search = query.toString();
    try {
      return { user: authorization.admit({ method, url: search ? `${path}?${search}` : path, headers, headersDistinct: {} }, identity) };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 403) this.options.onForbidden?.(error.message);
      return { denied: error };
    }
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    const query = new URLSearchParams(request.query ?? {});
    const headers: Record<string, string> = { 'content-type': request.contentType ?? 'application/json', accept: request.accept ?? 'application/json', ...(this.options.userAgent ? { 'user-agent': this.options.userAgent } : {}) };
    const admitted = this.admit(request.method, request.path, query, headers);
    if ('denied' in admitted) return { status: admitted.denied.code, body: admitted.denied.toStatus() };
    const reply = await this.api.handle({
      method: request.method,
      path: request.path,
      query,
      headers,
      // A deep copy keeps callers from sharing objects with the server, as a wire would.
      parsedBody: request.body === undefined ? undefined : jsonCopy(request.body),
      user: admitted.user,
    });
    if ('watch' in reply) throw new Error('use watch() for watch requests');
    if ('stream' in reply) {
      // A streamed body (pod logs) is read to its end, as an HTTP client without streaming would.
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of reply.stream) {
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        size += buffer.length;
        if (size > MAX_STREAM_BYTES) break;
        chunks.push(buffer);
      }
      reply.stream.destroy();
      return { status: reply.status, body: Buffer.concat(chunks).toString('utf8') };
    }
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    let body: unknown = null;
    if (text !== '') {
      const type = reply.headers['Content-Type'] ?? '';
      body = type.startsWith('application/json') ? JSON.parse(text) : text;
    }
    return { status: reply.status, body };
  }

  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    let closed = false;
    let dispose: (() => void) | undefined;
    const finish = (error?: Error) => {
      if (closed) return;
      closed = true;
      dispose?.();
      onDone(error);
    };
    const search = new URLSearchParams({ ...query, watch: 'true' });
    const headers: Record<string, string> = { accept: 'application/json', ...(this.options.userAgent ? { 'user-agent': this.options.userAgent } : {}) };
    const admitted = this.admit('GET', path, search, headers);
    if ('denied' in admitted) {
      // reported after returning, as a refused HTTP watch would be
      queueMicrotask(() => finish(new ClientApiError(statusFromResponse(admitted.denied.code, admitted.denied.toStatus()))));
      return { close: () => (closed = true) };
    }
    void this.api
      .handle({ method: 'GET', path, query: search, headers, user: admitted.user })
      .then((reply) => {
        if (closed) return;
        if (!('watch' in reply)) {
          const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep the text
          }
          finish(new ClientApiError(statusFromResponse(reply.status, body)));
          return;
        }
        const handle = reply.watch({
          send(type: WatchEventType, object) {
            // Events are copied so cached informer state never aliases server-side objects.
            if (!closed) onEvent({ type, object: jsonCopy(object) });
          },
          close() {
            finish();
          },
        });
        dispose = () => handle.dispose();
        if (closed) handle.dispose();
      })
      .catch((error: unknown) => finish(error instanceof Error ? error : new Error(String(error))));
    return {
      close: () => {
        if (closed) return;
        closed = true;
        dispose?.();
      },
    };
  }
}

/**
 * A deep copy through JSON, as the object would cross a wire: several times faster than
 * structuredClone for API objects, and what HTTPS would deliver (undefined fields dropped).
 */
function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
