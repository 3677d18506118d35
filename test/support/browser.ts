// Opens kubedesk's web UI in Debian's Chromium (playwright-core) against a test cluster and signs
// in: with the one-time login URL that `kubedesk serve` printed, or — for further browsers, since
// that token works once — by posting the kubeconfig token to /ui/session from the page's context.
// Screenshots go to test-output/ui/ so a person can look at every view after a run. startUiCluster /
// destroyUiCluster give a suite its cluster and signed-in page and always remove them again.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startCluster, type TestCluster } from './cluster';
import { repositoryRoot } from './tools';
import { until } from './wait';

export const screenshotDirectory = join(repositoryRoot, 'test-output', 'ui');
export const chromiumPath = process.env.KUBEDESK_CHROMIUM ?? '/usr/bin/chromium';

export interface UiSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  origin: string;
  /** Saves a full-window screenshot as test-output/ui/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
  /**
   * Shows the app at a route (`#/pods/default/web`): navigates (again when Chromium aborted it on
   * a network change), waits for the app's sidebar, and when the app does not show — Chromium's
   * error page, a lost session — saves a screenshot, signs in again with the kubeconfig token and
   * navigates once more; then fails with the page's URL and text.
   */
  open(hash: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenUiOptions {
  colorScheme?: 'light' | 'dark';
  viewport?: { width: number; height: number };
  /** sign in with the printed one-time URL (default) or with the kubeconfig token */
  signIn?: 'printed-url' | 'kubeconfig-token';
}

/** The last `kubedesk: UI at <url>` line of the server's output. */
export async function printedLoginUrl(cluster: TestCluster): Promise<string> {
  return until('the UI login URL in the server output', () => {
    const matches = [...cluster.logs().matchAll(/kubedesk: UI at (\S+)/g)];
    return matches.length ? matches[matches.length - 1][1] : undefined;
  }, 30_000);
}

/**
 * page.goto, again when Chromium aborted it with ERR_NETWORK_CHANGED: other clusters on the same
 * Docker create and remove bridge networks, and Chromium drops navigations in flight when the
 * host's interfaces change (sometimes by showing its error page instead, with goto resolving).
 * Returns false when it still failed that way.
 */
export async function gotoThroughNetworkChanges(page: Page, url: string, attempts = 3): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url);
      // goto can resolve with Chromium's error page in place of the app: a later hash change
      // would then land on that page and nothing would ever render
      if (!page.url().startsWith('chrome-error://')) return true;
      if (attempt >= attempts) return false;
    } catch (error) {
      // the abort shows as ERR_NETWORK_CHANGED, or as the navigation replaced by Chromium's error
      // page; a sign-in link's own redirect to the same address, still in flight after an aborted
      // first try, replaces it as well
      const message = error instanceof Error ? error.message : '';
      const networkChanged = message.includes('ERR_NETWORK_CHANGED') || message.includes('interrupted by another navigation to "chrome-error://') || message.includes(`interrupted by another navigation to "${url}"`);
      if (!networkChanged) throw error;
      if (attempt >= attempts) return false;
    }
  }
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}

export async function openUi(cluster: TestCluster, options: OpenUiOptions = {}): Promise<UiSession> {
  const browser = await launchChromium();
  const context = await browser.newContext({ ignoreHTTPSErrors: true, colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1400, height: 900 } });
  const page = await context.newPage();
  const origin = cluster.server.replace(/\/$/, '');
  // uncaught errors and console errors of the page, named when the app does not show
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`uncaught: ${error.stack ?? error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  let signedIn = false;
  if ((options.signIn ?? 'printed-url') === 'printed-url') {
    // the link works once: if a network change aborted it after the server took it, sign in with the token instead
    signedIn = await gotoThroughNetworkChanges(page, await printedLoginUrl(cluster), 1);
    if (!signedIn && (await context.request.get(`${origin}/ui/session`)).status() === 200) signedIn = await gotoThroughNetworkChanges(page, `${origin}/ui/`);
  }
  if (!signedIn) {
    const reply = await context.request.post(`${origin}/ui/session`, { data: { token: cluster.token }, headers: { Origin: origin } });
    if (reply.status() !== 204 && reply.status() !== 200) throw new Error(`sign-in with the kubeconfig token failed: ${reply.status()} ${await reply.text()}`);
    if (!(await gotoThroughNetworkChanges(page, `${origin}/ui/`))) throw new Error('Chromium kept aborting the navigation (ERR_NETWORK_CHANGED)');
  }
  // the signed-in page shows the app; when Chromium dropped app.js on a network change it stays
  // blank, so it is loaded once more (a fresh document, not a hash change)
  const rendered = await page.locator('nav.sidebar').waitFor({ timeout: 20_000 }).then(() => true, () => false);
  if (!rendered) {
    await page.goto('about:blank');
    await gotoThroughNetworkChanges(page, `${origin}/ui/`);
  }
  mkdirSync(screenshotDirectory, { recursive: true });
  const screenshot = async (name: string) => {
    const path = join(screenshotDirectory, `${name}.png`);
    await page.screenshot({ path });
    return path;
  };
  // `fresh`: load the document again. Every route is /ui/#…, so a goto that changes only the hash
  // stays in the same document — one whose app.js Chromium dropped on a network change would stay
  // blank however often the hash changes.
  const showsApp = async (hash: string, fresh = false) => {
    if (fresh) await page.goto('about:blank');
    if (!(await gotoThroughNetworkChanges(page, `${origin}/ui/${hash}`))) return false;
    return page
      .locator('nav.sidebar')
      .waitFor({ timeout: 20_000 })
      .then(() => true)
      .catch(() => false);
  };
  return {
    browser,
    context,
    page,
    origin,
    screenshot,
    async open(hash) {
      if (await showsApp(hash)) return;
      const seen = `${page.url()}: ${(await page.locator('body').innerText().catch(() => '')).slice(0, 500)}`;
      await screenshot(`open-failed-${hash.replace(/[^a-z0-9]+/gi, '-')}`).catch(() => undefined);
      await context.request.post(`${origin}/ui/session`, { data: { token: cluster.token }, headers: { Origin: origin } });
      if (!(await showsApp(hash, true))) throw new Error(`the page did not show the app at ${hash}, twice; first ${seen}; then ${page.url()}; the page's last errors:\n${pageErrors.slice(-8).join('\n')}`);
    },
    async close() {
      await browser.close();
    },
  };
}

export interface UiCluster {
  cluster: TestCluster;
  ui: UiSession;
  page: Page;
}

/**
 * A fresh cluster with the UI open and signed in, for a suite's beforeAll; `prepare` runs before
 * the browser opens. When anything fails the cluster is removed again, so nothing is left behind.
 */
export async function startUiCluster(options: OpenUiOptions & { prepare?(cluster: TestCluster): Promise<void> } = {}): Promise<UiCluster> {
  const cluster = await startCluster();
  try {
    await options.prepare?.(cluster);
    const ui = await openUi(cluster, options);
    return { cluster, ui, page: ui.page };
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

/** For a suite's afterAll: closes the browser and removes the cluster with its containers. */
export async function destroyUiCluster(started: { cluster?: TestCluster; ui?: UiSession }): Promise<void> {
  await started.ui?.close();
  await started.cluster?.destroy();
}
