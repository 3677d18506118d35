// The web UI's routes on the API server's own origin (no Kubernetes counterpart: upstream serves
// no UI; the dashboard is a separate server). Static files from the built renderer under /ui/
// (index.html for client-side routes), sign-in (/ui/login?token=… and /ui/session), and a browser's
// visit to / sent on to /ui/ while any other / request keeps the API's answer (the path list
// kubectl get --raw / prints). The static files hold no secrets, so they need no session; every
// reply carries a strict Content-Security-Policy and refuses framing. Session changes require this
// server's Origin, as cookie-authenticated API calls do (httpServer.ts).
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isOwnOrigin } from '../../apiserver/httpServer';
import { ApiError } from '../../apiserver/apiError';
import { isRecord } from '../../../shared/kubernetes/types';
import { readSmallBody, sendJson, sendStatus, uiSecurityHeaders } from './uiReplies';
import { clearedSessionCookie, sessionCookie, sessionIdFrom, type UiSessions } from './uiSessions';

export { UI_CONTENT_SECURITY_POLICY, uiSecurityHeaders } from './uiReplies';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};
const MAX_SESSION_BODY_BYTES = 16 * 1024;

export interface UiRoutesOptions {
  sessions: UiSessions;
  /** the API server's TCP port: the UI's origin is https://127.0.0.1:<port> (or localhost) */
  port: () => number;
  /** the built web UI (index.html, app.js, …); default: dist/renderer beside the bundle */
  rendererDirectory?: string;
  /** the relay to other clusters (/ui/clusters…, main/app/relay): true when it answered */
  relay?: { handleRequest(request: IncomingMessage, response: ServerResponse): boolean };
  /** further routes under /ui/ (e.g. /ui/local-clusters), tried before the static files; each answers (true) or passes */
  routes?: ReadonlyArray<(request: IncomingMessage, response: ServerResponse) => boolean>;
}


export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export type UiFileResolution = { kind: 'file'; path: string } | { kind: 'index'; path: string } | { kind: 'not-found' } | { kind: 'refused' };

/**
 * Which file answers a path under /ui/: the file itself, index.html for the root and for
 * extension-less paths (client-side routes), not-found for a missing asset, and refused for
 * anything that would leave the directory (`..`, encoded slashes or backslashes, NUL).
 */
export function resolveUiFile(rendererDirectory: string, pathname: string): UiFileResolution {
  const root = resolve(rendererDirectory);
  const index: UiFileResolution = { kind: 'index', path: join(root, 'index.html') };
  if (!pathname.startsWith('/ui/')) return { kind: 'not-found' };
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice('/ui/'.length));
  } catch {
    return { kind: 'refused' };
  }
  if (relative.includes('\0') || relative.includes('\\')) return { kind: 'refused' };
  const segments = relative.split('/');
  if (segments.some((segment) => segment === '..' || segment === '.')) return { kind: 'refused' };
  if (relative === '' || relative === 'index.html') return index;
  const candidate = resolve(root, ...segments.filter((segment) => segment !== ''));
  if (!candidate.startsWith(root + sep)) return { kind: 'refused' };
  if (isFile(candidate)) return { kind: 'file', path: candidate };
  const last = segments[segments.length - 1];
  return last.includes('.') ? { kind: 'not-found' } : index;
}

/**
 * Where the built UI is: dist/renderer beside the bundle (dist/kubedesk.mjs, or dist/app/ for the
 * Electron shell), or the repository's dist/ when running from source; the first that has an
 * index.html, else the first candidate.
 */
export function rendererDirectoryCandidates(moduleUrl: string | undefined, workingDirectory: string): string[] {
  const candidates: string[] = [];
  if (moduleUrl && moduleUrl.startsWith('file:')) {
    candidates.push(fileURLToPath(new URL('./renderer', moduleUrl)));
    candidates.push(fileURLToPath(new URL('../renderer', moduleUrl)));
    candidates.push(fileURLToPath(new URL('../../../dist/renderer', moduleUrl)));
  }
  candidates.push(join(workingDirectory, 'dist', 'renderer'));
  return [...new Set(candidates)];
}

export function defaultRendererDirectory(): string {
  // The CommonJS Electron bundle gets import.meta.url from its own path (scripts/build.mjs).
  const moduleUrl: unknown = import.meta.url;
  const candidates = rendererDirectoryCandidates(typeof moduleUrl === 'string' ? moduleUrl : undefined, process.cwd());
  return candidates.find((candidate) => existsSync(join(candidate, 'index.html'))) ?? candidates[0];
}

/** The HttpServer's staticHandler for the UI: returns true when it answered the request. */
export function createUiRoutes(options: UiRoutesOptions): (request: IncomingMessage, response: ServerResponse) => boolean {
  let rendererDirectory = options.rendererDirectory;
  // looked up on first use, so a UI built after the server started is still found
  const directory = () => (rendererDirectory ??= defaultRendererDirectory());
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    const path = url.pathname;
    const method = request.method ?? 'GET';
    // the raw target: `..` in it is the relay's to refuse, before URL parsing resolves it away
    if (options.relay && (request.url ?? '').startsWith('/ui/clusters') && options.relay.handleRequest(request, response)) return true;
    if (path === '/') {
      const accept = headerText(request.headers.accept);
      // a browser opening the server's address; API clients (kubectl get --raw /) ask for JSON
      if ((method === 'GET' || method === 'HEAD') && accept.includes('text/html') && request.headers.authorization === undefined) {
        request.resume();
        redirect(response, '/ui/');
        return true;
      }
      return false;
    }
    if (path === '/ui') {
      request.resume();
      redirect(response, '/ui/');
      return true;
    }
    if (!path.startsWith('/ui/')) return false;
    if (path === '/ui/login') {
      request.resume();
      login(options.sessions, method, url.searchParams, response);
      return true;
    }
    if (path === '/ui/session') {
      session(options, request, response).catch(() => {
        if (!response.headersSent) sendStatus(response, ApiError.internal('the session request failed'));
        else response.destroy();
      });
      return true;
    }
    for (const route of options.routes ?? []) if (route(request, response)) return true;
    request.resume();
    serveFile(directory(), path, request, response);
    return true;
  };
}

function login(sessions: UiSessions, method: string, query: URLSearchParams, response: ServerResponse): void {
  // not HEAD: a link checker's HEAD must not use up the one-time token
  if (method !== 'GET') {
    sendStatus(response, ApiError.methodNotAllowed(), { Allow: 'GET' });
    return;
  }
  const sessionId = sessions.exchange(query.get('token') ?? '');
  if (sessionId === undefined) {
    const page = loginFailedPage();
    response.writeHead(401, { ...uiSecurityHeaders(), 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': String(Buffer.byteLength(page)), 'Cache-Control': 'no-store' });
    response.end(page);
    return;
  }
  response.writeHead(303, { ...uiSecurityHeaders(), Location: '/ui/', 'Set-Cookie': sessionCookie(sessionId, sessions.cookieName), 'Cache-Control': 'no-store', 'Content-Length': '0' });
  response.end();
}

async function session(options: UiRoutesOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const method = request.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') {
    request.resume();
    if (!options.sessions.authenticate(request.headers)) {
      sendStatus(response, ApiError.unauthorized());
      return;
    }
    sendJson(response, 200, { user: 'kubedesk-admin' });
    return;
  }
  if (method !== 'POST' && method !== 'DELETE') {
    request.resume();
    sendStatus(response, ApiError.methodNotAllowed(), { Allow: 'GET, HEAD, POST, DELETE' });
    return;
  }
  const origin = request.headers.origin;
  if (!isOwnOrigin(typeof origin === 'string' ? origin : undefined, options.port())) {
    request.resume();
    sendStatus(response, new ApiError(403, 'Forbidden', typeof origin === 'string' ? `forbidden: the UI session cannot be changed from origin "${origin}"` : 'forbidden: changing the UI session needs an Origin header'));
    return;
  }
  if (method === 'DELETE') {
    request.resume();
    const sessionId = sessionIdFrom(request.headers, options.sessions.cookieName);
    if (sessionId !== undefined) options.sessions.revoke(sessionId);
    response.writeHead(204, { ...uiSecurityHeaders(), 'Set-Cookie': clearedSessionCookie(options.sessions.cookieName), 'Cache-Control': 'no-store' });
    response.end();
    return;
  }
  const contentType = headerText(request.headers['content-type']).split(';')[0].trim().toLowerCase();
  if (contentType !== 'application/json') {
    request.resume();
    sendStatus(response, new ApiError(415, 'UnsupportedMediaType', `the sign-in body must be application/json (got ${contentType || 'none'})`));
    return;
  }
  const body = await readSmallBody(request, MAX_SESSION_BODY_BYTES);
  if (body === undefined) {
    sendStatus(response, new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_SESSION_BODY_BYTES}`));
    return;
  }
  const token = tokenFrom(body);
  if (token === undefined) {
    sendStatus(response, ApiError.badRequest('the sign-in body must be a JSON object with a "token" string'));
    return;
  }
  const sessionId = options.sessions.exchange(token);
  if (sessionId === undefined) {
    sendStatus(response, ApiError.unauthorized());
    return;
  }
  response.writeHead(204, { ...uiSecurityHeaders(), 'Set-Cookie': sessionCookie(sessionId, options.sessions.cookieName), 'Cache-Control': 'no-store' });
  response.end();
}

function serveFile(rendererDirectory: string, path: string, request: IncomingMessage, response: ServerResponse): void {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    sendText(response, 405, 'method not allowed\n', { Allow: 'GET, HEAD' });
    return;
  }
  const resolution = resolveUiFile(rendererDirectory, path);
  if (resolution.kind === 'refused') {
    sendText(response, 403, 'forbidden\n');
    return;
  }
  if (resolution.kind === 'not-found') {
    sendText(response, 404, 'not found\n');
    return;
  }
  const file = resolution.path;
  let size: number;
  let modified: number;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new Error('not a file');
    size = stats.size;
    modified = Math.floor(stats.mtimeMs);
  } catch {
    sendText(response, 404, resolution.kind === 'index' ? 'the web UI has not been built (npm run build)\n' : 'not found\n');
    return;
  }
  const html = file.endsWith('.html');
  const etag = `"${size.toString(16)}-${modified.toString(16)}"`;
  // the page always revalidates (it names the current assets); assets may be kept for a while
  const headers = { ...uiSecurityHeaders(), 'Content-Type': contentTypeFor(file), ETag: etag, 'Cache-Control': html ? 'no-cache' : 'private, max-age=300' };
  if (headerText(request.headers['if-none-match']) === etag) {
    response.writeHead(304, headers);
    response.end();
    return;
  }
  response.writeHead(200, { ...headers, 'Content-Length': String(size) });
  if (method === 'HEAD') {
    response.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => response.destroy());
  response.on('close', () => stream.destroy());
  stream.pipe(response);
}

function loginFailedPage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>kubedesk: sign-in link not valid</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5}code{background:#eee;padding:0 .2em}</style>
</head>
<body>
<h1>This sign-in link cannot be used</h1>
<p>Each sign-in link works once and expires after 24 hours; this one was already used or has expired.</p>
<p>To get a new one, restart <code>kubedesk serve</code> (it prints a fresh link), or open <a href="/ui/">the UI</a> and sign in
with the token from your kubeconfig (<code>kubectl config view --raw -o jsonpath='{.users[?(@.name=="kubedesk")].user.token}'</code>).</p>
</body>
</html>
`;
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(303, { ...uiSecurityHeaders(), Location: location, 'Content-Length': '0', 'Cache-Control': 'no-cache' });
  response.end();
}



function sendText(response: ServerResponse, status: number, text: string, extraHeaders: Record<string, string> = {}): void {
  response.writeHead(status, { ...uiSecurityHeaders(), ...extraHeaders, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-cache' });
  response.end(text);
}


function tokenFrom(body: Buffer): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed)) return undefined;
  return typeof parsed.token === 'string' ? parsed.token : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function headerText(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
}
