// InProcessTransport: the client's Transport over a direct call into ApiServer.handle — same
// routing, admission, validation, resourceVersion and watch semantics as HTTPS, without sockets or
// TLS (DESIGN.md: in-process callers may use a fast transport with HTTP's semantics).
import type { WatchEvent, WatchEventType } from '../../shared/kubernetes/types';
import type { ApiServer } from '../apiserver/apiServer';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from '../client/transport';
import { ClientApiError, statusFromResponse } from '../client/errors';

const MAX_STREAM_BYTES = 16 * 1024 * 1024;

export interface InProcessTransportOptions {
  /** sent as User-Agent: the API server names field managers after it (kube-controller-manager, kubelet…) */
  userAgent?: string;
}

export class InProcessTransport implements Transport {
  constructor(
    private readonly api: ApiServer,
    private readonly options: InProcessTransportOptions = {},
  ) {}

  async request(request: TransportRequest): Promise<TransportResponse> {
    const reply = await this.api.handle({
      method: request.method,
      path: request.path,
      query: new URLSearchParams(request.query ?? {}),
      headers: { 'content-type': request.contentType ?? 'application/json', accept: 'application/json', ...(this.options.userAgent ? { 'user-agent': this.options.userAgent } : {}) },
      // A deep copy keeps callers from sharing objects with the server, as a wire would.
      parsedBody: request.body === undefined ? undefined : structuredClone(request.body),
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
    void this.api
      .handle({ method: 'GET', path, query: new URLSearchParams({ ...query, watch: 'true' }), headers: { accept: 'application/json' } })
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
            // Events are cloned so cached informer state never aliases server-side objects.
            if (!closed) onEvent({ type, object: structuredClone(object) });
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
