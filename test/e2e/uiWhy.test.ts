// "Why isn't it ready?" in the UI, in Chromium against a real `kubedesk serve` with pods on real
// Docker: the overview's not-ready card says why a Deployment is not ready, list rows carry the
// one-line reason (Deployments, Pods, Services), the detail page's banner gives the reason, its
// signals, the crashed run's last log lines and hints — the same words `kubedesk why` prints — and
// the banner goes away once the cause is fixed. A healthy Deployment gets no banner and no marker.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk } from '../support/wait';

const manifests = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: broken }
spec:
  replicas: 1
  selector: { matchLabels: { app: broken } }
  template:
    metadata: { labels: { app: broken } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sh', '-c', 'echo starting up; no-such-command']
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: web
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['httpd', '-f', '-p', '8080']
          ports: [{ name: http, containerPort: 8080 }]
---
apiVersion: v1
kind: Service
metadata: { name: typo }
spec:
  selector: { app: wbe }
  ports: [{ port: 80, targetPort: http }]
`;

const CRASH_REASON = /^0\/1 ready: container "app" keeps crashing: exit code 127 \(command not found\), restarted \d+ times? \(pod broken-[a-z0-9]+-[a-z0-9]+\)$/;
const CRASH_WITHOUT_COUNT = /^container "app" keeps crashing: exit code 127 \(command not found\), restarted \d+ times? \(pod broken-[a-z0-9]+-[a-z0-9]+\)$/;

describe('why isn’t it ready, in the UI', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({ prepare: (started) => kubectlOk(started, ['apply', '-f', '-'], manifests).then(() => undefined) }));
  }, 180_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  const open = (hash: string) => ui.open(hash);
  const text = (testId: string) => page.getByTestId(testId).first().innerText().catch(() => '');

  it('says on the overview’s not-ready card why a Deployment is not ready', async () => {
    await open('#/overview');
    const reason = page.locator('[data-testid=not-ready-workload][data-name=broken] [data-testid=not-ready-reason]');
    // the card shows the ready count already; the reason follows it
    await expect.poll(() => reason.innerText().catch(() => ''), { timeout: 90_000 }).toMatch(CRASH_WITHOUT_COUNT);
    expect(await reason.getAttribute('title')).toMatch(CRASH_REASON);
    expect(await page.locator('[data-testid=not-ready-workload][data-name=web]').count()).toBe(0);
    await ui.screenshot('why-overview');
  });

  it('marks list rows with their one-line reason, and healthy ones with none', async () => {
    await open('#/deployments.apps');
    const broken = page.locator('[data-testid=list-body] [role=row][data-name=broken] [data-testid=row-reason]');
    // the READY column has the count; the marker gives the rest of the reason
    await expect.poll(() => broken.innerText().catch(() => ''), { timeout: 60_000 }).toMatch(CRASH_WITHOUT_COUNT);
    await page.locator('[data-testid=list-body] [role=row][data-name=web]').waitFor();
    await expect.poll(() => page.locator('[data-testid=list-body] [role=row][data-name=web] [data-testid=row-reason]').count(), { timeout: 30_000 }).toBe(0);
    // the whole reason is the name cell's title, for when the row cuts it
    expect(await page.locator('[data-testid=list-body] [role=row][data-name=broken] .cell.with-why').getAttribute('title')).toMatch(/^broken — 0\/1 ready: container "app" keeps crashing/);
    await ui.screenshot('why-deployments-list');

    await open('#/pods');
    const pod = page.locator('[data-testid=list-body] [role=row][data-name^=broken-] [data-testid=row-reason]');
    await expect.poll(() => pod.innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/^container "app" keeps crashing: exit code 127 \(command not found\), restarted \d+ times?$/);

    await open('#/services');
    const service = page.locator('[data-testid=list-body] [role=row][data-name=typo] [data-testid=row-reason]');
    await expect.poll(() => service.innerText().catch(() => ''), { timeout: 30_000 }).toBe('selector app=wbe matches no pod in namespace default — did you mean app=web?');
    expect(await page.locator('[data-testid=list-body] [role=row][data-name=kubernetes] [data-testid=row-reason]').count()).toBe(0);
    await ui.screenshot('why-services-list');
  });

  it('explains on the detail page with the signals, the crashed run’s last log lines and hints — as kubedesk why does', async () => {
    await open('#/deployments.apps/default/broken');
    await expect.poll(() => text('diagnosis-reason'), { timeout: 60_000 }).toMatch(CRASH_REASON);
    expect(await page.getByTestId('diagnosis-banner').getAttribute('data-code')).toBe('CrashLoop');
    expect(await text('diagnosis-details')).toContain('Last exit: code 127: command not found');
    await expect.poll(() => text('diagnosis-logs'), { timeout: 30_000 }).toContain('no-such-command: not found');
    expect(await text('diagnosis-hints')).toContain("check the container's command and args");
    await ui.screenshot('why-deployment-banner');

    // the command line says the same
    const cli = await runCommand(process.execPath, [join(repositoryRoot, 'bin', 'kubedesk.mjs'), 'why', 'deploy/broken'], { env: { KUBECONFIG: cluster.kubeconfig } });
    expect(cli.stdout.split('\n')[0]).toMatch(CRASH_REASON);
  });

  it('shows no banner for a healthy Deployment', async () => {
    await open('#/deployments.apps/default/web');
    await page.getByTestId('detail-name').filter({ hasText: 'web' }).waitFor();
    await expect.poll(() => page.locator('.detail-header .status-pill').first().innerText(), { timeout: 60_000 }).toBe('1 ready of 1 desired');
    expect(await page.getByTestId('diagnosis-banner').count()).toBe(0);
  });

  it('takes the banner away once the cause is fixed', async () => {
    await open('#/services/default/typo');
    await expect.poll(() => text('diagnosis-reason'), { timeout: 30_000 }).toBe('selector app=wbe matches no pod in namespace default — did you mean app=web?');
    await ui.screenshot('why-service-banner');
    await kubectlOk(cluster, ['patch', 'service', 'typo', '--type=merge', '-p', '{"spec":{"selector":{"app":"web"}}}']);
    await expect.poll(() => page.getByTestId('diagnosis-banner').count(), { timeout: 30_000 }).toBe(0);
  });
});
