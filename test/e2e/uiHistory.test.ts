// The object history in the UI, in Chromium against a real `kubedesk serve` with pods on real
// Docker: a Deployment's History tab shows the revisions of kubectl apply, scale and set image; the
// Monaco diff of two revisions shows the image change; Restore of the first revision rolls it back
// (kubectl sees it). A deleted ConfigMap and Deployment are listed under Recently deleted and
// undeleted (kubectl sees them, the pods run again). The lists' time slider shows the ConfigMap
// deleted since; the Changes page filters by kind and by user. Screenshots in test-output/ui.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';

const run = promisify(execFile);
/** A second tag of the test image, so `set image` rolls out a real change without a registry. */
const secondImage = 'kubedesk-test/busybox:ui-history-v2';

const deployment = (name: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sleep', '3600']
`;

describe('the object history in the UI', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    await run('docker', ['tag', busyboxImage, secondImage]);
    ({ cluster, ui, page } = await startUiCluster({
      async prepare(started) {
        await kubectlOk(started, ['apply', '-f', '-'], deployment('web'));
        await kubectlOk(started, ['rollout', 'status', 'deployment/web', '--timeout=120s'], undefined, 150_000);
        await kubectlOk(started, ['scale', 'deployment/web', '--replicas=2']);
        await kubectlOk(started, ['set', 'image', 'deployment/web', `app=${secondImage}`]);
        await kubectlOk(started, ['rollout', 'status', 'deployment/web', '--timeout=120s'], undefined, 150_000);
      },
    }));
  }, 300_000);

  afterAll(async () => {
    await destroyUiCluster({ cluster, ui });
    await run('docker', ['rmi', secondImage]).catch(() => undefined);
  });

  const open = (hash: string) => ui.open(hash);
  const rowNames = () => page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''));

  it('shows the revisions of apply, scale and set image, diffs two of them and restores the first', async () => {
    await open('#/deployments.apps/default/web/history');
    const changes = page.locator('[data-testid=history-timeline] [data-testid=history-changes]');
    await expect.poll(() => changes.allInnerTexts(), { timeout: 30_000 }).toContainEqual(expect.stringContaining(`image: ${busyboxImage}→${secondImage}`));
    const rows = page.locator('[data-testid=history-timeline] tbody tr');
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(2, 8).map((td) => (td as HTMLElement).innerText.trim())));
    // [revision, when, operation, user, manager, changes]
    expect(cells[cells.length - 1]).toEqual(['1', expect.stringMatching(/ago$/), 'CREATE', expect.any(String), 'kubectl-client-side-apply', 'created']);
    expect(cells.some((row) => row[2] === 'PATCH (scale)' && row[4] === 'kubectl' && row[5].includes('spec.replicas: 1→2'))).toBe(true);
    const imageRow = cells.find((row) => row[5].includes(`image: ${busyboxImage}→${secondImage}`));
    expect(imageRow?.[2]).toBe('PATCH');
    expect(imageRow?.[4]).toBe('kubectl-set');
    await expect.poll(() => page.evaluate(() => Reflect.has(window, '__kubedeskDiff')), { timeout: 30_000 }).toBe(true);
    await ui.screenshot('history-tab');

    // compare the revision before the image change (A) with the image change (B)
    const imageRevision = Number(imageRow?.[0]);
    await page.locator(`[data-testid=history-timeline] tr[data-revision="${imageRevision - 1}"] [data-testid=history-pick-from]`).check();
    await page.locator(`[data-testid=history-timeline] tr[data-revision="${imageRevision}"] [data-testid=history-pick-to]`).check();
    await expect.poll(() => page.getByTestId('history-diff-summary').innerText(), { timeout: 10_000 }).toContain(`image: ${busyboxImage}→${secondImage}`);
    const diff = () => page.evaluate(() => {
      const handle = (window as unknown as { __kubedeskDiff?: { original(): string; modified(): string } }).__kubedeskDiff;
      return handle ? { original: handle.original(), modified: handle.modified() } : undefined;
    });
    await expect.poll(async () => (await diff())?.modified ?? '', { timeout: 30_000 }).toContain(`image: ${secondImage}`);
    expect((await diff())?.original).toContain(`image: ${busyboxImage}`);
    // Monaco marks the changed lines on both sides
    await expect.poll(() => page.locator('[data-testid=history-diff] .line-delete, [data-testid=history-diff] .char-delete').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-testid=history-diff] .line-insert, [data-testid=history-diff] .char-insert').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await ui.screenshot('history-diff');

    await page.locator('[data-testid=history-timeline] tr[data-revision="1"] [data-testid=history-restore]').click();
    const dialog = page.locator('[role=dialog]');
    await dialog.waitFor({ timeout: 10_000 });
    expect(await dialog.innerText()).toContain('Restore deployment.apps/web to revision 1?');
    expect(await dialog.innerText()).toContain(`image: ${secondImage}→${busyboxImage}`);
    await ui.screenshot('history-restore-confirm');
    await page.getByTestId('modal-confirm').click();
    await expect.poll(() => page.getByTestId('history-result').innerText().catch(() => ''), { timeout: 30_000 }).toBe('deployment.apps/web restored to revision 1');
    expect(await kubectlOk(cluster, ['get', 'deploy', 'web', '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}'])).toBe(`1 ${busyboxImage}`);
    // the restore is a revision of its own, by the history's field manager
    await expect.poll(() => page.locator('[data-testid=history-timeline] tbody tr').allInnerTexts(), { timeout: 30_000 }).toContainEqual(expect.stringContaining('kubedesk-history'));
    await ui.screenshot('history-restored');
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/web', '--timeout=120s'], undefined, 150_000);
  }, 240_000);

  it('lists a deleted ConfigMap and Deployment as recently deleted, shows the ConfigMap in the past list, and undeletes both', async () => {
    await kubectlOk(cluster, ['create', 'configmap', 'settings', '--from-literal=color=blue']);
    await kubectlOk(cluster, ['apply', '-f', '-'], deployment('api'));
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/api', '--timeout=120s'], undefined, 150_000);
    const before = new Date().toISOString();
    await until('the clock to pass the chosen time', () => (Date.now() > Date.parse(before) + 5 ? true : undefined), 1_000, 5);
    await kubectlOk(cluster, ['delete', 'configmap', 'settings']);
    await kubectlOk(cluster, ['delete', 'deployment', 'api', '--wait=true'], undefined, 120_000);

    // the time slider: the list as it was before the deletion holds the ConfigMap, read-only
    await open('#/configmaps');
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('kube-root-ca.crt');
    expect(await rowNames()).not.toContain('settings');
    await page.getByTestId('list-time-travel').click();
    await page.getByTestId('time-typed').fill(before);
    await page.getByTestId('time-go').click();
    await page.getByTestId('list-past-banner').waitFor({ timeout: 10_000 });
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('settings');
    expect(await page.getByTestId('list-past-banner').innerText()).toMatch(/^Past view\s+— as it was at .*, read-only\./);
    expect(await page.getByTestId('list-create').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=list-body] [role=row][data-name=settings] [data-testid=row-menu-button]').isDisabled()).toBe(true);
    await ui.screenshot('history-time-slider');
    // the slider's left end is the history's start: a past that can be shown
    await page.getByTestId('time-range').fill('0');
    await expect.poll(() => page.getByTestId('list-past-banner').getAttribute('data-time'), { timeout: 10_000 }).toBe(await page.getByTestId('time-slider').getAttribute('data-start'));
    await expect.poll(() => page.getByTestId('list-past-banner').innerText(), { timeout: 30_000 }).toMatch(/\d+ objects? then\.$/);
    await page.getByTestId('time-live').click();
    await expect.poll(() => page.getByTestId('list-past-banner').count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(rowNames, { timeout: 30_000 }).not.toContain('settings');

    await open('#/deleted');
    const deletedRow = (object: string) => page.locator(`[data-testid=deleted-table] tr[data-object="${object}"]`);
    await deletedRow('configmap/settings').waitFor({ timeout: 30_000 });
    await deletedRow('deployment.apps/api').waitFor({ timeout: 30_000 });
    await ui.screenshot('history-recently-deleted');
    for (const object of ['configmap/settings', 'deployment.apps/api']) {
      await deletedRow(object).getByTestId('deleted-undelete').click();
      await page.getByTestId('modal-confirm').click();
      await expect.poll(() => page.getByTestId('deleted-result').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(new RegExp(`^${object.replace('.', '\\.')} undeleted from revision \\d+$`));
      await expect.poll(() => deletedRow(object).count(), { timeout: 30_000 }).toBe(0);
    }
    expect(await kubectlOk(cluster, ['get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}'])).toBe('blue');
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/api', '--timeout=120s'], undefined, 150_000);
    await until(
      'the undeleted Deployment\'s pod to run',
      async () => ((await kubectlOk(cluster, ['get', 'pods', '-l', 'app=api', '-o', 'jsonpath={.items[*].status.phase}'])).trim() === 'Running' ? true : undefined),
      120_000,
      1000,
      kubectlState(cluster, ['get', 'pods', '-o', 'wide']),
    );
    await ui.screenshot('history-undeleted');
  }, 300_000);

  it('filters the Changes page by kind and by user', async () => {
    await kubectlOk(cluster, ['create', 'configmap', 'by-alice', '--from-literal=a=1', '--as=alice', '--as-group=system:masters']);
    await open('#/changes');
    const objects = () => page.locator('[data-testid=changes-table] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-object') ?? ''));
    await expect.poll(objects, { timeout: 30_000 }).toContain('deployment.apps/web');
    await page.getByTestId('changes-kind').fill('cm');
    await expect.poll(async () => {
      const shown = await objects();
      return shown.length > 0 && shown.every((object) => object.startsWith('configmap/'));
    }, { timeout: 30_000 }).toBe(true);
    expect(await objects()).toContain('configmap/settings');
    await page.getByTestId('changes-user').fill('alice');
    await expect.poll(objects, { timeout: 30_000 }).toEqual(['configmap/by-alice']);
    expect(await page.locator('[data-testid=changes-table] tbody tr').first().innerText()).toContain('as alice (kubectl-create)');
    await ui.screenshot('history-changes');
    await page.getByTestId('changes-kind').fill('no-such-kind');
    await expect.poll(() => page.getByTestId('changes-error').innerText().catch(() => ''), { timeout: 30_000 }).toContain('the server doesn\'t have a resource type "no-such-kind"');
  }, 120_000);
});
