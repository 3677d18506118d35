// Replies of the UI's own routes on the API server's origin (/ui/session, /ui/clusters…,
// /ui/local-clusters…): JSON with the UI's security headers, Kubernetes Status errors, and small
// request bodies read with a limit. Upstream has no counterpart: these routes are kubedesk's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from '../../apiserver/apiError';

export const UI_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; " +
  "worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** Headers every UI reply carries. */
export function uiSecurityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': UI_CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
  };
}

/** A JSON reply that is never cached; nothing when the reply already started or the client left. */
export function sendJson(response: ServerResponse, status: number, value: unknown, extraHeaders: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const body = JSON.stringify(value);
  response.writeHead(status, { ...uiSecurityHeaders(), ...extraHeaders, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Cache-Control': 'no-store' });
  response.end(body);
}

/** The error as a Kubernetes Status with its code. */
export function sendStatus(response: ServerResponse, error: ApiError, extraHeaders: Record<string, string> = {}): void {
  sendJson(response, error.code, error.toStatus(), extraHeaders);
}

/** The body, or undefined when it is larger than `limit` (the rest is drained). */
export function readSmallBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => resolveBody(size > limit ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}
