// StatefulSets with the real kubectl against one real `kubedesk serve` on Docker:
// a set of three with volumeClaimTemplates creates web-0, web-1, web-2 in order (each only once the
// previous is Ready), gives each its own PVC bound by the local-path provisioner, keeps a file written
// in web-1 across the pod's deletion and recreation, scales down from the highest ordinal, and
// `kubectl rollout status` / `rollout history` work as on a real cluster.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { toolPaths } from '../support/tools';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
});

const ok = (...args: string[]) => kubectlOk(cluster, args, undefined, 120_000);

const apply = (manifest: string) => kubectlOk(cluster, ['apply', '-f', '-'], manifest);

interface PodObject {
  metadata: { name: string; uid: string; creationTimestamp: string; labels?: Record<string, string> };
  spec: { hostname?: string; subdomain?: string; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status?: { phase?: string; conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

interface ClaimObject {
  metadata: { name: string; uid: string };
  spec: { volumeName?: string };
  status?: { phase?: string; capacity?: Record<string, string> };
}

// Polling goes through raw HTTPS: a kubectl process per probe would load the shared machine.
async function list<T>(path: string): Promise<T[]> {
  const reply = await cluster.request('GET', path);
  return reply.status === 200 ? (JSON.parse(reply.body) as { items: T[] }).items : [];
}

const webPods = () => list<PodObject>('/api/v1/namespaces/default/pods?labelSelector=app%3Dweb');
const claims = () => list<ClaimObject>('/api/v1/namespaces/default/persistentvolumeclaims');

function isReady(pod: PodObject): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True');
}

async function readyPods(count: number): Promise<PodObject[]> {
  return until(`${count} ready web pods`, async () => {
    const pods = await webPods();
    return pods.length === count && pods.every(isReady) ? pods.sort((left, right) => left.metadata.name.localeCompare(right.metadata.name)) : undefined;
  }, 120_000, 300);
}

const manifest = `
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: ${busyboxImage}
        imagePullPolicy: IfNotPresent
        command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]
        volumeMounts:
        - name: data
          mountPath: /data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 64Mi
`;

describe('StatefulSets', () => {
  it('creates web-0, web-1 and web-2 in order, each with its own bound claim', async () => {
    const watch = spawn(toolPaths().kubectl, ['--kubeconfig', cluster.kubeconfig, 'get', 'pods', '-l', 'app=web', '--watch', '--output-watch-events', '--no-headers'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString()));
    try {
      await apply(manifest);
      const pods = await readyPods(3);
      const added = watched
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .filter(([type]) => type === 'ADDED')
        .map(([, name]) => name);
      expect(added).toEqual(['web-0', 'web-1', 'web-2']);
      // OrderedReady: each pod was created only once its predecessor was Ready.
      for (let ordinal = 1; ordinal < 3; ordinal++) {
        const readySince = pods[ordinal - 1].status?.conditions?.find((condition) => condition.type === 'Ready')?.lastTransitionTime ?? '';
        expect(Date.parse(pods[ordinal].metadata.creationTimestamp)).toBeGreaterThanOrEqual(Date.parse(readySince));
      }
      expect(pods[1].metadata.labels).toMatchObject({ 'statefulset.kubernetes.io/pod-name': 'web-1', 'apps.kubernetes.io/pod-index': '1' });
      expect(pods[1].spec).toMatchObject({ hostname: 'web-1', subdomain: 'web' });
      expect(pods[1].spec.volumes?.find((volume) => volume.name === 'data')?.persistentVolumeClaim?.claimName).toBe('data-web-1');
    } finally {
      watch.kill();
    }
    const bound = await claims();
    expect(bound.map((claim) => claim.metadata.name).sort()).toEqual(['data-web-0', 'data-web-1', 'data-web-2']);
    for (const claim of bound) {
      expect(claim.status?.phase).toBe('Bound');
      expect(claim.spec.volumeName).toBe(`pvc-${claim.metadata.uid}`);
      expect(claim.status?.capacity).toEqual({ storage: '64Mi' });
    }
    const table = await ok('get', 'pvc', 'data-web-0', '--no-headers');
    expect(table).toMatch(/^data-web-0\s+Bound\s+pvc-\S+\s+64Mi\s+RWO\s/);
    const describe = await ok('describe', 'statefulset', 'web');
    expect(describe).toMatch(/Normal\s+SuccessfulCreate\s+.*statefulset-controller\s+create Pod web-0 in StatefulSet web successful/);
    expect(describe).toMatch(/Normal\s+SuccessfulCreate\s+.*statefulset-controller\s+create Claim data-web-0 Pod web-0 in StatefulSet web success/);
    expect(await ok('rollout', 'status', 'statefulset/web', '--timeout=60s')).toContain('partitioned roll out complete: 3 new pods have been updated...');
  });

  it('keeps the data of web-1 when the pod is deleted and recreated', async () => {
    await ok('exec', 'web-1', '--', 'sh', '-c', 'echo kept-by-web-1 > /data/marker');
    await ok('exec', 'web-0', '--', 'sh', '-c', 'echo web-0 > /data/marker');
    const before = (await webPods()).find((pod) => pod.metadata.name === 'web-1');
    await ok('delete', 'pod', 'web-1', '--wait=true');
    await until('a new web-1 Ready', async () => {
      const pod = (await webPods()).find((candidate) => candidate.metadata.name === 'web-1');
      return pod && pod.metadata.uid !== before?.metadata.uid && isReady(pod) ? pod : undefined;
    }, 120_000, 300);
    expect((await ok('exec', 'web-1', '--', 'cat', '/data/marker')).trim()).toBe('kept-by-web-1');
    expect((await ok('exec', 'web-0', '--', 'cat', '/data/marker')).trim()).toBe('web-0');
  });

  it('scales down from the highest ordinal first and keeps the claims', async () => {
    const watch = spawn(toolPaths().kubectl, ['--kubeconfig', cluster.kubeconfig, 'get', 'pods', '-l', 'app=web', '--watch', '--output-watch-events', '--no-headers'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString()));
    try {
      await ok('scale', 'statefulset', 'web', '--replicas=1');
      await until('one pod left', async () => ((await webPods()).map((pod) => pod.metadata.name).join() === 'web-0' ? true : undefined), 120_000, 300);
      await until('both deletions watched', async () => (watched.split('\n').filter((line) => line.startsWith('DELETED')).length >= 2 ? true : undefined), 10_000, 300);
    } finally {
      watch.kill();
    }
    const deleted = watched
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([type]) => type === 'DELETED')
      .map(([, name]) => name);
    expect(deleted).toEqual(['web-2', 'web-1']);
    expect((await claims()).map((claim) => claim.metadata.name).sort()).toEqual(['data-web-0', 'data-web-1', 'data-web-2']);
    const status = await until('status replicas 1', async () => {
      const current = JSON.parse(await ok('get', 'statefulset', 'web', '-o', 'json')) as { status: Record<string, unknown> };
      return current.status.replicas === 1 && current.status.readyReplicas === 1 ? current.status : undefined;
    }, 60_000, 300);
    expect(status.currentRevision).toBe(status.updateRevision);
  });

  it('removes the directory of a claim that is deleted (reclaim policy Delete)', async () => {
    const claim = (await claims()).find((item) => item.metadata.name === 'data-web-2');
    const directory = join(cluster.dataDir, 'volumes', claim?.spec.volumeName ?? 'missing');
    expect(existsSync(directory)).toBe(true);
    await ok('delete', 'pvc', 'data-web-2', '--wait=true');
    await until('directory removed', async () => (existsSync(directory) ? undefined : true), 20_000, 300);
  });

  it('rolls out a template change and lists it in rollout history', async () => {
    await ok('scale', 'statefulset', 'web', '--replicas=2');
    await readyPods(2);
    await ok('set', 'env', 'statefulset/web', 'ROUND=2');
    expect(await ok('rollout', 'status', 'statefulset/web', '--timeout=120s')).toContain('partitioned roll out complete: 2 new pods have been updated...');
    const history = await ok('rollout', 'history', 'statefulset/web');
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    const pods = await readyPods(2);
    const revisions = new Set(pods.map((pod) => pod.metadata.labels?.['controller-revision-hash']));
    expect(revisions.size).toBe(1);
  });
});
