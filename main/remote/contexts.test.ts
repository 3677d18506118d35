import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestCertificates } from '../../test/fixtures/testCertificates';
import { kubeconfigFiles, loadKubeconfig } from './kubeconfig';
import { connectionForContext } from './connection';
import { listContexts } from './contexts';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kd-contexts-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(name: string, text: string): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const personal = `
current-context: dev
clusters:
- name: dev
  cluster: { server: "https://dev.example:6443/", certificate-authority: missing/ca.crt }
- name: shared
  cluster: { server: https://first.example, insecure-skip-tls-verify: true }
users:
- name: dev-user
  user: { token: secret-token }
- name: shared-user
  user: { tokenFile: /var/run/token }
contexts:
- name: dev
  context: { cluster: dev, user: dev-user, namespace: team-a }
- name: shared
  context: { cluster: shared, user: shared-user }
`;

const team = `
current-context: prod
clusters:
- name: shared
  cluster: { server: https://second.example }
- name: prod
  cluster: { server: https://prod.example }
users:
- name: shared-user
  user: { token: second-token }
- name: eks
  user: { exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: aws }, as: jane, as-groups: [developers] }
- name: cert
  user: { client-certificate-data: QQ==, client-key-data: QQ== }
- name: basic
  user: { username: admin, password: secret }
- name: gcp
  user: { auth-provider: { name: gcp } }
contexts:
- name: shared
  context: { cluster: prod, user: cert }
- name: prod
  context: { cluster: prod, user: eks }
- name: basic
  context: { cluster: prod, user: basic }
- name: legacy
  context: { cluster: prod, user: gcp }
- name: anonymous
  context: { cluster: prod }
- name: dangling
  context: { cluster: nowhere, user: nobody }
`;

describe('listContexts', () => {
  it('lists the contexts of every KUBECONFIG file as kubectl merges them, never a credential', () => {
    const env = { KUBECONFIG: [write('home/config', personal), join(dir, 'missing-is-skipped'), write('team/config', team)].join(delimiter) };
    const { files, explicit } = kubeconfigFiles({}, { env });
    const merged = loadKubeconfig(files, explicit);
    expect(merged.files).toEqual([join(dir, 'home/config'), join(dir, 'team/config')]);
    const contexts = listContexts(merged);
    expect(contexts).toEqual([
      { name: 'anonymous', cluster: 'prod', user: '', server: 'https://prod.example', insecure: false, authKind: 'none', current: false },
      { name: 'basic', cluster: 'prod', user: 'basic', server: 'https://prod.example', insecure: false, authKind: 'basic', current: false },
      { name: 'dangling', cluster: 'nowhere', user: 'nobody', server: '', insecure: false, authKind: 'none', current: false },
      { name: 'dev', cluster: 'dev', user: 'dev-user', server: 'https://dev.example:6443', namespace: 'team-a', insecure: false, authKind: 'token', current: true },
      { name: 'legacy', cluster: 'prod', user: 'gcp', server: 'https://prod.example', insecure: false, authKind: 'auth-provider', current: false },
      { name: 'prod', cluster: 'prod', user: 'eks', server: 'https://prod.example', insecure: false, authKind: 'exec', impersonate: { user: 'jane', groups: ['developers'] }, current: false },
      // the first file's "shared" context, cluster and user win over the second file's
      { name: 'shared', cluster: 'shared', user: 'shared-user', server: 'https://first.example', insecure: true, authKind: 'token-file', current: false },
    ]);
    expect(JSON.stringify(contexts)).not.toMatch(/secret|second-token|QQ==/);
  });

  it('reaches a context’s server with files named relative to the kubeconfig that defines it', async () => {
    const certificates = makeTestCertificates(['localhost'], ['127.0.0.1']);
    const server = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, (request, response) => response.end(request.headers.authorization ?? ''));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      write('team/pki/ca.crt', certificates.caPem);
      write('team/token', 'relative-token\n');
      const second = `
clusters:
- name: local
  cluster: { server: "https://127.0.0.1:${port}", certificate-authority: pki/ca.crt }
users:
- name: local
  user: { tokenFile: token }
contexts:
- name: local
  context: { cluster: local, user: local }
`;
      const merged = loadKubeconfig([write('home/config', personal), write('team/config', second)], false);
      const connection = connectionForContext(merged, 'local');
      const options = await connection.requestOptions('GET', '/version');
      const body = await new Promise<string>((resolve, reject) => {
        const request = https.request(options, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve(Buffer.concat(chunks).toString()));
        });
        request.on('error', reject);
        request.end();
      });
      expect(body).toBe('Bearer relative-token');
      connection.close();
      // the first file's dev cluster names a CA that is not there: its connection says so when used
      await expect(connectionForContext(merged, 'dev').requestOptions('GET', '/version')).rejects.toMatchObject({ failure: 'file-unreadable', message: expect.stringContaining(join(dir, 'home', 'missing', 'ca.crt')) });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
