// The client's Transport (main/client/transport.ts) over a kubeconfig context's ClusterConnection,
// so the PortForward emulation can run ordinary informers (list + watch, relist on 410) for the
// pods, Services and EndpointSlices of a cluster that is not kubedesk, with that context's
// credentials. Like client-go, a 401 to credentials that may be refreshed (an exec plugin, a token
// file) is retried once with fresh ones.
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { WatchEvent } from '../../../../shared/kubernetes/types';
import { ClientApiError, statusFromResponse } from '../../../client/errors';
import { LineSplitter, parseWatchEvent, type Transport, type TransportRequest, type TransportResponse, type WatchHandle } from '../../../client/transport';
import type { ClusterConnection } from '../../../remote/clusterConnection';

const userAgent = 'kubedesk-portforward';

function pathWithQuery(path: string, query: Record<string, string> | undefined): string {
  const text = new URLSearchParams(query ?? {}).toString();
  return text ? `${path}?${text}` : path;
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

export interface StartedRequest {
  request: http.ClientRequest;
  response: Promise<IncomingMessage>;
}

/**
 * Sends one request through the connection and resolves with the response head; a 401 that
 * credentialsRejected() says fresh credentials may fix is sent again once. `onRequest` sees each
 * request sent (so a caller can abort it).
 */
export async function sendThrough(connection: ClusterConnection, method: string, path: string, headers: OutgoingHttpHeaders, body: Buffer | undefined, onRequest?: (request: http.ClientRequest) => void, retried = false): Promise<IncomingMessage> {
  const options = await connection.requestOptions(method, path, { 'User-Agent': userAgent, ...headers });
  const secure = (options.protocol ?? connection.server.protocol) === 'https:';
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = (secure ? https.request : http.request)(options, resolve);
    request.on('error', reject);
    onRequest?.(request);
    request.end(body);
  });
  if (response.statusCode === 401 && !retried && connection.credentialsRejected()) {
    response.resume();
    return sendThrough(connection, method, path, headers, body, onRequest, true);
  }
  return response;
}

export class ConnectionTransport implements Transport {
  constructor(
    private readonly connection: ClusterConnection,
    private readonly requestTimeoutMs = 60_000,
  ) {}

  async request(req: TransportRequest): Promise<TransportResponse> {
    const headers: OutgoingHttpHeaders = { Accept: req.accept ?? 'application/json' };
    let body: Buffer | undefined;
    if (req.body !== undefined) {
      body = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body), 'utf8');
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(body.length);
    }
    const response = await sendThrough(this.connection, req.method, pathWithQuery(req.path, req.query), headers, body, (request) => {
      request.setTimeout(this.requestTimeoutMs, () => request.destroy(new Error(`request ${req.method} ${req.path} timed out after ${this.requestTimeoutMs} ms`)));
    });
    return { status: response.statusCode ?? 0, body: parseBody(await readAll(response)) };
  }

  watch(path: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    let finished = false;
    let current: http.ClientRequest | undefined;
    const finish = (error?: Error) => {
      if (finished) return;
      finished = true;
      current?.destroy();
      onDone(error);
    };
    sendThrough(this.connection, 'GET', pathWithQuery(path, query), { Accept: 'application/json' }, undefined, (request) => {
      current = request;
      if (finished) request.destroy();
    }).then(
      (response) => {
        if (finished) return;
        const code = response.statusCode ?? 0;
        if (code < 200 || code > 299) {
          readAll(response).then(
            (text) => finish(new ClientApiError(statusFromResponse(code, parseBody(text)))),
            (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
          );
          return;
        }
        const splitter = new LineSplitter();
        const deliver = (lines: string[]): boolean => {
          for (const line of lines) {
            if (finished) return false;
            try {
              onEvent(parseWatchEvent(JSON.parse(line)));
            } catch (error) {
              finish(error instanceof Error ? error : new Error(String(error)));
              return false;
            }
          }
          return !finished;
        };
        response.on('data', (chunk: Buffer) => deliver(splitter.push(chunk)));
        response.on('end', () => {
          if (deliver(splitter.end())) {
            finished = true;
            onDone();
          }
        });
        response.on('error', (error) => finish(error));
        response.on('close', () => finish(new Error('watch stream closed before its end')));
      },
      (error: unknown) => finish(error instanceof Error ? error : new Error(String(error))),
    );
    return {
      close: () => {
        if (finished) return;
        finished = true;
        current?.destroy();
      },
    };
  }
}
