// The built-in image registry with the real clients: found through KEP-1755's ConfigMap, `docker
// push` of the test image, a Deployment pulling it by its localhost:<port> name (the kubelet's
// ordinary pull through Docker, with its Pulling/Pulled events), a second tag rolled out with
// `kubectl set image`, `docker pull` back after the pushed names are removed, and helm 4's OCI
// charts (package, push, install). Repository names are unique to the run; the test removes the
// image names it tagged or pulled, never anything else.
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until } from '../support/wait';

let cluster: TestCluster;
let host = '';
const run = `e2e-${Date.now().toString(36)}`;
const namespace = 'registry-e2e';
/** every image name this suite tagged or pulled, removed at the end */
const createdImages = new Set<string>();

const ok = (...args: string[]) => kubectlOk(cluster, args);

async function docker(...args: string[]): Promise<CommandResult> {
  return runCommand('docker', args, { timeoutMs: 180_000 });
}

async function dockerOk(...args: string[]): Promise<string> {
  const result = await docker(...args);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

async function helmOk(...args: string[]): Promise<string> {
  const result = await cluster.helm(args, { timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`helm ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return `${result.stdout}${result.stderr}`;
}

function image(tag: string): string {
  return `${host}/${run}/app:${tag}`;
}

async function imageId(name: string): Promise<string> {
  return (await dockerOk('image', 'inspect', '--format', '{{.Id}}', name)).trim();
}

beforeAll(async () => {
  cluster = await startCluster();
  await ok('create', 'namespace', namespace);
  // discovery as Tilt and ctlptl do it: the KEP-1755 ConfigMap names the host
  const hosting = await until('the local-registry-hosting ConfigMap', async () => {
    const result = await cluster.kubectl(['get', 'configmap', 'local-registry-hosting', '-n', 'kube-public', '-o', 'jsonpath={.data.localRegistryHosting\\.v1}']);
    return result.code === 0 && result.stdout !== '' ? result.stdout : undefined;
  });
  host = (parse(hosting) as { host: string }).host;
}, 180_000);

afterAll(async () => {
  // the cluster's containers go first: Docker keeps a name that a container was created from
  if (cluster) await cluster.destroy();
  for (const name of createdImages) {
    const removed = await docker('rmi', name);
    if (removed.code !== 0 && !removed.stderr.includes('No such image')) throw new Error(`docker rmi ${name}: ${removed.stderr}`);
  }
}, 180_000);

describe('the built-in image registry', () => {
  it('is advertised by KEP-1755 local-registry-hosting and answers the distribution API there', async () => {
    expect(host).toMatch(/^localhost:\d+$/);
    expect(cluster.logs()).toContain(`image registry at ${host}`);
    const response = await fetch(`http://${host.replace('localhost', '127.0.0.1')}/v2/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
  });

  it('takes a docker push, and a Deployment naming the pushed image pulls and runs it', async () => {
    createdImages.add(image('1'));
    await dockerOk('tag', busyboxImage, image('1'));
    const pushed = await dockerOk('push', image('1'));
    expect(pushed).toMatch(/1: digest: sha256:[0-9a-f]{64} size: \d+/);
    // the kubelet must pull it from the registry: the local name goes first
    await dockerOk('rmi', image('1'));
    await ok('create', 'deployment', 'app', '-n', namespace, `--image=${image('1')}`, '--', 'sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait');
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/app', '-n', namespace, '--timeout=120s'], undefined, 150_000);
    const events = await ok('get', 'events', '-n', namespace, '--field-selector', 'involvedObject.kind=Pod', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}');
    expect(events).toContain(`Pulling: Pulling image "${image('1')}"`);
    expect(events).toMatch(new RegExp(`Pulled: Successfully pulled image "${image('1').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`));
  });

  it('rolls the Deployment to a second pushed tag with kubectl set image', async () => {
    createdImages.add(image('2'));
    await dockerOk('tag', busyboxImage, image('2'));
    await dockerOk('push', image('2'));
    await dockerOk('rmi', image('2'));
    await ok('set', 'image', 'deployment/app', '-n', namespace, `app=${image('2')}`);
    await kubectlOk(cluster, ['rollout', 'status', 'deployment/app', '-n', namespace, '--timeout=120s'], undefined, 150_000);
    await until(
      'only pods of the second tag',
      async () => {
        const images = (await ok('get', 'pods', '-n', namespace, '-l', 'app=app', '-o', 'jsonpath={range .items[*]}{.status.phase} {.spec.containers[0].image}{"\\n"}{end}')).trim().split('\n');
        return images.length === 1 && images[0] === `Running ${image('2')}` ? true : undefined;
      },
      90_000,
      500,
      kubectlState(cluster, ['get', 'pods', '-n', namespace, '-o', 'wide']),
    );
    const tags = (await (await fetch(`http://${host.replace('localhost', '127.0.0.1')}/v2/${run}/app/tags/list`)).json()) as { tags: string[] };
    expect(tags.tags).toEqual(['1', '2']);
  });

  it('serves docker pull once the pushed names are gone from the local store', async () => {
    const expected = await imageId(busyboxImage);
    for (const tag of ['1', '2']) await docker('rmi', image(tag));
    const pulled = await dockerOk('pull', image('1'));
    expect(pulled).toContain(`Status: Downloaded newer image for ${image('1')}`);
    expect(await imageId(image('1'))).toBe(expected);
  });

  it('lists repositories with tags and sizes, and deletes, through the API server for the UI', async () => {
    const summary = await cluster.request('GET', '/registry/v2/_kubedesk/repositories');
    expect(summary.status).toBe(200);
    const repositories = (JSON.parse(summary.body) as { repositories: { name: string; tags: { tag: string; digest: string; size: number }[] }[] }).repositories;
    const app = repositories.find((entry) => entry.name === `${run}/app`);
    expect(app?.tags.map((tag) => tag.tag)).toEqual(['1', '2']);
    expect(app?.tags[0].size).toBeGreaterThan(1_000_000);
    const removed = await cluster.request('DELETE', `/registry/v2/${run}/app/manifests/2`);
    expect(removed.status).toBe(202);
    const tags = await cluster.request('GET', `/registry/v2/${run}/app/tags/list`);
    expect(JSON.parse(tags.body)).toEqual({ name: `${run}/app`, tags: ['1'] });
  });

  it('stores a helm chart with helm push and installs it from oci://', async () => {
    const chart = join(cluster.root, 'regchart');
    await helmOk('create', chart);
    const packaged = await helmOk('package', chart, '-d', cluster.root);
    expect(packaged).toContain('regchart-0.1.0.tgz');
    const pushed = await helmOk('push', join(cluster.root, 'regchart-0.1.0.tgz'), `oci://${host}/${run}/charts`, '--plain-http');
    expect(pushed).toContain(`Pushed: ${host}/${run}/charts/regchart:0.1.0`);
    const installed = await helmOk(
      'install', 'fromoci', `oci://${host}/${run}/charts/regchart`, '--version', '0.1.0', '--plain-http', '-n', namespace,
      '--set', `image.repository=${host}/${run}/app`, '--set', 'image.tag=1',
    );
    expect(installed).toMatch(/^STATUS: deployed$/m);
    expect(await ok('get', 'deployment', 'fromoci-regchart', '-n', namespace, '-o', 'jsonpath={.spec.template.spec.containers[0].image}')).toBe(image('1'));
  });
});
