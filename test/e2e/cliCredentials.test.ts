// kubedesk's own client commands (`kubedesk why`, `history`, `changes`) as real processes against a
// real `kubedesk serve`, with the kubeconfig credentials kubectl takes: a context whose user is an
// exec credential plugin (a shell script printing a v1 ExecCredential with the token of a
// ServiceAccount bound to `view` in one namespace; its stderr reaches the terminal, it runs once per
// command), a context that impersonates that ServiceAccount (`as:`), and kubectl's --as flag. The
// ServiceAccount reads what view allows, sees which Secret keys changed but no value, and a
// forbidden read exits non-zero with the error the real kubectl prints for the same read.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCommand, startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { repositoryRoot, toolPaths } from '../support/tools';
import { kubectlOk } from '../support/wait';

const cli = join(repositoryRoot, 'bin', 'kubedesk.mjs');
const namespace = 'creds';
const viewer = `system:serviceaccount:${namespace}:viewer`;
/** the Secret's values, in clear and base64: neither may reach the viewer */
const values = ['first-password', 'second-password'];

let cluster: TestCluster;
let kubeconfig: string;
let pluginRuns: string;
let failingPlugin: string;

function kubedesk(args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, [cli, ...args], { env: { KUBECONFIG: kubeconfig }, timeoutMs: 60_000 });
}

function kubectl(args: string[]): Promise<CommandResult> {
  return runCommand(toolPaths().kubectl, args, { env: { KUBECONFIG: kubeconfig, HOME: cluster.root }, timeoutMs: 60_000 });
}

/** A shell script printing a v1 ExecCredential with `token`, saying so on stderr and counting its runs. */
function writePlugin(name: string, lines: string[]): string {
  const command = join(cluster.root, name);
  writeFileSync(command, ['#!/bin/sh', ...lines, ''].join('\n'));
  chmodSync(command, 0o755);
  return command;
}

beforeAll(async () => {
  cluster = await startCluster();
  await kubectlOk(cluster, ['create', 'namespace', namespace]);
  await kubectlOk(cluster, ['-n', namespace, 'create', 'secret', 'generic', 'db', `--from-literal=password=${values[0]}`]);
  await kubectlOk(cluster, ['-n', namespace, 'create', 'secret', 'generic', 'db', `--from-literal=password=${values[1]}`, '--dry-run=client', '-o', 'yaml'], undefined).then((yaml) => kubectlOk(cluster, ['apply', '-f', '-'], yaml));
  await kubectlOk(cluster, ['-n', namespace, 'create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
  await kubectlOk(cluster, ['-n', namespace, 'create', 'serviceaccount', 'viewer']);
  await kubectlOk(cluster, ['-n', namespace, 'create', 'rolebinding', 'viewer-view', '--clusterrole=view', `--serviceaccount=${namespace}:viewer`]);
  const token = (await kubectlOk(cluster, ['-n', namespace, 'create', 'token', 'viewer', '--duration=1h'])).trim();

  pluginRuns = join(cluster.root, 'plugin.runs');
  writeFileSync(pluginRuns, '');
  const plugin = writePlugin('viewer-credential.sh', [
    `echo run >> '${pluginRuns}'`,
    'echo "viewer-credential: signed in as the viewer" >&2',
    `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\\n' '${token}'`,
  ]);
  failingPlugin = writePlugin('expired-session.sh', ['echo "expired-session: your session expired, run sso login" >&2', 'exit 1']);

  // the cluster's own kubeconfig plus three contexts on the same cluster
  const config = parse(readFileSync(cluster.kubeconfig, 'utf8')) as { 'current-context': string; contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[]; users: { name: string; user: Record<string, unknown> }[] };
  const own = config.contexts.find((context) => context.name === config['current-context']);
  const admin = config.users.find((user) => user.name === own?.context.user);
  if (!own || !admin) throw new Error('the cluster’s kubeconfig has no current context');
  config.users.push(
    { name: 'plugin-viewer', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'IfAvailable' } } },
    { name: 'expired', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: failingPlugin, interactiveMode: 'Never' } } },
    { name: 'admin-as-viewer', user: { ...admin.user, as: viewer } },
  );
  config.contexts.push(
    { name: 'plugin', context: { cluster: own.context.cluster, user: 'plugin-viewer', namespace } },
    { name: 'expired', context: { cluster: own.context.cluster, user: 'expired', namespace } },
    { name: 'impersonating', context: { cluster: own.context.cluster, user: 'admin-as-viewer', namespace } },
  );
  kubeconfig = join(cluster.root, 'kubeconfig-with-credentials');
  writeFileSync(kubeconfig, stringify(config), { mode: 0o600 });
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
});

describe('kubedesk commands with every kubeconfig credential', () => {
  it('runs an exec plugin once, passes its stderr through, and acts as the identity it returned', async () => {
    const result = await kubedesk(['why', 'svc/web', '--context', 'plugin']);
    // the Service selects no pod: not healthy (exit 1), read with the plugin's token
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout.split('\n')[0]).toMatch(/web/);
    expect(result.stderr).toBe('viewer-credential: signed in as the viewer\n');
    expect(readFileSync(pluginRuns, 'utf8')).toBe('run\n');
    // view is bound in one namespace only: elsewhere the read is forbidden, in kubectl's words, for the ServiceAccount
    const forbidden = await kubedesk(['why', 'svc/kubernetes', '-n', 'default', '--context', 'plugin']);
    expect(forbidden.code).toBe(2);
    const expected = await kubectl(['get', 'svc', 'kubernetes', '-n', 'default', '--context', 'plugin']);
    expect(expected.stderr).toContain('Error from server (Forbidden)');
    expect(forbidden.stderr).toBe(`viewer-credential: signed in as the viewer\nError from server (Forbidden): services "kubernetes" is forbidden: User "${viewer}" cannot get resource "services" in API group "" in the namespace "default"\n`);
    expect(expected.stderr.trim().split('\n').at(-1)).toBe(forbidden.stderr.trim().split('\n').at(-1));
  });

  it('exits non-zero when the plugin fails, its stderr first and then kubectl’s own last line', async () => {
    const result = await kubedesk(['why', 'svc/web', '--context', 'expired']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`expired-session: your session expired, run sso login\nUnable to connect to the server: getting credentials: exec: executable ${failingPlugin} failed with exit code 1\n`);
    const expected = await kubectl(['get', 'svc', 'web', '--context', 'expired']);
    expect(expected.code).not.toBe(0);
    expect(expected.stderr.trim().split('\n').at(-1)).toBe(result.stderr.trim().split('\n').at(-1));
  });

  it('impersonates the kubeconfig’s `as:` user: the change feed names the Secret’s changed keys, never a value', async () => {
    const feed = await kubedesk(['changes', '--context', 'impersonating']);
    expect(feed.code, feed.stderr).toBe(0);
    const secretRows = feed.stdout.split('\n').filter((line) => line.includes(' secret/db '));
    expect(secretRows).toHaveLength(2);
    for (const row of secretRows) expect(row).toMatch(/data keys changed: password$/);
    for (const value of values) {
      expect(feed.stdout).not.toContain(value);
      expect(feed.stdout).not.toContain(Buffer.from(value).toString('base64'));
    }
  });

  it('refuses the impersonated user a Secret’s own history with kubectl’s Forbidden wording, from the kubeconfig or from --as', async () => {
    const fromKubeconfig = await kubedesk(['history', 'secret/db', '--context', 'impersonating']);
    expect(fromKubeconfig.code).toBe(1);
    expect(fromKubeconfig.stdout).toBe('');
    const expected = await kubectl(['get', 'secret', 'db', '--context', 'impersonating']);
    expect(fromKubeconfig.stderr).toBe(`Error from server (Forbidden): secrets "db" is forbidden: User "${viewer}" cannot get resource "secrets" in API group "" in the namespace "${namespace}"\n`);
    expect(expected.stderr).toBe(fromKubeconfig.stderr);
    const fromFlag = await kubedesk(['history', 'secret/db', '-n', namespace, '--as', viewer, '--as-group', 'system:serviceaccounts']);
    expect(fromFlag).toEqual(fromKubeconfig);
    // the cluster's admin, without --as, reads it
    expect((await kubedesk(['history', 'secret/db', '-n', namespace])).code).toBe(0);
  });
});
