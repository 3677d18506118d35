import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UI_CONTENT_SECURITY_POLICY, contentTypeFor, createUiRoutes, rendererDirectoryCandidates, resolveUiFile } from './uiRoutes';
import { UiSessions } from './uiSessions';

const ADMIN_TOKEN = 'route-test-admin-token';
let directory: string;
let server: http.Server;
let port: number;
let sessions: UiSessions;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function cookieOf(reply: Reply): string {
  const setCookie = reply.headers['set-cookie']?.[0] ?? '';
  return setCookie.split(';')[0];
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'kubedesk-ui-routes-'));
  const renderer = join(directory, 'renderer');
  mkdirSync(join(renderer, 'monaco', 'vs'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>kubedesk</title>');
  writeFileSync(join(renderer, 'app.js'), 'console.log(1)');
  writeFileSync(join(renderer, 'app.css'), 'body{}');
  writeFileSync(join(renderer, 'monaco', 'vs', 'loader.js'), 'loader');
  writeFileSync(join(directory, 'secret.txt'), 'outside the UI');
  sessions = new UiSessions({ adminToken: ADMIN_TOKEN });
  const routes = createUiRoutes({ sessions, port: () => port, rendererDirectory: renderer });
  server = http.createServer((request, response) => {
    if (routes(request, response)) return;
    response.writeHead(418, { 'Content-Type': 'text/plain' });
    response.end('the API');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(directory, { recursive: true, force: true });
});

describe('resolveUiFile', () => {
  it.each([
    ['/ui/', 'index', 'index.html'],
    ['/ui/index.html', 'index', 'index.html'],
    ['/ui/app.js', 'file', 'app.js'],
    ['/ui/monaco/vs/loader.js', 'file', 'monaco/vs/loader.js'],
    ['/ui/pods', 'index', 'index.html'],
    ['/ui/namespaces/default/pods/web', 'index', 'index.html'],
    ['/ui/monaco', 'index', 'index.html'],
    ['/ui/missing.js', 'not-found', ''],
    ['/ui/monaco/vs/missing.css', 'not-found', ''],
    ['/ui/%2e%2e/secret.txt', 'refused', ''],
    ['/ui/..%2fsecret.txt', 'refused', ''],
    ['/ui/monaco/%2E%2E/%2E%2E/secret.txt', 'refused', ''],
    ['/ui/..%5csecret.txt', 'refused', ''],
    ['/ui/app.js%00.html', 'refused', ''],
    ['/ui/%E0%A4%A', 'refused', ''],
    ['/ui/./app.js', 'refused', ''],
  ])('resolves %s as %s', (path, kind, file) => {
    const renderer = join(directory, 'renderer');
    const resolution = resolveUiFile(renderer, path);
    expect(resolution.kind).toBe(kind);
    if (resolution.kind === 'file' || resolution.kind === 'index') expect(resolution.path).toBe(join(renderer, file));
  });
});

describe('contentTypeFor', () => {
  it.each([
    ['app.js', 'text/javascript; charset=utf-8'],
    ['app.css', 'text/css; charset=utf-8'],
    ['index.html', 'text/html; charset=utf-8'],
    ['icon.svg', 'image/svg+xml'],
    ['logo.png', 'image/png'],
    ['font.woff', 'font/woff'],
    ['font.woff2', 'font/woff2'],
    ['font.ttf', 'font/ttf'],
    ['data.json', 'application/json'],
    ['app.js.map', 'application/json'],
    ['blob.bin', 'application/octet-stream'],
  ])('types %s as %s', (file, type) => {
    expect(contentTypeFor(file)).toBe(type);
  });
});

describe('rendererDirectoryCandidates', () => {
  it('looks beside the bundle, beside the Electron bundle, in the repository and in the working directory', () => {
    expect(rendererDirectoryCandidates('file:///opt/kubedesk/dist/kubedesk.mjs', '/work')).toEqual([
      '/opt/kubedesk/dist/renderer',
      '/opt/kubedesk/renderer',
      '/dist/renderer',
      '/work/dist/renderer',
    ]);
  });
});

describe('UI routes', () => {
  it('serves index.html at /ui/ with the strict security headers and no caching', async () => {
    const reply = await send('GET', '/ui/');
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('<title>kubedesk</title>');
    expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reply.headers['content-security-policy']).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(UI_CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(UI_CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['referrer-policy']).toBe('no-referrer');
    expect(reply.headers['cache-control']).toBe('no-cache');
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves assets with their type, lets them be cached and answers a matching ETag with 304', async () => {
    const reply = await send('GET', '/ui/app.js');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('console.log(1)');
    expect(reply.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(reply.headers['cache-control']).toContain('max-age');
    const again = await send('GET', '/ui/app.js', { 'if-none-match': String(reply.headers.etag) });
    expect(again.status).toBe(304);
  });

  it.each([
    ['a client-side route', '/ui/workloads/pods', 200],
    ['a missing asset', '/ui/missing.js', 404],
    ['a traversal', '/ui/..%2fsecret.txt', 403],
  ])('answers %s with %i and the security headers', async (_name, path, status) => {
    const reply = await send('GET', path);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-security-policy']).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(reply.body).not.toContain('outside the UI');
  });

  it('sends a browser at / on to /ui/ and leaves other / requests to the API', async () => {
    const browser = await send('GET', '/', { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.status).toBe(303);
    expect(browser.headers.location).toBe('/ui/');
    const kubectl = await send('GET', '/', { accept: 'application/json, */*' });
    expect(kubectl.status).toBe(418);
    expect((await send('GET', '/api/v1/pods')).status).toBe(418);
  });

  it('signs in once with a login link and refuses the same link again with a page that says what to do', async () => {
    const token = sessions.issueLoginToken();
    const first = await send('GET', `/ui/login?token=${token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/ui/');
    expect(first.headers['set-cookie']?.[0]).toMatch(/^kubedesk-session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    expect((await send('GET', '/ui/session', { cookie: cookieOf(first) })).body).toBe('{"user":"kubedesk-admin"}');
    const second = await send('GET', `/ui/login?token=${token}`);
    expect(second.status).toBe(401);
    expect(second.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(second.body).toContain('already used or has expired');
    expect(second.body).toContain('kubeconfig');
  });

  it('does not use up a login link on HEAD, as link checkers send', async () => {
    const token = sessions.issueLoginToken();
    expect((await send('HEAD', `/ui/login?token=${token}`)).status).toBe(405);
    expect((await send('GET', `/ui/login?token=${token}`)).status).toBe(303);
  });

  it('reports no session without a cookie', async () => {
    const reply = await send('GET', '/ui/session');
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
  });

  it.each([
    ['no Origin', {}, 403],
    ['a foreign Origin', { origin: 'https://evil.example' }, 403],
    ['another port on loopback', { origin: 'https://127.0.0.1:1' }, 403],
    ['plain http on the same port', { origin: 'http://127.0.0.1:PORT' }, 403],
    ['this server as 127.0.0.1', { origin: 'https://127.0.0.1:PORT' }, 204],
    ['this server as localhost', { origin: 'https://localhost:PORT' }, 204],
  ])('answers a sign-in with the admin token and %s with %i', async (_name, headers: Record<string, string>, status) => {
    const withPort = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, value.replace('PORT', String(port))]));
    const reply = await send('POST', '/ui/session', { ...withPort, 'content-type': 'application/json' }, JSON.stringify({ token: ADMIN_TOKEN }));
    expect(reply.status).toBe(status);
    if (status === 204) expect(reply.headers['set-cookie']?.[0]).toMatch(/^kubedesk-session=/);
    else expect(reply.headers['set-cookie']).toBeUndefined();
  });

  it.each([
    ['a wrong token', 'application/json', JSON.stringify({ token: 'wrong' }), 401],
    ['a body without a token', 'application/json', '{}', 400],
    ['a body that is not JSON', 'application/json', 'token=x', 400],
    ['a form body', 'application/x-www-form-urlencoded', `token=${ADMIN_TOKEN}`, 415],
  ])('refuses a sign-in with %s', async (_name, contentType, body, status) => {
    const reply = await send('POST', '/ui/session', { origin: `https://127.0.0.1:${port}`, 'content-type': contentType }, body);
    expect(reply.status).toBe(status);
    expect(JSON.parse(reply.body)).toMatchObject({ kind: 'Status', code: status });
  });

  it('signs out only from its own origin, revoking the session and clearing the cookie', async () => {
    const cookie = `kubedesk-session=${sessions.exchange(ADMIN_TOKEN) ?? ''}`;
    expect((await send('DELETE', '/ui/session', { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('GET', '/ui/session', { cookie })).status).toBe(200);
    const signOut = await send('DELETE', '/ui/session', { cookie, origin: `https://127.0.0.1:${port}` });
    expect(signOut.status).toBe(204);
    expect(signOut.headers['set-cookie']?.[0]).toContain('Max-Age=0');
    expect((await send('GET', '/ui/session', { cookie })).status).toBe(401);
  });
});

describe('the relay hook', () => {
  it('hands /ui/clusters targets to the relay as they were sent, before any path normalisation', async () => {
    const seen: string[] = [];
    const routes = createUiRoutes({
      sessions,
      port: () => port,
      rendererDirectory: join(directory, 'renderer'),
      relay: {
        handleRequest: (request, response) => {
          seen.push(request.url ?? '');
          response.writeHead(299);
          response.end();
          return true;
        },
      },
    });
    const hooked = http.createServer((request, response) => {
      if (routes(request, response)) return;
      response.writeHead(418);
      response.end();
    });
    await new Promise<void>((resolve) => hooked.listen(0, '127.0.0.1', resolve));
    const hookedPort = (hooked.address() as AddressInfo).port;
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const outgoing = http.request({ host: '127.0.0.1', port: hookedPort, path, agent: false }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    try {
      expect(await status('/ui/clusters')).toBe(299);
      expect(await status('/ui/clusters/../../api/v1/secrets')).toBe(299);
      expect(await status('/ui/clusters/prod/api/v1/pods?watch=1')).toBe(299);
      expect(seen).toEqual(['/ui/clusters', '/ui/clusters/../../api/v1/secrets', '/ui/clusters/prod/api/v1/pods?watch=1']);
      expect(await status('/api/v1/pods')).toBe(418);
    } finally {
      await new Promise<void>((resolve) => hooked.close(() => resolve()));
    }
  });
});
