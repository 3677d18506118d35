// DaemonSets on a three-node cluster with the real kubectl: one pod per node, bound
// through node affinity; a tainted node is skipped unless the template tolerates the taint (a new
// NoSchedule taint leaves running daemon pods alone, an untolerated NoExecute taint removes them, as
// upstream NodeShouldRunDaemonPod); a template change rolls out with `kubectl rollout status` returning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

const nodeNames = ['kubedesk', 'kubedesk-m02', 'kubedesk-m03'];
const tainted = 'kubedesk-m03';

beforeAll(async () => {
  cluster = await startCluster({ nodes: 3 });
  await until('three Ready nodes', async () => {
    const reply = await cluster.request('GET', '/api/v1/nodes');
    if (reply.status !== 200) return undefined;
    const nodes = (JSON.parse(reply.body) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] }).items;
    return nodes.length === 3 && nodes.every((node) => node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')) ? true : undefined;
  }, 90_000, 300);
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args, undefined, 150_000);

interface PodObject {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; tolerations?: { key?: string; effect?: string }[] };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}

async function podsOf(app: string): Promise<PodObject[]> {
  const reply = await cluster.request('GET', `/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`);
  return reply.status === 200 ? (JSON.parse(reply.body) as { items: PodObject[] }).items : [];
}

function isReady(pod: PodObject): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

/** Waits until the app's live pods run Ready on exactly these nodes. */
async function readyOn(app: string, nodes: string[]): Promise<PodObject[]> {
  const wanted = [...nodes].sort().join();
  return until(`${app} Ready on ${wanted}`, async () => {
    const pods = (await podsOf(app)).filter((pod) => !pod.metadata.deletionTimestamp);
    const placed = pods.map((pod) => pod.spec.nodeName ?? '').sort().join();
    return placed === wanted && pods.every(isReady) && (await podsOf(app)).length === nodes.length ? pods : undefined;
  }, 90_000, 300);
}

function daemonSet(name: string, tolerations = ''): string {
  return `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      terminationGracePeriodSeconds: 1${tolerations}
      containers:
      - name: agent
        image: ${busyboxImage}
        imagePullPolicy: IfNotPresent
        command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]
`;
}

const tolerateDedicated = `
      tolerations:
      - key: dedicated
        operator: Exists`;

const apply = (manifest: string) => kubectlOk(cluster, ['apply', '-f', '-'], manifest);

async function status(name: string): Promise<Record<string, number>> {
  return (JSON.parse(await ok('get', 'daemonset', name, '-o', 'json')) as { status: Record<string, number> }).status;
}

describe('DaemonSets', () => {
  it('runs one pod on every node, with the daemon tolerations, and rollout status returns', async () => {
    await apply(daemonSet('plain'));
    const pods = await readyOn('plain', nodeNames);
    const keys = (pods[0].spec.tolerations ?? []).map((toleration) => `${toleration.key ?? ''}:${toleration.effect ?? ''}`);
    expect(keys).toEqual(expect.arrayContaining(['node.kubernetes.io/not-ready:NoExecute', 'node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unschedulable:NoSchedule', 'node.kubernetes.io/disk-pressure:NoSchedule']));
    expect(await ok('rollout', 'status', 'daemonset/plain', '--timeout=60s')).toContain('daemon set "plain" successfully rolled out');
    const table = await ok('get', 'daemonset', 'plain', '--no-headers');
    expect(table).toMatch(/^plain\s+3\s+3\s+3\s+3\s+3\s+<none>\s/);
  });

  it('skips a node tainted NoSchedule unless the template tolerates the taint', async () => {
    await ok('taint', 'node', tainted, 'dedicated=db:NoSchedule');
    await apply(daemonSet('picky'));
    await apply(daemonSet('tolerant', tolerateDedicated));
    await readyOn('picky', nodeNames.filter((name) => name !== tainted));
    await readyOn('tolerant', nodeNames);
    await until('picky status', async () => {
      const current = await status('picky');
      return current.desiredNumberScheduled === 2 && current.numberReady === 2 ? true : undefined;
    }, 90_000, 300);
    // A daemon pod already running on the node stays: NoSchedule does not evict (upstream shouldContinueRunning).
    expect((await podsOf('plain')).map((pod) => pod.spec.nodeName).sort()).toEqual([...nodeNames].sort());
    await until('plain counted as misscheduled', async () => ((await status('plain')).numberMisscheduled === 1 ? true : undefined), 90_000, 300);
  });

  it('removes untolerated daemon pods from a node tainted NoExecute, keeping tolerated ones', async () => {
    await ok('taint', 'node', tainted, 'dedicated=db:NoExecute');
    await readyOn('plain', nodeNames.filter((name) => name !== tainted));
    await readyOn('tolerant', nodeNames);
    const describe = await ok('describe', 'daemonset', 'plain');
    expect(describe).toMatch(/Normal\s+SuccessfulDelete\s+.*daemonset-controller\s+Deleted pod: plain-/);
    await ok('taint', 'node', tainted, 'dedicated-');
    await readyOn('plain', nodeNames);
    await readyOn('picky', nodeNames);
  });

  it('rolls a template change out node by node, and rollout status returns', async () => {
    const before = new Set((await podsOf('tolerant')).map((pod) => pod.metadata.name));
    await ok('set', 'env', 'daemonset/tolerant', 'ROUND=2');
    expect(await ok('rollout', 'status', 'daemonset/tolerant', '--timeout=120s')).toContain('daemon set "tolerant" successfully rolled out');
    const after = await readyOn('tolerant', nodeNames);
    expect(after.some((pod) => before.has(pod.metadata.name))).toBe(false);
    const history = await ok('rollout', 'history', 'daemonset/tolerant');
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const current = await status('tolerant');
    expect(current).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, numberReady: 3, numberMisscheduled: 0 });
  });
});
