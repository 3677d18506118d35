// Deployments on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`:
// `create deployment` and `rollout status`, scaling, `set image`/`set env` rolling out
// through a new ReplicaSet, `rollout history|undo|restart|pause|resume`, Recreate removing the old
// pods before creating new ones (seen through `kubectl get pods -w`), the progress deadline of a
// crash-looping template, and Deployments with overlapping selectors that do not fight. Expected
// texts are upstream's (deployment-controller events, kubectl's rollout messages), so a real
// cluster would pass the same assertions.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { toolPaths } from '../support/tools';
import { kubectlOk, kubectlState, until as poll } from '../support/wait';

const run = promisify(execFile);
/** A second tag of the test image, so `set image` has a real change to roll out without a registry. */
const secondImage = 'kubedesk-test/busybox:deployments-v2';

let cluster: TestCluster;

beforeAll(async () => {
  await run('docker', ['tag', busyboxImage, secondImage]);
  cluster = await startCluster();
});

afterAll(async () => {
  await cluster?.destroy();
  await run('docker', ['rmi', secondImage]).catch(() => undefined);
});

const ok = (...args: string[]) => kubectlOk(cluster, args);

const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

// A timed-out wait also prints the deployments, replica sets and pods, to show where a rollout stuck.
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000, intervalMs = 500): Promise<T> {
  return poll(what, probe, timeoutMs, intervalMs, kubectlState(cluster, ['get', 'deploy,rs,pods', '-o', 'wide']));
}

interface ReplicaSet {
  metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { name: string; uid: string }[] };
  spec: { replicas: number; selector: { matchLabels?: Record<string, string> }; template: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: { image: string; env?: { name: string; value: string }[] }[] } } };
  status?: { replicas?: number; availableReplicas?: number };
}

interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status: { phase?: string };
}

interface Deployment {
  metadata: { uid: string; annotations?: Record<string, string>; generation: number };
  spec: { template: { spec: { containers: { image: string; env?: { name: string; value: string }[] }[] } } };
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[]; observedGeneration?: number };
}

async function replicaSetsOf(deployment: string): Promise<ReplicaSet[]> {
  const { metadata } = JSON.parse(await ok('get', 'deployment', deployment, '-o', 'json')) as Deployment;
  const list = JSON.parse(await ok('get', 'rs', '-o', 'json')) as { items: ReplicaSet[] };
  return list.items.filter((rs) => rs.metadata.ownerReferences?.some((owner) => owner.uid === metadata.uid));
}

async function deploymentOf(name: string): Promise<Deployment> {
  return JSON.parse(await ok('get', 'deployment', name, '-o', 'json')) as Deployment;
}

async function livePods(selector: string): Promise<Pod[]> {
  const list = JSON.parse(await ok('get', 'pods', '-l', selector, '-o', 'json')) as { items: Pod[] };
  return list.items.filter((pod) => !pod.metadata.deletionTimestamp && pod.status.phase !== 'Succeeded' && pod.status.phase !== 'Failed');
}

async function rolloutStatus(name: string): Promise<string> {
  const output = await ok('rollout', 'status', `deployment/${name}`, '--timeout=120s');
  expect(output).toContain(`deployment "${name}" successfully rolled out`);
  return output;
}

async function deploymentEvents(name: string): Promise<string[]> {
  const list = JSON.parse(await ok('get', 'events', '--field-selector', `involvedObject.kind=Deployment,involvedObject.name=${name}`, '-o', 'json')) as { items: { type: string; reason: string; message: string; source?: { component?: string } }[] };
  return list.items.map((event) => `${event.type} ${event.reason} ${event.source?.component ?? ''} ${event.message}`);
}

function sizes(replicaSets: ReplicaSet[]): number[] {
  return replicaSets.map((rs) => rs.spec.replicas).sort((a, b) => a - b);
}

const hashPattern = /^[4-9bcdf]+$/;

describe('a Deployment on Docker', () => {
  it('creates a ReplicaSet named after its template hash and reports the rollout finished', async () => {
    await ok('create', 'deployment', 'web', `--image=${busyboxImage}`, '--replicas=3', '--', 'httpd', '-f', '-p', '8080');
    await rolloutStatus('web');
    const [rs] = await replicaSetsOf('web');
    const hash = rs.metadata.labels?.['pod-template-hash'] ?? '';
    expect(hash).toMatch(hashPattern);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    const pods = await livePods('app=web');
    expect(pods).toHaveLength(3);
    for (const pod of pods) expect(pod.metadata.labels?.['pod-template-hash']).toBe(hash);
    const deployment = await deploymentOf('web');
    expect(deployment.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(deployment.status?.conditions?.map((c) => `${c.type} ${c.status} ${c.reason}`).sort()).toEqual(['Available True MinimumReplicasAvailable', 'Progressing True NewReplicaSetAvailable']);
    expect(await deploymentEvents('web')).toContain(`Normal ScalingReplicaSet deployment-controller Scaled up replica set ${rs.metadata.name} from 0 to 3`);
    const table = await ok('get', 'deployment', 'web');
    expect(table).toMatch(/^web\s+3\/3\s+3\s+3\s+/m);
  });

  it('scales from 3 to 5 and down to 2', async () => {
    await ok('scale', 'deployment', 'web', '--replicas=5');
    await rolloutStatus('web');
    await until('5 pods', async () => ((await livePods('app=web')).length === 5 ? true : undefined));
    await ok('scale', 'deployment/web', '--replicas=2');
    await rolloutStatus('web');
    await until('2 pods', async () => ((await livePods('app=web')).length === 2 ? true : undefined));
    const [rs] = await replicaSetsOf('web');
    const events = await deploymentEvents('web');
    expect(events).toContain(`Normal ScalingReplicaSet deployment-controller Scaled up replica set ${rs.metadata.name} from 3 to 5`);
    expect(events).toContain(`Normal ScalingReplicaSet deployment-controller Scaled down replica set ${rs.metadata.name} from 5 to 2`);
  });

  it('rolls out set image and set env through new ReplicaSets, leaving the old ones at 0', async () => {
    await ok('set', 'image', 'deployment/web', `busybox=${secondImage}`);
    await ok('annotate', 'deployment/web', 'kubernetes.io/change-cause=image v2');
    await rolloutStatus('web');
    let replicaSets = await replicaSetsOf('web');
    expect(replicaSets).toHaveLength(2);
    expect(sizes(replicaSets)).toEqual([0, 2]);
    const newHash = replicaSets.find((rs) => rs.spec.replicas === 2)?.metadata.labels?.['pod-template-hash'];
    expect((await livePods('app=web')).map((pod) => pod.metadata.labels?.['pod-template-hash'])).toEqual([newHash, newHash]);
    await ok('set', 'env', 'deployment/web', 'GREETING=hello');
    await ok('annotate', '--overwrite', 'deployment/web', 'kubernetes.io/change-cause=env greeting');
    await rolloutStatus('web');
    replicaSets = await replicaSetsOf('web');
    expect(sizes(replicaSets)).toEqual([0, 0, 2]);
    const current = replicaSets.find((rs) => rs.spec.replicas === 2);
    expect(current?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(current?.spec.template.spec.containers[0].env).toEqual([{ name: 'GREETING', value: 'hello' }]);
  });

  it('lists the revisions with their change causes in rollout history', async () => {
    const history = await ok('rollout', 'history', 'deployment/web');
    expect(history).toContain('deployment.apps/web');
    expect(history).toMatch(/^REVISION\s+CHANGE-CAUSE$/m);
    expect(history).toMatch(/^1\s+<none>$/m);
    expect(history).toMatch(/^2\s+image v2$/m);
    expect(history).toMatch(/^3\s+env greeting$/m);
    const detail = await ok('rollout', 'history', 'deployment/web', '--revision=2');
    expect(detail).toContain(secondImage);
  });

  it('undoes to the previous revision and to a chosen one, scaling the old ReplicaSet back up', async () => {
    const before = await replicaSetsOf('web');
    const revisionTwo = before.find((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'] === '2') as ReplicaSet;
    expect(await ok('rollout', 'undo', 'deployment/web')).toContain('deployment.apps/web rolled back');
    await rolloutStatus('web');
    let deployment = await deploymentOf('web');
    expect(deployment.spec.template.spec.containers[0].image).toBe(secondImage);
    expect(deployment.spec.template.spec.containers[0].env).toBeUndefined();
    let replicaSets = await replicaSetsOf('web');
    expect(replicaSets).toHaveLength(3);
    const restored = replicaSets.find((rs) => rs.metadata.uid === revisionTwo.metadata.uid) as ReplicaSet;
    expect(restored.spec.replicas).toBe(2);
    expect(restored.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '4', 'deployment.kubernetes.io/revision-history': '2' });

    await ok('rollout', 'undo', 'deployment/web', '--to-revision=1');
    await rolloutStatus('web');
    deployment = await deploymentOf('web');
    expect(deployment.spec.template.spec.containers[0].image).toBe(busyboxImage);
    expect(deployment.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('5');
    replicaSets = await replicaSetsOf('web');
    expect(replicaSets.find((rs) => rs.spec.replicas === 2)?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('5');
  });

  it('restarts through a new ReplicaSet with the restartedAt template annotation', async () => {
    const before = new Set((await replicaSetsOf('web')).map((rs) => rs.metadata.uid));
    await ok('rollout', 'restart', 'deployment/web');
    await rolloutStatus('web');
    const created = (await replicaSetsOf('web')).filter((rs) => !before.has(rs.metadata.uid));
    expect(created).toHaveLength(1);
    expect(created[0].spec.replicas).toBe(2);
    expect(created[0].spec.template.metadata?.labels?.['pod-template-hash']).toBe(created[0].metadata.labels?.['pod-template-hash']);
    expect(created[0].spec.template.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('makes no rollout progress while paused and finishes it after resume', async () => {
    await ok('rollout', 'pause', 'deployment/web');
    const before = (await replicaSetsOf('web')).length;
    await ok('set', 'env', 'deployment/web', 'PAUSED=yes');
    const paused = await until('the DeploymentPaused condition', async () => {
      const deployment = await deploymentOf('web');
      const progressing = deployment.status?.conditions?.find((c) => c.type === 'Progressing');
      return progressing?.reason === 'DeploymentPaused' && (deployment.status?.observedGeneration ?? 0) >= deployment.metadata.generation ? progressing : undefined;
    });
    expect(paused).toMatchObject({ status: 'Unknown', message: 'Deployment is paused' });
    expect(await replicaSetsOf('web')).toHaveLength(before);
    await ok('rollout', 'resume', 'deployment/web');
    await rolloutStatus('web');
    expect(await replicaSetsOf('web')).toHaveLength(before + 1);
  });

  it('with Recreate, removes every old pod before the first new one is created', async () => {
    const manifest = (value: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'rec' },
      spec: {
        replicas: 2,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { app: 'rec' } },
        template: {
          metadata: { labels: { app: 'rec' } },
          spec: { terminationGracePeriodSeconds: 3, containers: [{ name: 'app', image: busyboxImage, command: ['sh', '-c', 'trap "sleep 1; exit 0" TERM; sleep 3600 & wait'], env: [{ name: 'VERSION', value }] }] },
        },
      },
    });
    await apply(manifest('1'));
    await rolloutStatus('rec');
    const oldHash = (await replicaSetsOf('rec'))[0].metadata.labels?.['pod-template-hash'];
    const watch = watchPods('app=rec');
    try {
      await watch.started;
      await apply(manifest('2'));
      await rolloutStatus('rec');
      await until('the watch to see the new pods', async () => (watch.events.filter((event) => event.type === 'ADDED' && event.hash !== oldHash).length >= 2 ? true : undefined), 20_000);
    } finally {
      watch.stop();
    }
    const alive = new Set<string>();
    let oldRemoved = 0;
    let newSeen = false;
    for (const event of watch.events) {
      if (event.hash === oldHash) {
        if (event.type === 'DELETED') {
          alive.delete(event.name);
          oldRemoved++;
        } else alive.add(event.name);
      } else if (event.type === 'ADDED' && !newSeen) {
        newSeen = true;
        expect(alive, `new pod ${event.name} appeared while old pods ran`).toEqual(new Set());
      }
    }
    expect(oldRemoved).toBe(2);
    expect(newSeen).toBe(true);
  });

  it('reports ProgressDeadlineExceeded for a crash-looping template, failing rollout status', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'crash' },
      spec: {
        replicas: 1,
        progressDeadlineSeconds: 10,
        // The container may count as running for an instant before it exits; a pod must stay ready
        // this long to be available, which a crash loop never does.
        minReadySeconds: 5,
        selector: { matchLabels: { app: 'crash' } },
        template: { metadata: { labels: { app: 'crash' } }, spec: { containers: [{ name: 'app', image: busyboxImage, command: ['sh', '-c', 'sleep 1; exit 1'] }] } },
      },
    });
    const result = await cluster.kubectl(['rollout', 'status', 'deployment/crash', '--timeout=90s']);
    expect(result.code, result.stdout + result.stderr).not.toBe(0);
    expect(result.stderr).toContain('error: deployment "crash" exceeded its progress deadline');
    const progressing = (await deploymentOf('crash')).status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded', message: expect.stringMatching(/^ReplicaSet "crash-[4-9bcdf]+" has timed out progressing\.$/) });
    const available = (await deploymentOf('crash')).status?.conditions?.find((c) => c.type === 'Available');
    expect(available).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
  });

  it('lets two Deployments with overlapping selectors keep their own ReplicaSets without fighting', async () => {
    const manifest = (name: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'shared' } },
        template: { metadata: { labels: { app: 'shared' } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image: busyboxImage, command: ['sh', '-c', 'trap "exit 0" TERM; sleep 3600 & wait'], env: [{ name: 'OWNER', value: name }] }] } },
      },
    });
    await apply(manifest('left'));
    await apply(manifest('right'));
    await rolloutStatus('left');
    await rolloutStatus('right');
    const snapshot = async () => (await Promise.all(['left', 'right'].map((name) => replicaSetsOf(name)))).map((list) => list.map((rs) => `${rs.metadata.name}@${rs.metadata.resourceVersion}:${rs.spec.replicas}`));
    const first = await snapshot();
    expect(first.map((list) => list.length)).toEqual([1, 1]);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await snapshot()).toEqual(first);
    expect(await livePods('app=shared')).toHaveLength(4);
  });
});

interface PodWatchEvent {
  type: string;
  name: string;
  hash: string | undefined;
}

/** `kubectl get pods -w --output-watch-events -o json`, parsed into events as they stream. */
function watchPods(selector: string): { events: PodWatchEvent[]; started: Promise<void>; stop(): void } {
  const child = spawn(toolPaths().kubectl, ['--kubeconfig', cluster.kubeconfig, 'get', 'pods', '-l', selector, '-w', '--output-watch-events', '-o', 'json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const events: PodWatchEvent[] = [];
  let buffer = '';
  let resolveStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (;;) {
      const end = endOfFirstJsonObject(buffer);
      if (end < 0) break;
      const event = JSON.parse(buffer.slice(0, end)) as { type: string; object: { metadata: { name: string; labels?: Record<string, string> } } };
      buffer = buffer.slice(end);
      events.push({ type: event.type, name: event.object.metadata.name, hash: event.object.metadata.labels?.['pod-template-hash'] });
      resolveStarted();
    }
  });
  return { events, started, stop: () => child.kill() };
}

/** The end offset of the first complete JSON object in text, or -1. */
function endOfFirstJsonObject(text: string): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let began = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{') {
      depth++;
      began = true;
    } else if (char === '}') {
      depth--;
      if (began && depth === 0) return i + 1;
    }
  }
  return -1;
}
