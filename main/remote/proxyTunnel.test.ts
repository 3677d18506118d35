import { describe, expect, it } from 'vitest';
import { CredentialError } from './clusterConnection';
import { parseProxyUrl, proxyFromEnvironment } from './proxyTunnel';

describe('parseProxyUrl', () => {
  it('reads the scheme, address, default port and credentials of a proxy-url', () => {
    expect(parseProxyUrl('http://proxy.example')).toEqual({ protocol: 'http:', host: 'proxy.example', port: 80, display: 'http://proxy.example' });
    expect(parseProxyUrl('https://u%20x:p%40ss@[::1]:8443')).toEqual({ protocol: 'https:', host: '::1', port: 8443, username: 'u x', password: 'p@ss', display: 'https://[::1]:8443' });
    expect(parseProxyUrl('socks5h://10.0.0.1')).toMatchObject({ protocol: 'socks5h:', port: 1080 });
  });

  it.each(['ftp://proxy:21', 'socks4://proxy', 'not a url'])('refuses %s as unsupported', (text) => {
    expect(() => parseProxyUrl(text)).toThrow(CredentialError);
  });
});

describe('proxyFromEnvironment', () => {
  const env = { HTTPS_PROXY: 'https://proxy.corp:8443', http_proxy: 'proxy.corp:3128', NO_PROXY: 'internal.corp, .svc.example, 10.1.0.0/16, 192.168.1.5, fd00::/8, special.example:6443' };
  it.each([
    ['https://api.example:6443', 'https://proxy.corp:8443'],
    ['http://api.example', 'http://proxy.corp:3128'],
    ['https://localhost:6443', undefined],
    ['https://127.0.0.1:6443', undefined],
    ['https://[::1]:6443', undefined],
    ['https://internal.corp', undefined],
    ['https://api.internal.corp', undefined],
    ['https://svc.example', 'https://proxy.corp:8443'],
    ['https://a.svc.example', undefined],
    ['https://10.1.200.3:6443', undefined],
    ['https://10.2.0.1:6443', 'https://proxy.corp:8443'],
    ['https://192.168.1.5', undefined],
    ['https://[fd00::1]:6443', undefined],
    ['https://special.example:6443', undefined],
    ['https://special.example:443', 'https://proxy.corp:8443'],
  ])('takes the proxy for %s as Go does: %s', (server, proxy) => {
    expect(proxyFromEnvironment(new URL(server), env)).toBe(proxy);
  });

  it('takes no proxy when NO_PROXY is * or none is set', () => {
    expect(proxyFromEnvironment(new URL('https://api.example'), { HTTPS_PROXY: 'http://p', no_proxy: '*' })).toBeUndefined();
    expect(proxyFromEnvironment(new URL('https://api.example'), {})).toBeUndefined();
  });
});
