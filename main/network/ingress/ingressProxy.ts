// The HTTP/1.1 reverse-proxy half of kubedesk's Ingress controller: forwards one request (or one
// Upgrade, e.g. WebSocket) over an already dialled connection to a pod, as ingress-nginx's proxy
// does: hop-by-hop headers (RFC 9110 §7.6.1, plus those the Connection header names) are dropped, the
// Host header is kept, X-Forwarded-For is appended to and X-Forwarded-Host/-Proto/-Port and
// X-Real-IP are set; bodies stream both ways. Also the controller's own error pages.
import { request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { hopByHopTest, rawHeaderValues } from '../../../shared/http/hopByHop';
import { closeTogether } from '../../../shared/net/closeTogether';

export interface ForwardInfo {
  clientIp: string;
  scheme: 'http' | 'https';
  /** the listener port the client connected to */
  port: number;
}

const forwardedNames = new Set(['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip']);

/**
 * The request headers to send to the backend, as [name, value] pairs in the client's order.
 * For an upgrade, Connection and Upgrade are kept so the backend sees the handshake.
 */
export function forwardRequestHeaders(rawHeaders: readonly string[], info: ForwardInfo, upgrade: boolean): [string, string][] {
  const isHopByHop = hopByHopTest(rawHeaderValues(rawHeaders, 'connection'));
  const result: [string, string][] = [];
  let forwardedFor: string | undefined;
  let host: string | undefined;
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index];
    const value = rawHeaders[index + 1];
    const lower = name.toLowerCase();
    if (lower === 'host') host ??= value;
    if (lower === 'x-forwarded-for') {
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
      continue;
    }
    if (forwardedNames.has(lower)) continue;
    if (upgrade && (lower === 'connection' || lower === 'upgrade')) {
      result.push([name, value]);
      continue;
    }
    if (isHopByHop(lower)) continue;
    result.push([name, value]);
  }
  result.push(['X-Forwarded-For', forwardedFor === undefined ? info.clientIp : `${forwardedFor}, ${info.clientIp}`]);
  if (host !== undefined) result.push(['X-Forwarded-Host', host]);
  result.push(['X-Forwarded-Port', String(info.port)]);
  result.push(['X-Forwarded-Proto', info.scheme]);
  result.push(['X-Real-IP', info.clientIp]);
  return result;
}

function asOutgoing(pairs: readonly [string, string][]): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    const existing = headers[lower];
    if (existing === undefined) headers[lower] = value;
    else headers[lower] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

function responseHeaders(response: IncomingMessage): OutgoingHttpHeaders {
  const isHopByHop = hopByHopTest(rawHeaderValues(response.rawHeaders, 'connection'));
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < response.rawHeaders.length; index += 2) {
    const lower = response.rawHeaders[index].toLowerCase();
    if (isHopByHop(lower)) continue;
    pairs.push([response.rawHeaders[index], response.rawHeaders[index + 1]]);
  }
  return asOutgoing(pairs);
}

/**
 * Sends `req` over `backend` and streams the reply to `res`. Resolves when the exchange is over;
 * `onBackendError` is told when the backend failed before answering (the caller has not written
 * anything yet then, and sends 502).
 */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, backend: Socket, headers: [string, string][], onBackendError: (error: Error) => void): void {
  const outgoing = request({
    method: req.method,
    path: req.url,
    headers: asOutgoing(headers),
    setHost: false,
    createConnection: () => backend,
  });
  let answered = false;
  outgoing.on('response', (response) => {
    answered = true;
    res.writeHead(response.statusCode ?? 502, response.statusMessage, responseHeaders(response));
    response.pipe(res);
    response.on('error', () => res.destroy());
  });
  outgoing.on('error', (error) => {
    backend.destroy();
    if (!answered && !res.headersSent) onBackendError(error);
    else res.destroy();
  });
  // The client went away mid-exchange: stop talking to the pod too.
  res.on('close', () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  req.on('error', () => outgoing.destroy());
  req.pipe(outgoing);
}

/** Relays an Upgrade request (WebSocket and the like) byte for byte once the head is sent. */
export function proxyUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, backend: Socket, headers: [string, string][]): void {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/1.1`, ...headers.map(([name, value]) => `${name}: ${value}`), '', ''];
  backend.write(lines.join('\r\n'));
  if (head.length > 0) backend.write(head);
  closeTogether(client, backend);
  backend.pipe(client);
  client.pipe(backend);
}

const reasons: Record<number, string> = { 404: 'Not Found', 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function errorPage(status: number, message: string): string {
  const title = `${status} ${reasons[status] ?? 'Error'}`;
  return `<html>\n<head><title>${title}</title></head>\n<body>\n<center><h1>${title}</h1></center>\n<p>${escapeHtml(message)}</p>\n<hr><center>kubedesk ingress</center>\n</body>\n</html>\n`;
}

export function sendErrorPage(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorPage(status, message);
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The same page written straight to a socket (for failed Upgrades, which have no ServerResponse). */
export function writeErrorResponse(socket: Duplex, status: number, message: string): void {
  const body = errorPage(status, message);
  socket.end(`HTTP/1.1 ${status} ${reasons[status] ?? 'Error'}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
