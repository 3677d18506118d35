// The object history end to end against a real `kubedesk serve`, real kubectl and helm, pods on
// real Docker: a Deployment created with kubectl apply, scaled, given a new image with kubectl set
// image and then taken over by helm upgrade shows each revision with its operation, user and
// manager; --diff shows the image change; restoring the first revision rolls the pods back.
// A deleted ConfigMap and Deployment are listed as deleted and undeleted, and the Deployment's
// pods run again. A ServiceAccount bound to `view` reads a Deployment's history through the
// discoverable history.kubedesk.dev API but never a Secret value. `kubedesk get --as-of` prints a
// namespace as it was before objects were deleted and created, in `kubectl get`'s columns.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, startCluster, type CommandResult, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { repositoryRoot } from '../support/tools';
import { kubectlOk, kubectlState, until } from '../support/wait';

const run = promisify(execFile);
const cli = join(repositoryRoot, 'bin', 'kubedesk.mjs');
/** A second tag of the test image, so `set image` rolls out a real change without a registry. */
const secondImage = 'kubedesk-test/busybox:history-v2';
const namespace = 'hist';

let cluster: TestCluster;

const deployment = (name: string, image: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: app
          image: ${image}
          imagePullPolicy: IfNotPresent
          command: ['sleep', '3600']
`;

beforeAll(async () => {
  await run('docker', ['tag', busyboxImage, secondImage]);
  cluster = await startCluster();
  await kubectlOk(cluster, ['create', 'namespace', namespace]);
}, 180_000);

afterAll(async () => {
  await cluster?.destroy();
  await run('docker', ['rmi', secondImage]).catch(() => undefined);
});

function kubedesk(args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, [cli, ...args], { env: { KUBECONFIG: cluster.kubeconfig }, timeoutMs: 60_000 });
}

async function kubedeskOk(args: string[]): Promise<string> {
  const result = await kubedesk(args);
  if (result.code !== 0) throw new Error(`kubedesk ${args.join(' ')} failed (${String(result.code)}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** The table's rows as cells: columns are separated by at least three spaces. */
function rows(table: string): string[][] {
  return table.trim().split('\n').slice(1).map((line) => line.split(/ {3,}/));
}

async function podImages(app: string): Promise<string> {
  return kubectlOk(cluster, ['get', 'pods', '-n', namespace, '-l', `app=${app}`, '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{" "}{.status.phase}{"\\n"}{end}']);
}

describe('kubedesk history', () => {
  it('shows apply, scale, set image and helm upgrade as revisions with operation, user and manager; diffs and restores the first revision', async () => {
    const user = (await kubectlOk(cluster, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim();
    await kubectlOk(cluster, ['apply', '-f', '-'], deployment('web', busyboxImage));
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'deployment/web', '--timeout=120s'], undefined, 150_000);
    await kubectlOk(cluster, ['scale', '-n', namespace, 'deployment/web', '--replicas=2']);
    await kubectlOk(cluster, ['set', 'image', '-n', namespace, 'deployment/web', `app=${secondImage}`]);
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'deployment/web', '--timeout=120s'], undefined, 150_000);

    // helm takes the Deployment over (adoption needs its ownership marks) and upgrades it
    await kubectlOk(cluster, ['label', '-n', namespace, 'deployment/web', 'app.kubernetes.io/managed-by=Helm']);
    await kubectlOk(cluster, ['annotate', '-n', namespace, 'deployment/web', 'meta.helm.sh/release-name=web', `meta.helm.sh/release-namespace=${namespace}`]);
    const chart = join(cluster.root, 'webchart');
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: webchart\nversion: 0.1.0\n');
    writeFileSync(join(chart, 'templates', 'deployment.yaml'), deployment('web', secondImage).replace('replicas: 1', 'replicas: 3'));
    // kubectl scale owns spec.replicas: helm 4's server-side apply must force, as on any cluster
    const helm = await cluster.helm(['upgrade', '--install', 'web', chart, '-n', namespace, '--force-conflicts'], { timeoutMs: 120_000 });
    expect(helm.code, helm.stderr).toBe(0);

    const table = await kubedeskOk(['history', 'deployment/web', '-n', namespace]);
    expect(table.split('\n')[0]).toMatch(/^REVISION\s+AGE\s+OPERATION\s+BY\s+CHANGES$/);
    const writes = rows(table).filter((cells) => !cells[3].startsWith('system:'));
    const [created, scaled, imaged] = [
      writes.find((cells) => cells[2] === 'CREATE'),
      writes.find((cells) => cells[2].includes('(scale)')),
      writes.find((cells) => cells[4]?.includes(`image: ${busyboxImage}→${secondImage}`)),
    ];
    expect(created).toEqual(['1', expect.any(String), 'CREATE', `${user} (kubectl-client-side-apply)`, 'created']);
    // kubectl scale names no field manager: the User-Agent's prefix is the manager, as in managedFields
    expect(scaled?.[3]).toBe(`${user} (kubectl)`);
    expect(scaled?.[4]).toContain('spec.replicas: 1→2');
    expect(imaged?.[2]).toBe('PATCH');
    expect(imaged?.[3]).toBe(`${user} (kubectl-set)`);
    const helmRow = writes.find((cells) => cells[2] === 'APPLY');
    expect(helmRow?.[3]).toBe(`${user} (helm)`);
    expect(helmRow?.[4]).toContain('spec.replicas: 2→3');
    // the controllers' status writes are revisions too, by their own users
    expect(rows(table).some((cells) => cells[2] === 'UPDATE (status)' && cells[3].startsWith('system:serviceaccount:kube-system:deployment-controller'))).toBe(true);

    const imageRevision = Number(imaged?.[0]);
    const diff = await kubedeskOk(['history', 'deploy/web', '-n', namespace, '--diff', `${imageRevision - 1}..${imageRevision}`]);
    expect(diff).toContain(`--- deploy/web revision ${imageRevision - 1}`);
    expect(diff).toMatch(new RegExp(`^-\\s+image: ${busyboxImage}$`, 'm'));
    expect(diff).toMatch(new RegExp(`^\\+\\s+image: ${secondImage}$`, 'm'));

    const first = await kubedeskOk(['history', 'deploy/web', '-n', namespace, '--revision', '1', '-o', 'json']);
    expect(JSON.parse(first)).toMatchObject({ kind: 'Deployment', spec: { replicas: 1 } });

    expect(await kubedeskOk(['history', 'restore', 'deploy/web', '-n', namespace, '--revision', '1'])).toBe('deployment.apps/web restored to revision 1\n');
    expect(await kubectlOk(cluster, ['get', 'deploy', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}'])).toBe(`1 ${busyboxImage}`);
    await until(
      'the pods to roll back to the first image',
      async () => ((await podImages('web')).trim() === `${busyboxImage} Running` ? true : undefined),
      150_000,
      1000,
      kubectlState(cluster, ['get', 'pods', '-n', namespace, '-o', 'wide']),
    );
    const restored = rows(await kubedeskOk(['history', 'deploy/web', '-n', namespace])).find((cells) => cells[3].endsWith('(kubedesk-history)'));
    expect(restored?.[2]).toBe('UPDATE');
    expect(restored?.[4]).toMatch(new RegExp(`^spec\\.replicas: 3→1, image: ${secondImage}→${busyboxImage}`));
  }, 600_000);

  it('reports an object without history as not found, exit 1', async () => {
    const result = await kubedesk(['history', 'restore', 'deploy/nope', '-n', namespace, '--revision', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`Error from server (NotFound): no history of deploy/nope in ${namespace} namespace\n`);
  });

  it('lists a deleted ConfigMap and Deployment and undeletes them: kubectl sees them and the pods run again', async () => {
    await kubectlOk(cluster, ['create', 'configmap', 'settings', '-n', namespace, '--from-literal=color=blue']);
    await kubectlOk(cluster, ['apply', '-f', '-'], deployment('api', busyboxImage));
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'deployment/api', '--timeout=120s'], undefined, 150_000);
    await kubectlOk(cluster, ['delete', 'configmap', 'settings', '-n', namespace]);
    await kubectlOk(cluster, ['delete', 'deployment', 'api', '-n', namespace, '--wait=true'], undefined, 120_000);
    await until('the deleted Deployment\'s pods to go', async () => ((await podImages('api')).trim() === '' ? true : undefined), 120_000, 1000);

    const deleted = await kubedeskOk(['history', '--deleted', '-n', namespace]);
    const names = rows(deleted).map((cells) => cells[0]);
    expect(names).toContain('configmap/settings');
    expect(names).toContain('deployment.apps/api');
    const everywhere = await kubedeskOk(['history', '--deleted', '-A']);
    expect(everywhere.split('\n')[0]).toMatch(/^NAMESPACE\s+NAME\s+DELETED\s+BY\s+LAST REVISION$/);

    expect(await kubedeskOk(['history', 'restore', 'cm/settings', '-n', namespace])).toMatch(/^configmap\/settings undeleted from revision \d+\n$/);
    expect(await kubedeskOk(['history', 'restore', 'deployment/api', '-n', namespace])).toMatch(/^deployment\.apps\/api undeleted from revision \d+\n$/);
    expect(await kubectlOk(cluster, ['get', 'configmap', 'settings', '-n', namespace, '-o', 'jsonpath={.data.color}'])).toBe('blue');
    await kubectlOk(cluster, ['rollout', 'status', '-n', namespace, 'deployment/api', '--timeout=120s'], undefined, 150_000);
    await until('the undeleted Deployment\'s pod to run', async () => ((await podImages('api')).trim() === `${busyboxImage} Running` ? true : undefined), 120_000, 1000);
    const after = rows(await kubedeskOk(['history', '--deleted', '-n', namespace])).map((cells) => cells[0]);
    expect(after).not.toContain('configmap/settings');
    expect(after).not.toContain('deployment.apps/api');
  }, 600_000);

  it('prints the change feed filtered by kind and by user, with the impersonating user', async () => {
    const admin = (await kubectlOk(cluster, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).trim();
    await kubectlOk(cluster, ['create', 'configmap', 'impersonated', '-n', namespace, '--from-literal=a=1', '--as=alice', '--as-group=system:masters']);
    const byAlice = await kubedeskOk(['changes', '-n', namespace, '--user', 'alice']);
    expect(byAlice.split('\n')[0]).toMatch(/^AGE\s+OBJECT\s+OPERATION\s+BY\s+CHANGES$/);
    expect(rows(byAlice)).toEqual([[expect.any(String), 'configmap/impersonated', 'CREATE', `${admin} as alice (kubectl-create)`, 'created']]);
    const configMaps = rows(await kubedeskOk(['changes', '-n', namespace, '--kind', 'cm', '--since', '1h']));
    expect(configMaps.every((cells) => cells[1].startsWith('configmap/'))).toBe(true);
    expect(configMaps.filter((cells) => cells[1] === 'configmap/settings').map((cells) => cells[2])).toEqual(['CREATE', 'DELETE', 'CREATE']);
    const everywhere = await kubedeskOk(['changes', '-A', '--kind', 'namespaces']);
    expect(rows(everywhere).some((cells) => cells[1] === '<none>' && cells[2] === `namespace/${namespace}` && cells[3] === 'CREATE')).toBe(true);
  });

  it('lets a ServiceAccount bound to view read a Deployment\'s history but no Secret value', async () => {
    await kubectlOk(cluster, ['create', 'serviceaccount', 'reader', '-n', namespace]);
    await kubectlOk(cluster, ['create', 'rolebinding', 'reader-view', '-n', namespace, '--clusterrole=view', `--serviceaccount=${namespace}:reader`]);
    await kubectlOk(cluster, ['create', 'secret', 'generic', 'creds', '-n', namespace, '--from-literal=token=first-secret-value', '--from-literal=user=admin']);
    await kubectlOk(cluster, ['patch', 'secret', 'creds', '-n', namespace, '-p', JSON.stringify({ stringData: { token: 'second-secret-value' } })]);
    const token = (await kubectlOk(cluster, ['create', 'token', 'reader', '-n', namespace])).trim();
    const asReader = (args: string[]) => cluster.kubectl([...args, '--token', token]);

    const resources = await asReader(['api-resources', '--api-group=history.kubedesk.dev', '-o', 'name']);
    expect(resources.stdout.split('\n').filter(Boolean).sort()).toEqual(['deletedobjects.history.kubedesk.dev', 'pastobjects.history.kubedesk.dev', 'revisions.history.kubedesk.dev']);

    const history = await asReader(['get', '--raw', `/apis/history.kubedesk.dev/v1/namespaces/${namespace}/revisions?type=deploy&name=web`]);
    expect(history.code, history.stderr).toBe(0);
    const items = (JSON.parse(history.stdout) as { items: { revision: number; operation: string }[] }).items;
    expect(items[0]).toMatchObject({ revision: 1, operation: 'CREATE' });

    const secretHistory = await asReader(['get', '--raw', `/apis/history.kubedesk.dev/v1/namespaces/${namespace}/revisions?type=secret&name=creds`]);
    expect(secretHistory.code).not.toBe(0);
    expect(secretHistory.stderr).toContain('cannot get resource "secrets"');

    const feed = await asReader(['get', '--raw', `/apis/history.kubedesk.dev/v1/namespaces/${namespace}/revisions?type=secrets`]);
    expect(feed.code, feed.stderr).toBe(0);
    // helm's release Secrets are in the feed too; look at ours
    const secretRevisions = (JSON.parse(feed.stdout) as { items: { target: { name: string }; redacted?: boolean; changedKeys?: string[] }[] }).items.filter((item) => item.target.name === 'creds');
    expect(secretRevisions.map((item) => item.changedKeys)).toEqual([['token'], ['token', 'user']]);
    expect(secretRevisions.every((item) => item.redacted === true)).toBe(true);
    const encoded = [Buffer.from('first-secret-value').toString('base64'), Buffer.from('second-secret-value').toString('base64'), 'second-secret-value'];
    for (const value of encoded) expect(feed.stdout).not.toContain(value);

    // kubectl get prints the feed in the resource's columns
    const table = await kubectlOk(cluster, ['get', 'revisions.history.kubedesk.dev', '-n', namespace]);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+KIND\s+OPERATION\s+USER\s+MANAGER\s+TIME$/);
    expect(table).toMatch(/^creds\.2\s+Secret\s+PATCH\s+kubedesk-admin\s+kubectl-patch\s+\S+$/m);

    // the admin's kubeconfig sees the values
    const admin = await kubectlOk(cluster, ['get', '--raw', `/apis/history.kubedesk.dev/v1/namespaces/${namespace}/revisions?type=secret&name=creds`]);
    expect(admin).toContain(Buffer.from('second-secret-value').toString('base64'));
  }, 180_000);
});

describe('kubedesk get --as-of', () => {
  const pastNamespace = 'asof';
  /** every column but the last (AGE, relative to now) */
  const withoutAge = (table: string) => table.trim().split('\n').map((line) => line.split(/\s+/).slice(0, -1));

  it('prints a namespace as it was before a deletion and a creation, in kubectl get\'s columns', async () => {
    await kubectlOk(cluster, ['create', 'namespace', pastNamespace]);
    await kubectlOk(cluster, ['create', 'configmap', 'old', '-n', pastNamespace, '--from-literal=a=1']);
    await kubectlOk(cluster, ['apply', '-f', '-'], deployment('gone', busyboxImage).replaceAll(`namespace: ${namespace}`, `namespace: ${pastNamespace}`));
    await kubectlOk(cluster, ['rollout', 'status', '-n', pastNamespace, 'deployment/gone', '--timeout=120s'], undefined, 150_000);
    await until('the Deployment status to settle', async () => ((await kubectlOk(cluster, ['get', 'deploy', 'gone', '-n', pastNamespace, '-o', 'jsonpath={.status.availableReplicas}'])) === '1' ? true : undefined), 60_000, 500);
    const deploymentsThen = await kubectlOk(cluster, ['get', 'deployments', '-n', pastNamespace]);
    const configMapsThen = await kubectlOk(cluster, ['get', 'configmaps', '-n', pastNamespace]);
    const then = new Date().toISOString();
    await until('the clock to pass the chosen time', async () => (Date.now() > Date.parse(then) + 5 ? true : undefined), 1_000, 5);
    await kubectlOk(cluster, ['delete', 'configmap', 'old', '-n', pastNamespace]);
    await kubectlOk(cluster, ['delete', 'deployment', 'gone', '-n', pastNamespace]);
    await kubectlOk(cluster, ['create', 'configmap', 'new', '-n', pastNamespace, '--from-literal=b=2']);

    const deploymentsPast = await kubedeskOk(['get', 'deployments', '-n', pastNamespace, '--as-of', then]);
    expect(deploymentsPast.split('\n')[0]).toBe(deploymentsThen.split('\n')[0]);
    expect(withoutAge(deploymentsPast)).toEqual(withoutAge(deploymentsThen));
    const configMapsPast = await kubedeskOk(['get', 'cm', '-n', pastNamespace, '--as-of', then]);
    expect(withoutAge(configMapsPast)).toEqual(withoutAge(configMapsThen));
    expect(configMapsPast).not.toMatch(/^new\s/m);
    // now: the deleted ones are gone
    expect(await kubectlOk(cluster, ['get', 'deployments', '-n', pastNamespace, '-o', 'name'])).toBe('');

    const everywhere = await kubedeskOk(['get', 'configmaps', '-A', '--as-of', then]);
    const kubectlEverywhere = await kubectlOk(cluster, ['get', 'configmaps', '-A']);
    expect(everywhere.split('\n')[0].split(/\s+/)).toEqual(kubectlEverywhere.split('\n')[0].split(/\s+/));
    expect(everywhere).toMatch(new RegExp(`^${pastNamespace}\\s+old\\s+1\\s`, 'm'));
    expect(await kubedeskOk(['get', 'deploy', '-n', pastNamespace, '--as-of', then, '-o', 'name'])).toBe('deployment.apps/gone\n');

    const early = await kubedesk(['get', 'cm', '-n', pastNamespace, '--as-of', '2001-01-01T00:00:00Z']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/^Error from server \(Expired\): configmaps as of 2001-01-01T00:00:00Z cannot be reconstructed: the history starts at \S+/);
    const usage = await kubedesk(['get', 'cm']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--as-of TIME is required');
  }, 300_000);
});
