// The UI showing the objects in depth, in Chromium against a real `kubedesk serve` on real Docker:
// detail cards (a pod's containers with their environment resolved from a ConfigMap and a Secret,
// mounts, probes and resources; ConfigMap data and Secret keys; a Service's ports and endpoints
// linked to its pods; node capacity in readable units; claim ↔ volume; Ingress rules as links);
// one Shell rule for a pod really crash-looping; events sorted by their real times, ticking, with a
// Warnings-only filter and a timeline; multi-select with bulk scale/restart/delete, row menus and
// Create from a kind's template; a workload's logs merged by time with a pod picker and
// matching-lines-only search; and the keyboard (list keys without focusing the table, headers out
// of the tab order, the namespace picker, the `?` help). Screenshots land in test-output/ui/depth-*.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';
import { editorValue } from '../support/editor';

const manifests = `apiVersion: v1
kind: ConfigMap
metadata: { name: settings, namespace: default }
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
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 1Gi } }
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
          livenessProbe: { httpGet: { path: /, port: 8080 }, periodSeconds: 5 }
          envFrom: [{ configMapRef: { name: settings }, prefix: CFG_ }]
          env:
            - { name: MODE, value: demo }
            - { name: COLOR, valueFrom: { configMapKeyRef: { name: settings, key: color } } }
            - { name: PASSWORD, valueFrom: { secretKeyRef: { name: credentials, key: password } } }
            - { name: POD_NAME, valueFrom: { fieldRef: { fieldPath: metadata.name } } }
          volumeMounts:
            - { name: config, mountPath: /etc/app, readOnly: true }
            - { name: data, mountPath: /data }
      volumes:
        - { name: config, configMap: { name: settings } }
        - { name: data, persistentVolumeClaim: { claimName: data } }
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
`;

async function rowNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-name') ?? ''));
}

/** The index of a list column among the row's cells (header and row cells line up). */
async function columnIndex(page: Page, name: string): Promise<number> {
  return page.locator('.table-head [role=columnheader]').evaluateAll((headers, wanted) => headers.findIndex((header) => header.textContent?.startsWith(wanted)), name);
}

/** The Last Seen timestamps (cell titles) of the rows on screen, top to bottom. */
async function lastSeenTimes(page: Page): Promise<number[]> {
  const column = await columnIndex(page, 'Last Seen');
  return page.locator('[data-testid=list-body] [role=row]').evaluateAll(
    (rows, index) => rows.map((row) => Date.parse(row.querySelectorAll('[role=gridcell]')[index]?.getAttribute('title') ?? '')),
    column,
  );
}

function nonIncreasing(values: number[]): boolean {
  return values.every((value, index) => index === 0 || values[index - 1] >= value);
}

describe('the UI in depth, in Chromium', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let webPods: string[] = [];
  let node = '';

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster({
      viewport: { width: 1500, height: 950 },
      async prepare(started) {
        await kubectlOk(started, ['apply', '-f', '-'], manifests);
        await kubectlOk(started, ['rollout', 'status', 'deployment/web', '--timeout=100s'], undefined, 110_000);
        // really crash-looping: the kubelet restarted it and now backs off
        await until('crasher in CrashLoopBackOff', async () => {
          const reason = await kubectlOk(started, ['get', 'pod', 'crasher', '-o', 'jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].state.waiting.reason}']);
          return /^[1-9]\d* CrashLoopBackOff$/.test(reason.trim()) ? true : undefined;
        }, 90_000, 500, kubectlState(started, ['get', 'pods', '-o', 'wide']));
      },
    }));
    await ui.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ui.origin });
    webPods = (await kubectlOk(cluster, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/).sort();
    node = (await kubectlOk(cluster, ['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  }, 240_000);

  afterAll(() => destroyUiCluster({ cluster, ui }));

  it("shows a pod's containers: image, env resolved from the ConfigMap and Secret (hidden), mounts, probes, resources and volumes", async () => {
    await ui.open(`#/pods/default/${webPods[0]}`);
    const container = page.locator('[data-testid=detail-containers] [data-container=web]');
    await container.waitFor({ timeout: 30_000 });
    const text = await container.innerText();
    expect(text).toContain(busyboxImage);
    expect(text).toContain('/etc/app from config (ro)');
    expect(text).toContain('/data from data (rw)');
    expect(text).toContain('exec [true] delay=0s timeout=1s period=2s #success=1 #failure=3');
    expect(text).toContain('http-get http://:8080/ delay=0s timeout=1s period=5s');
    expect(text).toContain('cpu 10m, memory 16Mi');
    expect(text).toContain('8080/TCP (http)');
    const env = page.getByTestId('container-env-web');
    await expect.poll(() => env.locator('tr[data-env=COLOR]').innerText()).toMatch(/COLOR\s+blue\s+ConfigMap settings, key color/);
    expect(await env.locator('tr[data-env=CFG_color]').innerText()).toMatch(/blue\s+all keys of ConfigMap settings/);
    expect(await env.locator('tr[data-env=POD_NAME]').innerText()).toContain(webPods[0]);
    const password = env.locator('tr[data-env=PASSWORD]');
    expect(await password.innerText()).not.toContain('s3cr3t-value');
    expect(await page.getByTestId('env-web-PASSWORD-text').innerText()).toBe('••••••••');
    await ui.screenshot('depth-01-pod-containers');
    await page.getByTestId('env-web-PASSWORD-reveal').click();
    expect(await page.getByTestId('env-web-PASSWORD-text').innerText()).toBe('s3cr3t-value');
    const volumes = await page.getByTestId('table-volumes').innerText();
    expect(volumes).toMatch(/config\s+ConfigMap\s+settings\s+web:\/etc\/app/);
    expect(volumes).toMatch(/data\s+PersistentVolumeClaim\s+data\s+web:\/data/);
    await page.getByTestId('table-volumes').getByRole('link', { name: 'settings' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/configmaps/default/settings');
  });

  it('shows each ConfigMap key in a viewer and copies it', async () => {
    await page.getByTestId('data-key-app.conf').waitFor();
    expect(await page.getByTestId('data-value-app.conf').innerText()).toBe('listen=8080\nmode=demo\n');
    expect(await page.getByTestId('data-value-color').innerText()).toBe('blue');
    await page.getByTestId('data-copy-app.conf').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('listen=8080\nmode=demo\n');
    await ui.screenshot('depth-02-configmap-data');
  });

  it('keeps Secret values hidden until revealed, and copies one without showing it', async () => {
    await ui.open(`#/secrets/default/credentials`);
    await page.getByTestId('data-key-password').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('section-secret-data').innerText()).not.toContain('s3cr3t-value');
    await page.getByTestId('data-copy-password').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe('s3cr3t-value');
    expect(await page.getByTestId('section-secret-data').innerText()).not.toContain('s3cr3t-value');
    await ui.screenshot('depth-03-secret-hidden');
    await page.getByTestId('data-toggle-user').click();
    expect(await page.getByTestId('data-value-user').innerText()).toBe('admin');
    expect(await page.getByTestId('data-value-password').innerText()).toBe('••••••••');
  });

  it("shows a Service's ports, selector and endpoints linked to its pods", async () => {
    await ui.open(`#/services/default/web`);
    const endpoints = page.getByTestId('table-service-endpoints');
    await expect.poll(async () => (await endpoints.getByRole('link').allInnerTexts()).filter((name) => name.startsWith('web-')).sort(), { timeout: 30_000 }).toEqual(webPods);
    expect(await page.getByTestId('table-service-ports').innerText()).toMatch(/http\s+80\s+8080\s+TCP/);
    expect(await page.getByTestId('section-routing').innerText()).toContain('app=web');
    await ui.screenshot('depth-04-service-endpoints');
    await endpoints.getByRole('link', { name: webPods[1] }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/pods/default/${webPods[1]}`);
  });

  it('shows node capacity in readable units with the raw quantity on hover, taints and conditions', async () => {
    await ui.open(`#/nodes/_/${node}`);
    const resources = page.getByTestId('table-node-resources');
    await resources.waitFor({ timeout: 30_000 });
    const memory = resources.locator('tr', { hasText: 'memory' }).locator('td').nth(1);
    const raw = await kubectlOk(cluster, ['get', 'node', node, '-o', 'jsonpath={.status.capacity.memory}']);
    expect(await memory.getAttribute('title')).toBe(raw.trim());
    expect(await memory.innerText()).toMatch(/^\d+(\.\d)? (GiB|MiB|TiB)$/);
    expect(await resources.locator('tr', { hasText: 'cpu' }).locator('td').nth(1).innerText()).toMatch(/^\d+(\.\d+)? cores?$/);
    expect(await page.getByTestId('detail-summary').innerText()).not.toMatch(/\d+Ki\b/);
    await page.getByTestId('section-node-taints').waitFor();
    await page.getByTestId('detail-conditions').waitFor();
    await ui.screenshot('depth-05-node-capacity');
  });

  it('links a claim to its volume and the volume back to its claim', async () => {
    await ui.open(`#/persistentvolumeclaims/default/data`);
    const summary = page.getByTestId('detail-summary');
    await expect.poll(() => summary.innerText(), { timeout: 30_000 }).toMatch(/Capacity\s+1 GiB/);
    const volume = (await kubectlOk(cluster, ['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}'])).trim();
    await summary.getByRole('link', { name: volume }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/persistentvolumes/_/${volume}`);
    await expect.poll(() => page.getByTestId('detail-summary').innerText()).toMatch(/Claim\s+default\/data/);
    await ui.screenshot('depth-06-volume-claim');
    await page.getByTestId('detail-summary').getByRole('link', { name: 'default/data' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/persistentvolumeclaims/default/data');
  });

  it('shows Ingress rules with links to the Service and the URL', async () => {
    await ui.open(`#/ingresses.networking.k8s.io/default/web`);
    const rules = page.getByTestId('table-ingress-rules');
    await rules.waitFor({ timeout: 30_000 });
    expect(await rules.getByRole('link', { name: 'web:80' }).getAttribute('href')).toBe('#/services/default/web');
    await expect.poll(async () => rules.getByRole('link', { name: /^http:\/\/web\.localhost/ }).getAttribute('href'), { timeout: 30_000 }).toMatch(/^http:\/\/web\.localhost(:\d+)?\/$/);
    await ui.screenshot('depth-07-ingress-rules');
  });

  it('disables Shell in the header and in the container row of a crash-looping pod, with one reason', async () => {
    await ui.open(`#/pods/default/crasher`);
    const header = page.getByTestId('action-shell');
    const row = page.getByTestId('container-shell-main');
    await row.waitFor({ timeout: 30_000 });
    await until('the crasher waiting in back-off on screen', async () => ((await page.getByTestId('container-state-main').innerText()) === 'Waiting: CrashLoopBackOff' ? true : undefined), 60_000, 250);
    expect(await header.isDisabled()).toBe(true);
    expect(await row.isDisabled()).toBe(true);
    expect(await header.getAttribute('title')).toBe('container main is not running (waiting: CrashLoopBackOff)');
    expect(await row.getAttribute('title')).toBe(await header.getAttribute('title'));
    expect(await page.getByTestId('container-last-termination-main').innerText()).toMatch(/^Error, exit code 3 · finished \S+ ago$/);
    expect(Number((await page.getByTestId('container-restarts-main').innerText()).split(' ')[0])).toBeGreaterThanOrEqual(1);
    await ui.screenshot('depth-08-crashloop-shell-disabled');
    // the same rule enables both for a running pod
    await ui.open(`#/pods/default/${webPods[0]}`);
    await page.getByTestId('container-shell-web').waitFor();
    await expect.poll(() => page.getByTestId('action-shell').isEnabled()).toBe(true);
    expect(await page.getByTestId('container-shell-web').isEnabled()).toBe(true);
  });

  it("orders a pod's events newest first, same-second events by write order, the same after a reload", async () => {
    await ui.open(`#/pods/default/${webPods[0]}/events`);
    const rows = page.locator('[data-testid=detail-events] tbody tr[data-uid]');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    const shown = await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-uid') ?? ''));
    const listed = JSON.parse(await kubectlOk(cluster, ['get', 'events', '--field-selector', `involvedObject.name=${webPods[0]}`, '-o', 'json'])) as { items: { metadata: { uid: string; resourceVersion: string }; lastTimestamp: string; reason: string }[] };
    const expected = [...listed.items].sort((left, right) => Date.parse(right.lastTimestamp) - Date.parse(left.lastTimestamp) || Number(right.metadata.resourceVersion) - Number(left.metadata.resourceVersion));
    expect(shown).toEqual(expected.map((event) => event.metadata.uid));
    // Scheduled, Pulled, Created, Started happen within a second or two: newest write on top
    const reasons = await rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-reason') ?? ''));
    expect(reasons.indexOf('Started')).toBeLessThan(reasons.indexOf('Created'));
    expect(reasons.indexOf('Created')).toBeLessThan(reasons.indexOf('Scheduled'));
    await ui.screenshot('depth-09-pod-events-order');
    await page.reload();
    await expect.poll(() => rows.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-uid') ?? '')), { timeout: 30_000 }).toEqual(shown);
  });

  it('lists events newest first by their real times, with LAST SEEN ticking, Warnings only and a timeline', async () => {
    await ui.open(`#/events`);
    await expect.poll(async () => (await rowNames(page)).length, { timeout: 30_000 }).toBeGreaterThan(5);
    expect(await page.getByTestId('column-Last Seen').getAttribute('aria-sort')).toBe('ascending');
    expect(nonIncreasing(await lastSeenTimes(page))).toBe(true);
    // LAST SEEN of an event that is not repeated moves on with the clock
    const scheduled = page.locator('[data-testid=list-body] [role=row]', { hasText: 'Scheduled' }).filter({ hasText: 'crasher' }).first();
    const lastSeenCell = scheduled.locator('[role=gridcell]').nth(await columnIndex(page, 'Last Seen'));
    const before = await lastSeenCell.innerText();
    await expect.poll(() => lastSeenCell.innerText(), { timeout: 5_000 }).not.toBe(before);
    // oldest first the other way round, by time and not by text
    await page.getByTestId('column-Last Seen').click();
    expect(await page.getByTestId('column-Last Seen').getAttribute('aria-sort')).toBe('descending');
    const ascending = await lastSeenTimes(page);
    expect(nonIncreasing([...ascending].reverse())).toBe(true);
    await page.getByTestId('column-Last Seen').click();
    await page.getByTestId('column-Last Seen').click();
    await ui.screenshot('depth-10-events-newest-first');
    const all = (await rowNames(page)).length;
    await page.getByTestId('quick-warnings').check();
    await expect.poll(async () => (await rowNames(page)).length).toBeLessThan(all);
    const typeColumn = await columnIndex(page, 'Type');
    const types = await page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows, index) => rows.map((row) => row.querySelectorAll('[role=gridcell]')[index]?.textContent ?? ''), typeColumn);
    expect(types.length).toBeGreaterThan(0);
    expect(new Set(types)).toEqual(new Set(['Warning']));
    await ui.screenshot('depth-11-events-warnings');
    await page.getByTestId('quick-warnings').uncheck();
    await page.getByTestId('view-timeline').click();
    const crasherLane = page.locator('[data-testid=timeline-lane][data-object="pod/crasher"]');
    await crasherLane.waitFor({ timeout: 10_000 });
    expect(await crasherLane.locator('[data-testid=timeline-mark][data-reason=BackOff]').count()).toBeGreaterThan(0);
    expect(await page.locator(`[data-testid=timeline-lane][data-object="pod/${webPods[0]}"]`).count()).toBe(1);
    await ui.screenshot('depth-12-events-timeline');
    await crasherLane.getByRole('link', { name: 'pod/crasher' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/pods/default/crasher');
  });

  it("offers the kind's actions in a row menu (⋯ and right-click) with the Shell rule", async () => {
    await ui.open(`#/deployments.apps`);
    await expect.poll(() => rowNames(page), { timeout: 30_000 }).toContain('web');
    await page.locator('[data-testid=list-body] [role=row][data-name=web] [data-testid=row-menu-button]').click();
    const menu = page.getByRole('menu', { name: 'Actions for Deployment web' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual(['Open', 'Edit YAML', 'Scale…', 'Restart', 'Roll back', 'Delete']);
    await ui.screenshot('depth-13-row-menu');
    await page.keyboard.press('Escape');
    await expect.poll(() => menu.count()).toBe(0);
    await ui.open(`#/pods`);
    const crasherRow = page.locator('[data-testid=list-body] [role=row][data-name=crasher]');
    await crasherRow.waitFor({ timeout: 30_000 });
    await crasherRow.click({ button: 'right' });
    const podMenu = page.getByRole('menu', { name: 'Actions for Pod crasher' });
    await podMenu.waitFor();
    const shell = podMenu.getByRole('menuitem', { name: /^Shell/ });
    expect(await shell.getAttribute('aria-disabled')).toBe('true');
    expect(await shell.getAttribute('title')).toBe('container main is not running (waiting: CrashLoopBackOff)');
    await ui.screenshot('depth-14-context-menu-crasher');
    await podMenu.getByRole('menuitem', { name: 'Edit YAML' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/pods/default/crasher/yaml');
  });

  it('selects several Deployments and scales, restarts and deletes them at once', async () => {
    for (const name of ['bulk-a', 'bulk-b']) await kubectlOk(cluster, ['create', 'deployment', name, `--image=${busyboxImage}`, '--', 'sleep', '3600']);
    await ui.open(`#/deployments.apps`);
    await expect.poll(() => rowNames(page), { timeout: 30_000 }).toEqual(expect.arrayContaining(['bulk-a', 'bulk-b']));
    for (const name of ['bulk-a', 'bulk-b']) await page.locator(`[data-testid=list-body] [role=row][data-name=${name}] [data-testid=row-select]`).check();
    expect(await page.getByTestId('bulk-count').innerText()).toBe('2 selected');
    expect(await page.getByTestId('bulk-bar').getByRole('button').allInnerTexts()).toEqual(['Restart', 'Scale…', 'Delete', 'Clear selection']);
    await ui.screenshot('depth-15-bulk-selection');
    await page.getByTestId('bulk-scale').click();
    await page.getByTestId('scale-input').fill('2');
    await page.getByTestId('modal-confirm').click();
    await until('both scaled to 2', async () => {
      const replicas = await kubectlOk(cluster, ['get', 'deployments', 'bulk-a', 'bulk-b', '-o', 'jsonpath={.items[*].spec.replicas}']);
      return replicas.trim() === '2 2' ? true : undefined;
    }, 30_000);
    await expect.poll(() => page.locator('.notices').innerText(), { timeout: 10_000 }).toContain('Scale: done for 2 Deployments');
    await page.getByTestId('bulk-restart').click();
    await page.getByTestId('modal-confirm').click();
    await until('both restarted', async () => {
      const stamps = await kubectlOk(cluster, ['get', 'deployments', 'bulk-a', 'bulk-b', '-o', 'jsonpath={.items[*].spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}']);
      return stamps.trim().split(/\s+/).filter(Boolean).length === 2 ? true : undefined;
    }, 30_000);
    await page.getByTestId('bulk-delete').click();
    expect(await page.getByRole('dialog').innerText()).toContain('Delete 2 Deployments?');
    await page.getByTestId('modal-confirm').click();
    await expect.poll(async () => (await rowNames(page)).filter((name) => name.startsWith('bulk-')), { timeout: 30_000 }).toEqual([]);
    expect(await rowNames(page)).toContain('web');
    await expect.poll(() => page.getByTestId('bulk-bar').count()).toBe(0);
  });

  it("creates an object from the list's Create button and its kind's template", async () => {
    await ui.open(`#/configmaps`);
    await page.getByTestId('list-create').click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/create/configmaps');
    await expect.poll(() => editorValue(page), { timeout: 30_000 }).toContain('kind: ConfigMap');
    expect(await editorValue(page)).toContain('name: new-configmap');
    expect(await page.getByRole('heading', { name: 'Create ConfigMap' }).count()).toBe(1);
    await ui.screenshot('depth-16-create-template');
    await page.getByTestId('create-apply').click();
    await expect.poll(() => page.getByTestId('create-result').innerText(), { timeout: 30_000 }).toContain('created');
    expect((await kubectlOk(cluster, ['get', 'configmap', 'new-configmap', '-o', 'jsonpath={.data.color}'])).trim()).toBe('blue');
  });

  it("merges a workload's pods' logs by time, picks pods, and shows only matching lines", async () => {
    await ui.open(`#/deployments.apps/default/web`);
    // lines written before this moment are the backlog the viewer reads and merges
    const opened = Date.now();
    await page.getByTestId('action-logs').click();
    await expect.poll(() => page.getByTestId('log-pods').innerText(), { timeout: 30_000 }).toBe('Pods: all 2 ▾');
    await expect.poll(async () => (await page.getByTestId('log-line').allInnerTexts()).some((line) => line.startsWith(webPods[1])), { timeout: 30_000 }).toBe(true);
    await page.getByTestId('log-timestamps').check();
    // the whole buffer, as downloaded: one pod's name and a timestamp on each line; the backlog in
    // time order, both pods interleaved from the first lines on (lines arriving live come in as
    // they arrive, merged by time within each frame)
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('log-download').click()]);
    const lines = readFileSync(await download.path(), 'utf8').trim().split('\n');
    const parsed = lines.map((line) => /^(\S+) (\S+) tick-(\d+) from (\S+)$/.exec(line));
    expect(parsed.every((match) => match !== null)).toBe(true);
    expect(new Set(parsed.map((match) => match?.[1]))).toEqual(new Set(webPods));
    const backlog = parsed.filter((match) => Date.parse(match?.[2] ?? '') < opened - 1000);
    expect(backlog.length).toBeGreaterThan(10);
    expect(nonIncreasing(backlog.map((match) => Date.parse(match?.[2] ?? '')).reverse())).toBe(true);
    expect(parsed.indexOf(backlog[backlog.length - 1])).toBe(backlog.length - 1);
    const firstPod = backlog[0]?.[1];
    expect(backlog.slice(0, 6).some((match) => match?.[1] !== firstPod)).toBe(true);
    for (const pod of webPods) {
      const ticks = parsed.filter((match) => match?.[1] === pod).map((match) => Number(match?.[3]));
      expect(nonIncreasing([...ticks].reverse())).toBe(true);
    }
    await ui.screenshot('depth-17-logs-merged');
    await page.getByTestId('log-pods').click();
    await page.getByTestId(`log-pod-${webPods[1]}`).uncheck();
    await expect.poll(() => page.getByTestId('log-pods').innerText()).toBe('Pods: 1 of 2 ▾');
    await expect.poll(async () => {
      const shown = await page.getByTestId('log-line').allInnerTexts();
      return shown.length > 0 && shown.every((line) => line.includes(`from ${webPods[0]}`));
    }, { timeout: 30_000 }).toBe(true);
    await page.getByTestId('log-pods').click();
    await page.getByTestId('log-search').fill('tick-1');
    await page.getByTestId('log-only-matching').check();
    await expect.poll(async () => {
      const shown = await page.getByTestId('log-line').allInnerTexts();
      return shown.length > 0 && shown.every((line) => line.includes('tick-1'));
    }, { timeout: 10_000 }).toBe(true);
    expect(await page.getByTestId('log-count').innerText()).toMatch(/^\d+ of [\d,]+ lines$/);
    await ui.screenshot('depth-18-logs-only-matching');
    await page.getByTestId('log-only-matching').uncheck();
    await page.getByTestId('dock-tab-close').first().click();
  });

  it('moves through a list with Home/End/PageUp/PageDown without focusing the table, and skips headers when tabbing', async () => {
    for (let index = 0; index < 30; index++) await kubectlOk(cluster, ['create', 'configmap', `many-${String(index).padStart(2, '0')}`, '--from-literal=n=1']);
    await ui.open(`#/overview`);
    await page.getByTestId('nav-configmaps').click();
    await expect.poll(async () => (await rowNames(page)).length, { timeout: 30_000 }).toBeGreaterThan(20);
    // focus is on the sidebar link just clicked, not on the table
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('nav-configmaps');
    const cursor = () => page.locator('[data-testid=list-body] .table-row.selected').getAttribute('data-name');
    const scrolled = () => page.getByTestId('list-body').evaluate((body) => Math.round(body.scrollTop));
    await page.keyboard.press('End');
    await expect.poll(async () => (await cursor()) === (await rowNames(page)).at(-1) && (await scrolled()) > 0).toBe(true);
    await page.keyboard.press('Home');
    await expect.poll(async () => (await cursor()) === (await rowNames(page))[0] && (await scrolled()) === 0).toBe(true);
    await page.keyboard.press('PageDown');
    const afterPage = await cursor();
    expect((await rowNames(page)).indexOf(afterPage ?? '')).toBeGreaterThan(5);
    await page.keyboard.press('PageUp');
    await expect.poll(cursor).toBe((await rowNames(page))[0]);
    await ui.screenshot('depth-19-keyboard-list');
    // Tab from the filter's neighbours goes to the rows, never to a column header
    await page.locator('input.filter').focus();
    const visited: string[] = [];
    for (let step = 0; step < 6; step++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement;
        return `${element?.getAttribute('role') ?? element?.tagName.toLowerCase()}:${element?.getAttribute('data-testid') ?? ''}`;
      });
      visited.push(focused);
      if (focused.endsWith(':list-body')) break;
    }
    expect(visited[visited.length - 1]).toBe('rowgroup:list-body');
    expect(visited.some((entry) => entry.startsWith('columnheader'))).toBe(false);
    expect(await page.locator('.table-head [role=columnheader][tabindex="-1"]').count()).toBeGreaterThan(0);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#\/configmaps\/default\//);
  });

  it('picks namespaces with the keyboard and lists the shortcuts on ?', async () => {
    await ui.open(`#/pods`);
    await page.getByTestId('namespace-picker').focus();
    await page.keyboard.press('ArrowDown');
    await page.getByTestId('namespace-query').waitFor();
    await page.keyboard.type('kube-sys');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('namespace-picker').innerText()).toBe('kube-system ▾');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('namespace-picker');
    await page.keyboard.press('Enter');
    await page.getByTestId('namespace-query').waitFor();
    await page.keyboard.type('default');
    await page.keyboard.press(' ');
    await expect.poll(() => page.getByTestId('namespace-picker').innerText()).toBe('2 namespaces ▾');
    await ui.screenshot('depth-20-namespace-keyboard');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await page.getByTestId('namespace-option-all').getAttribute('class')).toContain('active');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('namespace-picker').innerText()).toBe('All namespaces ▾');
    await page.locator('main.content h1').click();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    expect(await help.innerText()).toContain('Select or unselect the row');
    await ui.screenshot('depth-21-shortcuts');
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
  });
});
