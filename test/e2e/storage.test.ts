// Storage on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`: the default
// StorageClass `standard` (kubedesk.io/local-path, like kind's and k3s's local-path class), a claim
// without a class provisioned and bound to a PersistentVolume, data that outlives its pod, reclaim
// policies Delete and Retain, and a hand-made PersistentVolume bound to a claim that fits it. Expected
// texts are kubectl's printers, so a real cluster with the same class would pass the same assertions.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
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

interface KubeObject {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: { phase?: string };
}

// Polling goes through raw HTTPS: a kubectl process per probe would load the shared machine.
async function getObject(path: string): Promise<KubeObject | undefined> {
  const reply = await cluster.request('GET', path);
  return reply.status === 200 ? (JSON.parse(reply.body) as KubeObject) : undefined;
}

const claim = (name: string) => getObject(`/api/v1/namespaces/default/persistentvolumeclaims/${name}`);
const volume = (name: string) => getObject(`/api/v1/persistentvolumes/${name}`);

async function boundClaim(name: string): Promise<KubeObject> {
  return until(`claim ${name} Bound`, async () => {
    const found = await claim(name);
    return found?.status?.phase === 'Bound' ? found : undefined;
  }, 60_000, 300);
}

function claimManifest(name: string, extra = ''): string {
  return `
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 64Mi
${extra}`;
}

function podManifest(name: string, claimName: string, command: string): string {
  return `
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: ${busyboxImage}
    imagePullPolicy: IfNotPresent
    command: ["sh", "-c", ${JSON.stringify(command)}]
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: ${claimName}
`;
}

async function podSucceeded(name: string): Promise<void> {
  await until(`pod ${name} Succeeded`, async () => {
    const pod = await getObject(`/api/v1/namespaces/default/pods/${name}`);
    if (pod?.status?.phase === 'Failed') throw new Error(`pod ${name} failed: ${await ok('describe', 'pod', name)}`);
    return pod?.status?.phase === 'Succeeded' ? true : undefined;
  }, 120_000, 300);
}

/** The whitespace-separated cells of the row whose first cell is `name`. */
function row(table: string, name: string): string[] {
  const line = table.split('\n').find((candidate) => candidate.split(/\s+/)[0] === name);
  if (!line) throw new Error(`no row ${name} in:\n${table}`);
  return line.trim().split(/\s+/);
}

describe('storage', () => {
  it('serves the default StorageClass standard with the local-path provisioner', async () => {
    const table = await until('the default class', async () => {
      const output = await ok('get', 'sc');
      return output.includes('standard (default)') ? output : undefined;
    }, 60_000, 300);
    expect(table.split('\n')[0].split(/\s{2,}/)).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(table).toMatch(/^standard \(default\)\s+kubedesk\.io\/local-path\s+Delete\s+Immediate\s+false\s+\S+$/m);
    const resources = await ok('api-resources', '--api-group=storage.k8s.io');
    expect(resources).toMatch(/^storageclasses\s+sc\s+storage\.k8s\.io\/v1\s+false\s+StorageClass$/m);
    expect(await ok('api-resources')).toMatch(/^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$/m);
  });

  it('provisions and binds a claim without a class, keeps its data across pods and deletes the volume with the claim', async () => {
    await apply(claimManifest('data'));
    const bound = await boundClaim('data');
    expect(bound.spec).toMatchObject({ storageClassName: 'standard', volumeName: `pvc-${bound.metadata.uid}` });
    const volumeName = `pvc-${bound.metadata.uid}`;

    const claims = await ok('get', 'pvc', 'data');
    expect(row(claims, 'data')).toEqual(['data', 'Bound', volumeName, '64Mi', 'RWO', 'standard', '<unset>', expect.any(String)]);
    const volumes = await until('the volume Bound', async () => {
      const output = await ok('get', 'pv');
      return output.includes(volumeName) && row(output, volumeName)[4] === 'Bound' ? output : undefined;
    }, 60_000, 300);
    expect(row(volumes, volumeName)).toEqual([volumeName, '64Mi', 'RWO', 'Delete', 'Bound', 'default/data', 'standard', '<unset>', expect.any(String)]);
    const directory = join(cluster.dataDir, 'volumes', volumeName);
    expect(existsSync(directory)).toBe(true);

    await apply(podManifest('writer', 'data', 'echo kept > /data/file'));
    await podSucceeded('writer');
    await ok('delete', 'pod', 'writer', '--wait=true');
    await apply(podManifest('reader', 'data', 'test "$(cat /data/file)" = kept'));
    await podSucceeded('reader');
    await ok('delete', 'pod', 'reader', '--wait=true');

    await ok('delete', 'pvc', 'data', '--wait=true');
    await until('the volume deleted', async () => ((await volume(volumeName)) === undefined ? true : undefined), 60_000, 300);
    await until('the directory removed', async () => (existsSync(directory) ? undefined : true), 60_000, 300);
    expect(await ok('get', 'pv', '-o', 'name')).not.toContain(volumeName);
  });

  it('keeps a Released volume and its data when the class says Retain', async () => {
    await apply(`
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: keep
provisioner: kubedesk.io/local-path
reclaimPolicy: Retain
`);
    await apply(claimManifest('kept', '  storageClassName: keep'));
    const bound = await boundClaim('kept');
    const volumeName = String(bound.spec?.volumeName);
    await ok('delete', 'pvc', 'kept', '--wait=true');
    await until('the volume Released', async () => ((await volume(volumeName))?.status?.phase === 'Released' ? true : undefined), 60_000, 300);
    expect(row(await ok('get', 'pv', volumeName), volumeName).slice(0, 7)).toEqual([volumeName, '64Mi', 'RWO', 'Retain', 'Released', 'default/kept', 'keep']);
    expect(existsSync(join(cluster.dataDir, 'volumes', volumeName))).toBe(true);
    await ok('delete', 'pv', volumeName, '--wait=true');
  });

  it('binds a hand-made volume to a claim that fits it', async () => {
    await apply(`
apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual
spec:
  capacity:
    storage: 1Gi
  accessModes: ["ReadWriteOnce"]
  storageClassName: ""
  hostPath:
    path: /tmp/kubedesk-manual-volume
`);
    await until('the volume Available', async () => ((await volume('manual'))?.status?.phase === 'Available' ? true : undefined), 60_000, 300);
    expect(row(await ok('get', 'pv', 'manual'), 'manual').slice(0, 5)).toEqual(['manual', '1Gi', 'RWO', 'Retain', 'Available']);
    await apply(claimManifest('fits', '  storageClassName: ""'));
    const bound = await boundClaim('fits');
    expect(bound.spec?.volumeName).toBe('manual');
    expect(row(await ok('get', 'pvc', 'fits'), 'fits').slice(0, 4)).toEqual(['fits', 'Bound', 'manual', '1Gi']);
    await ok('delete', 'pvc', 'fits', '--wait=true');
    await until('the volume Released', async () => ((await volume('manual'))?.status?.phase === 'Released' ? true : undefined), 60_000, 300);
    await ok('delete', 'pv', 'manual', '--wait=true');
  });
});
