// helm 4 end to end: a chart from `helm create` (its image switched to the
// local busybox test image serving HTTP on the chart's port 80, so the generated liveness and
// readiness probes on `/` pass) goes through install --wait, list, upgrade (a changed value),
// history, rollback and uninstall against `kubedesk serve`, and a second install under a name in
// use fails with helm's own message, as on a real cluster. helm 4 writes with server-side apply.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk } from '../support/wait';

let cluster: TestCluster;
let chart = '';
const release = 'demo';
const namespace = 'helm-e2e';

async function helm(...args: string[]): Promise<CommandResult> {
  return cluster.helm(args, { timeoutMs: 240_000 });
}

async function helmOk(...args: string[]): Promise<string> {
  const result = await helm(...args);
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}\n--- server log tail ---\n${cluster.logs().slice(-3000)}`);
  return result.stdout;
}

const ok = (...args: string[]) => kubectlOk(cluster, args);

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
  const created = await cluster.helm(['create', join(cluster.root, 'mychart')]);
  if (created.code !== 0) throw new Error(`helm create failed: ${created.stderr}`);
  chart = join(cluster.root, 'mychart');
  const [repository, tag] = busyboxImage.split(':');
  const valuesPath = join(chart, 'values.yaml');
  const values = readFileSync(valuesPath, 'utf8')
    .replace(/^(\s+)repository: nginx$/m, `$1repository: ${repository}`)
    .replace(/^(\s+)tag: ""$/m, `$1tag: "${tag}"`)
    .replace(/^(\s+)pullPolicy: IfNotPresent$/m, '$1pullPolicy: Never');
  expect(values).toContain(`repository: ${repository}`);
  writeFileSync(valuesPath, `${values}\nmessage: first\n`);
  const deploymentPath = join(chart, 'templates', 'deployment.yaml');
  const deployment = readFileSync(deploymentPath, 'utf8');
  const pullPolicyLine = /^(\s+)imagePullPolicy: \{\{ \.Values\.image\.pullPolicy \}\}$/m;
  expect(deployment).toMatch(pullPolicyLine);
  writeFileSync(
    deploymentPath,
    deployment.replace(pullPolicyLine, (line, indent: string) => `${line}\n${indent}command: ["sh", "-c", "mkdir -p /www && echo {{ .Values.message }} > /www/index.html && exec httpd -f -p {{ .Values.service.port }} -h /www"]`),
  );
}, 180_000);

afterAll(async () => {
  if (cluster) await cluster.destroy();
}, 120_000);

describe('helm against kubedesk', () => {
  it('installs a helm create chart and waits for it', async () => {
    const out = await helmOk('install', release, chart, '-n', namespace, '--wait', '--timeout', '3m');
    expect(out).toMatch(/^NAME: demo$/m);
    expect(out).toMatch(/^STATUS: deployed$/m);
    expect(out).toMatch(/^REVISION: 1$/m);
    expect(await ok('get', 'deployment', 'demo-mychart', '-n', namespace, '-o', 'jsonpath={.status.readyReplicas}')).toBe('1');
    expect(await ok('get', 'serviceaccount,service', '-n', namespace, '-l', 'app.kubernetes.io/instance=demo', '-o', 'name')).toBe('serviceaccount/demo-mychart\nservice/demo-mychart\n');
  });

  it('lists the release', async () => {
    const out = await helmOk('list', '-n', namespace);
    expect(out).toMatch(/^NAME\s+NAMESPACE\s+REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s*$/m);
    expect(out).toMatch(/^demo\s+helm-e2e\s+1\s+.+\s+deployed\s+mychart-0\.1\.0\s+1\.16\.0\s*$/m);
  });

  it('refuses a second install under the same name', async () => {
    const result = await helm('install', release, chart, '-n', namespace);
    expect(result.code).toBe(1);
    // helm 4's wording (helm 3 printed `cannot re-use a name that is still in use`); helm decides this
    // itself from the release Secrets it lists, as against any cluster.
    expect(result.stderr.trim().split('\n').at(-1)).toBe('Error: INSTALLATION FAILED: release name check failed: cannot reuse a name that is still in use');
  });

  it('upgrades with a changed value and keeps the history', async () => {
    const out = await helmOk('upgrade', release, chart, '-n', namespace, '--set', 'replicaCount=2', '--set', 'message=second', '--wait', '--timeout', '3m');
    expect(out).toMatch(/^Release "demo" has been upgraded\. Happy Helming!$/m);
    expect(out).toMatch(/^REVISION: 2$/m);
    expect(await ok('get', 'deployment', 'demo-mychart', '-n', namespace, '-o', 'jsonpath={.spec.replicas}/{.status.readyReplicas}')).toBe('2/2');
    const history = await helmOk('history', release, '-n', namespace);
    expect(history).toMatch(/^REVISION\s+UPDATED\s+STATUS\s+CHART\s+APP VERSION\s+DESCRIPTION\s*$/m);
    expect(history).toMatch(/^1\s+.+\s+superseded\s+mychart-0\.1\.0\s+1\.16\.0\s+Install complete\s*$/m);
    expect(history).toMatch(/^2\s+.+\s+deployed\s+mychart-0\.1\.0\s+1\.16\.0\s+Upgrade complete\s*$/m);
  });

  it('rolls back to the first revision', async () => {
    const out = await helmOk('rollback', release, '1', '-n', namespace, '--wait', '--timeout', '3m');
    expect(out.trim()).toBe('Rollback was a success! Happy Helming!');
    expect(await ok('get', 'deployment', 'demo-mychart', '-n', namespace, '-o', 'jsonpath={.spec.replicas}')).toBe('1');
    const history = await helmOk('history', release, '-n', namespace);
    expect(history).toMatch(/^3\s+.+\s+deployed\s+mychart-0\.1\.0\s+1\.16\.0\s+Rollback to 1\s*$/m);
  });

  it('uninstalls the release and its objects', async () => {
    const out = await helmOk('uninstall', release, '-n', namespace, '--wait', '--timeout', '2m');
    expect(out.trim()).toBe('release "demo" uninstalled');
    expect(await ok('get', 'deployment,service,serviceaccount', '-n', namespace, '-l', 'app.kubernetes.io/instance=demo', '-o', 'name')).toBe('');
    expect(await helmOk('list', '-n', namespace, '-q')).toBe('');
  });
});
