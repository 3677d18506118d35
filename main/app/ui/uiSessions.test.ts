import { describe, expect, it } from 'vitest';
import { UiSessions, clearedSessionCookie, sessionCookie, sessionCookieName, sessionIdFrom } from './uiSessions';

const ADMIN_TOKEN = 'admin-token-from-the-kubeconfig';

function sessionsWithClock(start = 1_000_000): { sessions: UiSessions; advance(milliseconds: number): void } {
  let now = start;
  return { sessions: new UiSessions({ adminToken: ADMIN_TOKEN, now: () => now }), advance: (milliseconds) => (now += milliseconds) };
}

describe('UiSessions', () => {
  it('issues long random url-safe login tokens', () => {
    const { sessions } = sessionsWithClock();
    const first = sessions.issueLoginToken();
    const second = sessions.issueLoginToken();
    expect(first).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(first).not.toBe(second);
  });

  it('exchanges a login token for a session only once', () => {
    const { sessions } = sessionsWithClock();
    const token = sessions.issueLoginToken();
    const sessionId = sessions.exchange(token);
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(sessions.exchange(token)).toBeUndefined();
  });

  it('refuses a login token after 24 hours', () => {
    const { sessions, advance } = sessionsWithClock();
    const fresh = sessions.issueLoginToken();
    const stale = sessions.issueLoginToken();
    advance(24 * 60 * 60 * 1000 - 1);
    expect(sessions.exchange(fresh)).toBeDefined();
    advance(1);
    expect(sessions.exchange(stale)).toBeUndefined();
  });

  it.each([
    ['the admin bearer token', ADMIN_TOKEN, true],
    ['an empty token', '', false],
    ['a token of the same length', ADMIN_TOKEN.replace('a', 'b'), false],
    ['a prefix of the admin token', ADMIN_TOKEN.slice(0, 5), false],
    ['an unknown token', 'nope', false],
  ])('exchanges %s: %s', (_name, token, accepted) => {
    const { sessions } = sessionsWithClock();
    expect(sessions.exchange(token) !== undefined).toBe(accepted);
  });

  it('lets the admin token sign in any number of times', () => {
    const { sessions } = sessionsWithClock();
    expect(sessions.exchange(ADMIN_TOKEN)).toBeDefined();
    expect(sessions.exchange(ADMIN_TOKEN)).toBeDefined();
  });

  it('authenticates a request by its session cookie as the admin user until the session is revoked', () => {
    const { sessions } = sessionsWithClock();
    const sessionId = sessions.exchange(sessions.issueLoginToken()) ?? '';
    const headers = { cookie: `theme=dark; kubedesk-session=${sessionId}; other=1` };
    expect(sessions.authenticate(headers)).toEqual({ name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] });
    sessions.revoke(sessionId);
    expect(sessions.authenticate(headers)).toBeUndefined();
  });

  it.each([
    ['no cookie header', {}],
    ['another cookie only', { cookie: 'theme=dark' }],
    ['an empty session cookie', { cookie: 'kubedesk-session=' }],
    ['an unknown session id', { cookie: 'kubedesk-session=made-up' }],
    ['the login token instead of a session id', { cookie: 'kubedesk-session=LOGIN' }],
    ['a bearer token', { authorization: `Bearer ${ADMIN_TOKEN}` }],
  ])('does not authenticate a request with %s', (_name, headers: Record<string, string>) => {
    const { sessions } = sessionsWithClock();
    const login = sessions.issueLoginToken();
    sessions.exchange(sessions.issueLoginToken());
    const withLogin = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, value.replace('LOGIN', login)]));
    expect(sessions.authenticate(withLogin)).toBeUndefined();
  });

  it('reads the session id from a cookie header', () => {
    expect(sessionIdFrom({ cookie: 'a=1;kubedesk-session=abc_-1; b=2' })).toBe('abc_-1');
    expect(sessionIdFrom({ cookie: 'xkubedesk-session=abc' })).toBeUndefined();
  });

  it('writes a cookie scripts cannot read and other sites do not send', () => {
    expect(sessionCookie('abc')).toBe('kubedesk-session=abc; Path=/; HttpOnly; Secure; SameSite=Strict');
    expect(clearedSessionCookie()).toContain('Max-Age=0');
  });

  it('names the cookie after the cluster, so two clusters on one host keep their sign-ins apart', () => {
    const first = new UiSessions({ adminToken: ADMIN_TOKEN, clusterId: '0123456789abcdef' });
    const second = new UiSessions({ adminToken: 'another-clusters-token', clusterId: 'fedcba9876543210' });
    expect(first.cookieName).toBe('kubedesk-session-0123456789ab');
    expect(second.cookieName).toBe('kubedesk-session-fedcba987654');
    const firstId = first.exchange(ADMIN_TOKEN) ?? '';
    const secondId = second.exchange('another-clusters-token') ?? '';
    // a browser sends both cookies to both ports of 127.0.0.1: each cluster reads only its own
    const cookie = `${sessionCookie(firstId, first.cookieName).split(';')[0]}; ${sessionCookie(secondId, second.cookieName).split(';')[0]}`;
    expect(first.authenticate({ cookie })?.name).toBe('kubedesk-admin');
    expect(second.authenticate({ cookie })?.name).toBe('kubedesk-admin');
    expect(second.authenticate({ cookie: sessionCookie(firstId, second.cookieName).split(';')[0] })).toBeUndefined();
    expect(sessionCookieName(undefined)).toBe('kubedesk-session');
  });
});
