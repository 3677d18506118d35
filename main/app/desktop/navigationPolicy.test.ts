import { describe, expect, it } from 'vitest';
import { defaultContentSecurityPolicy, isAppUrl, isExternalWebUrl, mayGrantPermission, mayNavigate, originOf, windowOpenDecision, withContentSecurityPolicy } from './navigationPolicy';

const app = 'https://127.0.0.1:6443';

describe('the window navigation policy', () => {
  it.each([
    ['https://127.0.0.1:6443/ui/pods', true],
    ['https://127.0.0.1:6443', true],
    ['https://127.0.0.1:6444/ui/', false],
    ['http://127.0.0.1:6443/ui/', false],
    ['https://localhost:6443/ui/', false],
    ['https://example.com/', false],
    ['data:text/html,hi', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('navigating to %s is allowed: %s', (url, allowed) => {
    expect(mayNavigate(url, app)).toBe(allowed);
  });

  it('allows nothing while the app has no origin (no cluster running)', () => {
    expect(isAppUrl('https://127.0.0.1:6443/ui/', undefined)).toBe(false);
  });

  it.each([
    ['https://example.com/docs', true],
    ['http://example.com', true],
    ['file:///tmp/x', false],
    ['smb://share/x', false],
    ['javascript:alert(1)', false],
    ['mailto:someone@example.com', false],
    ['', false],
  ])('%s may be opened in the browser: %s', (url, allowed) => {
    expect(isExternalWebUrl(url)).toBe(allowed);
  });

  it('denies every new window and sends web links to the browser', () => {
    expect(windowOpenDecision('https://example.com')).toEqual({ action: 'deny', openExternally: 'https://example.com' });
    expect(windowOpenDecision('file:///etc/passwd')).toEqual({ action: 'deny' });
  });

  it.each([
    ['clipboard-read', 'https://127.0.0.1:6443/ui/', true],
    ['clipboard-sanitized-write', 'https://127.0.0.1:6443/ui/', true],
    ['clipboard-read', 'https://example.com/', false],
    ['media', 'https://127.0.0.1:6443/ui/', false],
    ['notifications', 'https://127.0.0.1:6443/ui/', false],
    ['openExternal', 'https://127.0.0.1:6443/ui/', false],
  ])('grants %s to %s: %s', (permission, url, granted) => {
    expect(mayGrantPermission(permission, url, app)).toBe(granted);
  });

  it('keeps the server’s own CSP and adds the default when there is none', () => {
    expect(withContentSecurityPolicy({ 'content-security-policy': ["default-src 'self'"] })).toEqual({ 'content-security-policy': ["default-src 'self'"] });
    expect(withContentSecurityPolicy({ 'Content-Type': ['text/html'] })).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [defaultContentSecurityPolicy] });
    expect(defaultContentSecurityPolicy).toContain("object-src 'none'");
    expect(defaultContentSecurityPolicy).not.toContain('unsafe-eval');
  });

  it('takes origins of http(s) URLs only', () => {
    expect(originOf('https://127.0.0.1:6443/ui/?a=1')).toBe('https://127.0.0.1:6443');
    expect(originOf('data:text/html,x')).toBeUndefined();
  });
});
