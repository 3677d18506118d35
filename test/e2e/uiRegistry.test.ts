// The Images page's registry section, in Chromium against a real `kubedesk serve` on real Docker,
// judged by the real Docker CLI and the registry's own distribution API:
// - two tags of a uniquely named copy of the test image, pushed with `docker push` to the built-in
//   registry (found through KEP-1755's ConfigMap), appear under "Registry localhost:PORT" with the
//   short digest, the kind and the size the manifest adds up to;
// - after `docker rmi` of the pushed name, Pull on the page brings it back from the registry and the
//   local list shows it; an image with a layer of the run's own is pulled with its download's
//   progress;
// - Delete tag removes one tag (the tags list agrees, the image stays under the other tag); Delete
//   image removes the manifest by digest with its remaining tag (the manifest answers 404), the
//   repository's other image stays;
// - a Helm chart pushed with `helm push` shows as a chart;
// - a server restarted with --no-registry: the section says the registry is off.
// The suite removes only the image names it tagged or pulled. Screenshots land in test-output/ui/.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestCluster } from '../support/cluster';
import { destroyUiCluster, gotoThroughNetworkChanges, startUiCluster, type UiSession } from '../support/browser';
import { busyboxImage } from '../support/images';
import { until } from '../support/wait';

const run = promisify(execFile);
const repository = `kubedesk-e2e-regui/box-${process.pid}-${Date.now().toString(36)}`;
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
/** every image name this suite tagged or pulled, removed at the end */
const createdImages = new Set<string>();

/** Docker's units (decimal, 3 significant digits), as `docker image ls` prints sizes. */
function dockerSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${Number(value.toPrecision(3))}${units[unit]}`;
}

async function docker(...args: string[]): Promise<string> {
  return (await run('docker', args, { timeout: 180_000 })).stdout;
}

describe('the built-in registry on the Images page', () => {
  let cluster: TestCluster;
  let ui: UiSession;
  let page: Page;
  let host = '';
  const image = (tag: string) => `${host}/${repository}:${tag}`;
  const tagRow = (tag: string) => page.locator(`[data-testid=registry-tag][data-reference="${repository}:${tag}"]`);

  // a full navigation, then the page's sidebar; a page left on the sign-in form signs in with the
  // kubeconfig token once (a navigation aborted by a Docker network change, a restarted server)
  const open = (hash: string) => ui.open(hash);
  const registry = async (method: string, path: string, headers?: Record<string, string>) => cluster.request(method, `/registry/v2/${repository}/${path}`, undefined, headers);

  beforeAll(async () => {
    ({ cluster, ui, page } = await startUiCluster());
    const hosting = await until('the local-registry-hosting ConfigMap', async () => {
      const result = await cluster.kubectl(['get', 'configmap', 'local-registry-hosting', '-n', 'kube-public', '-o', 'jsonpath={.data.localRegistryHosting\\.v1}']);
      return result.code === 0 && result.stdout !== '' ? result.stdout : undefined;
    });
    host = (parse(hosting) as { host: string }).host;
  }, 240_000);

  afterAll(async () => {
    await destroyUiCluster({ cluster, ui });
    for (const name of createdImages) await run('docker', ['image', 'rm', name]).catch(() => undefined);
  }, 120_000);

  it('lists pushed tags under the registry host with digest, kind and the size the manifest adds up to', async () => {
    for (const tag of ['one', 'two']) {
      createdImages.add(image(tag));
      await docker('tag', busyboxImage, image(tag));
      expect(await docker('push', image(tag))).toMatch(new RegExp(`${tag}: digest: sha256:[0-9a-f]{64} size: \\d+`));
    }
    const reply = await registry('GET', 'manifests/one', { Accept: DOCKER_MANIFEST });
    expect(reply.status).toBe(200);
    const manifest = JSON.parse(reply.body) as { config: { size: number }; layers: Array<{ size: number }> };
    const size = Buffer.byteLength(reply.body) + manifest.config.size + manifest.layers.reduce((sum, layer) => sum + layer.size, 0);
    const digest = reply.headers['docker-content-digest'];
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    await open('#/images');
    await expect.poll(() => page.locator('#registry-heading').innerText().catch(() => ''), { timeout: 30_000 }).toBe(`Registry ${host}`);
    await expect.poll(() => tagRow('one').count(), { timeout: 30_000 }).toBe(1);
    const row = tagRow('one');
    expect(await row.getByTestId('registry-size').innerText()).toBe(dockerSize(size));
    expect(await row.getByTestId('registry-kind').innerText()).toBe('image');
    expect(await row.innerText()).toContain(String(digest).slice(0, 'sha256:'.length + 12));
    expect(await tagRow('two').getByTestId('registry-size').innerText()).toBe(dockerSize(size));
    await page.getByTestId('images-filter').fill('kubedesk-e2e-regui');
    await page.getByTestId('registry-help').locator('summary').click();
    await page.getByTestId('registry-section').scrollIntoViewIfNeeded();
    await ui.screenshot('registry');
  });

  it('pulls the pushed image back by name from the page after docker rmi', async () => {
    await docker('rmi', image('one'));
    expect(await docker('image', 'ls', '--format', '{{.Repository}}:{{.Tag}}')).not.toContain(image('one'));
    await page.getByTestId('image-pull-name').fill(image('one'));
    await page.getByTestId('image-pull').click();
    const state = page.getByTestId('image-pull-state');
    await state.waitFor({ timeout: 30_000 });
    await expect.poll(() => state.getAttribute('data-phase'), { timeout: 120_000 }).toBe('Complete');
    // the busybox image's layers stay in the store under its own name: Docker downloads none
    expect(await state.innerText()).toBe(`${image('one')}: complete — pulled: every layer was already here`);
    expect(await state.locator('progress').getAttribute('value')).toBe('1');
    const local = page.locator(`[data-testid=image-row][data-tags~="${image('one')}"]`);
    await expect.poll(() => local.count(), { timeout: 30_000 }).toBe(1);
    expect((await docker('image', 'inspect', '--format', '{{.Id}}', image('one'))).trim()).toBe((await docker('image', 'inspect', '--format', '{{.Id}}', busyboxImage)).trim());
  });

  it('pulls an image whose layer is not local, with the progress of its download', async () => {
    // busybox plus one layer of this run's own: after docker rmi, that layer must come from the registry
    const container = `kubedesk-e2e-regui-${process.pid}`;
    createdImages.add(image('own'));
    await docker('run', '--name', container, '--network', 'none', busyboxImage, 'sh', '-c', `head -c 3000000 /dev/urandom > /payload && echo ${repository} > /marker`);
    try {
      await docker('commit', container, image('own'));
    } finally {
      await docker('rm', container);
    }
    await docker('push', image('own'));
    await docker('rmi', image('own'));
    // every phase the pull's line shows, as the page renders it
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { pullPhases: string[] }).pullPhases = seen;
      new MutationObserver(() => {
        const phase = document.querySelector('[data-testid=image-pull-state]')?.getAttribute('data-phase');
        if (phase && seen.at(-1) !== phase) seen.push(phase);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase'] });
    });
    await page.getByTestId('image-pull-name').fill(image('own'));
    await page.getByTestId('image-pull').click();
    const state = page.getByTestId('image-pull-state');
    await expect.poll(() => state.innerText(), { timeout: 30_000 }).toContain(image('own'));
    await expect.poll(() => state.getAttribute('data-phase'), { timeout: 120_000 }).toBe('Complete');
    expect(await state.innerText()).toMatch(new RegExp(`${image('own').replace(/[./]/g, '\\$&')}: complete — pulled \\d+(\\.\\d+)?[kM]B \\(2 layers\\)`));
    expect(await state.locator('progress').getAttribute('value')).toBe('1');
    expect(await page.evaluate(() => (window as unknown as { pullPhases: string[] }).pullPhases)).toEqual(['Pulling', 'Complete']);
    await expect.poll(() => page.locator(`[data-testid=image-row][data-tags~="${image('own')}"]`).count(), { timeout: 30_000 }).toBe(1);
    await page.evaluate(() => window.scrollTo(0, 0));
    await ui.screenshot('registry-pulled');
    expect(await docker('image', 'inspect', '--format', '{{.Id}}', image('own'))).toMatch(/^sha256:/);
  });

  it('deletes one tag, leaving the image under its other tag, as the tags list agrees', async () => {
    await tagRow('one').getByTestId('registry-delete-tag').click();
    await page.getByTestId('modal-confirm').click();
    await expect.poll(() => tagRow('one').count(), { timeout: 30_000 }).toBe(0);
    expect(await tagRow('two').count()).toBe(1);
    const tags = await registry('GET', 'tags/list');
    expect(tags.status).toBe(200);
    expect(JSON.parse(tags.body)).toEqual({ name: repository, tags: ['own', 'two'] });
    expect((await registry('GET', 'manifests/two', { Accept: DOCKER_MANIFEST })).status).toBe(200);
  });

  it('deletes the image by digest with its remaining tag', async () => {
    const digest = (await registry('HEAD', 'manifests/two', { Accept: DOCKER_MANIFEST })).headers['docker-content-digest'];
    await tagRow('two').getByTestId('registry-delete-image').click();
    await page.getByTestId('modal-confirm').click();
    await expect.poll(() => tagRow('two').count(), { timeout: 30_000 }).toBe(0);
    await page.getByTestId('registry-section').scrollIntoViewIfNeeded();
    await ui.screenshot('registry-deleted');
    expect((await registry('GET', `manifests/${String(digest)}`, { Accept: DOCKER_MANIFEST })).status).toBe(404);
    // the run's own image, another digest, stays
    expect(JSON.parse((await registry('GET', 'tags/list')).body)).toEqual({ name: repository, tags: ['own'] });
    expect(await tagRow('own').count()).toBe(1);
  });

  it('shows a Helm chart pushed with helm push as a chart', async () => {
    const chart = join(cluster.root, 'regui-chart');
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: reguichart\nversion: 0.1.0\n');
    writeFileSync(join(chart, 'templates', 'configmap.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n');
    for (const args of [['package', chart, '-d', cluster.root], ['push', join(cluster.root, 'reguichart-0.1.0.tgz'), `oci://${host}/${repository}-charts`, '--plain-http']]) {
      const result = await cluster.helm(args, { timeoutMs: 120_000 });
      expect(result.code, `helm ${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    const row = page.locator(`[data-testid=registry-tag][data-reference="${repository}-charts/reguichart:0.1.0"]`);
    await expect.poll(() => row.getAttribute('data-kind').catch(() => ''), { timeout: 30_000 }).toBe('chart');
    expect(await row.getByTestId('registry-kind').innerText()).toBe('chart');
    expect(await row.getByTestId('registry-delete-image').innerText()).toBe('Delete chart');
    await row.scrollIntoViewIfNeeded();
    await ui.screenshot('registry-chart');
  });

  it('says plainly that the registry is off when the server runs without one', async () => {
    await cluster.restart({ extraArgs: ['--no-registry'] });
    // sessions live in memory: the restarted server asks to sign in again
    if (!(await gotoThroughNetworkChanges(page, `${ui.origin}/ui/#/images`))) throw new Error('Chromium kept aborting the navigation');
    await page.getByLabel('Token').fill(cluster.token, { timeout: 60_000 });
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('nav-helm').waitFor({ timeout: 60_000 });
    const off = page.getByTestId('registry-off');
    await expect.poll(() => off.innerText().catch(() => ''), { timeout: 60_000 }).toContain('The built-in image registry is off');
    await page.getByTestId('registry-section').scrollIntoViewIfNeeded();
    await ui.screenshot('registry-off');
  }, 180_000);
});
