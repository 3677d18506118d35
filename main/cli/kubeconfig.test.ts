import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeconfigError, kubeconfigFiles, resolveClientConfig } from './kubeconfig';

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kd-kubeconfig-'));
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

const base64 = (text: string) => Buffer.from(text).toString('base64');

const first = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster: { server: "https://dev.example:6443/", certificate-authority-data: ${base64('DEV CA')} }
- name: shared
  cluster: { server: "https://first.example" }
users:
- name: dev-user
  user: { token: dev-token }
contexts:
- name: dev
  context: { cluster: dev, user: dev-user, namespace: team-a }
- name: shared
  context: { cluster: shared, user: dev-user }
`;

const second = `
current-context: prod
clusters:
- name: prod
  cluster: { server: "https://prod.example", certificate-authority: certs/ca.crt, tls-server-name: api.prod }
- name: shared
  cluster: { server: "https://second.example" }
users:
- name: prod-user
  user: { client-certificate: certs/client.crt, client-key: certs/client.key }
- name: basic
  user: { username: admin, password: secret }
contexts:
- name: prod
  context: { cluster: prod, user: prod-user }
- name: basic
  context: { cluster: prod, user: basic, namespace: ops }
`;

describe('kubeconfigFiles', () => {
  it('reads --kubeconfig alone, else every KUBECONFIG entry, else ~/.kube/config', () => {
    const env = { KUBECONFIG: ['a', '', 'b', 'a'].join(delimiter) };
    expect(kubeconfigFiles({ kubeconfig: 'x' }, { env, cwd: '/work' })).toEqual({ files: ['/work/x'], explicit: true });
    expect(kubeconfigFiles({}, { env, cwd: '/work' })).toEqual({ files: ['/work/a', '/work/b'], explicit: false });
    expect(kubeconfigFiles({}, { env: {}, home: '/home/me' })).toEqual({ files: ['/home/me/.kube/config'], explicit: false });
  });
});

describe('resolveClientConfig', () => {
  it('merges KUBECONFIG files as kubectl does: the first name and the first current-context win', () => {
    const env = { KUBECONFIG: [write('one', first), write('missing-is-skipped', ''), write('two', second)].join(delimiter) };
    const config = resolveClientConfig({}, { env });
    expect(config).toMatchObject({ contextName: 'dev', clusterName: 'dev', userName: 'dev-user', server: 'https://dev.example:6443', namespace: 'team-a', namespaceExplicit: true, auth: { token: 'dev-token' } });
    expect(config.tls.ca?.toString()).toBe('DEV CA');
    expect(resolveClientConfig({ context: 'shared' }, { env }).server).toBe('https://first.example');
  });

  it('reads certificate files relative to the kubeconfig that names them', () => {
    write('deep/certs/ca.crt', 'PROD CA');
    write('deep/certs/client.crt', 'CLIENT CERT');
    write('deep/certs/client.key', 'CLIENT KEY');
    const env = { KUBECONFIG: [write('one', first), write('deep/two', second)].join(delimiter) };
    const config = resolveClientConfig({ context: 'prod' }, { env });
    expect(config).toMatchObject({ server: 'https://prod.example', namespace: 'default', namespaceExplicit: false, tls: { insecureSkipTlsVerify: false, serverName: 'api.prod' }, auth: {} });
    expect([config.tls.ca?.toString(), config.tls.cert?.toString(), config.tls.key?.toString()]).toEqual(['PROD CA', 'CLIENT CERT', 'CLIENT KEY']);
  });

  it('takes -n over the context namespace, and basic auth and a token file', () => {
    write('token', 'file-token\n');
    const env = { KUBECONFIG: write('config', second.replace('user: { username: admin, password: secret }', 'user: { username: admin, password: secret }\n- name: from-file\n  user: { tokenFile: token }')) };
    write('certs/ca.crt', 'CA');
    expect(resolveClientConfig({ context: 'basic' }, { env })).toMatchObject({ namespace: 'ops', auth: { username: 'admin', password: 'secret' } });
    expect(resolveClientConfig({ context: 'basic', namespace: 'other' }, { env }).namespace).toBe('other');
    expect(resolveClientConfig({ context: 'basic', user: 'from-file' }, { env }).auth).toEqual({ token: 'file-token' });
  });

  it('uses only --kubeconfig when it is given', () => {
    const env = { KUBECONFIG: write('one', first) };
    write('certs/ca.crt', 'CA');
    write('certs/client.crt', 'C');
    write('certs/client.key', 'K');
    expect(resolveClientConfig({ kubeconfig: write('two', second) }, { env }).contextName).toBe('prod');
  });

  it.each([
    [{ kubeconfig: 'nope' }, /^stat .*nope: no such file or directory$/],
    [{ context: 'staging' }, /^context was not found for specified context: staging$/],
    [{ cluster: 'elsewhere' }, /^no server found for cluster "elsewhere"$/],
    [{ user: 'nobody' }, /^auth info "nobody" does not exist$/],
  ])('refuses %j with kubectl’s words', (flags, message) => {
    const env = { KUBECONFIG: write('one', first) };
    expect(() => resolveClientConfig(flags, { env, cwd: dir })).toThrow(message);
  });

  it('says when there is no configuration or no current context', () => {
    expect(() => resolveClientConfig({}, { env: {}, home: dir })).toThrow('no configuration has been provided');
    const env = { KUBECONFIG: write('nocurrent', first.replace('current-context: dev', '')) };
    expect(() => resolveClientConfig({}, { env })).toThrow(KubeconfigError);
    expect(() => resolveClientConfig({}, { env })).toThrow('current-context is not set');
  });

  it('refuses credential plugins by name rather than running them', () => {
    const env = { KUBECONFIG: write('exec', first.replace('user: { token: dev-token }', 'user: { exec: { command: aws, apiVersion: client.authentication.k8s.io/v1 } }')) };
    expect(() => resolveClientConfig({}, { env })).toThrow('user "dev-user" gets its credentials from an exec plugin');
  });
});
