// The cluster picker, in Chromium against a real `kubedesk serve` — UI-model tests: the relay
// (`/ui/clusters`, `/ui/clusters/<context>/…`) is played by the test with playwright's page.route
// and routeWebSocket, which list three more contexts and send every relayed request of a context
// to the same server's own paths (its discovery without the kubedesk groups, so it looks like any
// other cluster), or answer with the relay's Status and `/-/status` for a context it cannot use.
// What is checked is the page: the picker's order and marks, every REST and WebSocket path under
// the chosen context's base path, a switch starting afresh (namespaces remembered per cluster),
// the cluster in the address and across a reload, plain words for a context's trouble with Retry,
// kubedesk-only pages saying so, the palette's "Switch to cluster …", and Settings → Clusters.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AxeResults } from 'axe-core';
import type { Page, Route, WebSocketRoute } from 'playwright-core';
import { WebSocket } from 'ws';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { kubectlOk } from '../support/wait';

interface FakeContext {
  name: string;
  server: string;
  insecure?: boolean;
  /** the /-/status answer; anything but connected makes the relayed API answer 503 like the relay */
  status: Record<string, unknown>;
}

const connected = { state: 'connected', message: '', kubedesk: false, warnings: [] };

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical WCAG 2.x A/AA findings on the page as it is now, one line each. */
async function seriousAxeFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa'] }, resultTypes: ['violations'] });
  });
  return results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.html.slice(0, 120)).join(' | ')}`);
}

describe('the cluster picker (UI model, relay played by the test)', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let origin: string;
  const relayed: string[] = [];
  const sockets: string[] = [];
  const localCreates: unknown[] = [];
  const contexts: FakeContext[] = [
    { name: 'other', server: 'https://10.20.30.40:6443', insecure: true, status: { ...connected, warnings: [] } },
    { name: 'kubedesk-b', server: 'https://127.0.0.1:7443', status: { ...connected, kubedesk: true } },
    { name: 'broken', server: 'https://prod.example.com', status: { state: 'certificate-not-trusted', message: 'x509: certificate signed by unknown authority (SHA-256 fingerprint AB:CD:EF:01)', fingerprint: 'AB:CD:EF:01', kubedesk: false, warnings: [] } },
    { name: 'plugin', server: 'https://eks.example.com', status: { state: 'exec-failed', message: 'the credential plugin aws exited with status 255', stderr: 'Unable to locate credentials.\nYou can configure credentials by running "aws configure".', kubedesk: false, warnings: [] } },
  ];

  const contextOf = (name: string) => contexts.find((context) => context.name === name);

  /** /ui/clusters/<name>/<rest> → [name, /<rest>] */
  function split(url: URL): [string, string] | undefined {
    const match = /^\/ui\/clusters\/([^/]+)(\/.*)$/.exec(url.pathname);
    return match ? [decodeURIComponent(match[1]), match[2]] : undefined;
  }

  async function relay(route: Route): Promise<void> {
    const url = new URL(route.request().url());
    const parts = split(url);
    const context = parts && contextOf(parts[0]);
    if (!parts || !context) return route.fulfill({ status: 404, json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound', message: 'no such context' } });
    const [, path] = parts;
    if (path === '/-/status') return route.fulfill({ json: context.status });
    relayed.push(`${route.request().method()} ${url.pathname}`);
    if (context.status.state !== 'connected') {
      return route.fulfill({ status: 503, json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 503, reason: 'ServiceUnavailable', message: String(context.status.message), details: { causes: [{ reason: 'CertificateNotTrusted', message: String(context.status.message) }] } } });
    }
    const target = `${origin}${path}${url.search}`;
    if ((path === '/apis' || path === '/api') && context.status.kubedesk !== true) {
      // any other cluster: its discovery has no kubedesk.dev groups
      const response = await route.fetch({ url: target });
      const body = (await response.json()) as { items?: { metadata?: { name?: string } }[] };
      body.items = (body.items ?? []).filter((item) => !(item.metadata?.name ?? '').endsWith('kubedesk.dev'));
      return route.fulfill({ response, json: body });
    }
    return route.continue({ url: target });
  }

  async function relaySocket(socket: WebSocketRoute): Promise<void> {
    const url = new URL(socket.url());
    const parts = split(url);
    if (!parts) return socket.close();
    sockets.push(url.pathname);
    const cookies = await ui.context.cookies(origin);
    const upstream = new WebSocket(`${origin.replace(/^https/, 'wss')}${parts[1]}${url.search}`, { ca: cluster.caPem, headers: { origin, cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ') } });
    upstream.on('message', (data, binary) => socket.send(binary ? (data as Buffer) : data.toString()));
    upstream.on('close', () => socket.close());
    upstream.on('error', () => socket.close());
    socket.onMessage((message) => upstream.readyState === WebSocket.OPEN && upstream.send(message));
    socket.onClose(() => upstream.close());
  }

  async function pick(name: string): Promise<void> {
    await page.getByTestId('cluster-picker').click();
    await page.getByTestId(`cluster-option-${name}`).click();
  }

  const hash = () => page.evaluate(() => location.hash);
  const rowNames = () => page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''));

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster());
    origin = ui.origin;
    await page.route((url) => url.pathname === '/ui/clusters', (route) =>
      route.fulfill({
        json: {
          self: 'kubedesk',
          kubeconfigFiles: ['/home/user/.kube/config'],
          clusters: [
            ...contexts.map((context) => ({ name: context.name, cluster: context.name, user: `${context.name}-user`, server: context.server, insecure: context.insecure === true, authKind: context.name === 'plugin' ? 'exec' : 'token', current: false, self: false, basePath: `/ui/clusters/${context.name}`, readOnly: false })),
            { name: 'kubedesk', cluster: 'kubedesk', user: 'kubedesk-admin', server: cluster.server, insecure: false, authKind: 'token', current: true, self: true, basePath: '', readOnly: false },
          ],
        },
      }),
    );
    await page.route((url) => url.pathname.startsWith('/ui/clusters/'), relay);
    await page.routeWebSocket((url) => url.pathname.startsWith('/ui/clusters/'), relaySocket);
    await page.route((url) => url.pathname.startsWith('/ui/local-clusters'), async (route) => {
      if (route.request().method() === 'POST') {
        localCreates.push(route.request().postDataJSON());
        return route.fulfill({ status: 201, json: { name: 'c', context: 'kubedesk-c', dataDir: '/d/c', state: 'starting', nodes: 2 } });
      }
      return route.fulfill({ json: { clusters: [{ name: 'b', context: 'kubedesk-b', dataDir: '/home/user/.kubedesk-b', port: 7443, state: 'running', nodes: 2 }, { name: 'old', context: 'kubedesk-old', dataDir: '/home/user/.kubedesk-old', state: 'stopped', nodes: 1 }] } });
    });
    await kubectlOk(cluster, ['create', 'configmap', 'seen-through-the-relay', '--from-literal=a=1']);
    // a fresh document, so the page asks the routes above from its start
    await page.goto(`${origin}/ui/#/configmaps`);
    await page.reload();
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('lists this cluster first, then local kubedesk clusters, then the kubeconfig contexts with host:port, the insecure one marked', async () => {
    await expect.poll(() => page.getByTestId('cluster-picker').innerText(), { timeout: 30_000 }).toContain('This cluster (kubedesk)');
    await page.getByTestId('cluster-picker').click();
    const options = page.locator('[role=option].cluster-option');
    await expect.poll(() => options.count()).toBe(5);
    expect(await options.evaluateAll((items) => items.map((item) => item.getAttribute('data-testid')))).toEqual(['cluster-option-kubedesk', 'cluster-option-kubedesk-b', 'cluster-option-broken', 'cluster-option-other', 'cluster-option-plugin']);
    expect(await page.getByTestId('cluster-option-other').innerText()).toContain('10.20.30.40:6443');
    expect(await page.getByTestId('cluster-option-other').innerText()).toContain('insecure');
    expect(await page.getByTestId('cluster-option-broken').innerText()).toContain('prod.example.com:443');
    expect(await page.getByTestId('cluster-option-kubedesk').getAttribute('aria-selected')).toBe('true');
    await ui.screenshot('cluster-picker-open');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await page.keyboard.press('Escape');
  });

  it('switches to another context: every list and watch goes under its base path, the address names it, the insecure strip shows', async () => {
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('seen-through-the-relay');
    expect(relayed).toEqual([]);
    await pick('other');
    await expect.poll(hash).toBe('#/c/other/configmaps');
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('seen-through-the-relay');
    expect(relayed).toContain('GET /ui/clusters/other/api/v1/configmaps');
    await expect.poll(() => sockets.some((path) => path === '/ui/clusters/other/api/v1/configmaps'), { timeout: 30_000 }).toBe(true);
    // the relayed watch delivers what kubectl creates now
    await kubectlOk(cluster, ['create', 'configmap', 'created-after-the-switch', '--from-literal=a=1']);
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('created-after-the-switch');
    expect(await page.getByTestId('cluster-picker').innerText()).toContain('other');
    expect(await page.getByTestId('cluster-warning').innerText()).toContain('other skips TLS verification (insecure-skip-tls-verify)');
    // a plain link keeps the context in the address
    await page.getByTestId('nav-pods').click();
    await expect.poll(hash).toBe('#/c/other/pods');
    await ui.screenshot('cluster-picker-other');
  });

  it('keeps the cluster across a reload of the tab', async () => {
    relayed.length = 0;
    await page.reload();
    await expect.poll(() => page.getByTestId('cluster-picker').innerText(), { timeout: 30_000 }).toContain('other');
    await expect.poll(() => relayed.some((line) => line.startsWith('GET /ui/clusters/other/api/v1/pods')), { timeout: 30_000 }).toBe(true);
    expect(await hash()).toBe('#/c/other/pods');
  });

  it('says that History, Snapshots and Images belong to local kubedesk clusters on a cluster without history.kubedesk.dev', async () => {
    await expect.poll(() => page.getByTestId('nav-history').count(), { timeout: 30_000 }).toBe(0);
    expect(await page.getByTestId('nav-snapshots').count()).toBe(0);
    await page.evaluate(() => (location.hash = '#/c/other/changes'));
    await expect.poll(() => page.getByTestId('kubedesk-only').innerText().catch(() => ''), { timeout: 30_000 }).toContain('History belongs to local kubedesk clusters');
    await ui.screenshot('cluster-kubedesk-only');
    await page.evaluate(() => (location.hash = '#/c/other/snapshots'));
    await expect.poll(() => page.getByTestId('kubedesk-only').innerText().catch(() => '')).toContain('Snapshots belongs to local kubedesk clusters');
    await page.evaluate(() => (location.hash = '#/c/other/configmaps'));
    expect(await page.getByTestId('list-time-travel').isDisabled()).toBe(true);
  });

  it('remembers the namespaces per cluster', async () => {
    await page.getByTestId('namespace-picker').click();
    await page.getByTestId('namespace-option-kube-system').click();
    expect(await page.getByTestId('namespace-picker').innerText()).toContain('kube-system');
    await pick('kubedesk');
    await expect.poll(hash).toBe('#/configmaps');
    await expect.poll(() => page.getByTestId('namespace-picker').innerText()).toContain('All namespaces');
    await expect.poll(() => page.getByTestId('nav-history').count(), { timeout: 30_000 }).toBe(1);
    expect(await page.getByTestId('cluster-warning').count()).toBe(0);
    await pick('other');
    await expect.poll(() => page.getByTestId('namespace-picker').innerText()).toContain('kube-system');
  });

  it('shows an untrusted certificate in plain words with its fingerprint, and Retry connects once it is fixed', async () => {
    await pick('broken');
    await expect.poll(() => page.getByTestId('cluster-state-title').innerText().catch(() => ''), { timeout: 30_000 }).toBe('The certificate of broken is not trusted');
    expect(await page.getByTestId('cluster-state-fingerprint').innerText()).toBe('AB:CD:EF:01');
    expect(await page.getByTestId('connection-banner').getAttribute('data-state')).toBe('certificate-not-trusted');
    await ui.screenshot('cluster-state-certificate');
    const broken = contextOf('broken');
    if (broken) broken.status = { ...connected };
    await page.getByTestId('connection-retry').click();
    await expect.poll(() => page.getByTestId('connection-banner').count(), { timeout: 30_000 }).toBe(0);
    await expect.poll(rowNames, { timeout: 30_000 }).toContain('seen-through-the-relay');
  });

  it('shows a failing credential plugin with what it printed', async () => {
    await pick('plugin');
    await expect.poll(() => page.getByTestId('cluster-state-title').innerText().catch(() => ''), { timeout: 30_000 }).toBe('The credential plugin of plugin failed');
    expect(await page.getByTestId('cluster-state-stderr').innerText()).toContain('Unable to locate credentials.');
    expect(await page.getByTestId('cluster-state-stderr').evaluate((element) => element.tagName)).toBe('PRE');
    await ui.screenshot('cluster-state-exec');
    expect(await seriousAxeFindings(page)).toEqual([]);
  });

  it('switches clusters from the command palette', async () => {
    await page.keyboard.press('Control+k');
    await page.getByTestId('palette-input').fill('switch to cluster kubedesk-b');
    await page.getByTestId('palette-item').first().waitFor();
    expect(await page.getByTestId('palette-item').first().innerText()).toContain('Switch to cluster kubedesk-b');
    await page.keyboard.press('Enter');
    await expect.poll(hash).toBe('#/c/kubedesk-b/configmaps');
    // a kubedesk cluster through the relay keeps its own pages
    await expect.poll(() => page.getByTestId('nav-history').count(), { timeout: 30_000 }).toBe(1);
  });

  it('lists the contexts and the local clusters in Settings → Clusters, and creates one with its nodes', async () => {
    await page.evaluate(() => (location.hash = '#/c/kubedesk-b/settings'));
    await page.getByTestId('settings-cluster-other').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('settings-cluster-other').innerText()).toContain('TLS verification off');
    expect(await page.getByTestId('settings-cluster-plugin').innerText()).toContain('credential plugin (exec)');
    expect(await page.getByTestId('local-cluster-state-b').innerText()).toBe('running');
    expect(await page.getByTestId('local-cluster-start-old').count()).toBe(1);
    expect(await page.getByTestId('local-cluster-stop-b').count()).toBe(1);
    await page.getByTestId('local-cluster-name').fill('Bad_Name');
    expect(await page.getByTestId('local-cluster-create').isDisabled()).toBe(true);
    await page.getByTestId('local-cluster-name').fill('c');
    await page.getByTestId('local-cluster-nodes').fill('2');
    await ui.screenshot('settings-clusters');
    await page.getByTestId('local-cluster-create').click();
    await expect.poll(() => localCreates).toEqual([{ name: 'c', nodes: 2 }]);
    await page.getByTestId('local-cluster-delete-old').click();
    expect(await page.getByRole('dialog').innerText()).toContain('Delete the local cluster old?');
    await page.getByTestId('modal-cancel').click();
  });
});
