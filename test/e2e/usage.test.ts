// Resource usage history end to end, on real Docker with the real kubectl and Chromium: the
// kubelet's history of a busy pod grows every 10 s and reads back through usage.kubedesk.dev (as
// JSON and as kubectl's table), `kubectl top` keeps working beside it, a ServiceAccount bound to
// `view` in one namespace reads the usage of pods there and gets 403 for a pod elsewhere, and the
// UI draws it: a sparkline in the pods list, charts with the request and limit lines on the pod and
// Deployment pages, and the cluster load on the overview (screenshots in test-output/ui/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, gotoThroughNetworkChanges, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

const NAMESPACE = 'usage-e2e';
const PRIVATE = 'usage-private';

const manifest = `
apiVersion: v1
kind: Namespace
metadata: { name: ${NAMESPACE} }
---
apiVersion: v1
kind: Namespace
metadata: { name: ${PRIVATE} }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: burner, namespace: ${NAMESPACE} }
spec:
  replicas: 1
  selector: { matchLabels: { app: burner } }
  template:
    metadata: { labels: { app: burner } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: burner
          image: ${busyboxImage}
          command: ['sh', '-c', 'while :; do :; done']
          resources:
            requests: { cpu: 50m, memory: 16Mi }
            limits: { cpu: 150m, memory: 64Mi }
---
apiVersion: v1
kind: Pod
metadata: { name: hidden, namespace: ${PRIVATE} }
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - { name: main, image: ${busyboxImage}, command: ['sleep', '3600'] }
`;

type PodUsageReply = {
  kind: string;
  window: { step: string; stepSeconds: number };
  usage: { cpu: Array<number | null>; memory: Array<number | null> };
  requests: { cpu?: number; memory?: number };
  limits: { cpu?: number; memory?: number };
  containers: Array<{ name: string }>;
};

describe('resource usage history', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let podName = '';
  // Chromium aborts a navigation when Docker adds a network (other clusters on this Docker): retry those
  const open = async (hash: string) => {
    if (!(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/${hash}`))) throw new Error(`could not open #/${hash}`);
  };

  const samples = (usage: PodUsageReply) => usage.usage.cpu.filter((value) => value !== null).length;
  async function podUsage(): Promise<PodUsageReply> {
    const raw = await kubectlOk(cluster, ['get', '--raw', `/apis/usage.kubedesk.dev/v1/namespaces/${NAMESPACE}/pods/${podName}`]);
    return JSON.parse(raw) as PodUsageReply;
  }

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({ viewport: { width: 1400, height: 1000 } }));
    await kubectlOk(cluster, ['apply', '-f', '-'], manifest);
    podName = await until(
      'the burner pod running',
      async () => {
        const out = await cluster.kubectl(['get', 'pods', '-n', NAMESPACE, '-l', 'app=burner', '-o', 'jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name}{end}']);
        return out.stdout.trim() || undefined;
      },
      120_000,
    );
  }, 240_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it("grows a running pod's history every 10 s and serves it with requests and limits", async () => {
    const first = await until('two samples of the burner pod', async () => {
      const usage = await podUsage();
      return samples(usage) >= 2 ? usage : undefined;
    }, 90_000);
    expect(first).toMatchObject({ kind: 'PodUsage', window: { step: '10s', stepSeconds: 10 }, requests: { cpu: 50, memory: 16 * 1024 * 1024 }, limits: { cpu: 150, memory: 64 * 1024 * 1024 } });
    expect(first.containers.map((container) => container.name)).toEqual(['burner']);
    // the busy loop is throttled at its 150m limit: the latest figure sits near it
    const latestCpu = first.usage.cpu.filter((value): value is number => value !== null).at(-1) ?? 0;
    expect(latestCpu).toBeGreaterThan(60);
    expect(latestCpu).toBeLessThan(200);
    expect(first.usage.memory.filter((value) => value !== null).at(-1)).toBeGreaterThan(0);
    const grown = await until('a later sample', async () => {
      const usage = await podUsage();
      return samples(usage) > samples(first) ? usage : undefined;
    }, 60_000);
    expect(samples(grown)).toBeGreaterThan(samples(first));

    // a day at one minute, and kubectl's table of the latest figures
    const day = JSON.parse(await kubectlOk(cluster, ['get', '--raw', `/apis/usage.kubedesk.dev/v1/namespaces/${NAMESPACE}/pods/${podName}?window=1d`])) as PodUsageReply;
    expect(day.window).toMatchObject({ step: '1m0s', stepSeconds: 60 });
    const table = await kubectlOk(cluster, ['get', 'pods.usage.kubedesk.dev', '-n', NAMESPACE]);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+CPU\(CORES\)\s+MEMORY\(BYTES\)\s+POINTS\s+STEP$/);
    expect(table).toContain(podName);
    // metrics.k8s.io still answers `kubectl top` from the same sampling
    const top = await until('kubectl top pod', async () => {
      const result = await cluster.kubectl(['top', 'pod', '-n', NAMESPACE]);
      return result.code === 0 && result.stdout.includes(podName) ? result.stdout : undefined;
    }, 60_000);
    expect(top.split('\n')[0]).toMatch(/^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/);
    // the node's history holds the pod's usage
    const node = JSON.parse(await kubectlOk(cluster, ['get', '--raw', '/apis/usage.kubedesk.dev/v1/nodes'])) as { items: Array<{ usage: { cpu: Array<number | null> } }> };
    expect(node.items[0].usage.cpu.filter((value) => value !== null).length).toBeGreaterThan(0);
  }, 240_000);

  it('lets a view-only ServiceAccount read the usage of pods it can get, and not of others (403)', async () => {
    await kubectlOk(cluster, ['create', 'serviceaccount', 'watcher', '-n', NAMESPACE]);
    await kubectlOk(cluster, ['create', 'rolebinding', 'watcher-view', '-n', NAMESPACE, '--clusterrole=view', `--serviceaccount=${NAMESPACE}:watcher`]);
    const token = (await kubectlOk(cluster, ['create', 'token', 'watcher', '-n', NAMESPACE])).trim();
    const asWatcher = (args: string[]) => cluster.kubectl([...args, '--token', token]);

    const allowed = await asWatcher(['get', '--raw', `/apis/usage.kubedesk.dev/v1/namespaces/${NAMESPACE}/pods/${podName}`]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect((JSON.parse(allowed.stdout) as PodUsageReply).kind).toBe('PodUsage');
    const list = await asWatcher(['get', '--raw', `/apis/usage.kubedesk.dev/v1/namespaces/${NAMESPACE}/pods`]);
    expect((JSON.parse(list.stdout) as { items: Array<{ metadata: { name: string } }> }).items.map((item) => item.metadata.name)).toEqual([podName]);

    const denied = await asWatcher(['get', '--raw', `/apis/usage.kubedesk.dev/v1/namespaces/${PRIVATE}/pods/hidden`]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('Forbidden');
    expect(denied.stderr).toContain(`cannot get resource "pods" in API group "" in the namespace "${PRIVATE}"`);
    // across namespaces the list leaves out what it may not get
    const everywhere = await asWatcher(['get', '--raw', '/apis/usage.kubedesk.dev/v1/pods']);
    expect(everywhere.code, everywhere.stderr).toBe(0);
    expect((JSON.parse(everywhere.stdout) as { items: Array<{ metadata: { namespace: string } }> }).items.every((item) => item.metadata.namespace === NAMESPACE)).toBe(true);
    // nor a node's
    const nodeDenied = await asWatcher(['get', '--raw', '/apis/usage.kubedesk.dev/v1/nodes/kubedesk']);
    expect(nodeDenied.stderr).toContain('cannot get resource "nodes"');
  });

  it('draws the usage as a chart with request and limit lines on the pod page', async () => {
    await open(`pods/${NAMESPACE}/${podName}`);
    const chart = page.getByTestId('usage-chart-cpu');
    await chart.waitFor({ timeout: 60_000 });
    await expect.poll(() => chart.locator('path[data-line=usage]').getAttribute('d'), { timeout: 30_000 }).toMatch(/^M[\d.]+ [\d.]+L/);
    expect(await chart.locator('path[data-line=request]').count()).toBe(1);
    expect(await chart.locator('path[data-line=limit]').count()).toBe(1);
    expect(await chart.locator('svg[role=img]').getAttribute('aria-label')).toMatch(/^CPU: now \d+m, peak \d+m; request 50m, limit 150m$/);
    expect(await page.getByTestId('usage-chart-memory').locator('path[data-line=limit]').count()).toBe(1);
    await page.getByTestId('usage-card').scrollIntoViewIfNeeded();
    await ui.screenshot('usage-pod-chart');
  });

  it('shows CPU and memory sparklines in the pods and Deployments lists, and charts the Deployment', async () => {
    await open(`pods`);
    const row = page.locator(`[data-testid=list-body] [role=row][data-name="${podName}"]`);
    await row.waitFor({ timeout: 30_000 });
    await expect.poll(() => row.getByTestId('usage-cpu').locator('path').count(), { timeout: 30_000 }).toBe(1);
    expect(await row.getByTestId('usage-cpu').locator('[role=img]').getAttribute('aria-label')).toMatch(new RegExp(`^CPU of ${podName}: \\d+m of 150m$`));
    expect(await row.getByTestId('usage-memory').locator('.spark-figure').innerText()).toMatch(/^[\d.]+ (KiB|MiB)$/);
    await ui.screenshot('usage-pods-list');

    await open(`deployments.apps`);
    const deployment = page.locator('[data-testid=list-body] [role=row][data-name=burner]');
    await expect.poll(() => deployment.getByTestId('usage-cpu').locator('path').count(), { timeout: 30_000 }).toBe(1);
    await open(`deployments.apps/${NAMESPACE}/burner`);
    const chart = page.getByTestId('usage-chart-cpu');
    await expect.poll(() => chart.locator('path[data-line=usage]').getAttribute('d').catch(() => ''), { timeout: 30_000 }).toMatch(/^M/);
    expect(await chart.locator('path[data-line=limit]').count()).toBe(1);
    await page.getByTestId('usage-card').scrollIntoViewIfNeeded();
    await ui.screenshot('usage-deployment-chart');
  });

  it('charts the cluster load on the overview and a node against its allocatable', async () => {
    await open(`overview`);
    const load = page.getByTestId('cluster-load');
    await expect.poll(() => load.locator('path[data-line=usage]').count(), { timeout: 30_000 }).toBe(2);
    expect(await load.locator('path[data-line=allocatable]').count()).toBe(2);
    await load.scrollIntoViewIfNeeded();
    await ui.screenshot('usage-overview');
    await open(`nodes/_/kubedesk`);
    await expect.poll(() => page.getByTestId('usage-chart-cpu').locator('path[data-line=allocatable]').count(), { timeout: 30_000 }).toBe(1);
  });

  it('draws the charts in the theme\'s colours, dark as well', async () => {
    await open(`pods/${NAMESPACE}/${podName}`);
    const line = page.getByTestId('usage-chart-cpu').locator('path[data-line=usage]');
    await expect.poll(() => line.getAttribute('d').catch(() => ''), { timeout: 30_000 }).toMatch(/^M/);
    await page.keyboard.press('Control+k');
    await page.getByTestId('palette-input').fill('theme dark');
    await page.getByTestId('palette-item').first().waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const colours = await line.evaluate((path) => ({ stroke: getComputedStyle(path).stroke, accent: getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() }));
    // #76a0f4, the dark palette's accent
    expect(colours.accent).toBe('#76a0f4');
    expect(colours.stroke).toBe('rgb(118, 160, 244)');
    await page.getByTestId('usage-card').scrollIntoViewIfNeeded();
    await ui.screenshot('usage-pod-chart-dark');
  });
});
