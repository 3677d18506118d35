// Sign-in for the web UI, which cannot send the kubeconfig's bearer token on every request (a
// browser cannot set Authorization on a WebSocket or a navigation). A one-time login token (in the
// URL `kubedesk serve` prints, or handed to the desktop window) — or the admin bearer token itself —
// is exchanged for a session id kept in an HttpOnly cookie. Cookies are per host, not per port, so
// the cookie is named after the cluster (`kubedesk-session-<cluster id>`): two clusters on
// 127.0.0.1 at different ports keep their sign-ins side by side. A session acts as the kubeconfig's
// admin user. Sessions live in memory only: a restart means signing in again. Secrets are kept as SHA-256
// digests, so a lookup's timing says nothing about the secret and a memory dump holds no usable one.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Authenticator, UserInfo } from '../../apiserver/httpServer';

/** The cookie's name without a cluster id (and its prefix with one). */
export const SESSION_COOKIE = 'kubedesk-session';

/** The session cookie's name for a cluster: `kubedesk-session-<first 12 characters of its id>`. */
export function sessionCookieName(clusterId: string | undefined): string {
  const suffix = (clusterId ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, 12);
  return suffix ? `${SESSION_COOKIE}-${suffix}` : SESSION_COOKIE;
}
/** the identity the kubeconfig's admin token has (authentication.ts) */
export const UI_SESSION_USER: Readonly<UserInfo> = Object.freeze({ name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] });

const LOGIN_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** the oldest sessions are dropped beyond this, so a loop of sign-ins cannot grow memory without end */
const MAX_SESSIONS = 1000;
const MAX_LOGIN_TOKENS = 1000;

export interface UiSessionsOptions {
  /** the kubeconfig's admin bearer token, which also signs in */
  adminToken: string;
  /** the cluster's id (data dir), which names the cookie */
  clusterId?: string;
  /** milliseconds since the epoch; a test clock may stand in */
  now?: () => number;
}

export class UiSessions implements Authenticator {
  /** digest of a login token → when it expires */
  private readonly loginTokens = new Map<string, number>();
  /** digests of live session ids, oldest first */
  private readonly sessions = new Set<string>();
  private readonly adminToken: Buffer;
  private readonly now: () => number;
  /** the name of this cluster's session cookie */
  readonly cookieName: string;

  constructor(options: UiSessionsOptions) {
    this.adminToken = Buffer.from(options.adminToken);
    this.now = options.now ?? Date.now;
    this.cookieName = sessionCookieName(options.clusterId);
  }

  /** A fresh one-time token (32 random bytes, base64url) that signs in once within 24 hours. */
  issueLoginToken(): string {
    this.dropExpiredLoginTokens();
    const token = randomBytes(32).toString('base64url');
    this.loginTokens.set(digest(token), this.now() + LOGIN_TOKEN_LIFETIME_MS);
    if (this.loginTokens.size > MAX_LOGIN_TOKENS) dropOldest(this.loginTokens);
    return token;
  }

  /**
   * Trades a login token (consumed here) or the admin bearer token for a new session id;
   * undefined when the token is unknown, used or expired.
   */
  exchange(token: string): string | undefined {
    if (token === '') return undefined;
    const key = digest(token);
    const expires = this.loginTokens.get(key);
    let accepted = false;
    if (expires !== undefined) {
      this.loginTokens.delete(key);
      accepted = expires > this.now();
    } else {
      const given = Buffer.from(token);
      accepted = given.length === this.adminToken.length && timingSafeEqual(given, this.adminToken);
    }
    if (!accepted) return undefined;
    const sessionId = randomBytes(32).toString('base64url');
    this.sessions.add(digest(sessionId));
    if (this.sessions.size > MAX_SESSIONS) dropOldest(this.sessions);
    return sessionId;
  }

  /**
   * Whether the request carries this cluster's session cookie, live or not: a stale one (a
   * restarted cluster, a signed-out session) is a 401, which sends the UI to its sign-in page.
   */
  presents(headers: IncomingMessage['headers']): boolean {
    return sessionIdFrom(headers, this.cookieName) !== undefined;
  }

  /** The session user when the request carries a live session cookie. */
  authenticate(headers: IncomingMessage['headers']): UserInfo | undefined {
    const sessionId = sessionIdFrom(headers, this.cookieName);
    if (sessionId === undefined || !this.sessions.has(digest(sessionId))) return undefined;
    return { name: UI_SESSION_USER.name, groups: [...UI_SESSION_USER.groups] };
  }

  revoke(sessionId: string): void {
    this.sessions.delete(digest(sessionId));
  }

  private dropExpiredLoginTokens(): void {
    const now = this.now();
    for (const [key, expires] of this.loginTokens) if (expires <= now) this.loginTokens.delete(key);
  }
}

/** The session id in the request's session cookie (`name`), if any. */
export function sessionIdFrom(headers: IncomingMessage['headers'], name = SESSION_COOKIE): string | undefined {
  const header = headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    const value = part.slice(separator + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/** Set-Cookie value for a session: script cannot read it, and other sites' requests do not carry it. */
export function sessionCookie(sessionId: string, name = SESSION_COOKIE): string {
  return `${name}=${sessionId}; Path=/; HttpOnly; Secure; SameSite=Strict`;
}

/** Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(name = SESSION_COOKIE): string {
  return `${name}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`;
}

function digest(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** Maps and Sets iterate in insertion order, so the first key is the oldest. */
function dropOldest<K>(collection: { keys(): IterableIterator<K>; delete(key: K): boolean }): void {
  for (const key of collection.keys()) {
    collection.delete(key);
    return;
  }
}
