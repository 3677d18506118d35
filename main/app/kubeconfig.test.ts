// Tests for writing kubedesk's entries into a kubeconfig: other entries, comments and layout keep
// their exact bytes, the file stays 0600, current-context is only set when unset.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { removeKubeconfigEntries, writeKubeconfig } from './kubeconfig';

const caCertPem = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const caData = Buffer.from(caCertPem).toString('base64');
const server = 'https://127.0.0.1:41234';
const token = 'secret-token';

const kubedeskCluster = `- cluster:
    certificate-authority-data: ${caData}
    server: ${server}
  name: kubedesk
`;
const kubedeskContext = `- context:
    cluster: kubedesk
    user: kubedesk
  name: kubedesk
`;
const kubedeskUser = `- name: kubedesk
  user:
    token: ${token}
`;

// What `kubectl config` leaves behind, plus hand-written comments and quirks.
const existing = `# managed by hand
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lCQURBS0JnZ3Foa2pPUFFRREFqQWpNU0V3SHdZRFZRUUREQmhyTTNNdGMyVnk=
    server: https://127.0.0.1:6443
  name: kind-kind   # created by kind
- cluster:
    server: "https://example.com:443"
  name: prod

contexts:
# the local one
- context:
    cluster: kind-kind
    user: kind-kind
    namespace: default
  name: kind-kind
- context: {cluster: prod, user: prod}
  name: prod
current-context: prod
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: 'abc'
    client-key-data: abc
- name: prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args:
        - eks
        - get-token
extensions:
  - name: x
    extension: {a: 1}
`;

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'kubedesk-kubeconfig-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function insertAfter(text: string, anchor: string, insertion: string): string {
  const index = text.indexOf(anchor);
  if (index < 0) throw new Error(`anchor not found: ${anchor}`);
  return text.slice(0, index + anchor.length) + insertion + text.slice(index + anchor.length);
}

describe('writeKubeconfig', () => {
  it('creates a missing file and its directory in the layout kubectl writes', () => {
    const path = join(directory, 'nested', '.kube', 'config');
    const result = writeKubeconfig({ path, server, caCertPem, token });
    expect(result).toEqual({ currentContextSet: true });
    expect(readFileSync(path, 'utf8')).toBe(
      `apiVersion: v1\nclusters:\n${kubedeskCluster}contexts:\n${kubedeskContext}current-context: kubedesk\nkind: Config\npreferences: {}\nusers:\n${kubedeskUser}`,
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('leaves every other byte of an existing file as it was and keeps its current-context', () => {
    const path = join(directory, 'config');
    writeFileSync(path, existing, { mode: 0o600 });
    const result = writeKubeconfig({ path, server, caCertPem, token });
    expect(result).toEqual({ currentContextSet: false, previousContext: 'prod' });
    let expected = insertAfter(existing, '  name: prod\n', kubedeskCluster);
    expected = insertAfter(expected, '- context: {cluster: prod, user: prod}\n  name: prod\n', kubedeskContext);
    expected = insertAfter(expected, '        - get-token\n', kubedeskUser);
    expect(readFileSync(path, 'utf8')).toBe(expected);
  });

  it('replaces its own entries on a second run instead of adding duplicates', () => {
    const path = join(directory, 'config');
    writeFileSync(path, existing, { mode: 0o600 });
    writeKubeconfig({ path, server: 'https://127.0.0.1:1111', caCertPem: 'old', token: 'old-token' });
    writeKubeconfig({ path, server, caCertPem, token });
    let expected = insertAfter(existing, '  name: prod\n', kubedeskCluster);
    expected = insertAfter(expected, '- context: {cluster: prod, user: prod}\n  name: prod\n', kubedeskContext);
    expected = insertAfter(expected, '        - get-token\n', kubedeskUser);
    expect(readFileSync(path, 'utf8')).toBe(expected);
  });

  it('keeps a namespace the user set on the kubedesk context and drops conflicting cluster settings', () => {
    const path = join(directory, 'config');
    writeFileSync(
      path,
      'apiVersion: v1\nclusters:\n- cluster:\n    insecure-skip-tls-verify: true\n    server: https://old\n  name: kubedesk\n' +
        'contexts:\n- context:\n    cluster: kubedesk\n    namespace: team\n    user: kubedesk\n  name: kubedesk\n' +
        'current-context: kubedesk\nkind: Config\nusers:\n- name: kubedesk\n  user:\n    username: admin\n    password: admin\n',
    );
    expect(writeKubeconfig({ path, server, caCertPem, token })).toEqual({ currentContextSet: false, previousContext: 'kubedesk' });
    expect(parse(readFileSync(path, 'utf8'))).toEqual({
      apiVersion: 'v1',
      clusters: [{ cluster: { 'certificate-authority-data': caData, server }, name: 'kubedesk' }],
      contexts: [{ context: { cluster: 'kubedesk', namespace: 'team', user: 'kubedesk' }, name: 'kubedesk' }],
      'current-context': 'kubedesk',
      kind: 'Config',
      users: [{ name: 'kubedesk', user: { token } }],
    });
  });

  it('removes duplicate entries with its name', () => {
    const path = join(directory, 'config');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\nusers:\n- name: kubedesk\n  user: {token: a}\n- name: other\n  user: {token: b}\n- name: kubedesk\n  user: {token: c}\n');
    writeKubeconfig({ path, server, caCertPem, token });
    const users = (parse(readFileSync(path, 'utf8')) as { users: unknown[] }).users;
    expect(users).toEqual([{ name: 'kubedesk', user: { token } }, { name: 'other', user: { token: 'b' } }]);
  });

  it.each([
    { label: 'missing', currentContext: '' },
    { label: 'empty', currentContext: 'current-context: ""\n' },
    { label: 'null', currentContext: 'current-context:\n' },
  ])('sets current-context when it is $label', ({ currentContext }) => {
    const path = join(directory, 'config');
    writeFileSync(path, `apiVersion: v1\nclusters: []\ncontexts:\n${currentContext}kind: Config\nusers: null\n`);
    expect(writeKubeconfig({ path, server, caCertPem, token })).toEqual({ currentContextSet: true });
    const config = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(config['current-context']).toBe('kubedesk');
    expect(config.clusters).toHaveLength(1);
    expect(config.contexts).toHaveLength(1);
    expect(config.users).toHaveLength(1);
  });

  it('tightens a looser file mode to 0600', () => {
    const path = join(directory, 'config');
    writeFileSync(path, existing);
    chmodSync(path, 0o644);
    writeKubeconfig({ path, server, caCertPem, token });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes through a symlinked kubeconfig and leaves no temporary files', () => {
    const real = join(directory, 'real-config');
    const link = join(directory, 'config');
    writeFileSync(real, existing, { mode: 0o600 });
    symlinkSync(real, link);
    writeKubeconfig({ path: link, server, caCertPem, token, name: 'desk' });
    expect(readFileSync(real, 'utf8')).toContain('name: desk');
    expect(readdirSync(directory).sort()).toEqual(['config', 'real-config']);
  });

  it('refuses to overwrite a file that is not valid YAML', () => {
    const path = join(directory, 'config');
    writeFileSync(path, 'clusters: [\n');
    expect(() => writeKubeconfig({ path, server, caCertPem, token })).toThrow(/cannot parse kubeconfig/);
    expect(readFileSync(path, 'utf8')).toBe('clusters: [\n');
  });

  it('still writes correct content for a JSON kubeconfig', () => {
    const path = join(directory, 'config');
    writeFileSync(path, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'a', cluster: { server: 'https://a' } }], 'current-context': 'a' }));
    writeKubeconfig({ path, server, caCertPem, token });
    const config = parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    expect(config.clusters).toEqual([{ name: 'a', cluster: { server: 'https://a' } }, { cluster: { 'certificate-authority-data': caData, server }, name: 'kubedesk' }]);
    expect(config['current-context']).toBe('a');
  });
});

describe('removeKubeconfigEntries', () => {
  it('restores the original bytes after a write when another context is current', () => {
    const path = join(directory, 'config');
    writeFileSync(path, existing, { mode: 0o600 });
    writeKubeconfig({ path, server, caCertPem, token });
    expect(removeKubeconfigEntries(path, 'kubedesk')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(existing);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('clears current-context when it pointed at the removed context and keeps lists as lists', () => {
    const path = join(directory, 'config');
    writeKubeconfig({ path, server, caCertPem, token });
    expect(removeKubeconfigEntries(path, 'kubedesk')).toBe(true);
    expect(parse(readFileSync(path, 'utf8'))).toEqual({
      apiVersion: 'v1',
      clusters: [],
      contexts: [],
      'current-context': '',
      kind: 'Config',
      preferences: {},
      users: [],
    });
  });

  it('adds and removes a named local cluster\'s entries beside the default cluster\'s, leaving the others and current-context alone', () => {
    const path = join(directory, 'config');
    writeFileSync(path, existing, { mode: 0o600 });
    writeKubeconfig({ path, server, caCertPem, token });
    const withDefault = readFileSync(path, 'utf8');
    expect(writeKubeconfig({ path, server: 'https://127.0.0.1:40001', caCertPem, token: 'other-token', name: 'kubedesk-b' })).toEqual({ currentContextSet: false, previousContext: 'prod' });
    const config = parse(readFileSync(path, 'utf8')) as { contexts: Array<{ name: string; context: unknown }>; users: Array<{ name: string; user: unknown }>; 'current-context': string };
    expect(config.contexts.map((context) => context.name)).toEqual(['kind-kind', 'prod', 'kubedesk', 'kubedesk-b']);
    expect(config.contexts.find((context) => context.name === 'kubedesk-b')?.context).toEqual({ cluster: 'kubedesk-b', user: 'kubedesk-b' });
    expect(config.users.find((user) => user.name === 'kubedesk-b')?.user).toEqual({ token: 'other-token' });
    expect(config['current-context']).toBe('prod');
    expect(removeKubeconfigEntries(path, 'kubedesk-b')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(withDefault);
  });

  it('clears current-context only when it named the removed local cluster', () => {
    const path = join(directory, 'config');
    writeKubeconfig({ path, server, caCertPem, token, name: 'kubedesk-b' });
    writeKubeconfig({ path, server, caCertPem, token, name: 'kubedesk-c' });
    expect(removeKubeconfigEntries(path, 'kubedesk-c')).toBe(true);
    expect((parse(readFileSync(path, 'utf8')) as Record<string, unknown>)['current-context']).toBe('kubedesk-b');
    expect(removeKubeconfigEntries(path, 'kubedesk-b')).toBe(true);
    expect((parse(readFileSync(path, 'utf8')) as Record<string, unknown>)['current-context']).toBe('');
  });

  it('does nothing when the file or the entries are missing', () => {
    const path = join(directory, 'config');
    expect(removeKubeconfigEntries(path, 'kubedesk')).toBe(false);
    expect(existsSync(path)).toBe(false);
    writeFileSync(path, existing);
    expect(removeKubeconfigEntries(path, 'kubedesk')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(existing);
  });
});
