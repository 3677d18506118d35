// The UI tells the truth, in Chromium against a real `kubedesk serve` on real Docker, with pods made
// to fail for real: a crash loop, an image that cannot be pulled, a missing ConfigMap key and a
// failing readiness probe. Pod colours and counts agree with `kubectl get pods`; the YAML tab
// applies replicas after Scale… without a conflict with the UI itself; the palette finds objects
// of kinds never opened, ranked, and no longer matches "helm" to the theme; the node card shows
// its memory figures whole; the dock collapses, resizes and survives a reload; the settings page
// changes theme, dock behaviour and default namespace and signs out for real; two clusters keep
// their sign-ins apart; and a stopped cluster shows as disconnected without flooding the console,
// then resyncs when it is back. Screenshots go to test-output/ui/truth-*.png.
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleMessage, Page } from 'playwright-core';
import { startCluster, type TestCluster } from '../support/cluster';
import { destroyUiCluster, launchChromium, openUi, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';
import { editorValue, setEditor } from '../support/editor';

function deployment(name: string, container: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', image: busyboxImage, imagePullPolicy: 'Never', ...container }] } },
    },
  });
}

function pod(name: string, container: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'app', ...container }] } });
}

const workloads = [
  deployment('web', { command: ['sh', '-c', 'echo serving; exec sleep 3600'], resources: { requests: { memory: '109Mi', cpu: '50m' } } }),
  // exits at once, again and again: CrashLoopBackOff
  deployment('crasher', { command: ['sh', '-c', 'echo starting; exit 3'] }),
  // runs, but its readiness probe always fails: Running 0/1
  deployment('unready', { command: ['sleep', '3600'], readinessProbe: { exec: { command: ['false'] }, periodSeconds: 1 } }),
  // no registry answers here: ErrImagePull, then ImagePullBackOff
  pod('no-image', { image: 'registry.invalid/kubedesk/missing:1', imagePullPolicy: 'Always' }),
  // the ConfigMap it reads does not exist: CreateContainerConfigError
  pod('bad-config', { image: busyboxImage, imagePullPolicy: 'Never', command: ['sleep', '3600'], env: [{ name: 'COLOR', valueFrom: { configMapKeyRef: { name: 'nowhere', key: 'color' } } }] }),
];

type Health = 'healthy' | 'not-ready' | 'failing' | 'pending' | 'terminating' | 'completed';

interface KubectlPod {
  namespace: string;
  name: string;
  ready: string;
  status: string;
}

/** `kubectl get pods -A` as printed: the truth the UI must agree with. */
async function kubectlPods(cluster: TestCluster): Promise<KubectlPod[]> {
  const text = await kubectlOk(cluster, ['get', 'pods', '-A', '--no-headers']);
  return text
    .split('\n')
    .map((line) => /^(\S+)\s+(\S+)\s+(\d+\/\d+)\s+(\S+)\s/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ namespace: match[1], name: match[2], ready: match[3], status: match[4] }));
}

/** How a person reads kubectl's STATUS and READY: only Running with every container ready is healthy. */
function healthOf(row: KubectlPod): Health {
  const [ready, total] = row.ready.split('/').map(Number);
  if (row.status === 'Running') return ready === total && total > 0 ? 'healthy' : 'not-ready';
  if (row.status === 'Completed' || row.status === 'Succeeded') return 'completed';
  if (row.status === 'Terminating') return 'terminating';
  if (/^(Pending|ContainerCreating|PodInitializing|Init:\d+\/\d+)$/.test(row.status)) return 'pending';
  return 'failing';
}

async function overviewCounts(page: Page): Promise<Record<Health, number>> {
  const counts = {} as Record<Health, number>;
  for (const health of ['healthy', 'not-ready', 'failing', 'pending', 'terminating', 'completed'] as Health[]) {
    counts[health] = Number(await page.getByTestId(`pods-${health}`).getAttribute('data-count'));
  }
  return counts;
}

async function statusCellClass(page: Page, name: string): Promise<string> {
  const row = page.locator(`[data-testid=list-body] [role=row][data-name="${name}"]`);
  const cells = row.locator('[role=gridcell]');
  const texts = await cells.allInnerTexts();
  // the Status column follows READY (n/m)
  const index = texts.findIndex((text) => /^\d+\/\d+$/.test(text)) + 1;
  return (await cells.nth(index).getAttribute('class')) ?? '';
}

async function paletteResults(page: Page, query: string): Promise<string[]> {
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill(query);
  return page.getByTestId('palette-item').allInnerTexts();
}

/** GET with exactly this cookie (no bearer token): what a stolen or old session cookie can still do. */
function getWithCookie(cluster: TestCluster, path: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(new URL(path, cluster.server), { method: 'GET', ca: cluster.caPem, agent: false, timeout: 30_000, headers: { cookie } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('the UI tells the truth', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({
      async prepare(started) {
        for (const manifest of workloads) await kubectlOk(started, ['apply', '-f', '-'], manifest);
      },
    }));
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('counts and colours pods as kubectl get pods reports them, problems never green', async () => {
    const describe = kubectlState(cluster, ['get', 'pods', '-A']);
    // every broken pod has reached the state kubectl names its failure by
    await until(
      'the crash loop, the pull failure, the config error and the failing readiness probe',
      async () => {
        const rows = await kubectlPods(cluster);
        const status = (prefix: string) => rows.find((row) => row.name.startsWith(prefix));
        const ok =
          /CrashLoopBackOff|Error/.test(status('crasher-')?.status ?? '') &&
          /ImagePullBackOff|ErrImagePull/.test(status('no-image')?.status ?? '') &&
          status('bad-config')?.status === 'CreateContainerConfigError' &&
          status('unready-')?.status === 'Running' &&
          status('unready-')?.ready === '0/1' &&
          status('web-')?.ready === '1/1';
        return ok ? true : undefined;
      },
      120_000,
      1000,
      describe,
    );
    await page.goto(`${ui.origin}/ui/#/overview`);
    await page.getByTestId('pod-health').waitFor();
    // the same moment seen by kubectl and by the UI (a crash loop moves between Error and Running)
    const matched = await until(
      'the overview counts to equal what kubectl get pods says',
      async () => {
        const expected: Record<Health, number> = { healthy: 0, 'not-ready': 0, failing: 0, pending: 0, terminating: 0, completed: 0 };
        for (const row of await kubectlPods(cluster)) expected[healthOf(row)]++;
        const shown = await overviewCounts(page);
        return JSON.stringify(shown) === JSON.stringify(expected) ? shown : undefined;
      },
      60_000,
      500,
      describe,
    );
    expect(matched.failing).toBeGreaterThanOrEqual(2);
    expect(matched['not-ready']).toBeGreaterThanOrEqual(1);
    await ui.screenshot('truth-01-overview-pod-health');

    await page.getByTestId('pods-failing').click();
    await expect.poll(() => page.locator('input.filter').inputValue()).toBe('health:failing');
    await expect
      .poll(async () => (await page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''))).sort(), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(['bad-config', 'no-image']));
    await ui.screenshot('truth-02-failing-pods');

    await page.locator('input.filter').fill('');
    const unready = (await kubectlPods(cluster)).find((row) => row.name.startsWith('unready-'))?.name ?? '';
    const web = (await kubectlPods(cluster)).find((row) => row.name.startsWith('web-'))?.name ?? '';
    await expect.poll(() => statusCellClass(page, unready), { timeout: 30_000 }).toContain('tone-warn');
    expect(await statusCellClass(page, 'bad-config')).toContain('tone-error');
    expect(await statusCellClass(page, 'no-image')).toContain('tone-error');
    expect(await statusCellClass(page, web)).toContain('tone-ok');
    await ui.screenshot('truth-03-pod-list-colours');

    // the detail page's status pill: Running but not ready is not green
    await page.goto(`${ui.origin}/ui/#/pods/default/${unready}`);
    await expect.poll(() => page.locator('.status-pill').first().getAttribute('class'), { timeout: 30_000 }).toContain('tone-warn');
    await ui.screenshot('truth-04-unready-pod-detail');
  });

  it('shows the node card’s memory figures whole', async () => {
    await page.goto(`${ui.origin}/ui/#/overview`);
    const memory = page.getByTestId('meter-memory').first();
    await expect.poll(() => memory.innerText(), { timeout: 30_000 }).toMatch(/^109 MiB of \d+(\.\d)? GiB requested/);
    const clipped = await memory.evaluate((element) => element.scrollWidth > element.clientWidth + 1);
    expect(clipped).toBe(false);
    // a narrow window too: the figures wrap under the bar instead of being cut
    await page.setViewportSize({ width: 900, height: 900 });
    expect(await memory.evaluate((element) => element.scrollWidth > element.clientWidth + 1)).toBe(false);
    await ui.screenshot('truth-05-node-card-narrow');
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('applies replicas from the YAML tab after Scale… without a conflict with the UI itself', async () => {
    await page.goto(`${ui.origin}/ui/#/deployments.apps/default/web`);
    await page.getByTestId('action-scale').click();
    await page.getByTestId('scale-input').fill('3');
    await page.getByTestId('modal-confirm').click();
    await expect.poll(async () => (await kubectlOk(cluster, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), { timeout: 30_000 }).toBe('3');

    await page.getByTestId('detail-tab-yaml').click();
    await expect.poll(() => editorValue(page), { timeout: 30_000 }).toContain('replicas: 3');
    const yaml = await editorValue(page);
    // kubectl's order: apiVersion, kind, metadata, spec, status
    expect(yaml.split('\n').filter((line) => /^\w/.test(line)).map((line) => line.split(':')[0])).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    await setEditor(page, yaml.replace(/^( {2}replicas:) 3$/m, '$1 2'));
    await page.getByTestId('yaml-apply').click();
    await expect.poll(() => page.getByTestId('yaml-result').getAttribute('data-tone'), { timeout: 30_000 }).toBe('ok');
    expect(await page.getByTestId('yaml-result').innerText()).not.toMatch(/conflict/i);
    expect(await page.getByTestId('yaml-force').count()).toBe(0);
    await ui.screenshot('truth-06-yaml-after-scale');
    await expect.poll(async () => (await kubectlOk(cluster, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), { timeout: 30_000 }).toBe('2');
    // one manager, one operation: the UI's Apply entry owns the replicas, its Update entry is gone
    const managed = JSON.parse(await kubectlOk(cluster, ['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.managedFields}', '--show-managed-fields'])) as { manager: string; operation: string; fieldsV1?: { 'f:spec'?: Record<string, unknown> } }[];
    const own = managed.filter((entry) => entry.manager === 'kubedesk-ui');
    expect(own.map((entry) => entry.operation)).toEqual(['Apply']);
    expect(own[0].fieldsV1?.['f:spec']).toHaveProperty('f:replicas');
    // and scaling again from the UI, then editing again, still never conflicts
    await page.getByTestId('action-scale').click();
    await page.getByTestId('scale-input').fill('1');
    await page.getByTestId('modal-confirm').click();
    await expect.poll(async () => (await kubectlOk(cluster, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), { timeout: 30_000 }).toBe('1');
    await page.getByTestId('detail-tab-yaml').click();
    await expect.poll(() => editorValue(page), { timeout: 30_000 }).toMatch(/^ {2}replicas: 1$/m);
    await setEditor(page, (await editorValue(page)).replace(/^( {2}replicas:) 1$/m, '$1 2'));
    // the first apply's result is still on the page: wait for this apply's own (a new resourceVersion)
    const firstResult = await page.getByTestId('yaml-result').innerText();
    await page.getByTestId('yaml-apply').click();
    await expect.poll(async () => { const text = await page.getByTestId('yaml-result').innerText(); return text === firstResult ? 'the first result' : text; }, { timeout: 30_000 }).toMatch(/^Applied:/);
    await expect.poll(async () => (await kubectlOk(cluster, ['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])).trim(), { timeout: 30_000 }).toBe('2');
  });

  it('finds objects of kinds never opened, ranked, and does not match "helm" to the theme', async () => {
    await kubectlOk(cluster, ['create', 'role', 'helm-reader', '--verb=get', '--resource=pods']);
    await kubectlOk(cluster, ['create', 'serviceaccount', 'helmsman']);
    await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    }));
    await kubectlOk(cluster, ['wait', '--for=condition=Established', 'crd/gadgets.example.com', '--timeout=60s']);
    await until('the Gadget kind served', async () => ((await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'helm-gadget', namespace: 'default' }, spec: { size: 3 } }) })).code === 0 ? true : undefined), 60_000);
    // a fresh page: nothing of these kinds is in any cache
    await page.goto(`${ui.origin}/ui/#/overview`);
    await page.reload();
    await page.getByTestId('pod-health').waitFor();
    await page.keyboard.press('Control+k');
    await page.getByTestId('palette-input').fill('helm');
    await expect
      .poll(async () => (await page.getByTestId('palette-item').allInnerTexts()).map((text) => text.split('\n')[1]), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(['helm-reader', 'helm-gadget', 'helmsman']));
    const items = await page.getByTestId('palette-item').allInnerTexts();
    expect(items.some((text) => /Theme/i.test(text))).toBe(false);
    // whole-word and prefix matches only, best first
    expect(items.every((text) => /helm/i.test(text))).toBe(true);
    await ui.screenshot('truth-07-palette-every-kind');
    const gadget = page.getByTestId('palette-item').filter({ hasText: 'helm-gadget' });
    await gadget.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/gadgets.example.com/default/helm-gadget');
    await expect.poll(() => page.getByTestId('detail-name').innerText().catch(() => ''), { timeout: 30_000 }).toBe('helm-gadget');
    await ui.screenshot('truth-08-custom-object-from-palette');
    // the theme entries still answer to their own words
    const themes = await paletteResults(page, 'theme dark');
    expect(themes[0]).toMatch(/Theme: dark/);
    await page.keyboard.press('Escape');
  });

  it('has a dock that collapses, resizes and comes back after a reload with its tabs and height', async () => {
    const web = (await kubectlPods(cluster)).find((row) => row.name.startsWith('web-') && row.status === 'Running')?.name ?? '';
    await page.goto(`${ui.origin}/ui/#/pods/default/${web}`);
    await page.getByTestId('action-logs').first().click();
    const dock = page.getByTestId('dock');
    await dock.waitFor();
    const before = (await dock.boundingBox())?.height ?? 0;
    expect(before).toBeGreaterThan(100);
    // drag the top edge up by 120 px
    const edge = await page.getByTestId('dock-resize').boundingBox();
    if (!edge) throw new Error('no resize handle');
    await page.mouse.move(edge.x + 200, edge.y + edge.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge.x + 200, edge.y + edge.height / 2 - 120, { steps: 6 });
    await page.mouse.up();
    await expect.poll(async () => Math.round((await dock.boundingBox())?.height ?? 0)).toBe(Math.round(before + 120));
    // and from the keyboard
    await page.getByTestId('dock-resize').focus();
    await page.keyboard.press('ArrowDown');
    const resized = Math.round(before + 120 - 24);
    await expect.poll(async () => Math.round((await dock.boundingBox())?.height ?? 0)).toBe(resized);
    await ui.screenshot('truth-09-dock-resized');
    await page.getByTestId('dock-toggle').click();
    await expect.poll(async () => (await dock.boundingBox())?.height ?? 0).toBeLessThan(60);
    await ui.screenshot('truth-10-dock-collapsed');

    await page.reload();
    await dock.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('dock-tab').allInnerTexts()).toEqual([expect.stringContaining(`logs ${web}`)]);
    expect((await dock.boundingBox())?.height ?? 0).toBeLessThan(60);
    await page.getByTestId('dock-toggle').click();
    await expect.poll(async () => Math.round((await dock.boundingBox())?.height ?? 0)).toBe(resized);
    // the restored log view streams again
    await expect.poll(async () => (await page.getByTestId('log-line').allInnerTexts()).join('\n'), { timeout: 30_000 }).toContain('serving');
    await ui.screenshot('truth-11-dock-after-reload');
    await page.getByTestId('dock-tab-close').click();
    await expect.poll(() => dock.count()).toBe(0);
  });

  it('changes theme, dock behaviour and the default namespace on the settings page', async () => {
    await page.getByTestId('open-settings').click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await page.getByTestId('settings-theme-dark').check();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await page.getByTestId('settings-expand-dock').uncheck();
    await page.getByTestId('settings-default-namespace').selectOption('kube-system');
    await ui.screenshot('truth-12-settings');

    // a shell opened now only adds its tab: the dock stays collapsed
    const web = (await kubectlPods(cluster)).find((row) => row.name.startsWith('web-') && row.status === 'Running')?.name ?? '';
    await page.goto(`${ui.origin}/ui/#/pods/default/${web}`);
    await page.getByTestId('action-shell').first().click();
    await page.getByTestId('dock-tab').first().waitFor();
    expect(await page.getByTestId('dock-toggle').getAttribute('aria-expanded')).toBe('false');

    // the UI opens in the default namespace, whatever was picked last
    await page.reload();
    await expect.poll(() => page.getByTestId('namespace-picker').innerText(), { timeout: 30_000 }).toContain('kube-system');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    await ui.screenshot('truth-13-default-namespace-dark');

    // back to the defaults for the tests that follow
    await page.getByTestId('dock-tab-close').click();
    await page.goto(`${ui.origin}/ui/#/settings`);
    await page.getByTestId('settings-theme-light').check();
    await page.getByTestId('settings-expand-dock').check();
    await page.getByTestId('settings-default-namespace').selectOption('*');
    await page.reload();
    await expect.poll(() => page.getByTestId('namespace-picker').innerText(), { timeout: 30_000 }).toContain('All namespaces');
  });

  it('signs out for real: the old session cookie no longer opens the API', async () => {
    const other = await openUi(cluster, { signIn: 'kubeconfig-token' });
    try {
      const cookies = await other.context.cookies(other.origin);
      const session = cookies.find((cookie) => cookie.name.startsWith('kubedesk-session'));
      if (!session) throw new Error(`no session cookie among ${cookies.map((cookie) => cookie.name).join(', ')}`);
      const header = `${session.name}=${session.value}`;
      expect(await getWithCookie(cluster, '/api/v1/namespaces', header)).toBe(200);
      await other.page.goto(`${other.origin}/ui/#/settings`);
      await other.page.getByTestId('settings-sign-out').click();
      await other.page.getByTestId('signed-out-reason').waitFor({ timeout: 30_000 });
      expect(await other.page.getByTestId('signed-out-reason').innerText()).toContain('You signed out');
      await other.screenshot('truth-14-signed-out');
      expect(await getWithCookie(cluster, '/api/v1/namespaces', header)).toBe(401);
      // the other browser is still signed in
      expect(await page.evaluate(async () => (await fetch('/ui/session')).status)).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('keeps the sign-ins of two clusters on 127.0.0.1 apart', async () => {
    const second = await startCluster();
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const both = await context.newPage();
      // one browser signs in to both (the first's printed link was used by the suite already)
      for (const target of [cluster, second]) {
        const origin = target.server.replace(/\/$/, '');
        const reply = await context.request.post(`${origin}/ui/session`, { data: { token: target.token }, headers: { Origin: origin } });
        expect(reply.status()).toBe(204);
      }
      const names = (await context.cookies()).map((cookie) => cookie.name).filter((name) => name.startsWith('kubedesk-session')).sort();
      expect(names).toHaveLength(2);
      expect(names[0]).not.toBe(names[1]);
      // signing in to the second did not sign the browser out of the first
      for (const origin of [cluster.server, second.server].map((server) => server.replace(/\/$/, ''))) {
        await both.goto(`${origin}/ui/`);
        await both.getByTestId('nav-overview').waitFor({ timeout: 30_000 });
        expect(await both.evaluate(async () => (await fetch('/ui/session')).status)).toBe(200);
      }
    } finally {
      await browser.close();
      await second.destroy();
    }
  }, 180_000);

  it('shows a stopped cluster as disconnected, keeps the console quiet, and resyncs when it is back', async () => {
    await page.goto(`${ui.origin}/ui/#/pods`);
    await expect.poll(() => page.locator('[data-testid=list-body] [role=row]').count(), { timeout: 30_000 }).toBeGreaterThan(3);
    const errors: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (message.type() === 'error') errors.push(message.text());
    };
    page.on('console', onConsole);
    try {
      await cluster.stop();
      const stoppedAt = Date.now();
      await page.getByTestId('connection-banner').waitFor({ timeout: 30_000 });
      expect(await page.locator('main.content').getAttribute('data-stale')).toBe('true');
      expect(await page.evaluate(() => document.title)).toMatch(/Disconnected/);
      // the rows stay, marked stale
      expect(await page.locator('[data-testid=list-body] [role=row]').count()).toBeGreaterThan(3);
      await ui.screenshot('truth-15-disconnected');
      // back-off: attempts at 1, 2, 4, 8, 16 s, not every watch in a loop
      await until('20 s of the cluster being gone', () => (Date.now() - stoppedAt >= 20_000 ? true : undefined), 30_000, 500);
      expect(errors.length, errors.join('\n')).toBeLessThanOrEqual(8);
      expect(await page.getByTestId('connection-retry-in').innerText()).toMatch(/Reconnecting/);

      await cluster.restart();
      // made while the page was disconnected: the resync must bring it
      await kubectlOk(cluster, ['run', 'after-restart', `--image=${busyboxImage}`, '--image-pull-policy=Never', '--', 'sleep', '3600']);
      await page.getByTestId('connection-retry').click().catch(() => undefined);
      // sessions live in memory: the restarted cluster asks to sign in again, and says why
      await page.getByTestId('signed-out-reason').waitFor({ timeout: 60_000 });
      await ui.screenshot('truth-16-back-sign-in-again');
      await page.getByLabel('Token').fill(cluster.token);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect
        .poll(() => page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? '')), { timeout: 60_000 })
        .toContain('after-restart');
      expect(await page.getByTestId('connection-banner').count()).toBe(0);
      expect(await page.locator('main.content').getAttribute('data-stale')).toBeNull();
      await ui.screenshot('truth-17-resynced');
    } finally {
      page.off('console', onConsole);
    }
  }, 180_000);
});
