// Garbage collection on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`:
// ownerReferences written by hand (ConfigMaps and a Pod owned by a ConfigMap)
// with kubectl's default Background cascade, `--cascade=orphan` and `--cascade=foreground`
// (the owner keeps the foregroundDeletion finalizer until its blocking dependents are gone, and
// kubectl waits), a dependent of an owner that never existed, deleting a namespace with a running
// pod, and — when the Deployment controller runs — a Deployment's ReplicaSets and pods.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { backgroundKubectl } from '../support/processes';
import { kubectlOk, kubectlState, until as poll } from '../support/wait';

const run = promisify(execFile);

let cluster: TestCluster;

beforeAll(async () => {
  // GC_E2E_CLI: a private build with controllers not yet wired into main/app/cluster.ts.
  cluster = await startCluster(process.env.GC_E2E_CLI ? { cli: process.env.GC_E2E_CLI } : {});
  await until('the default service account', async () => ((await cluster.kubectl(['get', 'serviceaccount', 'default'])).code === 0 ? true : undefined), 30_000);
}, 120_000);

afterAll(async () => {
  // Retried failures are logged, not fatal: show them so a noisy collector is noticed.
  const warnings = (cluster?.logs() ?? '').split('\n').filter((line) => line.includes('garbage-collector]'));
  if (warnings.length > 0) console.log(`garbage collector warnings in the server log:\n${warnings.slice(0, 20).join('\n')}`);
  await cluster?.destroy();
}, 180_000);

const ok = (...args: string[]) => kubectlOk(cluster, args);

const apply = (manifest: object) => kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify(manifest));

// A timed-out wait also prints the objects of every namespace, to show what was not collected.
function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, intervalMs = 300): Promise<T> {
  return poll(what, probe, timeoutMs, intervalMs, kubectlState(cluster, ['get', 'all,configmaps', '-A', '-o', 'wide']));
}

interface ObjectJson {
  metadata: {
    name: string;
    uid: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; blockOwnerDeletion?: boolean }[];
  };
  status?: { phase?: string };
}

/** The object, or undefined once the API answers 404. */
async function getObject(kind: string, name: string, namespace = 'default'): Promise<ObjectJson | undefined> {
  const result = await cluster.kubectl(['get', kind, name, '-n', namespace, '-o', 'json']);
  if (result.code !== 0) {
    if (result.stderr.includes('NotFound') || result.stderr.includes('not found')) return undefined;
    throw new Error(`kubectl get ${kind} ${name} failed: ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as ObjectJson;
}

async function mustGet(kind: string, name: string, namespace = 'default'): Promise<ObjectJson> {
  const object = await getObject(kind, name, namespace);
  if (!object) throw new Error(`${kind} ${name} does not exist`);
  return object;
}

async function gone(kind: string, name: string, namespace = 'default'): Promise<true | undefined> {
  return (await getObject(kind, name, namespace)) === undefined ? true : undefined;
}

function ownerReference(owner: ObjectJson, kind: string, apiVersion = 'v1', blockOwnerDeletion?: boolean) {
  return { apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid, ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }) };
}

function configMap(name: string, extra: { ownerReferences?: object[]; finalizers?: string[]; namespace?: string } = {}) {
  const { namespace, ...metadata } = extra;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace ? { namespace } : {}), ...metadata }, data: { made: 'by the test' } };
}

function sleeperPod(name: string, extra: { ownerReferences?: object[]; namespace?: string } = {}) {
  const { namespace, ...metadata } = extra;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(namespace ? { namespace } : {}), ...metadata },
    // sleep as PID 1 ignores SIGTERM: a short grace period keeps deletions quick.
    spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'Never', command: ['sleep', '3600'] }] },
  };
}

async function waitForRunning(name: string, namespace = 'default'): Promise<ObjectJson> {
  return until(`pod ${name} to run`, async () => {
    const pod = await getObject('pod', name, namespace);
    return pod?.status?.phase === 'Running' ? pod : undefined;
  });
}

/** Docker container ids of a pod (by uid, since other clusters on this daemon reuse pod names). */
async function podContainers(uid: string): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-a', '--filter', `label=io.kubernetes.pod.uid=${uid}`, '-q'], { timeout: 30_000 });
  return stdout.split('\n').map((line) => line.trim()).filter(Boolean);
}

describe('garbage collection of hand-written ownerReferences', () => {
  it('deletes the dependents, a running pod included, when the owner is deleted with the default cascade', async () => {
    await apply(configMap('bg-owner'));
    const owner = await mustGet('configmap', 'bg-owner');
    await apply(configMap('bg-child', { ownerReferences: [ownerReference(owner, 'ConfigMap')] }));
    await apply(sleeperPod('bg-pod', { ownerReferences: [ownerReference(owner, 'ConfigMap')] }));
    const pod = await waitForRunning('bg-pod');
    expect(await podContainers(pod.metadata.uid)).not.toEqual([]);
    // Both dependents stay while their owner lives.
    expect(await mustGet('configmap', 'bg-child')).toBeTruthy();
    expect(await ok('delete', 'configmap', 'bg-owner')).toContain('configmap "bg-owner" deleted');
    await until('the dependent config map to be collected', () => gone('configmap', 'bg-child'));
    await until('the dependent pod to be collected', () => gone('pod', 'bg-pod'));
    await until("the pod's containers to leave docker ps -a", async () => ((await podContainers(pod.metadata.uid)).length === 0 ? true : undefined), 30_000);
  });

  it('leaves the dependents without the ownerReference with --cascade=orphan', async () => {
    await apply(configMap('orphan-owner'));
    await apply(configMap('orphan-other'));
    const owner = await mustGet('configmap', 'orphan-owner');
    const other = await mustGet('configmap', 'orphan-other');
    await apply(configMap('orphan-child', { ownerReferences: [ownerReference(owner, 'ConfigMap', 'v1', true), ownerReference(other, 'ConfigMap')] }));
    await apply(configMap('orphan-only-child', { ownerReferences: [ownerReference(owner, 'ConfigMap')] }));
    expect(await ok('delete', 'configmap', 'orphan-owner', '--cascade=orphan')).toContain('configmap "orphan-owner" deleted');
    expect(await getObject('configmap', 'orphan-owner')).toBeUndefined();
    const child = await mustGet('configmap', 'orphan-child');
    expect(child.metadata.ownerReferences).toEqual([ownerReference(other, 'ConfigMap')]);
    const onlyChild = await mustGet('configmap', 'orphan-only-child');
    expect(onlyChild.metadata.ownerReferences).toBeUndefined();
    // Orphans stay orphaned: nothing collects them later.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await getObject('configmap', 'orphan-only-child')).toBeDefined();
  });

  it('keeps the owner with foregroundDeletion until its blocking dependents are gone with --cascade=foreground, kubectl waiting', async () => {
    await apply(configMap('fg-owner'));
    const owner = await mustGet('configmap', 'fg-owner');
    await apply(configMap('fg-held', { ownerReferences: [ownerReference(owner, 'ConfigMap', 'v1', true)], finalizers: ['kubedesk.test/hold'] }));
    await apply(sleeperPod('fg-pod', { ownerReferences: [ownerReference(owner, 'ConfigMap', 'v1', true)] }));
    const pod = await waitForRunning('fg-pod');
    const deletion = backgroundKubectl(cluster, ['delete', 'configmap', 'fg-owner', '--cascade=foreground']);
    try {
      const held = await until('the held dependent to be marked for deletion', async () => {
        const object = await getObject('configmap', 'fg-held');
        return object?.metadata.deletionTimestamp ? object : undefined;
      });
      expect(held.metadata.finalizers).toEqual(['kubedesk.test/hold']);
      await until('the pod dependent to be gone', () => gone('pod', 'fg-pod'));
      const pending = await mustGet('configmap', 'fg-owner');
      expect(pending.metadata.deletionTimestamp).toBeTruthy();
      expect(pending.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(deletion.running()).toBe(true);
      await ok('patch', 'configmap', 'fg-held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
      expect(await deletion.exited).toBe(0);
      expect(deletion.output()).toContain('configmap "fg-owner" deleted');
      expect(await getObject('configmap', 'fg-owner')).toBeUndefined();
      expect(await getObject('configmap', 'fg-held')).toBeUndefined();
      await until("the pod's containers to leave docker ps -a", async () => ((await podContainers(pod.metadata.uid)).length === 0 ? true : undefined), 30_000);
    } finally {
      if (deletion.running()) deletion.child.kill();
    }
  });

  it('collects a dependent whose owner uid does not exist, and keeps one whose owner does', async () => {
    await apply(configMap('real-owner'));
    const owner = await mustGet('configmap', 'real-owner');
    await apply(configMap('kept', { ownerReferences: [ownerReference(owner, 'ConfigMap')] }));
    await apply(configMap('dangling', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '9a1b5b52-0000-4000-8000-000000000000' }] }));
    await apply(configMap('stale', { ownerReferences: [{ ...ownerReference(owner, 'ConfigMap'), uid: '9a1b5b52-0000-4000-8000-000000000001' }] }));
    await until('the dangling dependent to be collected', () => gone('configmap', 'dangling'));
    await until('the dependent of a replaced owner to be collected', () => gone('configmap', 'stale'));
    expect(await getObject('configmap', 'kept')).toBeDefined();
  });

  it('treats an owner in another namespace as absent', async () => {
    await ok('create', 'namespace', 'gc-elsewhere');
    await apply(configMap('far-owner', { namespace: 'gc-elsewhere' }));
    const owner = await mustGet('configmap', 'far-owner', 'gc-elsewhere');
    await apply(configMap('near-child', { ownerReferences: [ownerReference(owner, 'ConfigMap')] }));
    await until('the cross-namespace dependent to be collected', () => gone('configmap', 'near-child'));
    const events = await ok('get', 'events', '--field-selector', 'reason=OwnerRefInvalidNamespace', '-o', 'jsonpath={.items[*].message}');
    expect(events).toContain(`ownerRef [v1/ConfigMap, namespace: default, name: far-owner, uid: ${owner.metadata.uid}] does not exist in namespace "default"`);
    expect(await getObject('configmap', 'far-owner', 'gc-elsewhere')).toBeDefined();
  });
});

describe('deleting a namespace', () => {
  it('removes every object and container in it', async () => {
    await ok('create', 'namespace', 'gc-doomed');
    await until('the default service account of the namespace', async () => ((await cluster.kubectl(['get', 'serviceaccount', 'default', '-n', 'gc-doomed'])).code === 0 ? true : undefined), 30_000);
    await apply(sleeperPod('doomed-pod', { namespace: 'gc-doomed' }));
    await apply(configMap('doomed-config', { namespace: 'gc-doomed' }));
    await ok('create', 'secret', 'generic', 'doomed-secret', '-n', 'gc-doomed', '--from-literal=a=b');
    const pod = await waitForRunning('doomed-pod', 'gc-doomed');
    const started = Date.now();
    expect(await ok('delete', 'namespace', 'gc-doomed', '--timeout=120s')).toContain('namespace "gc-doomed" deleted');
    console.log(`kubectl delete namespace returned after ${Date.now() - started} ms`);
    expect(await getObject('namespace', 'gc-doomed', 'default')).toBeUndefined();
    for (const kind of ['pods', 'configmaps', 'secrets', 'serviceaccounts']) {
      const listed = JSON.parse(await ok('get', kind, '-n', 'gc-doomed', '-o', 'json')) as { items: unknown[] };
      expect({ kind, items: listed.items }).toEqual({ kind, items: [] });
    }
    await until("the pod's containers to leave docker ps -a", async () => ((await podContainers(pod.metadata.uid)).length === 0 ? true : undefined), 30_000);
  });
});

describe('cascading deletion of a Deployment', () => {
  async function deploymentControllerRuns(): Promise<boolean> {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'gc-probe' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'gc-probe' } }, template: { metadata: { labels: { app: 'gc-probe' } }, spec: { containers: [{ name: 'main', image: busyboxImage }] } } },
    });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const sets = JSON.parse(await ok('get', 'replicasets', '-l', 'app=gc-probe', '-o', 'json')) as { items: unknown[] };
      if (sets.items.length > 0) {
        await ok('delete', 'deployment', 'gc-probe');
        return true;
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await ok('delete', 'deployment', 'gc-probe');
    return false;
  }

  function deployment(name: string, replicas: number) {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'Never', command: ['sleep', '3600'] }] } },
      },
    };
  }

  async function listed(kind: string, app: string): Promise<ObjectJson[]> {
    return (JSON.parse(await ok('get', kind, '-l', `app=${app}`, '-o', 'json')) as { items: ObjectJson[] }).items;
  }

  it('removes its ReplicaSets and pods, and leaves them with --cascade=orphan', async (context) => {
    if (!(await deploymentControllerRuns())) {
      console.log('the Deployment controller is not running in this build: skipping the Deployment checks');
      context.skip();
      return;
    }
    await apply(deployment('gc-web', 2));
    const pods = await until('two running pods', async () => {
      const items = await listed('pods', 'gc-web');
      return items.length === 2 && items.every((item) => item.status?.phase === 'Running') ? items : undefined;
    }, 90_000);
    await ok('delete', 'deployment', 'gc-web');
    await until('the ReplicaSets and pods to be collected', async () => ((await listed('replicasets', 'gc-web')).length === 0 && (await listed('pods', 'gc-web')).length === 0 ? true : undefined), 60_000);
    for (const pod of pods) await until("the pods' containers to leave docker ps -a", async () => ((await podContainers(pod.metadata.uid)).length === 0 ? true : undefined), 30_000);

    await apply(deployment('gc-kept', 1));
    await until('a running pod', async () => {
      const items = await listed('pods', 'gc-kept');
      return items.length === 1 && items[0].status?.phase === 'Running' ? true : undefined;
    }, 90_000);
    await ok('delete', 'deployment', 'gc-kept', '--cascade=orphan');
    expect(await getObject('deployment', 'gc-kept')).toBeUndefined();
    const sets = await listed('replicasets', 'gc-kept');
    expect(sets).toHaveLength(1);
    expect(sets[0].metadata.ownerReferences ?? []).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const kept = await listed('pods', 'gc-kept');
    expect(kept).toHaveLength(1);
    expect(kept[0].metadata.deletionTimestamp).toBeUndefined();
    await ok('delete', 'replicaset', sets[0].metadata.name);
    await until('the orphaned pod to go with its ReplicaSet', async () => ((await listed('pods', 'gc-kept')).length === 0 ? true : undefined), 60_000);
  });

  it('returns from --cascade=foreground only once the ReplicaSet and its pods are gone', async (context) => {
    if (!(await deploymentControllerRuns())) {
      context.skip();
      return;
    }
    await apply(deployment('gc-fg', 2));
    await until('two running pods', async () => {
      const items = await listed('pods', 'gc-fg');
      return items.length === 2 && items.every((item) => item.status?.phase === 'Running') ? true : undefined;
    }, 90_000);
    // The controllers' ownerReferences block owner deletion, so the Deployment outlives its pods.
    expect(await ok('delete', 'deployment', 'gc-fg', '--cascade=foreground', '--timeout=90s')).toContain('deployment.apps "gc-fg" deleted');
    expect(await listed('replicasets', 'gc-fg')).toEqual([]);
    expect(await listed('pods', 'gc-fg')).toEqual([]);
  });
});
