import { describe, expect, it } from 'vitest';
import { rewriteHtml, rewriteUrl, type RewriteContext } from './urlRewrite';

const context: RewriteContext = { pathPrepend: '/api/v1/namespaces/default/services/web/proxy/', backendHost: '10.1.0.5:8080', requestHost: '127.0.0.1:8001' };
const prefix = '/api/v1/namespaces/default/services/web/proxy';

describe('rewriteUrl', () => {
  it.each([
    ['/static/app.js', `${prefix}/static/app.js`],
    ['/', `${prefix}/`],
    ['/login?next=/home#top', `${prefix}/login?next=/home#top`],
    ['http://10.1.0.5:8080/admin/', `${prefix}/admin/`],
    ['http://127.0.0.1:8001/admin', `http://127.0.0.1:8001${prefix}/admin`],
    [`${prefix}/already`, `${prefix}/already`],
    ['http://example.com/x', 'http://example.com/x'],
    ['//cdn.example.com/lib.js', '//cdn.example.com/lib.js'],
    ['relative/page', 'relative/page'],
    ['../up', '../up'],
    ['#anchor', '#anchor'],
    ['?q=1', '?q=1'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    ['javascript:void(0)', 'javascript:void(0)'],
  ])('rewrites %s to %s', (target, expected) => {
    expect(rewriteUrl(target, context)).toBe(expected);
  });
});

describe('rewriteHtml', () => {
  const rewrite = (url: string) => rewriteUrl(url, context);

  it('rewrites URL attributes of the listed tags and keeps everything else byte for byte', () => {
    const html = [
      '<!DOCTYPE html>',
      '<html><head><link rel="stylesheet" href="/style.css"><script src=\'/app.js\'></script></head>',
      '<BODY><A HREF=/docs/ class=x>docs</A> <a href="relative">r</a> <a title="/not-a-link">t</a>',
      '<img src="/logo.png" alt="/logo.png"/><form action="/submit?a=1&amp;b=2" method="post"></form>',
      '<!-- <a href="/in-comment"> -->',
      '<script>document.write("<a href=\\"/in-script\\">")</script>',
      '<p>1 < 2 and <b>bold</b></p>',
      '</body></html>',
    ].join('\n');
    const expected = [
      '<!DOCTYPE html>',
      `<html><head><link rel="stylesheet" href="${prefix}/style.css"><script src='${prefix}/app.js'></script></head>`,
      `<BODY><A HREF=${prefix}/docs/ class=x>docs</A> <a href="relative">r</a> <a title="/not-a-link">t</a>`,
      `<img src="${prefix}/logo.png" alt="/logo.png"/><form action="${prefix}/submit?a=1&amp;b=2" method="post"></form>`,
      '<!-- <a href="/in-comment"> -->',
      '<script>document.write("<a href=\\"/in-script\\">")</script>',
      '<p>1 < 2 and <b>bold</b></p>',
      '</body></html>',
    ].join('\n');
    expect(rewriteHtml(html, rewrite)).toBe(expected);
  });

  it('survives truncated markup', () => {
    for (const html of ['<a href="/x', '<a href=', '<a', '<', '<!-- open', '<script>never closed']) {
      expect(() => rewriteHtml(html, rewrite)).not.toThrow();
    }
  });
});
