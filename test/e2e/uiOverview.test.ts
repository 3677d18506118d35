// The overview and the command palette end to end, in Chromium against a real `kubedesk serve`:
// the empty-cluster guidance, a Deployment that cannot start showing up as not ready with its
// Warning events, the pod counts by health linking to the filtered pods list, and the palette jumping to a
// kind by short name, switching namespace and theme (dark, as the OS setting would too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { kubectlOk } from '../support/wait';

const brokenDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: broken, namespace: default }
spec:
  replicas: 1
  selector: { matchLabels: { app: broken } }
  template:
    metadata: { labels: { app: broken } }
    spec:
      containers:
        - { name: main, image: 'kubedesk-test/never-built:1', imagePullPolicy: Never }
`;

async function palette(page: Page, query: string): Promise<void> {
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill(query);
  await page.getByTestId('palette-item').first().waitFor();
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('palette-input').count()).toBe(0);
}

describe('the overview and the command palette', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({ colorScheme: 'dark' }));
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('tells an empty cluster how to start and follows the OS dark theme', async () => {
    await page.getByTestId('overview-empty').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('overview-empty').innerText()).toContain('kubectl config use-context kubedesk');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.locator('.overview-node').first().waitFor();
  });

  it('lists a Deployment that cannot start as not ready, with its Warning events', async () => {
    await kubectlOk(cluster, ['apply', '-f', '-'], brokenDeployment);
    await expect.poll(() => page.locator('.overview-list a', { hasText: 'broken' }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('overview-warnings').innerText().catch(() => ''), { timeout: 60_000 }).toContain('ErrImageNeverPull');
    await ui.screenshot('overview-not-ready');
  });

  it('opens the pods list filtered by health from a pod count', async () => {
    // ErrImageNeverPull: phase Pending, but kubectl's STATUS names a failure, so it counts as failing
    await page.getByTestId('pods-failing').click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/pods');
    expect(await page.locator('input.filter').inputValue()).toBe('health:failing');
    await expect.poll(() => page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? '')), { timeout: 30_000 }).toEqual([expect.stringMatching(/^broken-/)]);
  });

  it('jumps to a kind by short name, switches namespace and theme from the palette', async () => {
    await palette(page, 'deploy');
    expect(await page.evaluate(() => location.hash)).toBe('#/deployments.apps');
    await palette(page, 'ns: kube-system');
    expect(await page.getByTestId('namespace-picker').innerText()).toContain('kube-system');
    await palette(page, 'theme light');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
    await palette(page, 'ns: all');
    await palette(page, 'broken');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/deployments.apps/default/broken');
  });

  it('shows an image pull in progress in the top bar on any page', async () => {
    // No registry answers here, so the pull is staged: a pod on a node without a kubelet, its
    // container waiting in ContainerCreating, and the kubelet's Pulling event for it.
    await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'staged-node' } }));
    await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pulling', namespace: 'default' }, spec: { nodeName: 'staged-node', containers: [{ name: 'app', image: 'registry.example/app:1' }] } }));
    await kubectlOk(cluster, ['patch', 'pod', 'pulling', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { phase: 'Pending', containerStatuses: [{ name: 'app', image: 'registry.example/app:1', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] } })]);
    const now = new Date().toISOString();
    await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'pulling.1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'pulling', namespace: 'default', fieldPath: 'spec.containers{app}' }, reason: 'Pulling', message: 'Pulling image "registry.example/app:1"', type: 'Normal', source: { component: 'kubelet' }, firstTimestamp: now, lastTimestamp: now, count: 1 }));
    await page.goto(`${ui.origin}/ui/#/configmaps`);
    await expect.poll(() => page.getByTestId('pull-progress').innerText().catch(() => ''), { timeout: 30_000 }).toContain('Pulling image registry.example/app:1');
    await ui.screenshot('topbar-pull-progress');
    await kubectlOk(cluster, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'pulling.2', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'pulling', namespace: 'default', fieldPath: 'spec.containers{app}' }, reason: 'Pulled', message: 'Successfully pulled image "registry.example/app:1"', type: 'Normal', source: { component: 'kubelet' }, firstTimestamp: new Date(Date.now() + 1000).toISOString(), lastTimestamp: new Date(Date.now() + 1000).toISOString(), count: 1 }));
    await expect.poll(() => page.getByTestId('pull-progress').count(), { timeout: 30_000 }).toBe(0);
  });
});
