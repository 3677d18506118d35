// kubedesk's client commands reach a cluster through the context's connection (main/remote), as
// kubectl does through client-go: a real `kubedesk why` run in-process against a recording HTTPS
// server shows which credentials each kind of context and each kubectl global flag sends — an exec
// plugin's token (its stderr passed through, its run shared, re-run after a 401, interactive only
// with a terminal), impersonation from the kubeconfig and from --as/--as-group/--as-uid, a
// proxy-url, --server/--token/--insecure-skip-tls-verify — and the errors kubectl prints.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTestCertificates } from '../../test/fixtures/testCertificates';
import { startConnectProxy, type TestProxy } from '../../test/fixtures/testProxies';
import { resolveClientConfig } from '../remote';
import { clusterClient, kubectlErrorText } from './clusterClient';
import { parseWhyArgs, whyCommand } from './why';

describe('kubedesk commands on a context’s connection', () => {
  const certificates = makeTestCertificates(['localhost', 'cluster.test'], ['127.0.0.1']);
  const requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  /** the bearer tokens the server accepts (anything else is 401) */
  const accepted = new Set(['plugin-token-1', 'plugin-token-2', 'plain', 'flag-token']);
  let server: https.Server;
  let port: number;
  let proxy: TestProxy;
  let dir: string;
  let kubeconfig: string;
  let runs: string;

  /** A v1 exec plugin (a node script): counts its runs, says hello on stderr, prints the token named by its run count. */
  function plugin(name: string, body: string): string {
    const path = join(dir, name);
    writeFileSync(path, `#!/usr/bin/env node\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kd-cli-connection-'));
    runs = join(dir, 'runs');
    server = https.createServer({ cert: certificates.certPem, key: certificates.keyPem }, (req, res) => {
      requests.push({ path: req.url ?? '', headers: req.headers });
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !accepted.has(token)) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' }));
        return;
      }
      const name = (req.url ?? '').split('?')[0].split('/').pop();
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `pods "${name}" not found` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    proxy = await startConnectProxy({ hosts: { 'cluster.test': '127.0.0.1' } });
    const counting = `const fs = require('node:fs');
const count = (fs.existsSync(${JSON.stringify(runs)}) ? Number(fs.readFileSync(${JSON.stringify(runs)}, 'utf8')) : 0) + 1;
fs.writeFileSync(${JSON.stringify(runs)}, String(count));
process.stderr.write('plugin: signing in (interactive=' + JSON.parse(process.env.KUBERNETES_EXEC_INFO).spec.interactive + ')\\n');
// the first run's token is rejected once the server stops accepting it
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'plugin-token-' + count } }));`;
    const sso = plugin('sso-plugin', counting);
    const failing = plugin('failing-plugin', `process.stderr.write('plugin: no session, run sso login\\n'); process.exit(3);`);
    const ca = Buffer.from(certificates.caPem).toString('base64');
    kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
current-context: sso
clusters:
- name: local
  cluster: { server: "https://127.0.0.1:${port}", certificate-authority-data: ${ca} }
- name: proxied
  cluster: { server: "https://cluster.test:${port}", certificate-authority-data: ${ca}, proxy-url: "${proxy.url}" }
users:
- name: sso
  user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ${sso}, interactiveMode: IfAvailable } }
- name: always
  user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ${sso}, interactiveMode: Always } }
- name: failing
  user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ${failing}, interactiveMode: Never } }
- name: viewer
  user: { token: plain, as: "system:serviceaccount:apps:viewer", as-groups: [viewers] }
- name: plain
  user: { token: plain }
contexts:
- { name: sso, context: { cluster: local, user: sso, namespace: apps } }
- { name: always, context: { cluster: local, user: always } }
- { name: failing, context: { cluster: local, user: failing } }
- { name: viewer, context: { cluster: local, user: viewer } }
- { name: plain, context: { cluster: local, user: plain } }
- { name: proxied, context: { cluster: proxied, user: plain } }
`,
    );
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    requests.length = 0;
    rmSync(runs, { force: true });
  });

  async function run(argv: string[], stdinIsTerminal = false) {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (text: string) => (stdout += text), stderr: (text: string) => (stderr += text), stdinIsTerminal: () => stdinIsTerminal, environment: { env: { KUBECONFIG: kubeconfig, PATH: process.env.PATH }, cwd: dir } };
    const code = await whyCommand(argv, io);
    return { code, stdout, stderr };
  }
  const pluginRuns = () => Number(readFileSync(runs, 'utf8'));

  it('runs the context’s exec plugin once, sends its token, and passes its stderr through to the terminal', async () => {
    const result = await run(['po/web']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: 'plugin: signing in (interactive=false)\nError from server (NotFound): pods "web" not found\n' });
    expect(requests.map((request) => request.headers.authorization)).toEqual(['Bearer plugin-token-1']);
    expect(requests[0].path).toBe('/api/v1/namespaces/apps/pods/web');
    expect(pluginRuns()).toBe(1);
  });

  it('tells an IfAvailable plugin it is interactive when stdin is a terminal, and refuses Always without one in kubectl’s words', async () => {
    expect((await run(['po/web'], true)).stderr).toContain('plugin: signing in (interactive=true)\n');
    expect(await run(['po/web', '--context', 'always'], true)).toMatchObject({ code: 2, stderr: expect.stringContaining('plugin: signing in (interactive=true)') });
    expect(await run(['po/web', '--context', 'always'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'Unable to connect to the server: getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal\n',
    });
  });

  it('prints a failing plugin’s stderr as it comes and kubectl’s error after it', async () => {
    const failing = join(dir, 'failing-plugin');
    expect(await run(['po/web', '--context', 'failing'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `plugin: no session, run sso login\nUnable to connect to the server: getting credentials: exec: executable ${failing} failed with exit code 3\n`,
    });
    expect(requests).toEqual([]);
  });

  it('forgets a plugin token the server rejects, so the next request runs the plugin again (client-go’s exec authenticator)', async () => {
    accepted.delete('plugin-token-1');
    let stderr = '';
    const env = { KUBECONFIG: kubeconfig, PATH: process.env.PATH };
    const cluster = clusterClient(resolveClientConfig({}, { env }), { env, terminal: { stdinIsTerminal: false, stderr: (text) => (stderr += text) } });
    try {
      const first = await cluster.client.request({ method: 'GET', path: '/api/v1/namespaces/apps/pods/web' }).catch((error: unknown) => error);
      expect(kubectlErrorText(first)).toBe('Error from server (Unauthorized): Unauthorized');
      const second = await cluster.client.request({ method: 'GET', path: '/api/v1/namespaces/apps/pods/web' }).catch((error: unknown) => error);
      expect(kubectlErrorText(second)).toBe('Error from server (NotFound): pods "web" not found');
      expect(requests.map((request) => request.headers.authorization)).toEqual(['Bearer plugin-token-1', 'Bearer plugin-token-2']);
      expect(pluginRuns()).toBe(2);
      expect(stderr).toBe('plugin: signing in (interactive=false)\n'.repeat(2));
    } finally {
      cluster.dispose();
      accepted.add('plugin-token-1');
    }
  });

  it('impersonates as the kubeconfig says, and as --as, --as-group and --as-uid say over it', async () => {
    await run(['po/web', '--context', 'viewer']);
    expect(requests[0].headers).toMatchObject({ authorization: 'Bearer plain', 'impersonate-user': 'system:serviceaccount:apps:viewer', 'impersonate-group': 'viewers' });
    requests.length = 0;
    await run(['po/web', '--context', 'plain', '--as', 'jane', '--as-group', 'devs', '--as-group=ops', '--as-uid', '42']);
    expect(requests[0].headers).toMatchObject({ authorization: 'Bearer plain', 'impersonate-user': 'jane', 'impersonate-group': 'devs, ops', 'impersonate-uid': '42' });
    expect(await run(['po/web', '--context', 'plain', '--as-group', 'devs'])).toMatchObject({
      code: 2,
      stderr: 'Error in configuration: requesting uid, groups or user-extra for plain without impersonating a user\n',
    });
  });

  it('reaches a cluster through its proxy-url, the proxy resolving the server’s name', async () => {
    expect(await run(['po/web', '--context', 'proxied'])).toMatchObject({ code: 2, stderr: 'Error from server (NotFound): pods "web" not found\n' });
    expect(proxy.targets).toContain(`cluster.test:${port}`);
  });

  it('takes kubectl’s --server, --token and --insecure-skip-tls-verify over the context', async () => {
    const result = await run(['po/web', '--context', 'plain', '-s', `https://localhost:${port}`, '--token', 'flag-token']);
    expect(result.stderr).toBe('Error from server (NotFound): pods "web" not found\n');
    expect(requests[0].headers.authorization).toBe('Bearer flag-token');
    expect(requests[0].headers.host).toBe(`localhost:${port}`);
    // a kubeconfig without the CA: refused, unless --insecure-skip-tls-verify
    const bare = join(dir, 'bare');
    writeFileSync(bare, `current-context: c\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: plain}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n`);
    expect((await run(['po/web', '--kubeconfig', bare])).stderr).toMatch(/^Unable to connect to the server: .*(self-signed|unable to verify|issuer)/);
    expect((await run(['po/web', '--kubeconfig', bare, '--insecure-skip-tls-verify'])).stderr).toBe('Error from server (NotFound): pods "web" not found\n');
    expect((await run(['po/web', '--kubeconfig', bare, '--insecure-skip-tls-verify=false'])).code).toBe(2);
  });

  it('reads kubectl’s global flags with its syntax, and refuses a bad boolean as pflag does', () => {
    expect(parseWhyArgs(['po/web', '-s', 'https://x', '--as=jane', '--as-group', 'a', '--as-group=b', '--as-uid', '7', '--token', 't', '--tls-server-name', 'api', '--insecure-skip-tls-verify'])?.flags).toEqual({
      server: 'https://x',
      as: 'jane',
      asGroups: ['a', 'b'],
      asUid: '7',
      token: 't',
      tlsServerName: 'api',
      insecureSkipTlsVerify: true,
    });
    expect(() => parseWhyArgs(['po/web', '--insecure-skip-tls-verify=maybe'])).toThrow('invalid argument "maybe" for "--insecure-skip-tls-verify" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  });
});
