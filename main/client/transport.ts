// Transport: how the client reaches an API server — one request/response call and one streaming watch
// call. HttpsTransport speaks HTTP(S) through a RequestTarget that gives each request its server,
// TLS agent and credentials (a fixed server with a bearer token, a client certificate or basic
// credentials, as rest.Config offers them; or a kubeconfig context's connection from main/remote,
// with exec plugins, token files, proxies and impersonation — a 401 reply tells it its credentials
// were rejected, as client-go's exec authenticator is told), and decodes watch streams as
// upstream's JSON stream framing does (one JSON object per line, k8s.io/apimachinery
// pkg/util/framer + watch decoder), tolerating chunks that split a line or a UTF-8 sequence.
import http from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { RequestOptions } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { isRecord, type KubeObject, type WatchEvent, type WatchEventType } from '../../shared/kubernetes/types';
import { ClientApiError, statusFromResponse } from './errors';

export interface TransportRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Defaults to application/json when there is a body; e.g. application/merge-patch+json for patches. */
  contentType?: string;
  /** Defaults to application/json; e.g. kubectl's Table media types to get a list's columns. */
  accept?: string;
}

export interface TransportResponse {
  status: number;
  /** Parsed JSON; a string when the reply is not JSON (e.g. pod logs); null when empty. */
  body: unknown;
}

export interface WatchHandle {
  close(): void;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  /**
   * Streams watch events (parsed {type, object}) for `path` with `query` (the caller includes
   * `watch=true`). `onDone(error?)` is called once when the stream ends: without an error when the
   * server ended it (e.g. timeoutSeconds), with a ClientApiError for a non-2xx reply, or with another
   * Error for network or decoding failures. After `close()`, neither callback is called again.
   */
  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle;
}

const watchEventTypes: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Narrows one decoded watch frame. ERROR events carry a Status, which the caller inspects. */
export function parseWatchEvent(value: unknown): WatchEvent {
  if (!isRecord(value) || typeof value.type !== 'string' || !watchEventTypes.has(value.type) || !isRecord(value.object)) {
    throw new Error(`malformed watch event: ${JSON.stringify(value)?.slice(0, 200)}`);
  }
  const object = value.object;
  if (value.type !== 'ERROR' && !isRecord(object.metadata)) throw new Error(`watch event object has no metadata: ${JSON.stringify(value).slice(0, 200)}`);
  if (!isRecord(object.metadata)) object.metadata = {};
  return { type: value.type as WatchEventType, object: object as KubeObject };
}

/**
 * Splits a byte stream into lines incrementally. Bytes are decoded with a streaming UTF-8 decoder
 * so a multi-byte character cut between chunks survives.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  /** Returns the complete, non-blank lines this chunk finishes. */
  push(chunk: Buffer | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      if (line !== '') lines.push(line);
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
    }
    return lines;
  }

  /** The trailing line when the stream ended without a final newline. */
  end(): string[] {
    this.buffer += this.decoder.end();
    const rest = this.buffer.trim();
    this.buffer = '';
    return rest === '' ? [] : [rest];
  }
}

/**
 * Where requests go and with which credentials, asked per request (what a rest.Config's transport
 * is to client-go): node:http(s) request options — host, port, the full path, an agent holding the
 * TLS settings, the headers plus Authorization and Impersonate-*. main/remote's ClusterConnection
 * (a kubeconfig context's connection: exec plugins, token files, proxies, impersonation) is one.
 */
export interface RequestTarget {
  /** options for a request of `path` (an API path with its query) carrying `headers`; may reject (e.g. an exec plugin failed) */
  requestOptions(method: string, path: string, headers?: OutgoingHttpHeaders): Promise<RequestOptions>;
  /** the server answered 401 to the credentials: forget cached ones, so the next request gets fresh ones (client-go's exec authenticator) */
  credentialsRejected(): boolean;
  /** closes kept-alive sockets */
  close(): void;
}

export interface HttpsTransportOptions {
  /** e.g. https://127.0.0.1:6443 (http:// is accepted for tests and local plain-text servers). */
  server: string;
  token?: string;
  /** PEM bundle trusted for the server certificate. */
  ca?: string | Buffer;
  /** Client certificate and key (PEM), for certificate authentication. */
  certificate?: string | Buffer;
  key?: string | Buffer;
  insecureSkipTlsVerify?: boolean;
  /** The name the server certificate is checked against (a kubeconfig's tls-server-name), instead of the URL's host. */
  serverName?: string;
  /** Basic credentials (a kubeconfig's username/password), sent when there is no token. */
  username?: string;
  password?: string;
  userAgent?: string;
  /** Applies to request(), not to watch streams. Default 60 s. */
  requestTimeoutMs?: number;
}

/** An HttpsTransport over a RequestTarget that decides the server and the credentials. */
export interface TargetTransportOptions {
  target: RequestTarget;
  userAgent?: string;
  /** Applies to request(), not to watch streams. Default 60 s. */
  requestTimeoutMs?: number;
}

/** A fixed server, TLS settings and credentials (HttpsTransportOptions) as a RequestTarget. */
class StaticTarget implements RequestTarget {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly authorization: string | undefined;

  constructor(options: HttpsTransportOptions) {
    this.base = new URL(options.server);
    const secure = this.base.protocol === 'https:';
    if (!secure && this.base.protocol !== 'http:') throw new Error(`unsupported server URL ${options.server}`);
    this.agent = secure
      ? new https.Agent({ keepAlive: true, ca: options.ca, cert: options.certificate, key: options.key, rejectUnauthorized: !options.insecureSkipTlsVerify, ...(options.serverName ? { servername: options.serverName } : {}) })
      : new http.Agent({ keepAlive: true });
    if (options.token) this.authorization = `Bearer ${options.token}`;
    else if (options.username !== undefined && options.password !== undefined) this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  }

  requestOptions(method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<RequestOptions> {
    const secure = this.base.protocol === 'https:';
    const hostname = this.base.hostname.startsWith('[') ? this.base.hostname.slice(1, -1) : this.base.hostname;
    return Promise.resolve({
      protocol: this.base.protocol,
      hostname,
      port: Number(this.base.port) || (secure ? 443 : 80),
      method,
      path: this.base.pathname.replace(/\/+$/, '') + path,
      headers: { ...headers, ...(this.authorization ? { Authorization: this.authorization } : {}) },
      agent: this.agent,
    });
  }

  credentialsRejected(): boolean {
    return false;
  }

  close(): void {
    this.agent.destroy();
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class HttpsTransport implements Transport {
  private readonly target: RequestTarget;

  constructor(private readonly options: HttpsTransportOptions | TargetTransportOptions) {
    this.target = 'target' in options ? options.target : new StaticTarget(options);
  }

  request(req: TransportRequest): Promise<TransportResponse> {
    return new Promise((resolve, reject) => {
      let payload: Buffer | undefined;
      const headers: Record<string, string> = this.headers(req.accept ?? 'application/json');
      if (req.body !== undefined) {
        payload = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body), 'utf8');
        headers['Content-Type'] = req.contentType ?? 'application/json';
        headers['Content-Length'] = String(payload.length);
      }
      this.send(req.method, req.path, req.query, headers, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString('utf8')) }));
      }).then((outgoing) => {
        const timeout = this.options.requestTimeoutMs ?? 60_000;
        if (timeout > 0) outgoing.setTimeout(timeout, () => outgoing.destroy(new Error(`request ${req.method} ${req.path} timed out after ${timeout} ms`)));
        outgoing.on('error', reject);
        outgoing.end(payload);
      }, reject);
    });
  }

  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    let finished = false;
    let outgoing: http.ClientRequest | undefined;
    // A stream that completed leaves its socket to the keep-alive pool; only a broken or unwanted one is destroyed.
    const finish = (error?: Error, completed = false): void => {
      if (finished) return;
      finished = true;
      if (!completed) outgoing?.destroy();
      onDone(error);
    };
    this.send('GET', path, query, this.headers('application/json'), (response) => {
      const code = response.statusCode ?? 0;
      if (code < 200 || code > 299) {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => finish(new ClientApiError(statusFromResponse(code, parseBody(Buffer.concat(chunks).toString('utf8')))), true));
        response.on('error', (error) => finish(error));
        return;
      }
      const splitter = new LineSplitter();
      const deliver = (lines: string[]): boolean => {
        for (const line of lines) {
          if (finished) return false;
          let event: WatchEvent;
          try {
            event = parseWatchEvent(JSON.parse(line));
          } catch (error) {
            finish(error instanceof Error ? error : new Error(String(error)));
            return false;
          }
          onEvent(event);
        }
        return !finished;
      };
      response.on('data', (chunk: Buffer) => {
        deliver(splitter.push(chunk));
      });
      response.on('end', () => {
        if (deliver(splitter.end())) finish(undefined, true);
      });
      // 'aborted'/'error' mean the connection broke mid-stream: report it so the informer backs off.
      response.on('error', (error) => finish(error));
      response.on('aborted', () => finish(new Error('watch stream aborted')));
      response.on('close', () => finish(new Error('watch stream closed before its end')));
    }).then(
      (request) => {
        outgoing = request;
        // closed while the credentials were being fetched: the request never starts
        if (finished) {
          request.destroy();
          return;
        }
        request.on('error', (error) => finish(error));
        request.end();
      },
      (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
    );
    return {
      close: () => {
        if (finished) return;
        finished = true;
        outgoing?.destroy();
      },
    };
  }

  /**
   * Streams a binary reply (e.g. a snapshot export) into `destination`; a non-2xx reply rejects with
   * its Status as a ClientApiError and writes nothing. No timeout: the body may be large.
   */
  download(path: string, destination: Writable): Promise<void> {
    return new Promise((resolve, reject) => {
      this.send('GET', path, undefined, this.headers('application/octet-stream, application/json'), (response) => {
        const code = response.statusCode ?? 0;
        if (code < 200 || code > 299) {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => reject(new ClientApiError(statusFromResponse(code, parseBody(Buffer.concat(chunks).toString('utf8'))))));
          return;
        }
        pipeline(response, destination).then(resolve, reject);
      }).then((outgoing) => {
        outgoing.on('error', reject);
        outgoing.end();
      }, reject);
    });
  }

  /** Streams `source` (`size` bytes) as the body of a POST and returns the parsed JSON reply; non-2xx rejects with its Status. */
  upload(path: string, source: Readable, size: number, contentType = 'application/octet-stream'): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const headers = { ...this.headers('application/json'), 'Content-Type': contentType, 'Content-Length': String(size) };
      this.send('POST', path, undefined, headers, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const code = response.statusCode ?? 0;
          const body = parseBody(Buffer.concat(chunks).toString('utf8'));
          if (code < 200 || code > 299) reject(new ClientApiError(statusFromResponse(code, body)));
          else resolve(body);
        });
      }).then((outgoing) => {
        outgoing.on('error', reject);
        source.on('error', (error) => outgoing.destroy(error));
        source.pipe(outgoing);
      }, reject);
    });
  }

  /** Closes idle keep-alive sockets. Open watches are not affected; close them first. */
  dispose(): void {
    this.target.close();
  }

  private headers(accept: string): Record<string, string> {
    return { Accept: accept, 'User-Agent': this.options.userAgent ?? 'kubedesk-client' };
  }

  /** The request, once the target gave its options (credentials included); a 401 reply tells the target its credentials were rejected. */
  private async send(method: string, path: string, query: Record<string, string> | undefined, headers: Record<string, string>, onResponse: (response: http.IncomingMessage) => void): Promise<http.ClientRequest> {
    // the path as a URL would carry it (percent-encoded), then the query
    const url = new URL(path, 'http://localhost');
    for (const [key, value] of Object.entries(query ?? {})) url.searchParams.set(key, value);
    const options = await this.target.requestOptions(method, url.pathname + url.search, headers);
    const receive = (response: http.IncomingMessage) => {
      if (response.statusCode === 401) this.target.credentialsRejected();
      onResponse(response);
    };
    return options.protocol === 'http:' ? http.request(options, receive) : https.request(options, receive);
  }
}
