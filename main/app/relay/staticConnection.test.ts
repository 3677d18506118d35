import { describe, expect, it } from 'vitest';
import type { ClientConfig, MergedKubeconfig } from '../../cli/kubeconfig';
import { staticConnection, summarizeContexts } from './staticConnection';

function config(overrides: Partial<ClientConfig> = {}): ClientConfig {
  return {
    contextName: 'prod',
    clusterName: 'prod',
    userName: 'me',
    server: 'https://api.example.test:6443',
    namespace: 'default',
    namespaceExplicit: false,
    tls: { insecureSkipTlsVerify: false },
    auth: {},
    files: [],
    ...overrides,
  };
}

describe('staticConnection', () => {
  it('puts the API path under the server URL\'s own path and adds the bearer token', async () => {
    const connection = staticConnection(config({ server: 'https://gateway.example.test/k8s/clusters/c-1', auth: { token: 'secret-token' } }));
    try {
      const options = await connection.requestOptions('GET', '/api/v1/pods?watch=1', { Accept: 'application/json' });
      expect(options).toMatchObject({ protocol: 'https:', hostname: 'gateway.example.test', port: 443, method: 'GET', path: '/k8s/clusters/c-1/api/v1/pods?watch=1', headers: { Accept: 'application/json', Authorization: 'Bearer secret-token' } });
      expect(connection.credentialsRejected()).toBe(false);
      expect(connection.warnings).toEqual([]);
    } finally {
      connection.close();
    }
  });

  it('sends basic auth, reaches an IPv6 literal, and warns about insecure-skip-tls-verify', async () => {
    const connection = staticConnection(config({ server: 'https://[::1]:8443', auth: { username: 'admin', password: 'pw' }, tls: { insecureSkipTlsVerify: true } }));
    try {
      const options = await connection.requestOptions('DELETE', '/api/v1/namespaces/a');
      expect(options).toMatchObject({ hostname: '::1', port: '8443', headers: { Authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` } });
      expect(connection.warnings[0]).toContain('insecure-skip-tls-verify');
    } finally {
      connection.close();
    }
  });
});

describe('summarizeContexts', () => {
  it('describes each context by names, address and kind of credential, never the credential', () => {
    const entry = (value: Record<string, unknown>) => ({ value, file: '/home/me/.kube/config' });
    const merged: MergedKubeconfig = {
      files: ['/home/me/.kube/config'],
      currentContext: 'b',
      clusters: new Map([
        ['one', entry({ server: 'https://one.example.test', 'certificate-authority-data': 'Q0E=' })],
        ['two', entry({ server: 'https://two.example.test', 'insecure-skip-tls-verify': true })],
      ]),
      users: new Map([
        ['cert', entry({ 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' })],
        ['plugin', entry({ exec: { command: 'aws' }, as: 'alice', 'as-groups': ['devs'] })],
        ['file', entry({ tokenFile: '/var/run/token' })],
        ['token', entry({ token: 'the-secret' })],
      ]),
      contexts: new Map([
        ['a', entry({ cluster: 'one', user: 'cert', namespace: 'team' })],
        ['b', entry({ cluster: 'two', user: 'plugin' })],
        ['c', entry({ cluster: 'one', user: 'file' })],
        ['d', entry({ cluster: 'one', user: 'token' })],
        ['e', entry({ cluster: 'missing' })],
      ]),
    };
    const summaries = summarizeContexts(merged);
    expect(summaries).toEqual([
      { name: 'a', cluster: 'one', user: 'cert', server: 'https://one.example.test', namespace: 'team', insecure: false, authKind: 'client-certificate', current: false },
      { name: 'b', cluster: 'two', user: 'plugin', server: 'https://two.example.test', insecure: true, authKind: 'exec', impersonate: { user: 'alice', groups: ['devs'] }, current: true },
      { name: 'c', cluster: 'one', user: 'file', server: 'https://one.example.test', insecure: false, authKind: 'token-file', current: false },
      { name: 'd', cluster: 'one', user: 'token', server: 'https://one.example.test', insecure: false, authKind: 'token', current: false },
      { name: 'e', cluster: 'missing', user: '', server: '', insecure: false, authKind: 'none', current: false },
    ]);
    expect(JSON.stringify(summaries)).not.toContain('the-secret');
  });
});
