// The UI's permissions in Chromium against a real cluster: signed in as the cluster's admin, the
// page is made to see what a user bound to the `view` ClusterRole would (playwright answers the
// SelfSubjectRulesReview, SelfSubjectAccessReview and SelfSubjectReview as the API server answers
// such a user, and refuses one forced write with the API server's own 403), then checks that the
// actions it may not perform are disabled with the reason in the user's name (the kubedesk-only
// Snapshots and Images pages too), that a refused write says who was refused what, the read-only
// switch and chip, and the usage charts' and sparklines' fallbacks to metrics.k8s.io samples and to
// a note when no metrics API is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, gotoThroughNetworkChanges, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk } from '../support/wait';
import { setEditor } from '../support/editor';

const VIEWER = 'system:serviceaccount:team:viewer';

/** The `view` ClusterRole's rules (trimmed) as a SelfSubjectRulesReview reports them. */
const VIEW_RULES = {
  resourceRules: [
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'endpoints', 'events', 'namespaces', 'pods', 'pods/log', 'pods/status', 'services', 'nodes'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'statefulsets', 'daemonsets'] },
  ],
  nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/version'] }],
  incomplete: false,
};

function json(route: Route, status: number, body: unknown): Promise<void> {
  return route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });
}

/** Answers the reviews as the API server answers the viewer; every write the page sends anyway gets the server's 403. */
async function actAsViewer(page: Page): Promise<void> {
  await page.route('**/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', async (route) => {
    const review = route.request().postDataJSON() as { spec?: { namespace?: string } };
    await json(route, 201, { kind: 'SelfSubjectRulesReview', apiVersion: 'authorization.k8s.io/v1', metadata: {}, spec: review.spec, status: VIEW_RULES });
  });
  await page.route('**/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', async (route) => {
    const review = route.request().postDataJSON() as { spec: { resourceAttributes?: Record<string, string>; nonResourceAttributes?: Record<string, string> } };
    const allowed = ['get', 'list', 'watch'].includes((review.spec.resourceAttributes ?? review.spec.nonResourceAttributes ?? {}).verb);
    await json(route, 201, { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: {}, spec: review.spec, status: allowed ? { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "viewers" of ClusterRole "view"' } : { allowed: false } });
  });
  await page.route('**/apis/authentication.k8s.io/v1/selfsubjectreviews', (route) =>
    json(route, 201, { kind: 'SelfSubjectReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, status: { userInfo: { username: VIEWER, groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] } } }),
  );
  // the forced write: the API server's refusal, worded as upstream's
  await page.route('**/api/v1/namespaces/default/configmaps/**', async (route) => {
    if (route.request().method() === 'GET') return route.fallback();
    await json(route, 403, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "settings" is forbidden: User "${VIEWER}" cannot patch resource "configmaps" in API group "" in the namespace "default"`,
      reason: 'Forbidden',
      details: { name: 'settings', kind: 'configmaps' },
      code: 403,
    });
  });
}

/** Loads the UI afresh at `url` (nothing the page learnt before stays), through Chromium's network-change aborts. */
async function openFresh(page: Page, url: string): Promise<void> {
  await page.goto('about:blank');
  expect(await gotoThroughNetworkChanges(page, url)).toBe(true);
}

describe('permissions in the UI in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({
      prepare: async (started) => {
        await kubectlOk(started, ['create', 'deployment', 'web', `--image=${busyboxImage}`, '--', 'sleep', '3600']);
      },
    }));
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('disables what a view user may not do, with the reason in the user’s name', async () => {
    await actAsViewer(page);
    // a fresh page: nothing it learnt as the admin stays
    await openFresh(page, `${ui.origin}/ui/#/deployments.apps/default/web`);
    await expect.poll(() => page.getByTestId('identity-chip').innerText(), { timeout: 30_000 }).toBe(VIEWER);
    const remove = page.getByTestId('action-delete');
    await expect.poll(() => remove.getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not delete deployments.apps "web" in "default"`);
    expect(await remove.isDisabled()).toBe(true);
    // a subresource, answered by a SelfSubjectAccessReview
    await expect.poll(() => page.getByTestId('action-scale').getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not patch deployments.apps/scale "web" in "default"`);
    expect(await page.getByTestId('action-restart').isDisabled()).toBe(true);
    await page.getByTestId('detail-tab-yaml').click();
    await expect.poll(() => page.getByTestId('yaml-apply').getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not patch deployments.apps "web" in "default"`);
    await ui.screenshot('permissions-01-view-user-detail');
    // the list's row menu says the same
    expect(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/deployments.apps`)).toBe(true);
    await page.locator('[data-testid=list-body] [role=row][data-name=web]').click({ button: 'right' });
    const menuDelete = page.getByTestId('menu-delete');
    await expect.poll(() => menuDelete.getAttribute('aria-disabled'), { timeout: 30_000 }).toBe('true');
    expect(await menuDelete.innerText()).toContain(`may not delete deployments.apps "web" in "default"`);
    await ui.screenshot('permissions-02-view-user-row-menu');
    await page.keyboard.press('Escape');
  });

  it('disables the snapshot and image actions a view user may not perform, with the reason', async () => {
    // the real server answers both kinds of review the pages ask: every verb on everything, and a registry URL
    expect((await kubectlOk(cluster, ['auth', 'can-i', '*', '*'])).trim()).toBe('yes');
    expect((await kubectlOk(cluster, ['auth', 'can-i', 'delete', '/registry/v2/app/manifests/v1'])).trim()).toBe('yes');
    await openFresh(page, `${ui.origin}/ui/#/snapshots`);
    const save = page.getByTestId('snapshot-save');
    await expect.poll(() => save.getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not save, restore or delete snapshots: they hold and replace every object of the cluster, which needs cluster-admin`);
    expect(await save.isDisabled()).toBe(true);
    await ui.screenshot('permissions-03a-view-user-snapshots');
    expect(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/images`)).toBe(true);
    await page.getByTestId('image-pull-name').fill('busybox:1.36');
    const pull = page.getByTestId('image-pull');
    await expect.poll(() => pull.getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not create imagepulls.images.kubedesk.dev`);
    expect(await pull.isDisabled()).toBe(true);
    const remove = page.locator('[data-testid=image-row]').first().getByTestId('image-remove');
    await expect.poll(async () => (await remove.getAttribute('title')) ?? '', { timeout: 30_000 }).toContain(`You (${VIEWER}) may not delete images.images.kubedesk.dev "`);
    expect(await remove.isDisabled()).toBe(true);
    await ui.screenshot('permissions-03b-view-user-images');
  });

  it('says who was refused what when the server refuses a write', async () => {
    expect(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/create`)).toBe(true);
    await setEditor(page, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  a: "1"\n');
    await page.getByTestId('create-apply').click();
    const line = page.getByTestId('create-result-line').first();
    await expect.poll(() => line.innerText(), { timeout: 30_000 }).toContain(`Refused: you (${VIEWER}) may not patch configmaps "settings" in "default". The server said: configmaps "settings" is forbidden: User "${VIEWER}" cannot patch resource "configmaps"`);
    await ui.screenshot('permissions-03-refused-write');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('turns the cluster read-only: writes disabled with the reason, a chip says so', async () => {
    // the clusters route and its settings as the contract serves them
    let readOnly = false;
    await page.route('**/ui/clusters', (route) => json(route, 200, { self: 'kubedesk', kubeconfigFiles: [], clusters: [{ name: 'kubedesk', cluster: 'kubedesk', user: 'kubedesk', server: ui.origin, insecure: false, authKind: 'token', current: true, self: true, basePath: '', readOnly }] }));
    await page.route('**/ui/clusters/kubedesk/-/settings', async (route) => {
      const body = route.request().postDataJSON() as { readOnly: boolean };
      readOnly = body.readOnly;
      await json(route, 200, { name: 'kubedesk', self: true, basePath: '', readOnly });
    });
    await openFresh(page, `${ui.origin}/ui/#/settings`);
    const toggle = page.getByTestId('read-only-switch-kubedesk');
    await toggle.waitFor({ timeout: 30_000 });
    // the switch follows the stored setting, so it turns once the server answered
    await toggle.click();
    await page.getByTestId('read-only-chip').waitFor({ timeout: 10_000 });
    expect(readOnly).toBe(true);
    await ui.screenshot('permissions-04-read-only-settings');
    expect(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/deployments.apps/default/web`)).toBe(true);
    await expect.poll(() => page.getByTestId('action-delete').getAttribute('title'), { timeout: 30_000 }).toBe('read-only: the cluster "kubedesk" is read-only in kubedesk (turn it off in Settings → Clusters)');
    expect(await page.getByTestId('action-scale').isDisabled()).toBe(true);
    await ui.screenshot('permissions-05-read-only-detail');
    expect(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/settings`)).toBe(true);
    await page.getByTestId('read-only-switch-kubedesk').click();
    await page.getByTestId('read-only-chip').waitFor({ state: 'detached', timeout: 10_000 });
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });

  it('draws charts from metrics.k8s.io when the usage history is not served, and says so when neither is', async () => {
    const node = (await kubectlOk(cluster, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    await page.route('**/apis/usage.kubedesk.dev/v1', (route) => json(route, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' }));
    await openFresh(page, `${ui.origin}/ui/#/nodes/_/${node}`);
    await page.getByTestId('usage-metrics-source').waitFor({ timeout: 30_000 });
    await page.getByTestId('usage-chart-cpu').waitFor({ timeout: 60_000 });
    // a second sample 15 s after the first: the chart is a series, not a level
    await expect.poll(() => page.getByTestId('usage-metrics-source').innerText(), { timeout: 40_000 }).toMatch(/^from metrics\.k8s\.io, since you opened this page \([2-9] samples, every 15 s\)$/);
    await ui.screenshot('permissions-06-metrics-charts');
    // the pod list's sparklines sample metrics.k8s.io too
    await page.route('**/apis/usage.kubedesk.dev/v1/**', (route) => json(route, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' }));
    await openFresh(page, `${ui.origin}/ui/#/pods`);
    const memory = page.locator('[data-testid=list-body] [role=row]').first().getByTestId('usage-memory').locator('.spark');
    await expect.poll(async () => ((await memory.count()) > 0 ? await memory.getAttribute('aria-label') : ''), { timeout: 40_000 }).toMatch(/^Memory of web-.*: \d/);
    expect(await memory.getAttribute('title')).toMatch(/\(from metrics\.k8s\.io since the list opened\)$/);
    await ui.screenshot('permissions-06b-metrics-sparklines');
    await page.route('**/apis/metrics.k8s.io/v1beta1', (route) => json(route, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' }));
    await openFresh(page, `${ui.origin}/ui/#/nodes/_/${node}`);
    await expect.poll(() => page.getByTestId('usage-no-metrics').innerText(), { timeout: 30_000 }).toBe('This cluster serves no metrics API — install metrics-server for charts.');
    await ui.screenshot('permissions-07-no-metrics');
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });
});
