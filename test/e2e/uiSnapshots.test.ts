// The Snapshots page in Chromium against a real `kubedesk serve`: a snapshot saved from the page
// (its name checked as the API checks it), the cluster changed with kubectl, the restore's
// confirmation listing what will be removed, brought back and changed back (the API's dry run),
// the restore leaving the cluster as saved (kubectl shows it, uids included), the file exported
// through the page's session, the palette not offering snapshots as objects, and the delete.
import { statSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { kubectlOk } from '../support/wait';

const manifests = `
apiVersion: v1
kind: ConfigMap
metadata: { name: keep }
data: { colour: blue }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: edit }
data: { size: small }
`;

const SNAPSHOTS = '/apis/snapshots.kubedesk.dev/v1/snapshots';
/** an image no registry serves: Docker never has it */
const MISSING_IMAGE = 'registry.invalid/kubedesk-e2e/missing:1';
const kubectlTrimmed = async (cluster: TestCluster, args: string[]) => (await kubectlOk(cluster, args)).trim();

describe('snapshots, in the UI', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let keepUid = '';

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({ prepare: (started) => kubectlOk(started, ['apply', '-f', '-'], manifests).then(() => undefined) }));
    keepUid = await kubectlTrimmed(cluster, ['get', 'configmap', 'keep', '-o', 'jsonpath={.metadata.uid}']);
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  const open = (hash: string) => ui.open(hash);
  const row = (name: string) => page.locator(`[data-testid=snapshot-row][data-name="${name}"]`);
  const changes = (type: string) => page.locator(`[data-testid=restore-${type}] [data-testid=restore-change]`).allInnerTexts();

  it('saves a snapshot from the page, refusing a name the API would refuse', async () => {
    await open('#/snapshots');
    await page.getByTestId('snapshots-empty').waitFor({ timeout: 30_000 });
    await page.getByTestId('snapshot-save').click();
    // the suggested name is the date and time
    expect(await page.getByTestId('snapshot-name').inputValue()).toMatch(/^snapshot-\d{8}-\d{6}$/);
    await page.getByTestId('snapshot-name').fill('Before Upgrade');
    await expect.poll(() => page.getByTestId('snapshot-name-problem').innerText()).toContain('a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters');
    expect(await page.getByTestId('snapshot-save-confirm').isDisabled()).toBe(true);
    await ui.screenshot('snapshots-save-invalid');
    await page.getByTestId('snapshot-name').fill('baseline');
    await page.getByTestId('snapshot-save-confirm').click();
    await row('baseline').waitFor({ timeout: 60_000 });
    expect(Number(await row('baseline').getByTestId('snapshot-objects').innerText())).toBeGreaterThan(10);
    expect(await kubectlTrimmed(cluster, ['get', 'snapshots.snapshots.kubedesk.dev', '-o', 'name'])).toBe('snapshot.snapshots.kubedesk.dev/baseline');

    // a second save under the same name is refused before it is sent
    await page.getByTestId('snapshot-save').click();
    await page.getByTestId('snapshot-name').fill('baseline');
    await expect.poll(() => page.getByTestId('snapshot-name-problem').innerText()).toBe('a snapshot named “baseline” already exists');
    await page.getByTestId('modal-cancel').click();
    await ui.screenshot('snapshots-list');
  });

  it('does not search snapshots in the palette, and opens the page for the Snapshot kind', async () => {
    await page.getByTestId('open-palette').click();
    await page.getByTestId('palette-input').fill('keep');
    // the palette has listed the kinds no view watches
    await expect.poll(() => page.locator('[data-testid=palette-item][data-id="object:configmaps/default/keep"]').count(), { timeout: 30_000 }).toBe(1);
    await page.getByTestId('palette-input').fill('baseline');
    await expect.poll(() => page.locator('[data-testid=palette-item]').allInnerTexts()).not.toContain('baseline');
    expect(await page.locator('[data-testid=palette-item][data-id*="snapshots.kubedesk.dev/"]').count()).toBe(0);
    await page.keyboard.press('Escape');

    await open('#/configmaps');
    await open('#/snapshots.snapshots.kubedesk.dev');
    await row('baseline').waitFor({ timeout: 30_000 });
    expect(await page.locator('.view-header h1').innerText()).toBe('Snapshots');
  });

  it('restores from the page after a confirmation that lists what changes, and kubectl shows the cluster as saved', async () => {
    await kubectlOk(cluster, ['delete', 'configmap', 'keep']);
    await kubectlOk(cluster, ['create', 'configmap', 'extra', '--from-literal=made=later']);
    await kubectlOk(cluster, ['patch', 'configmap', 'edit', '--type=merge', '-p', '{"data":{"size":"large"}}']);

    await open('#/snapshots');
    await row('baseline').getByTestId('snapshot-restore').click();
    await expect.poll(() => changes('deleted'), { timeout: 30_000 }).toContain('ConfigMap default/extra');
    expect(await changes('created')).toContain('ConfigMap default/keep');
    expect(await changes('updated')).toContain('ConfigMap default/edit');
    expect(await page.getByTestId('restore-missing-images').count()).toBe(0);
    await ui.screenshot('snapshots-restore-confirm');

    await page.getByTestId('snapshot-restore-confirm').click();
    await page.getByTestId('restore-plan').waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => page.locator('.notice').allInnerTexts()).toContainEqual(expect.stringMatching(/^Restored “baseline”: \d+ brought back, \d+ removed, \d+ changed back, \d+ replaced\.$/));
    await ui.screenshot('snapshots-restored');

    expect(await kubectlTrimmed(cluster, ['get', 'configmap', 'keep', '-o', 'jsonpath={.metadata.uid} {.data.colour}'])).toBe(`${keepUid} blue`);
    expect(await kubectlTrimmed(cluster, ['get', 'configmap', 'edit', '-o', 'jsonpath={.data.size}'])).toBe('small');
    expect(await kubectlTrimmed(cluster, ['get', 'configmap', 'extra', '--ignore-not-found', '-o', 'name'])).toBe('');

    // nothing is left to change
    await row('baseline').getByTestId('snapshot-restore').click();
    await page.getByTestId('restore-nothing').waitFor({ timeout: 30_000 });
    await page.getByTestId('modal-cancel').click();
  });

  it('exports the snapshot file through the page’s session', async () => {
    await open('#/snapshots');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), row('baseline').getByTestId('snapshot-export').click()]);
    expect(download.suggestedFilename()).toBe('baseline.kdsnap');
    const path = await download.path();
    const listed = JSON.parse(await kubectlOk(cluster, ['get', '--raw', `${SNAPSHOTS}/baseline`])) as { status: { sizeBytes: number } };
    expect(statSync(path).size).toBe(listed.status.sizeBytes);
  });

  it('shows the images a restore needs that Docker does not have, and restores only when told to go on', async () => {
    await kubectlOk(cluster, ['run', 'ghost', `--image=${MISSING_IMAGE}`, '--restart=Never']);
    await open('#/snapshots');
    await page.getByTestId('snapshot-save').click();
    await page.getByTestId('snapshot-name').fill('with-ghost');
    await page.getByTestId('snapshot-save-confirm').click();
    await row('with-ghost').waitFor({ timeout: 60_000 });
    expect(await row('with-ghost').innerText()).toContain(MISSING_IMAGE);

    await row('with-ghost').getByTestId('snapshot-restore').click();
    const warning = page.getByTestId('restore-missing-images');
    await expect.poll(() => warning.innerText().catch(() => ''), { timeout: 30_000 }).toContain(MISSING_IMAGE);
    expect(await page.getByTestId('snapshot-restore-confirm').isDisabled()).toBe(true);
    await page.getByTestId('restore-anyway').check();
    expect(await page.getByTestId('snapshot-restore-confirm').isDisabled()).toBe(false);
    await ui.screenshot('snapshots-restore-missing-images');
    await page.getByTestId('modal-cancel').click();
    await kubectlOk(cluster, ['delete', 'pod', 'ghost', '--grace-period=0', '--force']);
    await row('with-ghost').getByTestId('snapshot-delete').click();
    await page.getByTestId('modal-confirm').click();
    await row('with-ghost').waitFor({ state: 'detached', timeout: 30_000 });
  });

  it('deletes the snapshot after a confirmation', async () => {
    await open('#/snapshots');
    await row('baseline').getByTestId('snapshot-delete').click();
    await page.getByTestId('modal-confirm').click();
    await page.getByTestId('snapshots-empty').waitFor({ timeout: 30_000 });
    expect(await kubectlTrimmed(cluster, ['get', 'snapshots.snapshots.kubedesk.dev', '-o', 'name'])).toBe('');
  });
});
