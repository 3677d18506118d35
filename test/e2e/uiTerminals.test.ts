// The terminal dock and port-forward UI end to end: Chromium on a real `kubedesk serve`. A pod
// shell over the exec WebSocket (screen text read from xterm's DOM rows, the exit status shown
// and Reconnect offered when the shell ends), a log view holding 100,000 lines with search, and
// a "Forward" button whose forward is listed, opened and stopped from #/portforwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { hostGet } from '../support/hostHttp';
import { kubectlOk, until } from '../support/wait';

const podYaml = `apiVersion: v1
kind: Pod
metadata:
  name: chatty
  namespace: default
spec:
  terminationGracePeriodSeconds: 0
  containers:
    - name: main
      image: ${busyboxImage}
      imagePullPolicy: Never
      ports:
        - containerPort: 8080
      command: ['sh', '-c', 'mkdir -p /www && echo served-by-chatty > /www/index.html && httpd -p 8080 -h /www && seq 1 100000 | sed "s/^/line-/" && echo needle-at-the-end && sleep 3600']
`;

async function screenText(page: Page): Promise<string> {
  return page.locator('[data-testid=dock-pane-shell]:visible .xterm-rows').innerText();
}

describe('the terminal dock and port-forwards in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({
      async prepare(started) {
        await kubectlOk(started, ['apply', '-f', '-'], podYaml);
        await kubectlOk(started, ['wait', '--for=condition=Ready', 'pod/chatty', '--timeout=90s']);
      },
    }));
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it('runs a shell, shows its exit code and reconnects', async () => {
    await page.goto(`${ui.origin}/ui/#/pods/default/chatty`);
    await page.getByTestId('container-shell-main').click();
    await expect.poll(() => screenText(page), { timeout: 30_000 }).toMatch(/[#$]\s*$/m);
    await page.locator('[data-testid=dock-pane-shell]:visible .xterm').click();
    await page.keyboard.type('echo sum-$((40+2))\n');
    await expect.poll(() => screenText(page), { timeout: 15_000 }).toContain('sum-42');
    await page.keyboard.type('exit 3\n');
    await expect.poll(() => page.getByTestId('shell-state').innerText(), { timeout: 15_000 }).toContain('code 3');
    await ui.screenshot('terminals-01-shell-exited');
    await page.getByTestId('shell-reconnect').click();
    await expect.poll(() => page.getByTestId('shell-state').innerText(), { timeout: 15_000 }).toBe('connected');
  });

  it('holds 100,000 log lines, renders only the visible ones and finds a line by search', async () => {
    await page.getByTestId('container-logs-main').click();
    await expect.poll(() => page.getByTestId('log-count').innerText(), { timeout: 60_000 }).toMatch(/100,00[12] lines/);
    const rendered = await page.getByTestId('log-line').count();
    expect(rendered).toBeGreaterThan(0);
    expect(rendered).toBeLessThan(200);
    expect(await page.getByTestId('log-line').allInnerTexts()).toContain('needle-at-the-end');
    await page.getByTestId('log-search').fill('line-777');
    await expect.poll(() => page.getByTestId('log-match-count').innerText(), { timeout: 10_000 }).toBe('1 of 111');
    await expect.poll(() => page.getByTestId('log-line').allInnerTexts()).toContain('line-777');
    expect(await page.getByTestId('log-follow').isChecked()).toBe(false);
    await ui.screenshot('terminals-02-logs-search');
    await page.getByTestId('log-jump-end').click();
    await expect.poll(() => page.getByTestId('log-line').allInnerTexts()).toContain('needle-at-the-end');
  });

  it('forwards a pod port from its page, opens it from the list and stops it', async () => {
    await page.goto(`${ui.origin}/ui/#/pods/default/chatty`);
    await page.getByTestId('forward-8080').click();
    await page.getByTestId('forward-open-8080').waitFor({ timeout: 30_000 });
    await page.getByTestId('nav-portforwards').click();
    const row = page.getByTestId('portforward-row');
    await expect.poll(() => row.innerText(), { timeout: 30_000 }).toMatch(/Active/);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(await row.innerText())?.[1]);
    expect((await hostGet(port, '/')).body.trim()).toBe('served-by-chatty');
    const popup = page.waitForEvent('popup');
    await page.getByTestId('portforward-open').click();
    expect((await popup).url()).toBe(`http://127.0.0.1:${port}/`);
    await ui.screenshot('terminals-03-port-forwards');
    await page.getByTestId('portforward-stop').click();
    await until('the forward is gone', async () => ((await row.count()) === 0 ? true : undefined), 30_000, 250);
    await page.getByTestId('portforwards-empty').waitFor();
  });
});
