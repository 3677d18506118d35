// An accessibility pass over every main view of the UI, in Chromium against a real `kubedesk serve`
// on real Docker: axe-core (the engine behind Lighthouse's and the browsers' accessibility audits)
// runs with the WCAG 2.0/2.1/2.2 A and AA rules and its best practices on the overview, every
// sidebar list (full, empty and filtered to nothing; events also as a timeline), a detail page of
// each main kind with each tab (summary, YAML in Monaco, events, history with its Monaco diff), the
// object history's Changes and Recently deleted pages and a list's past view, create from YAML, settings, the
// command palette, the shortcut help, a row menu, the bulk bar, a dialog, the namespace picker, port
// forwards, the Helm releases page and each tab of a release (installed by helm), the Images page,
// the dock with a shell and a log, the disconnected strip and the sign-in page — in the
// light and the dark theme. No violation of impact serious or critical may remain; each failure
// prints the rule, its impact and the selectors of the elements at fault. Every view's findings
// (any impact) are written to test-output/ui/accessibility.json. The third-party widgets (Monaco,
// xterm) are audited like the rest: nothing of theirs needs excluding (Monaco's one finding, the
// dimmed number of the line after the final newline, is an editor option the UI sets).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults, ImpactValue, RunOptions } from 'axe-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, gotoThroughNetworkChanges, screenshotDirectory, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';
import { editorValue } from '../support/editor';

// evaluated through the DevTools protocol: the page's CSP (script-src 'self') rightly refuses an injected <script>
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const manifests = `apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: default, labels: { app: web } }
data:
  color: blue
  app.conf: |
    listen=8080
    mode=demo
---
apiVersion: v1
kind: Secret
metadata: { name: credentials, namespace: default }
stringData:
  password: s3cr3t-value
  user: admin
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 2
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 0
      containers:
        - name: web
          image: ${busyboxImage}
          imagePullPolicy: Never
          command: ['sh', '-c', 'mkdir -p /www && hostname > /www/index.html && httpd -p 8080 -h /www && i=0; while true; do echo "tick-$i from $(hostname)"; i=$((i+1)); sleep 1; done']
          ports: [{ containerPort: 8080, name: http }]
          resources: { requests: { cpu: 10m, memory: 16Mi }, limits: { memory: 64Mi } }
          readinessProbe: { exec: { command: ['true'] }, periodSeconds: 2 }
          env:
            - { name: COLOR, valueFrom: { configMapKeyRef: { name: settings, key: color } } }
            - { name: PASSWORD, valueFrom: { secretKeyRef: { name: credentials, key: password } } }
          volumeMounts: [{ name: config, mountPath: /etc/app, readOnly: true }]
      volumes: [{ name: config, configMap: { name: settings } }]
---
apiVersion: v1
kind: Service
metadata: { name: web, namespace: default }
spec:
  selector: { app: web }
  ports: [{ name: http, port: 80, targetPort: 8080 }]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: { name: web, namespace: default }
spec:
  rules:
    - host: web.localhost
      http:
        paths:
          - { path: /, pathType: Prefix, backend: { service: { name: web, port: { number: 80 } } } }
---
apiVersion: v1
kind: Pod
metadata: { name: crasher, namespace: default }
spec:
  terminationGracePeriodSeconds: 0
  containers:
    - name: main
      image: ${busyboxImage}
      imagePullPolicy: Never
      command: ['sh', '-c', 'echo about to fail; exit 3']
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, shortNames: [wd] }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer } } }
      additionalPrinterColumns:
        - { name: Size, type: integer, jsonPath: .spec.size }
`;

const widget = `apiVersion: example.com/v1
kind: Widget
metadata: { name: gadget, namespace: default }
spec: { size: 3 }
`;

/** One element axe found at fault: its selector path (through iframes and shadow roots) and what is wrong. */
interface Finding {
  id: string;
  impact: ImpactValue | undefined;
  help: string;
  nodes: { target: string; summary: string; html: string }[];
}

// WCAG 2.0, 2.1 and 2.2 at levels A and AA, and axe's best practices (landmarks, headings…)
const runOptions: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'] }, resultTypes: ['violations'] };

async function runAxe(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = await page.evaluate(async (options) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<AxeResults> } }).axe;
    return axe.run(document, options);
  }, runOptions);
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact ?? undefined,
    help: violation.help,
    nodes: violation.nodes.map((node) => ({ target: node.target.map((part) => (Array.isArray(part) ? part.join(' >> ') : String(part))).join(' >>> '), summary: (node.failureSummary ?? '').replace(/\s+/g, ' ').trim(), html: node.html.slice(0, 160) })),
  }));
}

function isSerious(finding: Finding): boolean {
  return finding.impact === 'serious' || finding.impact === 'critical';
}

function describeFindings(view: string, findings: Finding[]): string {
  const lines = [`${view}: ${findings.length} serious or critical accessibility violation(s)`];
  for (const finding of findings) {
    lines.push(`- ${finding.id} (${finding.impact ?? 'unknown'}): ${finding.help} — ${finding.nodes.length} element(s)`);
    for (const node of finding.nodes.slice(0, 8)) lines.push(`    ${node.target}\n      ${node.summary}`);
    if (finding.nodes.length > 8) lines.push(`    … and ${finding.nodes.length - 8} more`);
  }
  return lines.join('\n');
}

async function rowNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''));
}

/** Dismisses whatever is open (menu, dialog, palette) and goes to a hash route. */
async function go(page: Page, origin: string, hash: string): Promise<void> {
  for (let attempt = 0; attempt < 3 && (await page.locator('[role=dialog], [role=menu]').count()) > 0; attempt++) await page.keyboard.press('Escape');
  if (!(await gotoThroughNetworkChanges(page, `${origin}/ui/#/${hash}`))) throw new Error(`Chromium kept aborting the navigation to #/${hash} (ERR_NETWORK_CHANGED)`);
}

describe('accessibility of every main view (axe-core, WCAG 2.x A/AA), in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let webPods: string[] = [];
  let node = '';
  const report: Record<string, Finding[]> = {};

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({
      viewport: { width: 1440, height: 900 },
      async prepare(started) {
        await kubectlOk(started, ['apply', '-f', '-'], manifests);
        await kubectlOk(started, ['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=30s']);
        await kubectlOk(started, ['apply', '-f', '-'], widget);
        // a small chart for the Helm pages
        const chart = join(started.root, 'a11ychart');
        mkdirSync(join(chart, 'templates'), { recursive: true });
        writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: a11ychart\nversion: 0.1.0\nappVersion: "1.0"\n');
        writeFileSync(join(chart, 'values.yaml'), 'message: hello\n');
        writeFileSync(join(chart, 'templates', 'configmap.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  message: {{ .Values.message | quote }}\n');
        writeFileSync(join(chart, 'templates', 'NOTES.txt'), 'Installed {{ .Release.Name }}.\n');
        const installed = await started.helm(['install', 'notes', chart, '-n', 'default'], { timeoutMs: 120_000 });
        if (installed.code !== 0) throw new Error(`helm install failed: ${installed.stderr}`);
        await kubectlOk(started, ['rollout', 'status', 'deployment/web', '--timeout=100s'], undefined, 110_000);
        await until('crasher in CrashLoopBackOff', async () => {
          const reason = await kubectlOk(started, ['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.reason}']);
          return reason.trim() === 'CrashLoopBackOff' ? true : undefined;
        }, 90_000, 500, kubectlState(started, ['get', 'pods', '-o', 'wide']));
      },
    }));
    webPods = (await kubectlOk(cluster, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/).sort();
    node = (await kubectlOk(cluster, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  }, 240_000);

  afterAll(async () => {
    writeFileSync(join(screenshotDirectory, 'accessibility.json'), `${JSON.stringify(report, null, 2)}\n`);
    await destroyUiCluster({ cluster, ui });
  });

  /** Audits the page as it is now: records every violation, fails on serious and critical ones. */
  async function audit(view: string): Promise<void> {
    const findings = await runAxe(page);
    report[view] = findings;
    await ui.screenshot(`a11y-${view}`);
    const serious = findings.filter(isSerious);
    expect(serious, describeFindings(view, serious)).toEqual([]);
  }

  async function detailTabs(view: string, route: string, ready: () => Promise<void>): Promise<void> {
    const failures: string[] = [];
    for (const tab of ['summary', 'yaml', 'events', 'history'] as const) {
      await go(page, ui.origin, tab === 'summary' ? route : `${route}/${tab}`);
      await page.getByTestId('detail-name').waitFor({ timeout: 30_000 });
      if (tab === 'summary') await ready();
      if (tab === 'yaml') await expect.poll(() => editorValue(page), { timeout: 30_000 }).toContain('apiVersion');
      if (tab === 'events') await page.getByTestId('detail-events').waitFor({ timeout: 30_000 });
      if (tab === 'history') {
        await page
          .locator('[data-testid=history-tab], [data-testid=history-empty], [data-testid=history-error]')
          .first()
          .waitFor({ timeout: 30_000 })
          .catch(async (error: unknown) => {
            await ui.screenshot(`a11y-${view}-history-not-shown`);
            throw error;
          });
        expect(await page.getByTestId('history-error').count(), await page.locator('.detail-body').innerText()).toBe(0);
        // with two revisions or more the diff editor shows them
        if ((await page.locator('[data-testid=history-timeline] tbody tr').count()) > 1) {
          await expect.poll(() => page.evaluate(() => Reflect.has(window, '__kubedeskDiff')), { timeout: 30_000 }).toBe(true);
        }
      }
      try {
        await audit(`${view}-${tab}`);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }

  for (const theme of ['light', 'dark'] as const) {
    describe(`in the ${theme} theme`, () => {
      beforeAll(async () => {
        await page.emulateMedia({ colorScheme: theme });
        await go(page, ui.origin, 'overview');
        await until(`the ${theme} theme`, async () => ((await page.evaluate(() => document.documentElement.dataset.theme)) === theme ? true : undefined), 10_000, 250, async () => `${page.url()}: ${(await page.locator('body').innerText()).slice(0, 300)}`);
      });

      it('has no serious violations on the overview', async () => {
        await go(page, ui.origin, 'overview');
        await expect.poll(async () => Number(await page.getByTestId('pods-healthy').getAttribute('data-count')), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
        await expect.poll(() => page.getByTestId('overview-warnings').innerText().catch(() => ''), { timeout: 30_000 }).toContain('crasher');
        await audit(`${theme}-overview`);
      });

      const lists: [string, string, string][] = [
        ['pods', 'pods', 'crasher'],
        ['deployments', 'deployments.apps', 'web'],
        ['services', 'services', 'web'],
        ['ingresses', 'ingresses.networking.k8s.io', 'web'],
        ['configmaps', 'configmaps', 'settings'],
        ['secrets', 'secrets', 'credentials'],
        ['nodes', 'nodes', ''],
        ['events', 'events', ''],
        ['namespaces', 'namespaces', 'default'],
        ['crds', 'customresourcedefinitions.apiextensions.k8s.io', 'widgets.example.com'],
        ['widgets', 'widgets.example.com', 'gadget'],
      ];
      for (const [view, kindKey, expected] of lists) {
        it(`has no serious violations on the ${view} list`, async () => {
          await go(page, ui.origin, kindKey);
          await expect.poll(async () => (await rowNames(page)).filter((name) => expected === '' || name === expected).length, { timeout: 30_000 }).toBeGreaterThan(0);
          await audit(`${theme}-list-${view}`);
        });
      }

      // lists with nothing in them show how to create one, inside the same grid
      const emptyLists: [string, string][] = [
        ['statefulsets', 'statefulsets.apps'],
        ['daemonsets', 'daemonsets.apps'],
        ['jobs', 'jobs.batch'],
        ['cronjobs', 'cronjobs.batch'],
        ['persistentvolumeclaims', 'persistentvolumeclaims'],
      ];
      for (const [view, kindKey] of emptyLists) {
        it(`has no serious violations on the empty ${view} list`, async () => {
          await go(page, ui.origin, kindKey);
          await page.locator('[data-testid=list-body] .empty').waitFor({ timeout: 30_000 });
          await audit(`${theme}-list-${view}`);
        });
      }

      it('has no serious violations on a list filtered to nothing', async () => {
        await go(page, ui.origin, 'configmaps');
        await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('settings');
        await page.locator('input.filter').fill('no-such-object');
        await page.locator('[data-testid=list-body] .empty').waitFor({ timeout: 30_000 });
        await audit(`${theme}-list-filtered-empty`);
        await page.locator('input.filter').fill('');
      });

      it('has no serious violations on the events timeline', async () => {
        await go(page, ui.origin, 'events');
        await page.getByTestId('view-timeline').click();
        await page.locator('[data-testid=timeline-lane][data-object="pod/crasher"]').waitFor({ timeout: 30_000 });
        await audit(`${theme}-events-timeline`);
        await page.getByTestId('view-list').click();
      });

      it("has no serious violations on a pod's summary, YAML and events tabs", async () => {
        await detailTabs(`${theme}-pod`, `pods/default/${webPods[0]}`, () => page.locator('[data-testid=detail-containers] [data-container=web]').waitFor({ timeout: 30_000 }));
      });

      it("has no serious violations on a crash-looping pod's summary", async () => {
        await go(page, ui.origin, 'pods/default/crasher');
        await page.getByTestId('container-last-termination-main').waitFor({ timeout: 30_000 });
        await audit(`${theme}-pod-crasher`);
      });

      it("has no serious violations on a Deployment's tabs", async () => {
        await detailTabs(`${theme}-deployment`, 'deployments.apps/default/web', () => page.getByTestId('detail-pods').waitFor({ timeout: 30_000 }));
      });

      it("has no serious violations on a Service's tabs", async () => {
        await detailTabs(`${theme}-service`, 'services/default/web', () => expect.poll(() => page.getByTestId('table-service-endpoints').getByRole('link').count(), { timeout: 30_000 }).toBeGreaterThan(0));
      });

      it("has no serious violations on an Ingress's tabs", async () => {
        await detailTabs(`${theme}-ingress`, 'ingresses.networking.k8s.io/default/web', () => page.getByTestId('table-ingress-rules').waitFor({ timeout: 30_000 }));
      });

      it("has no serious violations on a ConfigMap's tabs, with a key shown", async () => {
        await detailTabs(`${theme}-configmap`, 'configmaps/default/settings', () => page.getByTestId('data-value-app.conf').waitFor({ timeout: 30_000 }));
      });

      it("has no serious violations on a Secret's tabs, with a value revealed", async () => {
        await detailTabs(`${theme}-secret`, 'secrets/default/credentials', async () => {
          await page.getByTestId('data-toggle-user').click();
          await page.getByTestId('data-value-user').waitFor();
        });
      });

      it("has no serious violations on a node's tabs", async () => {
        await detailTabs(`${theme}-node`, `nodes/_/${node}`, () => page.getByTestId('table-node-resources').waitFor({ timeout: 30_000 }));
      });

      it("has no serious violations on a namespace's and a custom resource's tabs", async () => {
        await detailTabs(`${theme}-namespace`, 'namespaces/_/default', () => page.locator('.summary-grid .card').first().waitFor({ timeout: 30_000 }));
        await detailTabs(`${theme}-widget`, 'widgets.example.com/default/gadget', () => page.getByTestId('detail-name').waitFor({ timeout: 30_000 }));
      });

      it('has no serious violations on the Changes and Recently deleted pages and a past list', async () => {
        const failures: string[] = [];
        await go(page, ui.origin, 'changes');
        await expect.poll(() => page.locator('[data-testid=changes-table] tbody tr').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        await audit(`${theme}-history-changes`).catch((error: unknown) => failures.push(String(error)));
        await go(page, ui.origin, 'deleted');
        await page.getByTestId('deleted-table').waitFor({ timeout: 30_000 });
        await audit(`${theme}-history-deleted`).catch((error: unknown) => failures.push(String(error)));
        await go(page, ui.origin, 'configmaps');
        await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('settings');
        await page.getByTestId('list-time-travel').click();
        await page.getByTestId('time-typed').fill('1s');
        await page.getByTestId('time-go').click();
        await expect.poll(() => page.getByTestId('list-past-banner').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/then\.$/);
        await audit(`${theme}-list-past`).catch((error: unknown) => failures.push(String(error)));
        await page.getByTestId('time-live').click();
        await page.getByTestId('list-time-travel').click();
        expect(failures, failures.join('\n\n')).toEqual([]);
      });

      it('has no serious violations on Create from YAML', async () => {
        await go(page, ui.origin, 'create/configmaps');
        await expect.poll(() => editorValue(page), { timeout: 30_000 }).toContain('kind: ConfigMap');
        await page.getByTestId('create-dry-run').click();
        await page.getByTestId('create-result').waitFor({ timeout: 30_000 });
        await audit(`${theme}-create`);
      });

      it('has no serious violations on the settings page', async () => {
        await go(page, ui.origin, 'settings');
        await page.getByTestId('settings-sign-out').waitFor({ timeout: 30_000 });
        await audit(`${theme}-settings`);
      });

      it('has no serious violations on the Helm releases page and each tab of a release', async () => {
        await go(page, ui.origin, 'helm');
        await page.locator('[data-testid=helm-release-row][data-name=notes]').waitFor({ timeout: 30_000 });
        const failures: string[] = [];
        await audit(`${theme}-helm`).catch((error: unknown) => failures.push(String(error)));
        for (const tab of ['status', 'values', 'manifest', 'resources', 'history']) {
          await go(page, ui.origin, tab === 'status' ? 'helm/default/notes' : `helm/default/notes/${tab}`);
          await page.getByTestId('helm-release-status').waitFor({ timeout: 30_000 });
          await audit(`${theme}-helm-release-${tab}`).catch((error: unknown) => failures.push(String(error)));
        }
        expect(failures, failures.join('\n\n')).toEqual([]);
      });

      it('has no serious violations on the Images page', async () => {
        await go(page, ui.origin, 'images');
        await page.getByTestId('images-table').waitFor({ timeout: 30_000 });
        await page.locator('[data-testid=registry-section]:not([data-state=loading])').waitFor({ timeout: 30_000 });
        await page.getByTestId('images-help').locator('summary').click();
        await page.getByTestId('registry-help').locator('summary').click();
        await audit(`${theme}-images`);
      });

      it('has no serious violations with the command palette open', async () => {
        await go(page, ui.origin, 'pods');
        await page.getByTestId('open-palette').click();
        await page.getByTestId('palette-input').fill('web');
        await expect.poll(() => page.getByTestId('palette-item').count(), { timeout: 30_000 }).toBeGreaterThan(1);
        await audit(`${theme}-palette`);
        await page.keyboard.press('Escape');
      });

      it('has no serious violations with the shortcut help open', async () => {
        await go(page, ui.origin, 'pods');
        await page.locator('main.content h1').click();
        await page.keyboard.press('?');
        await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
        await audit(`${theme}-shortcuts`);
        await page.keyboard.press('Escape');
      });

      it('has no serious violations with the namespace picker open', async () => {
        await go(page, ui.origin, 'pods');
        await page.getByTestId('namespace-picker').click();
        await page.getByTestId('namespace-query').waitFor();
        await audit(`${theme}-namespace-picker`);
        await page.keyboard.press('Escape');
      });

      it('has no serious violations with a row menu open and with rows selected', async () => {
        await go(page, ui.origin, 'pods');
        await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('crasher');
        await page.locator('[data-testid=list-body] [role=row][data-name=crasher] [data-testid=row-menu-button]').click();
        await page.getByRole('menu', { name: 'Actions for Pod crasher' }).waitFor();
        const failures: string[] = [];
        await audit(`${theme}-row-menu`).catch((error: unknown) => failures.push(String(error)));
        await page.keyboard.press('Escape');
        for (const name of webPods) await page.locator(`[data-testid=list-body] [role=row][data-name=${name}] [data-testid=row-select]`).check();
        await page.getByTestId('bulk-bar').waitFor();
        await audit(`${theme}-bulk-bar`).catch((error: unknown) => failures.push(String(error)));
        await page.getByTestId('bulk-clear').click();
        expect(failures, failures.join('\n\n')).toEqual([]);
      });

      it('has no serious violations with a dialog open', async () => {
        await go(page, ui.origin, 'deployments.apps/default/web');
        await page.getByTestId('action-scale').click();
        await page.getByTestId('scale-input').waitFor();
        await audit(`${theme}-dialog`);
        await page.getByTestId('modal-cancel').click();
      });

      it('has no serious violations on port forwards', async () => {
        await go(page, ui.origin, `pods/default/${webPods[0]}`);
        if ((await page.getByTestId('forward-open-8080').count()) === 0) await page.getByTestId('forward-8080').click();
        await page.getByTestId('forward-open-8080').waitFor({ timeout: 30_000 });
        await go(page, ui.origin, 'portforwards');
        await expect.poll(() => page.getByTestId('portforward-row').innerText(), { timeout: 30_000 }).toMatch(/Active/);
        await audit(`${theme}-portforwards`);
      });

      it('has no serious violations on the snapshots page and its restore confirmation', async () => {
        await go(page, ui.origin, 'snapshots');
        await page.getByTestId('snapshot-save').click();
        await page.getByTestId('snapshot-name').fill(`a11y-${theme}`);
        await page.getByTestId('snapshot-save-confirm').click();
        await page.locator(`[data-testid=snapshot-row][data-name="a11y-${theme}"]`).waitFor({ timeout: 60_000 });
        await audit(`${theme}-snapshots`);
        await page.locator(`[data-testid=snapshot-row][data-name="a11y-${theme}"] [data-testid=snapshot-restore]`).click();
        await page.locator('[data-testid=restore-nothing], [data-testid=restore-change]').first().waitFor({ timeout: 30_000 });
        await audit(`${theme}-snapshots-restore`);
        await page.getByTestId('modal-cancel').click();
      });

      it('has no serious violations with the dock showing a shell and a log', async () => {
        await go(page, ui.origin, `pods/default/${webPods[0]}`);
        await page.getByTestId('container-shell-web').click();
        await expect.poll(() => page.locator('[data-testid=dock-pane-shell]:visible .xterm-rows').innerText(), { timeout: 30_000 }).toMatch(/[#$]\s*$/m);
        const failures: string[] = [];
        await audit(`${theme}-dock-shell`).catch((error: unknown) => failures.push(String(error)));
        await page.getByTestId('container-logs-web').click();
        await expect.poll(() => page.getByTestId('log-line').count(), { timeout: 30_000 }).toBeGreaterThan(0);
        await audit(`${theme}-dock-logs`).catch((error: unknown) => failures.push(String(error)));
        // the selected tab owns the panel on show; Delete on a focused tab closes it, the × too
        const selected = page.locator('[data-testid=dock-tab][aria-selected=true]');
        expect(await selected.innerText()).toContain('logs');
        expect(await page.locator(`[role=tabpanel][id="${await selected.getAttribute('aria-controls')}"]`).isVisible()).toBe(true);
        await selected.focus();
        await page.keyboard.press('Delete');
        await expect.poll(() => page.getByTestId('dock-tab').allInnerTexts()).toEqual([expect.stringContaining(`sh ${webPods[0]}/web`)]);
        await page.getByTestId('dock-tab-close').click();
        await expect.poll(() => page.getByTestId('dock').count()).toBe(0);
        expect(failures, failures.join('\n\n')).toEqual([]);
      });
    });
  }

  it('has no serious violations on the disconnected strip and the sign-in page, in both themes', async () => {
    await go(page, ui.origin, 'pods');
    await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('crasher');
    const failures: string[] = [];
    await cluster.stop();
    await page.getByTestId('connection-banner').waitFor({ timeout: 30_000 });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      await audit(`${theme}-disconnected`).catch((error: unknown) => failures.push(String(error)));
    }
    await cluster.restart();
    await page.getByTestId('connection-retry').click().catch(() => undefined);
    await page.getByTestId('signed-out-reason').waitFor({ timeout: 60_000 });
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
      await audit(`${theme}-sign-in`).catch((error: unknown) => failures.push(String(error)));
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 180_000);
});
