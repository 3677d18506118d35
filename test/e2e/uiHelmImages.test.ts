// The Helm releases page and the Images page, in Chromium against a real `kubedesk serve` on real
// Docker, judged by the real helm 4 and the real Docker CLI:
// - a small chart built here is installed with helm and upgraded twice; the UI lists the release as
//   `helm list` does, shows its status, values, manifest, resources and history; a rollback to
//   revision 1 from the UI leaves `helm history`, `helm list` and `helm status` exactly as helm's own
//   rollback leaves them for a twin release driven by helm (same revisions, statuses, descriptions,
//   charts), the objects of revision 1 back and the one it lacked pruned; a later `helm upgrade`
//   works; an uninstall from the UI leaves no release (`helm list`, `helm history`) and none of its
//   objects.
// - a locally built image (`docker import` of a busybox root filesystem, unique names, removed at
//   the end) appears with the pod that runs it; removing an unused one works; removing the one in use
//   is refused with the pod named. Screenshots land in test-output/ui/.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandResult, TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk } from '../support/wait';

const run = promisify(execFile);
const namespace = 'helm-ui';
const suffix = `${process.pid}-${Date.now().toString(36)}`;
const usedImage = `kubedesk-e2e-images/used-${suffix}:dev`;
const unusedImage = `kubedesk-e2e-images/unused-${suffix}:dev`;

const chartFiles: Record<string, string> = {
  'Chart.yaml': 'apiVersion: v2\nname: uichart\nversion: 0.1.0\nappVersion: "1.0"\n',
  'values.yaml': 'message: default\nextra: false\n',
  'templates/configmap.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  message: {{ .Values.message | quote }}\n',
  'templates/serviceaccount.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ .Release.Name }}-runner\n',
  'templates/extra.yaml': '{{- if .Values.extra }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata:\n  added: "yes"\n{{- end }}\n',
  'templates/NOTES.txt': 'Release {{ .Release.Name }} says {{ .Values.message }}.\n',
  // hooks: a ConfigMap before each rollback (helm's default delete policy, before-hook-creation),
  // a Job before uninstall, deleted once it succeeded
  'templates/rollback-hook.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-rolled-back\n  annotations:\n    helm.sh/hook: pre-rollback\ndata:\n  message: {{ .Values.message | quote }}\n',
  'templates/delete-hook.yaml': `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-goodbye\n  annotations:\n    helm.sh/hook: pre-delete\n    helm.sh/hook-delete-policy: hook-succeeded\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      terminationGracePeriodSeconds: 0\n      containers:\n        - name: bye\n          image: ${busyboxImage}\n          imagePullPolicy: Never\n          command: ['sh', '-c', 'echo goodbye']\n`,
};

/** The fields of `helm history -o json` that do not depend on the moment. */
function historyShape(json: string): Array<Record<string, unknown>> {
  return (JSON.parse(json) as Array<Record<string, unknown>>).map(({ revision, status, chart, app_version, description }) => ({ revision, status, chart, app_version, description }));
}

/** `tar | docker import` of a root filesystem with the host's static busybox and a marker file. */
async function importImage(name: string): Promise<void> {
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((candidate) => existsSync(candidate));
  if (!busybox) throw new Error('no static busybox on the host');
  const root = mkdtempSync(join(tmpdir(), 'kubedesk-image-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(busybox, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    for (const applet of ['sh', 'sleep']) symlinkSync('/bin/busybox', join(root, 'bin', applet));
    writeFileSync(join(root, 'image-name'), `${name}\n`);
    await new Promise<void>((resolve, reject) => {
      const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const docker = spawn('docker', ['import', '--change', 'CMD ["sh"]', '-', name], { stdio: ['pipe', 'ignore', 'pipe'] });
      let errors = '';
      docker.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      tar.stdout.pipe(docker.stdin);
      docker.on('error', reject);
      docker.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`docker import ${name} failed: ${errors}`))));
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function imageIds(): Promise<string> {
  return (await run('docker', ['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'])).stdout;
}

describe('Helm releases and images in the UI', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let chart = '';

  async function helm(...args: string[]): Promise<CommandResult> {
    return cluster.helm(args, { timeoutMs: 180_000 });
  }
  async function helmOk(...args: string[]): Promise<string> {
    const result = await helm(...args);
    if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
    return result.stdout;
  }
  // a full navigation (retried when Docker's network changes abort it), then the page's own sidebar;
  // a page left on the sign-in form (a sign-in navigation aborted by a network change) signs in
  // with the kubeconfig token once, as the harness's fallback does
  const open = (hash: string) => ui.open(hash);
  const confirmDialog = async () => {
    await page.getByTestId('modal-confirm').click();
  };

  beforeAll(async () => {
    await Promise.all([importImage(usedImage), importImage(unusedImage)]);
    ({ cluster, ui, page } = await startUiCluster({
      prepare: async (started) => {
        chart = join(started.root, 'uichart');
        for (const [path, content] of Object.entries(chartFiles)) {
          mkdirSync(join(chart, path, '..'), { recursive: true });
          writeFileSync(join(chart, path), content);
        }
        await kubectlOk(started, ['create', 'namespace', namespace]);
        await kubectlOk(
          started,
          ['apply', '-f', '-'],
          `apiVersion: v1\nkind: Pod\nmetadata: { name: local-build, namespace: default }\nspec:\n  terminationGracePeriodSeconds: 0\n  containers:\n    - name: app\n      image: ${usedImage}\n      imagePullPolicy: Never\n      command: ['sleep', '3600']\n`,
        );
      },
    }));
  }, 240_000);

  afterAll(async () => {
    await destroyUiCluster({ cluster, ui });
    // only the two images this suite made
    await run('docker', ['image', 'rm', '-f', usedImage, unusedImage]).catch(() => undefined);
  }, 120_000);

  describe('Helm', () => {
    it('lists a release installed and upgraded twice by helm, as helm list shows it', async () => {
      for (const release of ['demo', 'twin']) {
        await helmOk('install', release, chart, '-n', namespace, '--set', 'message=one');
        await helmOk('upgrade', release, chart, '-n', namespace, '--set', 'message=two', '--set', 'extra=true');
        await helmOk('upgrade', release, chart, '-n', namespace, '--set', 'message=three', '--set', 'extra=true');
      }
      await open('#/helm');
      const row = page.locator('[data-testid=helm-release-row][data-name=demo]');
      await expect.poll(() => row.innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/demo\s+helm-ui\s+3\s+.+ago\s+deployed\s+uichart-0\.1\.0\s+1\.0/);
      expect(await page.getByTestId('helm-release-row').count()).toBe(2);
      await ui.screenshot('helm-releases');
    });

    it('shows the status with notes, the values, the manifest, the resources and the history', async () => {
      await open(`#/helm/${namespace}/demo`);
      await expect.poll(() => page.getByTestId('helm-release-status').innerText().catch(() => ''), { timeout: 30_000 }).toBe('deployed');
      expect(await page.getByTestId('helm-notes').innerText()).toContain('Release demo says three.');
      await ui.screenshot('helm-release-status');
      await page.getByTestId('helm-tab-values').click();
      expect(await page.getByTestId('helm-user-values').innerText()).toMatch(/extra: true\s+message: three/);
      expect(await page.getByTestId('helm-computed-values').innerText()).toMatch(/message: three/);
      await page.getByTestId('helm-tab-manifest').click();
      expect(await page.getByTestId('helm-manifest').innerText()).toContain('name: demo-extra');
      await page.getByTestId('helm-tab-resources').click();
      await expect.poll(() => page.locator('[data-testid=helm-resource-row][data-present=true]').count(), { timeout: 30_000 }).toBe(3);
      const link = page.locator('[data-testid=helm-resource-row] a', { hasText: 'demo-settings' });
      expect(await link.getAttribute('href')).toBe(`#/configmaps/${namespace}/demo-settings`);
      await page.getByTestId('helm-tab-history').click();
      expect(await page.getByTestId('helm-history-row').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-revision')}:${row.getAttribute('data-status')}`))).toEqual(['3:deployed', '2:superseded', '1:superseded']);
      await ui.screenshot('helm-release-history');
    });

    it('rolls back from the UI to what helm rollback leaves, pruning what revision 1 lacked', async () => {
      await page.getByTestId('helm-rollback-1').click();
      await confirmDialog();
      await expect.poll(() => page.getByTestId('helm-history-row').first().getAttribute('data-revision'), { timeout: 60_000 }).toBe('4');
      await expect.poll(() => page.getByTestId('helm-history-row').first().getAttribute('data-status'), { timeout: 60_000 }).toBe('deployed');
      await ui.screenshot('helm-release-rolled-back');
      await helmOk('rollback', 'twin', '1', '-n', namespace);
      const uiHistory = historyShape(await helmOk('history', 'demo', '-n', namespace, '-o', 'json'));
      expect(uiHistory).toEqual(historyShape(await helmOk('history', 'twin', '-n', namespace, '-o', 'json')));
      expect(uiHistory.at(-1)).toEqual({ revision: 4, status: 'deployed', chart: 'uichart-0.1.0', app_version: '1.0', description: 'Rollback to 1' });
      expect(uiHistory.slice(0, 3).map((entry) => entry.status)).toEqual(['superseded', 'superseded', 'superseded']);
      expect(await helmOk('list', '-n', namespace)).toMatch(/^demo\s+helm-ui\s+4\s+.+\s+deployed\s+uichart-0\.1\.0\s+1\.0\s*$/m);
      const status = await helmOk('status', 'demo', '-n', namespace);
      expect(status).toMatch(/^STATUS: deployed$/m);
      expect(status).toMatch(/^REVISION: 4$/m);
      expect(status).toContain('Release demo says one.');
      expect(await helmOk('get', 'values', 'demo', '-n', namespace, '-o', 'json')).toBe(await helmOk('get', 'values', 'twin', '-n', namespace, '-o', 'json'));
      expect(await kubectlOk(cluster, ['get', 'configmap', 'demo-settings', '-n', namespace, '-o', 'jsonpath={.data.message}'])).toBe('one');
      // the pre-rollback hook ran, as helm's did for the twin, with revision 1's values
      expect(await kubectlOk(cluster, ['get', 'configmap', 'demo-rolled-back', 'twin-rolled-back', '-n', namespace, '-o', 'jsonpath={.items[*].data.message}'])).toBe('one one');
      const hookMetadata = async (name: string) => kubectlOk(cluster, ['get', 'configmap', name, '-n', namespace, '-o', 'jsonpath={.metadata.labels} {.metadata.annotations} {.metadata.managedFields[*].manager}']);
      expect(await hookMetadata('demo-rolled-back')).toBe(await hookMetadata('twin-rolled-back'));
      const extra = await cluster.kubectl(['get', 'configmap', 'demo-extra', '-n', namespace]);
      expect(extra.stderr).toContain('configmaps "demo-extra" not found');
      // the objects are helm's own: server-side applied by the `helm` field manager only
      const managers = await kubectlOk(cluster, ['get', 'configmap', 'demo-settings', '-n', namespace, '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].manager}']);
      expect(managers.split(' ')).toEqual(['helm']);
    });

    it('lets helm upgrade the release after the UI rollback', async () => {
      const out = await helmOk('upgrade', 'demo', chart, '-n', namespace, '--set', 'message=five', '--set', 'extra=true');
      expect(out).toMatch(/^REVISION: 5$/m);
      expect(await kubectlOk(cluster, ['get', 'configmap', 'demo-settings', 'demo-extra', '-n', namespace, '-o', 'name'])).toBe('configmap/demo-settings\nconfigmap/demo-extra\n');
      expect(historyShape(await helmOk('history', 'demo', '-n', namespace, '-o', 'json')).map((entry) => `${String(entry.revision)}:${String(entry.status)}`)).toEqual(['1:superseded', '2:superseded', '3:superseded', '4:superseded', '5:deployed']);
    });

    it('uninstalls from the UI: no release for helm and none of its objects left', async () => {
      await open(`#/helm/${namespace}/demo`);
      await expect.poll(() => page.getByTestId('helm-release-status').innerText().catch(() => ''), { timeout: 30_000 }).toBe('deployed');
      await page.getByTestId('helm-uninstall').click();
      await confirmDialog();
      await expect.poll(() => page.evaluate(() => location.hash), { timeout: 60_000 }).toBe('#/helm');
      await expect.poll(() => page.locator('[data-testid=helm-release-row][data-name=demo]').count(), { timeout: 30_000 }).toBe(0);
      await ui.screenshot('helm-releases-after-uninstall');
      expect(await helmOk('list', '-n', namespace, '-q')).toBe('twin\n');
      const history = await helm('history', 'demo', '-n', namespace);
      expect(history.code).toBe(1);
      expect(history.stderr).toContain('Error: release: not found');
      expect(await kubectlOk(cluster, ['get', 'configmaps,serviceaccounts,secrets', '-n', namespace, '-l', 'app.kubernetes.io/managed-by=Helm', '-o', 'name'])).not.toContain('demo-');
      expect(await kubectlOk(cluster, ['get', 'configmap,serviceaccount', 'demo-settings', 'demo-runner', '-n', namespace, '--ignore-not-found', '-o', 'name'])).toBe('');
      expect(await kubectlOk(cluster, ['get', 'secrets', '-n', namespace, '-l', 'owner=helm,name=demo', '-o', 'name'])).toBe('');
      // the pre-delete hook Job ran to completion and was deleted (hook-succeeded)
      expect(await kubectlOk(cluster, ['get', 'events', '-n', namespace, '--field-selector', 'involvedObject.kind=Job,involvedObject.name=demo-goodbye,reason=Completed', '-o', 'jsonpath={.items[*].message}'])).toBe('Job completed');
      expect(await kubectlOk(cluster, ['get', 'job', 'demo-goodbye', '-n', namespace, '--ignore-not-found', '-o', 'name'])).toBe('');
    });
  });

  describe('Images', () => {
    it('lists a locally built image with the pod that runs it', async () => {
      await kubectlOk(cluster, ['wait', '--for=condition=Ready', 'pod/local-build', '--timeout=90s']);
      await open('#/images');
      const used = page.locator(`[data-testid=image-row][data-tags="${usedImage}"]`);
      await expect.poll(() => used.getByTestId('image-pods').innerText().catch(() => ''), { timeout: 30_000 }).toContain('default/local-build (app)');
      const unused = page.locator(`[data-testid=image-row][data-tags="${unusedImage}"]`);
      expect(await unused.getByTestId('image-pods').innerText()).toContain('unused');
      await page.getByTestId('images-filter').fill('kubedesk-e2e-images');
      await page.getByTestId('images-help').locator('summary').click();
      await ui.screenshot('images');
    });

    it('refuses to remove an image in use, naming the pod', async () => {
      await page.locator(`[data-testid=image-row][data-tags="${usedImage}"]`).getByTestId('image-remove').click();
      await confirmDialog();
      await expect.poll(() => page.getByTestId('image-refusal').innerText().catch(() => ''), { timeout: 30_000 }).toContain(`image "${usedImage}" is in use by pod default/local-build`);
      await ui.screenshot('images-refused');
      expect(await imageIds()).toContain(usedImage);
    });

    it('removes an unused image', async () => {
      await page.locator(`[data-testid=image-row][data-tags="${unusedImage}"]`).getByTestId('image-remove').click();
      await confirmDialog();
      await expect.poll(() => page.locator(`[data-testid=image-row][data-tags="${unusedImage}"]`).count(), { timeout: 30_000 }).toBe(0);
      expect(await imageIds()).not.toContain(unusedImage);
    });

    it('serves the same store to kubectl, and only to those RBAC lets in', async () => {
      const table = await kubectlOk(cluster, ['get', 'images.images.kubedesk.dev']);
      expect(table).toMatch(/^NAME\s+TAGS\s+SIZE\s+PODS\s+CREATED/m);
      expect(table).toMatch(new RegExp(`${usedImage.replace(/[./]/g, '\\$&')}\\s+\\d+\\s+default/local-build`));
      const viewer = await cluster.kubectl(['get', 'images.images.kubedesk.dev', '--as=system:serviceaccount:default:default']);
      expect(viewer.code).toBe(1);
      expect(viewer.stderr).toContain('images.images.kubedesk.dev is forbidden: User "system:serviceaccount:default:default" cannot list resource "images" in API group "images.kubedesk.dev" at the cluster scope');
    });

    it('refuses a pull of an invalid reference with the field at fault', async () => {
      const reply = await cluster.request('POST', '/apis/images.kubedesk.dev/v1/imagepulls', { spec: { image: 'Not A Name' } });
      expect(reply.status).toBe(422);
      expect(JSON.parse(reply.body)).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'spec.image' }] } });
    });

    it('shows a failed pull with Docker’s reason', async () => {
      await page.getByTestId('image-pull-name').fill(`kubedesk-e2e-images/absent-${suffix}:none`);
      await page.getByTestId('image-pull').click();
      await expect.poll(() => page.getByTestId('image-pull-state').getAttribute('data-phase').catch(() => ''), { timeout: 90_000 }).toBe('Failed');
      await ui.screenshot('images-pull-failed');
    });
  });
});
