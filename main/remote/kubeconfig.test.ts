import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientConfigOf, KubeconfigError, kubeconfigFiles, loadKubeconfig, resolveClientConfig } from './kubeconfig';

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

  it('describes a credential plugin for the connection to run, as kubectl runs it', () => {
    const env = { KUBECONFIG: write('exec', first.replace('user: { token: dev-token }', 'user: { exec: { command: aws, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never } }')) };
    expect(resolveClientConfig({}, { env }).exec).toMatchObject({ userName: 'dev-user', command: 'aws', interactiveMode: 'Never' });
  });

  it('applies kubectl’s --server, --tls-server-name, --insecure-skip-tls-verify and --token over the context, as clientcmd’s overrides do', () => {
    const env = { KUBECONFIG: [write('one', first), write('two', second)].join(delimiter) };
    write('certs/ca.crt', 'PROD CA');
    write('certs/client.crt', 'CERT');
    write('certs/client.key', 'KEY');
    // --server drops the kubeconfig's tls-server-name unless --tls-server-name is given too
    expect(resolveClientConfig({ context: 'prod', server: 'https://other.example:7443' }, { env, cwd: dir })).toMatchObject({ server: 'https://other.example:7443', tls: { ca: Buffer.from('PROD CA') } });
    expect(resolveClientConfig({ context: 'prod', server: 'https://other.example:7443' }, { env, cwd: dir }).tls.serverName).toBeUndefined();
    expect(resolveClientConfig({ context: 'prod', server: 'https://x.example', tlsServerName: 'api.x' }, { env, cwd: dir }).tls.serverName).toBe('api.x');
    expect(resolveClientConfig({ context: 'prod', tlsServerName: 'api.y' }, { env, cwd: dir }).tls).toMatchObject({ serverName: 'api.y' });
    // --insecure-skip-tls-verify drops the kubeconfig's CA rather than conflict with it
    const insecure = resolveClientConfig({ context: 'dev', insecureSkipTlsVerify: true }, { env });
    expect(insecure.tls).toEqual({ insecureSkipTlsVerify: true });
    // --token replaces the user's token; with no user at all, the flags make one
    expect(resolveClientConfig({ context: 'dev', token: 'flag-token' }, { env }).auth).toEqual({ token: 'flag-token' });
    expect(resolveClientConfig({ server: 'https://bare.example', token: 't' }, { env: {}, home: dir })).toMatchObject({ server: 'https://bare.example', auth: { token: 't' }, namespace: 'default' });
  });

  it('impersonates whom --as, --as-group and --as-uid name, over the kubeconfig’s own as fields, and refuses groups without a user as kubectl does', () => {
    const env = { KUBECONFIG: write('config', first.replace('user: { token: dev-token }', 'user: { token: dev-token, as: jane, as-groups: [devs] }')) };
    expect(resolveClientConfig({}, { env }).impersonate).toEqual({ user: 'jane', groups: ['devs'] });
    expect(resolveClientConfig({ as: 'system:serviceaccount:ns:viewer', asGroups: ['a', 'b'], asUid: '7' }, { env }).impersonate).toEqual({ user: 'system:serviceaccount:ns:viewer', uid: '7', groups: ['a', 'b'] });
    expect(resolveClientConfig({ as: 'bob' }, { env }).impersonate).toEqual({ user: 'bob', groups: ['devs'] });
    const plain = { KUBECONFIG: write('plain', first) };
    expect(() => resolveClientConfig({ asGroups: ['admins'] }, { env: plain })).toThrow('requesting uid, groups or user-extra for dev-user without impersonating a user');
  });
});

describe('clientConfigOf', () => {
  const everything = `
current-context: remote
clusters:
- name: remote
  cluster:
    server: https://remote.example:6443
    tls-server-name: api.remote
    insecure-skip-tls-verify: true
    proxy-url: socks5h://proxy.example:1080
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: { audience: remote }
users:
- name: sso
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/sso-plugin
      args: [token, --cluster, remote]
      env: [{ name: SSO_PROFILE, value: dev }]
      provideClusterInfo: true
      installHint: install sso-plugin
    as: jane
    as-uid: "42"
    as-groups: [developers, viewers]
    as-user-extra: { scopes: [view] }
- name: on-path
  user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin, interactiveMode: Never } }
- name: cloud
  user: { auth-provider: { name: oidc, config: { idp-issuer-url: https://issuer } } }
- name: groups-only
  user: { token: t, as-groups: [admins] }
contexts:
- name: remote
  context: { cluster: remote, user: sso }
- name: on-path
  context: { cluster: remote, user: on-path }
- name: cloud
  context: { cluster: remote, user: cloud }
- name: groups-only
  context: { cluster: remote, user: groups-only }
`;

  it('describes an exec plugin (its command resolved against the kubeconfig’s folder), proxy-url and impersonation', () => {
    const file = write('nested/config', everything);
    const config = clientConfigOf(loadKubeconfig([file], true));
    expect(config).toMatchObject({
      server: 'https://remote.example:6443',
      tls: { serverName: 'api.remote', insecureSkipTlsVerify: true },
      proxyUrl: 'socks5h://proxy.example:1080',
      exec: {
        userName: 'sso',
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: join(dir, 'nested', 'bin', 'sso-plugin'),
        args: ['token', '--cluster', 'remote'],
        env: [{ name: 'SSO_PROFILE', value: 'dev' }],
        interactiveMode: 'IfAvailable',
        provideClusterInfo: true,
        installHint: 'install sso-plugin',
        clusterConfig: { audience: 'remote' },
      },
      impersonate: { user: 'jane', uid: '42', groups: ['developers', 'viewers'], extra: { scopes: ['view'] } },
    });
    const onPath = clientConfigOf(loadKubeconfig([file], true), { context: 'on-path' });
    expect(onPath.exec).toMatchObject({ command: 'gke-gcloud-auth-plugin', interactiveMode: 'Never', provideClusterInfo: false });
    expect(clientConfigOf(loadKubeconfig([file], true), { context: 'cloud' }).authProvider).toBe('oidc');
  });

  it('keeps the absolute path of a token file so it can be re-read', () => {
    write('token', 'from-file\n');
    write('certs/ca.crt', 'CA');
    const config = clientConfigOf(loadKubeconfig([write('config', second.replace('user: { username: admin, password: secret }', 'user: { tokenFile: token }'))], true), { context: 'basic' });
    expect(config).toMatchObject({ auth: { token: 'from-file' }, tokenFile: join(dir, 'token') });
  });

  it('refuses what kubectl refuses: impersonated groups without a user, a CA with insecure-skip-tls-verify', () => {
    const file = write('config', everything);
    expect(() => clientConfigOf(loadKubeconfig([file], true), { context: 'groups-only' })).toThrow('requesting uid, groups or user-extra for groups-only without impersonating a user');
    const both = write('both', everything.replace('insecure-skip-tls-verify: true', 'insecure-skip-tls-verify: true\n    certificate-authority-data: QQ=='));
    expect(() => clientConfigOf(loadKubeconfig([both], true), { context: 'groups-only' })).toThrow('specifying a root certificates file with the insecure flag is not allowed');
  });

  it('gives kubedesk’s commands every part of a context: plugins, proxy-url and impersonation', () => {
    const env = { KUBECONFIG: write('config', everything) };
    expect(resolveClientConfig({ context: 'cloud' }, { env }).authProvider).toBe('oidc');
    expect(resolveClientConfig({ context: 'on-path' }, { env }).exec).toMatchObject({ command: 'gke-gcloud-auth-plugin' });
    expect(resolveClientConfig({ context: 'remote' }, { env })).toMatchObject({ proxyUrl: 'socks5h://proxy.example:1080', impersonate: { user: 'jane' } });
  });
});
