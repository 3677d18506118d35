// ReplicaSets on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`:
// pods named `<rs>-<5 chars>` with controller references, `kubectl scale` up and down with
// upstream's deletion ranking (an unscheduled Pending pod goes first), replacement of deleted pods,
// adoption of matching orphans and release of relabelled pods, and the DESIRED/CURRENT/READY columns.
// Expected texts are upstream's (replicaset-controller events, kubectl's printers), so a real cluster
// would pass the same assertions. Deleting a ReplicaSet leaves its pods until the garbage collector
// exists, so the suite only destroys the cluster at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, kubectlState, until as poll } from '../support/wait';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args);

const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

// A timed-out wait also prints the replica sets and pods, to show where things stuck.
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, intervalMs = 500): Promise<T> {
  return poll(what, probe, timeoutMs, intervalMs, kubectlState(cluster, ['get', 'rs,pods', '-o', 'wide']));
}

interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string>; ownerReferences?: OwnerReference[]; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: { type: string; status: string }[] };
}

interface ReplicaSet {
  metadata: { name: string; uid: string; generation: number };
  status?: { replicas?: number; fullyLabeledReplicas?: number; readyReplicas?: number; availableReplicas?: number; observedGeneration?: number };
}

async function pods(selector: string): Promise<Pod[]> {
  const list = JSON.parse(await ok('get', 'pods', '-l', selector, '-o', 'json')) as { items: Pod[] };
  return list.items;
}

async function replicaSet(name: string): Promise<ReplicaSet> {
  return JSON.parse(await ok('get', 'rs', name, '-o', 'json')) as ReplicaSet;
}

function isReady(pod: Pod): boolean {
  return pod.status.phase === 'Running' && (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

/** Waits until exactly `count` live pods match the selector and all of them are Running and Ready. */
async function readyPods(selector: string, count: number): Promise<Pod[]> {
  return until(`${count} ready pods with ${selector}`, async () => {
    const live = (await pods(selector)).filter((pod) => !pod.metadata.deletionTimestamp);
    return live.length === count && live.every(isReady) ? live : undefined;
  });
}

/** Events of one object, as `Type Reason Message` lines. */
async function eventsOf(name: string): Promise<string[]> {
  const list = JSON.parse(await ok('get', 'events', '--field-selector', `involvedObject.kind=ReplicaSet,involvedObject.name=${name}`, '-o', 'json')) as {
    items: { type: string; reason: string; message: string; source?: { component?: string }; count?: number }[];
  };
  const lines: string[] = [];
  for (const event of list.items) for (let i = 0; i < (event.count ?? 1); i++) lines.push(`${event.type} ${event.reason} ${event.message}`);
  return lines;
}

const podTemplateSpec = {
  terminationGracePeriodSeconds: 2,
  containers: [{ name: 'app', image: busyboxImage, command: ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'] }],
};

function replicaSetManifest(name: string, replicas: number, app: string = name): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app } },
      template: { metadata: { labels: { app, tier: 'backend' } }, spec: podTemplateSpec },
    },
  };
}

function podManifest(name: string, labels: Record<string, string>, extraSpec: object = {}): object {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { ...podTemplateSpec, ...extraSpec } };
}

const generatedName = (rs: string) => new RegExp(`^${rs}-[bcdfghjklmnpqrstvwxz2456789]{5}$`);

describe('a ReplicaSet on Docker', () => {
  it('runs three pods named <rs>-xxxxx with controller references, and reports them in status and events', async () => {
    await apply(replicaSetManifest('web', 3));
    const running = await readyPods('app=web', 3);
    const rs = await replicaSet('web');
    for (const pod of running) {
      expect(pod.metadata.name).toMatch(generatedName('web'));
      expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const status = await until('status of 3 ready replicas', async () => {
      const current = (await replicaSet('web')).status;
      return current?.readyReplicas === 3 && current.availableReplicas === 3 ? current : undefined;
    });
    expect(status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: rs.metadata.generation });
    expect((await eventsOf('web')).sort()).toEqual(running.map((pod) => `Normal SuccessfulCreate Created pod: ${pod.metadata.name}`).sort());
    const described = await ok('describe', 'rs', 'web');
    expect(described).toMatch(/^Replicas:\s+3 current \/ 3 desired$/m);
    expect(described).toMatch(/^Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed$/m);
    expect(described).toMatch(new RegExp(`^\\s+Normal\\s+SuccessfulCreate\\s+.*\\s+replicaset-controller\\s+Created pod: ${running[0].metadata.name}$`, 'm'));
  });

  it('shows DESIRED, CURRENT and READY in kubectl get rs', async () => {
    const lines = (await ok('get', 'rs', 'web')).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
    expect(lines[1]).toMatch(/^web\s+3\s+3\s+3\s+\d+s$/);
    const wide = (await ok('get', 'rs', 'web', '-o', 'wide')).trimEnd().split('\n');
    expect(wide[0]).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR$/);
    expect(wide[1]).toMatch(new RegExp(`^web\\s+3\\s+3\\s+3\\s+\\d+s\\s+app\\s+${busyboxImage.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s+app=web$`));
  });

  it('deletes an unscheduled Pending pod first when it has one too many', async () => {
    // A matching orphan that no node can take: the set adopts it, has four pods, and drops the Pending one.
    await apply(podManifest('web-stuck', { app: 'web', tier: 'backend' }, { nodeSelector: { 'kubedesk.test/nowhere': 'true' } }));
    await until('the stuck pod to be deleted', async () => ((await pods('app=web')).some((pod) => pod.metadata.name === 'web-stuck') ? undefined : true));
    expect(await eventsOf('web')).toContain('Normal SuccessfulDelete Deleted pod: web-stuck');
    expect(await readyPods('app=web', 3)).toHaveLength(3);
  });

  it('scales up to five and down to one with kubectl scale', async () => {
    const before = new Set((await readyPods('app=web', 3)).map((pod) => pod.metadata.name));
    expect(await ok('scale', 'rs', 'web', '--replicas=5')).toBe('replicaset.apps/web scaled\n');
    const five = await readyPods('app=web', 5);
    expect(five.filter((pod) => !before.has(pod.metadata.name))).toHaveLength(2);
    await until('5 5 5 in kubectl get rs', async () => ((await ok('get', 'rs', 'web', '--no-headers')).match(/^web\s+5\s+5\s+5\s/) ? true : undefined));

    await ok('scale', 'rs', 'web', '--replicas=1');
    const [survivor] = await readyPods('app=web', 1);
    expect(five.map((pod) => pod.metadata.name)).toContain(survivor.metadata.name);
    const deletions = (await eventsOf('web')).filter((line) => line.startsWith('Normal SuccessfulDelete'));
    // web-stuck earlier, then four of the five
    expect(deletions).toHaveLength(5);
    const status = await until('status of 1 replica', async () => {
      const rs = await replicaSet('web');
      return rs.status?.replicas === 1 && rs.status.readyReplicas === 1 ? rs : undefined;
    });
    expect(status.status?.observedGeneration).toBe(status.metadata.generation);
  });

  it('replaces a deleted pod', async () => {
    await ok('scale', 'rs', 'web', '--replicas=2');
    const [victim] = await readyPods('app=web', 2);
    await ok('delete', 'pod', victim.metadata.name, '--wait=false');
    const after = await readyPods('app=web', 2);
    expect(after.map((pod) => pod.metadata.name)).not.toContain(victim.metadata.name);
    for (const pod of after) expect(pod.metadata.name).toMatch(generatedName('web'));
  });

  it('releases a pod relabelled out of its selector and replaces it', async () => {
    const [moved] = await readyPods('app=web', 2);
    await ok('label', 'pod', moved.metadata.name, 'app=debug', '--overwrite');
    const released = await until('the relabelled pod to lose its owner reference', async () => {
      const [pod] = await pods(`app=debug`);
      return pod && !pod.metadata.ownerReferences ? pod : undefined;
    });
    expect(released.metadata.name).toBe(moved.metadata.name);
    const replaced = await readyPods('app=web', 2);
    expect(replaced.map((pod) => pod.metadata.name)).not.toContain(moved.metadata.name);
    await ok('delete', 'pod', moved.metadata.name, '--wait=false');
  });

  it('adopts a matching orphan created before it and creates only the pod still missing', async () => {
    await apply(podManifest('lonely', { app: 'cache', tier: 'backend' }));
    await readyPods('app=cache', 1);
    await apply(replicaSetManifest('cache', 2));
    const running = await readyPods('app=cache', 2);
    const rs = await replicaSet('cache');
    const lonely = running.find((pod) => pod.metadata.name === 'lonely');
    expect(lonely?.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'cache', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    const created = running.filter((pod) => pod.metadata.name !== 'lonely');
    expect(created).toHaveLength(1);
    expect(created[0].metadata.name).toMatch(generatedName('cache'));
    expect(await eventsOf('cache')).toEqual([`Normal SuccessfulCreate Created pod: ${created[0].metadata.name}`]);
    await until('status of the adopted set', async () => ((await replicaSet('cache')).status?.readyReplicas === 2 ? true : undefined));
  });
});
