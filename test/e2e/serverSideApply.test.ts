// Server-side apply end to end with the real kubectl 1.35 and helm 4 against `kubedesk
// serve`: two field managers conflict on a field with upstream's message and kubectl's advice,
// --force-conflicts moves ownership, a manager dropping a field it alone owned removes it,
// --show-managed-fields lists the managers (plain -o yaml hides them), client-side apply followed
// by server-side apply goes through, and helm's server-side apply of a Secret, ConfigMap and
// Deployment installs and upgrades.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk } from '../support/wait';

let cluster: TestCluster;
let chartRoot = '';
const namespace = 'ssa-e2e';

const ok = (...args: string[]) => kubectlOk(cluster, args);

function deployment(spec: Record<string, unknown>, labels: Record<string, string> = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace, labels: { app: 'web', ...labels } },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'] }] } },
      ...spec,
    },
  });
}

interface ManagedEntry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}

async function managers(resource: string): Promise<ManagedEntry[]> {
  const object = JSON.parse(await ok('get', '-n', namespace, resource, '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields?: ManagedEntry[] } };
  return object.metadata.managedFields ?? [];
}

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
}, 120_000);

afterAll(async () => {
  await cluster?.destroy();
  if (chartRoot) rmSync(chartRoot, { recursive: true, force: true });
});

describe('kubectl apply --server-side', () => {
  it('reports a conflict between two field managers as upstream does, and --force-conflicts takes the field over', async () => {
    await kubectlOk(cluster, ['apply', '--server-side', '--field-manager=a', '-f', '-'], deployment({ replicas: 0 }));
    const conflict = await cluster.kubectl(['apply', '--server-side', '--field-manager=b', '-f', '-'], { input: deployment({ replicas: 1 }) });
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('error: Apply failed with 1 conflict: conflict with "a": .spec.replicas\nPlease review the fields above--they currently have other managers.');
    expect(conflict.stderr).toContain('`--force-conflicts`');
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'jsonpath={.spec.replicas}')).toBe('0');

    await kubectlOk(cluster, ['apply', '--server-side', '--field-manager=b', '--force-conflicts', '-f', '-'], deployment({ replicas: 1 }));
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'jsonpath={.spec.replicas}')).toBe('1');
    const owners = await managers('deployment/web');
    const a = owners.find((entry) => entry.manager === 'a');
    const b = owners.find((entry) => entry.manager === 'b');
    expect(a?.operation).toBe('Apply');
    expect(JSON.stringify(a?.fieldsV1)).not.toContain('f:replicas');
    expect(JSON.stringify(b?.fieldsV1)).toContain('f:replicas');
    expect(JSON.stringify(b?.fieldsV1)).toContain('"k:{\\"name\\":\\"main\\"}"');
  });

  it('removes a field the applier alone owned once it stops applying it', async () => {
    await kubectlOk(cluster, ['apply', '--server-side', '--field-manager=a', '-f', '-'], deployment({ minReadySeconds: 5 }, { tier: 'front' }));
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'jsonpath={.spec.minReadySeconds}/{.metadata.labels.tier}')).toBe('5/front');
    await kubectlOk(cluster, ['apply', '--server-side', '--field-manager=a', '-f', '-'], deployment({}));
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'jsonpath={.spec.minReadySeconds}/{.metadata.labels.tier}')).toBe('/');
    // b still applies replicas, so a dropping nothing of b's leaves them.
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'jsonpath={.spec.replicas}')).toBe('1');
  });

  it('shows managedFields only with --show-managed-fields', async () => {
    const shown = await ok('get', '-n', namespace, 'deployment/web', '-o', 'yaml', '--show-managed-fields');
    expect(shown).toContain('managedFields:');
    expect(shown).toMatch(/manager: a\n\s+operation: Apply/);
    expect(shown).toMatch(/manager: b\n\s+operation: Apply/);
    expect(await ok('get', '-n', namespace, 'deployment/web', '-o', 'yaml')).not.toContain('managedFields');
  });

  it('takes over an object made by client-side apply', async () => {
    const configMap = (value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { mode: value, keep: 'yes' } });
    await kubectlOk(cluster, ['apply', '-f', '-'], configMap('one'));
    expect((await managers('configmap/settings')).map((entry) => `${entry.manager}/${entry.operation}`)).toEqual(['kubectl-client-side-apply/Update']);
    await kubectlOk(cluster, ['apply', '--server-side', '-f', '-'], configMap('two'));
    expect(await ok('get', '-n', namespace, 'configmap/settings', '-o', 'jsonpath={.data.mode}/{.data.keep}')).toBe('two/yes');
    expect((await managers('configmap/settings')).map((entry) => `${entry.manager}/${entry.operation}`)).toContain('kubectl/Apply');
    // A later client-side edit by another manager conflicts with the server-side applier.
    await ok('-n', namespace, 'patch', 'configmap/settings', '--type=merge', '-p', '{"data":{"mode":"three"}}');
    const conflict = await cluster.kubectl(['apply', '--server-side', '--field-manager=kubectl', '-f', '-'], { input: configMap('four') });
    expect(conflict.stderr).toContain('conflict with "kubectl-patch" using v1: .data.mode');
  });

  it('records the writer of a plain update as an Update manager', async () => {
    await ok('-n', namespace, 'label', 'deployment/web', 'team=blue');
    const label = (await managers('deployment/web')).find((entry) => entry.manager === 'kubectl-label');
    expect(label?.operation).toBe('Update');
    expect(label?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:team': {} } } });
  });
});

describe('helm server-side apply', () => {
  it('installs and upgrades a chart with a Secret, a ConfigMap and a Deployment', async () => {
    chartRoot = mkdtempSync(join(tmpdir(), 'kubedesk-ssa-chart-'));
    const chart = join(chartRoot, 'demo');
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 0.1.0\n');
    writeFileSync(join(chart, 'values.yaml'), 'greeting: hello\nreplicas: 0\n');
    writeFileSync(join(chart, 'templates', 'secret.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-secret\nstringData:\n  token: {{ .Values.greeting }}\n');
    writeFileSync(join(chart, 'templates', 'configmap.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  greeting: {{ .Values.greeting }}\n');
    writeFileSync(
      join(chart, 'templates', 'deployment.yaml'),
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: {{ .Release.Name }}-app',
        'spec:',
        '  replicas: {{ .Values.replicas }}',
        '  selector:',
        '    matchLabels: {app: demo}',
        '  template:',
        '    metadata:',
        '      labels: {app: demo}',
        '    spec:',
        '      containers:',
        '      - name: app',
        `        image: ${busyboxImage}`,
        '        command: [sleep, "3600"]',
        '        env:',
        '        - name: GREETING',
        '          value: {{ .Values.greeting }}',
        '',
      ].join('\n'),
    );
    const install = await cluster.helm(['install', 'demo', chart, '-n', namespace, '--wait', '--timeout', '120s'], { timeoutMs: 150_000 });
    expect(install.code, install.stderr).toBe(0);
    expect(await ok('get', '-n', namespace, 'configmap/demo-config', '-o', 'jsonpath={.data.greeting}')).toBe('hello');
    expect((await managers('deployment/demo-app')).map((entry) => `${entry.manager}/${entry.operation}`)).toContain('helm/Apply');

    const upgrade = await cluster.helm(['upgrade', 'demo', chart, '-n', namespace, '--set', 'greeting=bonjour', '--wait', '--timeout', '120s'], { timeoutMs: 150_000 });
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(await ok('get', '-n', namespace, 'configmap/demo-config', '-o', 'jsonpath={.data.greeting}')).toBe('bonjour');
    expect(Buffer.from(await ok('get', '-n', namespace, 'secret/demo-secret', '-o', 'jsonpath={.data.token}'), 'base64').toString()).toBe('bonjour');
    expect(await ok('get', '-n', namespace, 'deployment/demo-app', '-o', 'jsonpath={.spec.template.spec.containers[0].env[0].value}')).toBe('bonjour');
  }, 400_000);
});
