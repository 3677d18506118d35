// The web UI end to end: Debian's Chromium driven by playwright-core against a
// real `kubedesk serve` on real Docker. Signs in with the printed one-time URL, creates a Deployment
// from YAML, watches its pods turn Running, scales it from the UI, opens a shell and runs
// `hostname`, follows logs, forwards a port and fetches through it, edits a ConfigMap's YAML,
// deletes the Deployment — and saves a screenshot of every view in test-output/ui/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, openUi, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { hostGet } from '../support/hostHttp';
import { kubectlOk, until } from '../support/wait';
import { editorValue, setEditor } from '../support/editor';

const deploymentYaml = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: web
          image: ${busyboxImage}
          imagePullPolicy: Never
          ports:
            - containerPort: 8080
          command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && httpd -p 8080 -h /www && i=0; while true; do echo "tick-$i"; i=$((i+1)); sleep 1; done']
`;

async function rowNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''));
}

describe('the web UI in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let podName = '';

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster());
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('signs in with the one-time URL and shows the overview', async () => {
    await page.waitForURL(/\/ui\//);
    await page.getByTestId('nav-overview').waitFor();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await ui.screenshot('01-overview');
  });

  it('creates a Deployment from YAML', async () => {
    await page.getByTestId('nav-create').click();
    await setEditor(page, deploymentYaml);
    await page.getByTestId('create-apply').click();
    await expect.poll(async () => page.getByTestId('create-result').innerText(), { timeout: 30_000 }).toMatch(/created|configured/);
    await ui.screenshot('02-create-from-yaml');
    await kubectlOk(cluster, ['get', 'deployment', 'web']);
  });

  it('shows the pods turn Running live', async () => {
    await page.getByTestId('nav-pods').click();
    podName = await until('a Running web pod in the list', async () => {
      const row = page.locator('[data-testid=list-body] [role=row][data-name^="web-"]').filter({ hasText: 'Running' }).first();
      return (await row.count()) > 0 ? ((await row.getAttribute('data-name')) ?? undefined) : undefined;
    }, 90_000, 250);
    expect(podName).toMatch(/^web-/);
    await ui.screenshot('03-pods-running');
  });

  it('scales the Deployment to 3 from the UI', async () => {
    await page.goto(`${ui.origin}/ui/#/deployments.apps/default/web`);
    await page.getByTestId('action-scale').click();
    await page.getByTestId('scale-input').fill('3');
    await page.getByTestId('modal-confirm').click();
    await page.getByTestId('nav-pods').click();
    await until('3 Running web pods', async () => {
      const running = await page.locator('[data-testid=list-body] [role=row][data-name^="web-"]').filter({ hasText: 'Running' }).count();
      return running === 3 ? true : undefined;
    }, 90_000, 250);
    await ui.screenshot('04-scaled-to-3');
  });

  it('opens a shell in a pod and runs hostname', async () => {
    await page.goto(`${ui.origin}/ui/#/pods/default/${podName}`);
    await page.getByTestId('action-shell').first().click();
    const terminal = page.locator('.xterm').last();
    await terminal.waitFor();
    await expect.poll(async () => page.locator('.xterm-rows').last().innerText(), { timeout: 30_000 }).toMatch(/[#$]\s*$/m);
    await terminal.click();
    await page.keyboard.type('hostname\n');
    await expect.poll(async () => page.locator('.xterm-rows').last().innerText(), { timeout: 30_000 }).toContain(podName);
    await ui.screenshot('05-shell');
  });

  it('follows the pod logs and sees a new line appear', async () => {
    await page.getByTestId('action-logs').first().click();
    const lastTick = async () => {
      const texts = await page.getByTestId('log-line').allInnerTexts();
      const numbers = texts.map((text) => /tick-(\d+)/.exec(text)?.[1]).filter((value): value is string => value !== undefined).map(Number);
      return numbers.length ? Math.max(...numbers) : -1;
    };
    const first = await until('a log line', async () => ((await lastTick()) >= 0 ? lastTick() : undefined), 30_000, 250);
    await until('a newer log line', async () => ((await lastTick()) > first ? true : undefined), 30_000, 250);
    await ui.screenshot('06-logs');
  });

  it('starts a port-forward and fetches through it', async () => {
    await page.goto(`${ui.origin}/ui/#/pods/default/${podName}`);
    await page.getByTestId('forward-8080').click();
    await page.getByTestId('nav-portforwards').click();
    const row = page.getByTestId('portforward-row').first();
    await row.waitFor();
    const port = await until('an active forward with a local port', async () => {
      const text = await row.innerText();
      const match = /127\.0\.0\.1:(\d+)/.exec(text);
      return match && /Active/.test(text) ? Number(match[1]) : undefined;
    }, 30_000, 250);
    const reply = await hostGet(port, '/');
    expect(reply.status).toBe(200);
    expect(reply.body.trim()).toMatch(/^web-/);
    await ui.screenshot('07-port-forwards');
  });

  it("edits a ConfigMap's YAML", async () => {
    await kubectlOk(cluster, ['create', 'configmap', 'settings', '--from-literal=color=blue']);
    await page.goto(`${ui.origin}/ui/#/configmaps/default/settings/yaml`);
    await page.getByTestId('detail-tab-yaml').click();
    await expect.poll(() => editorValue(page), { timeout: 30_000 }).toContain('color: blue');
    await setEditor(page, (await editorValue(page)).replace('color: blue', 'color: green'));
    await page.getByTestId('yaml-apply').click();
    // kubectl create owns .data.color (an Update), so a server-side apply that changes it conflicts,
    // as with `kubectl apply --server-side`; the tab reports the field and offers a forced apply
    await expect.poll(async () => page.getByTestId('yaml-result').innerText(), { timeout: 30_000 }).toMatch(/conflict[\s\S]*\.data\.color/i);
    await ui.screenshot('08-configmap-yaml-conflict');
    await page.getByTestId('yaml-force').click();
    await expect.poll(async () => (await kubectlOk(cluster, ['get', 'configmap', 'settings', '-o', 'jsonpath={.data.color}'])).trim(), { timeout: 30_000 }).toBe('green');
    await ui.screenshot('08-configmap-yaml');
  });

  it('deletes the Deployment and sees it vanish', async () => {
    await page.goto(`${ui.origin}/ui/#/deployments.apps`);
    await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('web');
    await page.goto(`${ui.origin}/ui/#/deployments.apps/default/web`);
    await page.getByTestId('action-delete').click();
    await page.getByTestId('modal-confirm').click();
    await page.getByTestId('nav-deployments.apps').click();
    await expect.poll(() => rowNames(page), { timeout: 30_000 }).not.toContain('web');
    await ui.screenshot('09-deployment-deleted');
  });

  it('saves a screenshot of every list view, the palette and the dark theme', async () => {
    const links = await page.locator('nav.sidebar a[data-testid^="nav-"]').evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('data-testid') ?? ''));
    for (const testId of links) {
      await page.getByTestId(testId).click();
      await page.locator('main.content h1').first().waitFor();
      await ui.screenshot(`list-${testId.replace(/^nav-/, '')}`);
    }
    await page.keyboard.press('Control+k');
    await page.getByTestId('palette-input').fill('deploy');
    await ui.screenshot('10-palette');
    await page.keyboard.press('Escape');
    const dark = await openUi(cluster, { colorScheme: 'dark', signIn: 'kubeconfig-token' });
    try {
      await dark.page.goto(`${dark.origin}/ui/#/pods`);
      await dark.page.getByTestId('list-body').waitFor();
      await dark.screenshot('11-dark-pods');
      expect(await dark.page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    } finally {
      await dark.close();
    }
  });
});
