// The app on another cluster, in Chromium against two real `kubedesk serve` processes with pods on
// real Docker. The first cluster serves the UI; its kubeconfig also holds the second cluster twice:
// context `second` signs in with a client certificate (issued through a CertificateSigningRequest,
// bound to cluster-admin), context `third` through an exec credential plugin (a shell script printing
// an ExecCredential with the token of a ServiceAccount bound to `view`, valid for an hour). In the
// page: switch to the second → its pods list live; a shell and the logs of its pod; a port-forward
// fetched through; switch to the third → write actions are disabled with the reason, a forced write
// shows the 403 with who was refused; the plugin ran once. No token or key ever reaches the page
// (its DOM, its storage, any response it received). Screenshots in test-output/ui.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { destroyUiCluster, startUiCluster, type UiSession } from '../support/browser';
import { issueClientCertificate, type ClientCertificate } from '../support/clientCertificates';
import { startCluster, type TestCluster } from '../support/cluster';
import { setEditor } from '../support/editor';
import { hostGet } from '../support/hostHttp';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

const VIEWER = 'system:serviceaccount:default:viewer';

const web = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sh', '-c', 'echo hello-from-the-second-cluster; mkdir -p /www; echo served-by-the-second-cluster > /www/index.html; exec httpd -f -p 8080 -h /www']
          ports: [{ containerPort: 8080 }]
`;

/** An exec credential plugin: counts its runs in a file, prints a v1 ExecCredential valid for an hour. */
function writeExecPlugin(directory: string, token: string): { command: string; runs: string } {
  const command = join(directory, 'viewer-credential.sh');
  const runs = join(directory, 'viewer-credential.runs');
  writeFileSync(runs, '');
  writeFileSync(
    command,
    [
      '#!/bin/sh',
      `echo run >> '${runs}'`,
      'expires=$(date -u -d "+1 hour" +%Y-%m-%dT%H:%M:%SZ)',
      `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}\\n' '${token}' "$expires"`,
      '',
    ].join('\n'),
  );
  chmodSync(command, 0o755);
  return { command, runs };
}

describe('the app on the kubeconfig’s other clusters', () => {
  let first: TestCluster;
  let second: TestCluster;
  let ui: UiSession;
  let page: Page;
  let viewerToken: string;
  let certificate: ClientCertificate;
  let pluginRuns: string;
  let webPod: string;
  /** every text the page received from the server, checked for secrets at the end */
  const received: Promise<string>[] = [];

  const pick = async (name: string) => {
    await page.getByTestId('cluster-picker').click();
    await page.getByTestId(`cluster-option-${name}`).click();
    await expect.poll(() => page.getByTestId('cluster-picker').innerText(), { timeout: 30_000 }).toContain(name);
  };
  const rowNames = () => page.locator('[data-testid=list-body] [role=row]').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-name') ?? ''} ${(row as HTMLElement).innerText}`));

  beforeAll(async () => {
    const starting = startCluster();
    ({ cluster: first, ui, page } = await startUiCluster());
    second = await starting;
    await kubectlOk(second, ['apply', '-f', '-'], web);
    await kubectlOk(second, ['create', 'serviceaccount', 'viewer']);
    await kubectlOk(second, ['create', 'clusterrolebinding', 'viewer-view', '--clusterrole=view', '--serviceaccount=default:viewer']);
    viewerToken = (await kubectlOk(second, ['create', 'token', 'viewer', '--duration=2h'])).trim();
    certificate = await issueClientCertificate(second, 'alice', ['platform']);
    await kubectlOk(second, ['create', 'clusterrolebinding', 'alice-admin', '--clusterrole=cluster-admin', '--user=alice']);
    await kubectlOk(second, ['rollout', 'status', 'deployment/web', '--timeout=120s'], undefined, 150_000);
    webPod = (await kubectlOk(second, ['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();

    // the second cluster joins the first's kubeconfig twice: by certificate and by exec plugin
    const plugin = writeExecPlugin(first.root, viewerToken);
    pluginRuns = plugin.runs;
    const config = parse(readFileSync(first.kubeconfig, 'utf8')) as { clusters: unknown[]; users: unknown[]; contexts: unknown[] };
    config.clusters.push({ name: 'second', cluster: { server: second.server, 'certificate-authority-data': Buffer.from(second.caPem).toString('base64') } });
    config.users.push(
      { name: 'alice', user: { 'client-certificate-data': Buffer.from(certificate.certPem).toString('base64'), 'client-key-data': Buffer.from(certificate.keyPem).toString('base64') } },
      { name: 'viewer', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin.command, interactiveMode: 'Never' } } },
    );
    config.contexts.push({ name: 'second', context: { cluster: 'second', user: 'alice' } }, { name: 'third', context: { cluster: 'second', user: 'viewer', namespace: 'default' } });
    writeFileSync(first.kubeconfig, stringify(config), { mode: 0o600 });

    page.on('response', (response: Response) => {
      const type = response.headers()['content-type'] ?? '';
      if (/json|text|yaml|javascript/.test(type)) received.push(response.text().catch(() => ''));
    });
    page.on('websocket', (socket) => {
      socket.on('framereceived', (frame) => received.push(Promise.resolve(typeof frame.payload === 'string' ? frame.payload : frame.payload.toString('latin1'))));
    });
  }, 360_000);

  afterAll(async () => {
    await destroyUiCluster({ cluster: first, ui });
    await second?.destroy();
  });

  it('switches to the second cluster, signed in by certificate, and lists its pods live', async () => {
    await ui.open('#/pods');
    await pick('second');
    await page.getByTestId('nav-pods').click();
    await expect.poll(async () => (await rowNames()).find((row) => row.startsWith(`${webPod} `)) ?? '', { timeout: 60_000 }).toContain('Running');
    // live: a pod made with kubectl on the second cluster appears without a reload
    await kubectlOk(second, ['run', 'late-arrival', `--image=${busyboxImage}`, '--restart=Never', '--command', '--', 'sleep', '3600']);
    await expect.poll(async () => (await rowNames()).some((row) => row.startsWith('late-arrival ')), { timeout: 60_000 }).toBe(true);
    // the first cluster has no such pods: the list is the second's
    expect((await first.kubectl(['get', 'pods', 'late-arrival'])).code).toBe(1);
    expect(await page.getByTestId('identity-chip').innerText()).toBe('alice');
    await ui.screenshot('multicluster-01-second-pods');
  }, 180_000);

  it('opens a shell and the logs of the second cluster’s pod', async () => {
    await ui.open(`#/c/second/pods/default/${webPod}`);
    await page.getByTestId('action-shell').first().click();
    const terminal = page.locator('.xterm').last();
    await terminal.waitFor();
    await expect.poll(() => page.locator('.xterm-rows').last().innerText(), { timeout: 30_000 }).toMatch(/[#$]\s*$/m);
    await terminal.click();
    await page.keyboard.type('cat /www/index.html\n');
    await expect.poll(() => page.locator('.xterm-rows').last().innerText(), { timeout: 30_000 }).toContain('served-by-the-second-cluster');
    await ui.screenshot('multicluster-02-shell');
    await page.getByTestId('action-logs').first().click();
    await expect.poll(() => page.getByTestId('log-line').allInnerTexts(), { timeout: 30_000 }).toContain('hello-from-the-second-cluster');
    await ui.screenshot('multicluster-03-logs');
  }, 120_000);

  it('port-forwards to the second cluster’s pod and fetches through it', async () => {
    await ui.open(`#/c/second/pods/default/${webPod}`);
    await page.getByTestId('forward-8080').click();
    await page.getByTestId('nav-portforwards').click();
    const row = page.getByTestId('portforward-row').first();
    await row.waitFor({ timeout: 30_000 });
    const port = await until('an active forward with a local port', async () => {
      const text = await row.innerText();
      const match = /127\.0\.0\.1:(\d+)/.exec(text);
      return match && /Active/.test(text) ? Number(match[1]) : undefined;
    }, 30_000, 250);
    const reply = await hostGet(port, '/index.html');
    expect(reply.status).toBe(200);
    expect(reply.body.trim()).toBe('served-by-the-second-cluster');
    await ui.screenshot('multicluster-04-port-forward');
    await page.getByTestId('portforward-stop').click();
    await page.getByTestId('portforwards-empty').waitFor({ timeout: 30_000 });
  }, 120_000);

  it('on the exec-plugin context with the view role: writes disabled with the reason, a forced write refused with who and what', async () => {
    await ui.open('#/deployments.apps/default/web');
    await pick('third');
    await ui.open('#/c/third/deployments.apps/default/web');
    await expect.poll(() => page.getByTestId('identity-chip').innerText(), { timeout: 30_000 }).toBe(VIEWER);
    await expect.poll(() => page.getByTestId('action-scale').getAttribute('title'), { timeout: 30_000 }).toBe(`You (${VIEWER}) may not patch deployments.apps/scale "web" in "default"`);
    expect(await page.getByTestId('action-scale').isDisabled()).toBe(true);
    expect(await page.getByTestId('action-delete').isDisabled()).toBe(true);
    expect(await page.getByTestId('action-delete').getAttribute('title')).toBe(`You (${VIEWER}) may not delete deployments.apps "web" in "default"`);
    await ui.screenshot('multicluster-05-view-disabled');
    // forced: create-from-YAML sends the write anyway, and the server's 403 is shown plainly
    await ui.open('#/c/third/create');
    await setEditor(page, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: forced\n  namespace: default\ndata:\n  a: "1"\n');
    await page.getByTestId('create-apply').click();
    await expect.poll(() => page.getByTestId('create-result-line').first().innerText(), { timeout: 30_000 }).toContain(`Refused: you (${VIEWER}) may not patch configmaps "forced" in "default". The server said: configmaps "forced" is forbidden: User "${VIEWER}" cannot patch resource "configmaps"`);
    await ui.screenshot('multicluster-06-forced-write');
    expect((await second.kubectl(['get', 'configmap', 'forced'])).code).toBe(1);
  }, 120_000);

  it('ran the exec plugin once and reused its credential until it expires', async () => {
    // many requests went through the third context (discovery, reviews, lists, watches, the write)
    expect(readFileSync(pluginRuns, 'utf8').trim().split('\n')).toEqual(['run']);
  });

  it('never gives the page a token or a key: not in the DOM, its storage or anything it received', async () => {
    const secrets = [viewerToken, second.token, first.token, certificate.keyPem.split('\n')[1], Buffer.from(certificate.keyPem).toString('base64').slice(0, 40)];
    const dom = await page.content();
    const storage = await page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
    const bodies = await Promise.all(received);
    expect(bodies.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(dom.includes(secret), 'a secret in the DOM').toBe(false);
      expect(storage.includes(secret), 'a secret in the page’s storage').toBe(false);
      expect(bodies.some((body) => body.includes(secret)), 'a secret in a response to the page').toBe(false);
    }
  });
});
