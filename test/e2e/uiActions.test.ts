// The UI's heavier object actions against a real cluster in Chromium: rolling a StatefulSet back to
// its previous ControllerRevision (as `kubectl rollout undo`), and draining the node (cordon, evict
// through the eviction subresource, wait for the pods to go) then uncordoning it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

function statefulSet(message: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'default' },
    spec: {
      replicas: 1,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db' } },
        spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'db', image: busyboxImage, imagePullPolicy: 'Never', command: ['sh', '-c', `echo ${message}; exec sleep 3600`] }] },
      },
    },
  });
}

async function confirmModal(page: Page): Promise<void> {
  await page.getByTestId('modal-confirm').click();
}

describe('UI actions in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster());
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('rolls a StatefulSet back to its previous revision', async () => {
    await kubectlOk(cluster, ['apply', '-f', '-'], statefulSet('first'));
    await kubectlOk(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=90s'], undefined, 100_000);
    await kubectlOk(cluster, ['apply', '-f', '-'], statefulSet('second'));
    await kubectlOk(cluster, ['rollout', 'status', 'statefulset/db', '--timeout=90s'], undefined, 100_000);
    await page.goto(`${ui.origin}/ui/#/statefulsets.apps/default/db`);
    await page.getByTestId('action-rollback').click();
    await confirmModal(page);
    await until('the template back at the first revision', async () => {
      const command = await kubectlOk(cluster, ['get', 'statefulset', 'db', '-o', 'jsonpath={.spec.template.spec.containers[0].command[2]}']);
      return command.includes('echo first') ? true : undefined;
    }, 30_000);
    await ui.screenshot('actions-01-statefulset-rolled-back');
  });

  it('drains the node, then uncordons it', async () => {
    await kubectlOk(cluster, ['create', 'deployment', 'web', `--image=${busyboxImage}`, '--', 'sleep', '3600']);
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/web', '--timeout=90s'], undefined, 100_000);
    const node = (await kubectlOk(cluster, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const before = (await kubectlOk(cluster, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    await page.goto(`${ui.origin}/ui/#/nodes/_/${node}`);
    await page.getByTestId('action-drain').click();
    await confirmModal(page);
    // cordoned, the old pod evicted and gone; its replacement cannot be scheduled anywhere
    await until('the node drained', async () => {
      const unschedulable = await kubectlOk(cluster, ['get', 'node', node, '-o', 'jsonpath={.spec.unschedulable}']);
      const pods = await kubectlOk(cluster, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.phase}{"\\n"}{end}']);
      return unschedulable.trim() === 'true' && !pods.includes(before) && /Pending/.test(pods) ? true : undefined;
    }, 90_000);
    await expect.poll(async () => page.locator('.notices').innerText(), { timeout: 60_000 }).toMatch(/drained/);
    await ui.screenshot('actions-02-node-drained');
    await page.getByTestId('action-uncordon').click();
    await until('the replacement pod running on the uncordoned node', async () => {
      const phases = await kubectlOk(cluster, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.phase}']);
      return phases.trim() === 'Running' ? true : undefined;
    }, 90_000);
  });
});
