import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterCommand, formatClusterTable, parseClusterArgs } from './clusterCommand';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kubedesk-cluster-command-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await clusterCommand(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { KUBEDESK_HOME: join(root, 'kd'), KUBECONFIG: join(root, 'kubeconfig') },
    launcher: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
  });
  return { code, stdout, stderr };
}

describe('kubedesk cluster', () => {
  it('reads create with its flags, and the one-name verbs', () => {
    expect(parseClusterArgs(['create', 'b', '--nodes', '3', '--kubeconfig=/tmp/k'])).toEqual({ verb: 'create', name: 'b', nodes: 3, kubeconfig: '/tmp/k' });
    expect(parseClusterArgs(['stop', 'default'])).toEqual({ verb: 'stop', name: 'default' });
    expect(parseClusterArgs(['list'])).toEqual({ verb: 'list' });
    expect(parseClusterArgs(['delete', '--help'])).toEqual({ verb: 'help' });
  });

  it.each([
    [['create'], '"cluster create" needs exactly one NAME'],
    [['create', 'a', 'b'], '"cluster create" needs exactly one NAME'],
    [['create', 'B'], 'invalid cluster name "B": a lowercase RFC 1123 label'],
    [['create', 'default'], 'invalid cluster name "default": "default" is the default cluster\'s name'],
    [['delete', 'default'], 'invalid cluster name "default"'],
    [['create', 'b', '--nodes', '0'], 'invalid --nodes "0": a number from 1 to 50'],
    [['start', 'b', '--nodes', '2'], 'unknown flag "--nodes" for "cluster start"'],
    [['list', 'b'], '"cluster list" takes no arguments (got "b")'],
    [['rename', 'b'], 'unknown command "cluster rename"'],
  ])('exits 2 with the usage for %j', async (argv, message) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`kubedesk: ${message}`);
    expect(result.stderr).toContain('Usage:\n  kubedesk cluster create NAME');
  });

  it('exits 1 for a cluster that does not exist, and 0 with a table for list', async () => {
    expect(await run(['stop', 'nope'])).toEqual({ code: 1, stdout: '', stderr: 'kubedesk: cluster "nope" not found\n' });
    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe(`NAME      STATUS    NODES   SERVER   CONTEXT\ndefault   Stopped   1       <none>   kubedesk\n`);
  });

  it('exits 1 with the last lines of the log when the server does not start', async () => {
    const result = await run(['create', 'b']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^kubedesk: cluster "b" failed to start \(the server exited\); the last lines of .*clusters\/b\/serve\.log:\nkubedesk: starting /);
  });

  it('prints the table in kubectl\'s columns', () => {
    expect(
      formatClusterTable([
        { name: 'default', context: 'kubedesk', dataDir: '/r', state: 'stopped', nodes: 1 },
        { name: 'team-a', context: 'kubedesk-team-a', dataDir: '/r/clusters/team-a', state: 'running', nodes: 3, port: 40001, server: 'https://127.0.0.1:40001' },
      ]),
    ).toBe(
      'NAME      STATUS    NODES   SERVER                    CONTEXT\n' +
        'default   Stopped   1       <none>                    kubedesk\n' +
        'team-a    Running   3       https://127.0.0.1:40001   kubedesk-team-a\n',
    );
  });
});
