import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { ApiClient } from '../client/apiClient';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import type { KubeObject } from '../../shared/kubernetes/types';
import {
  DEFAULT_CLASS_ANNOTATION, LOCAL_PATH_PROVISIONER_NAME, LocalPathProvisioner, PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER, storageClassesResource,
} from './localPathProvisioner';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'local-path-'));
  // registered first, so it runs after the provisioner a test starts has stopped
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
});

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function claim(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec }, status: { phase: 'Pending' } };
}

function storageClass(name: string, fields: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: LOCAL_PATH_PROVISIONER_NAME, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...fields };
}

function manualVolume(name: string, storage: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '', hostPath: { path: `/srv/${name}` }, ...spec },
    status: { phase: 'Pending' },
  };
}

interface Started {
  transport: FakeTransport;
  client: ApiClient;
  claimNamed(name: string): KubeObject | undefined;
  volumeNamed(name: string): KubeObject | undefined;
  events(): string[];
}

async function start(seed: (transport: FakeTransport) => unknown = () => undefined): Promise<Started> {
  const transport = new FakeTransport();
  await seed(transport);
  const { client } = await startOnFakeApi(transport, (client, factory) => new LocalPathProvisioner(client, factory, { volumesDir: path.join(dir, 'volumes') }));
  return {
    transport,
    client,
    claimNamed: (name) => transport.objectsOf(resources.persistentvolumeclaims).find((item) => item.metadata.name === name),
    volumeNamed: (name) => transport.objectsOf(resources.persistentvolumes).find((item) => item.metadata.name === name),
    events: () => transport.objectsOf(resources.events).map((event) => `${String(event.reason)}: ${String(event.message)}`),
  };
}

const exists = (target: string) =>
  stat(target).then(
    () => true,
    () => false,
  );

const phaseOf = (object: KubeObject | undefined) => (object?.status as { phase?: string } | undefined)?.phase;
const specField = (object: KubeObject | undefined, key: string) => (object?.spec as Record<string, unknown> | undefined)?.[key];

describe('LocalPathProvisioner', () => {
  it('makes the default StorageClass when it starts', async () => {
    const { transport } = await start();
    await until('class', () => transport.objectsOf(storageClassesResource).length === 1);
    expect(transport.objectsOf(storageClassesResource)[0]).toMatchObject({
      metadata: { name: 'standard', annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
      provisioner: LOCAL_PATH_PROVISIONER_NAME,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    });
  });

  it('gives a claim without a class the default class, a directory and a bound PersistentVolume named after its uid', async () => {
    const { claimNamed, volumeNamed, events } = await start((fake) => fake.seed(resources.persistentvolumeclaims, claim('data')));
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    const bound = claimNamed('data') as KubeObject;
    const volumeName = `pvc-${bound.metadata.uid ?? ''}`;
    const directory = path.join(dir, 'volumes', volumeName);
    expect(bound.spec).toMatchObject({ volumeName, storageClassName: 'standard' });
    expect(bound.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    expect(bound.metadata.finalizers).toEqual([PVC_PROTECTION_FINALIZER]);
    expect(bound.metadata.annotations).toMatchObject({
      'pv.kubernetes.io/bind-completed': 'yes',
      'pv.kubernetes.io/bound-by-controller': 'yes',
      'volume.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER_NAME,
    });
    await until('volume bound', () => phaseOf(volumeNamed(volumeName)) === 'Bound');
    const volume = volumeNamed(volumeName) as KubeObject;
    expect(volume.metadata.annotations).toEqual({ 'pv.kubernetes.io/provisioned-by': LOCAL_PATH_PROVISIONER_NAME });
    expect(volume.metadata.finalizers).toEqual([PV_PROTECTION_FINALIZER]);
    expect(volume.spec).toMatchObject({
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'standard',
      volumeMode: 'Filesystem',
      hostPath: { path: directory, type: 'DirectoryOrCreate' },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: bound.metadata.uid },
    });
    const info = await stat(directory);
    expect(info.isDirectory() && (info.mode & 0o777) === 0o777).toBe(true);
    expect(events()).toContain(`ProvisioningSucceeded: Successfully provisioned volume ${volumeName}`);
  });

  it.each([
    ['a class that does not exist', { storageClassName: 'fast' }, 'ProvisioningFailed: storageclass.storage.k8s.io "fast" not found'],
    ['an explicitly empty class and no volume', { storageClassName: '' }, 'FailedBinding: no persistent volumes available for this claim and no storage class is set'],
    ['a block volume', { volumeMode: 'Block' }, 'ProvisioningFailed: failed to provision volume with StorageClass "standard": local-path does not support block volumes'],
    [
      'a class of another provisioner',
      { storageClassName: 'cloud' },
      "ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'example.com/disk' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
    ],
  ])('leaves a claim for %s Pending with an event', async (_what, spec, event) => {
    const { claimNamed, events } = await start((fake) => {
      fake.seed(storageClassesResource, storageClass('cloud', { provisioner: 'example.com/disk' }));
      fake.seed(resources.persistentvolumeclaims, claim('data', spec));
    });
    await until('event', () => events().includes(event));
    expect(claimNamed('data')?.status).toEqual({ phase: 'Pending' });
  });

  it('keeps a deleted claim while a running pod uses it, then deletes its volume and directory (reclaim policy Delete)', async () => {
    const { client, claimNamed, volumeNamed } = await start((fake) => {
      fake.seed(resources.persistentvolumeclaims, claim('data'));
      fake.seed(resources.pods, { metadata: { name: 'user', namespace: 'default' }, spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }, status: { phase: 'Running' } });
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    const volumeName = String(specField(claimNamed('data'), 'volumeName'));
    const directory = path.join(dir, 'volumes', volumeName);
    await writeFile(path.join(directory, 'file'), 'kept');
    await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(claimNamed('data')?.metadata.deletionTimestamp).toBeDefined();
    expect(phaseOf(volumeNamed(volumeName))).toBe('Bound');
    expect(await exists(directory)).toBe(true);
    await client.resource(resources.pods).delete('default', 'user');
    await until('claim gone', () => claimNamed('data') === undefined);
    await until('volume gone', () => volumeNamed(volumeName) === undefined);
    await until('directory gone', async () => !(await exists(directory)));
  });

  it('keeps a Released volume and its directory when the class says Retain', async () => {
    const { client, claimNamed, volumeNamed } = await start((fake) => {
      fake.seed(storageClassesResource, storageClass('keep', { reclaimPolicy: 'Retain' }));
      fake.seed(resources.persistentvolumeclaims, claim('data', { storageClassName: 'keep' }));
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    const volumeName = String(specField(claimNamed('data'), 'volumeName'));
    expect(specField(volumeNamed(volumeName), 'persistentVolumeReclaimPolicy')).toBe('Retain');
    await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    await until('released', () => phaseOf(volumeNamed(volumeName)) === 'Released');
    expect(await exists(path.join(dir, 'volumes', volumeName))).toBe(true);
  });

  it('binds a claim to the smallest manual volume that fits, before provisioning anything', async () => {
    const { claimNamed, volumeNamed, transport } = await start((fake) => {
      fake.seed(resources.persistentvolumes, manualVolume('small', '100Mi'));
      fake.seed(resources.persistentvolumes, manualVolume('large', '10Gi'));
      fake.seed(resources.persistentvolumes, manualVolume('medium', '2Gi'));
      fake.seed(resources.persistentvolumes, manualVolume('read-only', '1Gi', { accessModes: ['ReadOnlyMany'] }));
      fake.seed(resources.persistentvolumeclaims, claim('data', { storageClassName: '', resources: { requests: { storage: '500Mi' } } }));
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    const bound = claimNamed('data') as KubeObject;
    expect(specField(bound, 'volumeName')).toBe('medium');
    expect(bound.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
    expect(bound.metadata.annotations?.['volume.kubernetes.io/storage-provisioner']).toBeUndefined();
    await until('volume bound', () => phaseOf(volumeNamed('medium')) === 'Bound');
    expect(specField(volumeNamed('medium'), 'claimRef')).toMatchObject({ name: 'data', namespace: 'default', uid: bound.metadata.uid });
    expect(volumeNamed('medium')?.metadata.annotations).toEqual({ 'pv.kubernetes.io/bound-by-controller': 'yes' });
    await until('others available', () => ['small', 'large', 'read-only'].every((name) => phaseOf(volumeNamed(name)) === 'Available'));
    expect(transport.objectsOf(resources.persistentvolumes)).toHaveLength(4);
  });

  it('binds a claim that names its volume and releases a manual volume when the claim goes', async () => {
    const { client, claimNamed, volumeNamed } = await start((fake) => {
      fake.seed(resources.persistentvolumes, manualVolume('mine', '1Gi', { storageClassName: 'standard' }));
      fake.seed(resources.persistentvolumeclaims, claim('data', { storageClassName: 'standard', volumeName: 'mine' }));
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound' && phaseOf(volumeNamed('mine')) === 'Bound');
    expect(claimNamed('data')?.metadata.annotations?.['pv.kubernetes.io/bound-by-controller']).toBeUndefined();
    await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    await until('released', () => phaseOf(volumeNamed('mine')) === 'Released');
  });

  it('marks a manual volume with reclaim policy Delete Failed once released, as no plugin can delete it', async () => {
    const { client, claimNamed, volumeNamed, events } = await start((fake) => {
      fake.seed(resources.persistentvolumes, manualVolume('disk', '1Gi', { persistentVolumeReclaimPolicy: 'Delete' }));
      fake.seed(resources.persistentvolumeclaims, claim('data', { storageClassName: '' }));
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    await until('failed', () => phaseOf(volumeNamed('disk')) === 'Failed');
    expect(events()).toContain('VolumeFailedDelete: error getting deleter volume plugin for volume "disk": no deletable volume plugin matched');
  });

  it('gives a claim bound by an earlier version, without a PersistentVolume, its volume', async () => {
    const { claimNamed, volumeNamed } = await start(async (fake) => {
      const seeded = fake.seed(resources.persistentvolumeclaims, claim('old', { storageClassName: 'standard' }));
      const volumeName = `pvc-${seeded.metadata.uid ?? ''}`;
      seeded.metadata.annotations = { 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER_NAME };
      seeded.spec = { ...(seeded.spec as Record<string, unknown>), volumeName };
      seeded.status = { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } };
      await new ApiClient(fake).resource(resources.persistentvolumeclaims).update(seeded);
    });
    await until('volume', () => phaseOf(volumeNamed(String(specField(claimNamed('old'), 'volumeName')))) === 'Bound');
    expect(specField(volumeNamed(String(specField(claimNamed('old'), 'volumeName'))), 'claimRef')).toMatchObject({ name: 'old' });
  });

  it('removes directories that no volume or claim refers to when it starts', async () => {
    await mkdir(path.join(dir, 'volumes', 'pvc-orphan'), { recursive: true });
    await mkdir(path.join(dir, 'volumes', 'pvc-retained'), { recursive: true });
    await mkdir(path.join(dir, 'volumes', 'not-ours'), { recursive: true });
    const { claimNamed } = await start((fake) => {
      fake.seed(resources.persistentvolumes, manualVolume('pvc-retained', '1Gi', { hostPath: { path: path.join(dir, 'volumes', 'pvc-retained') } }));
      fake.seed(resources.persistentvolumeclaims, claim('data'));
    });
    await until('bound', () => phaseOf(claimNamed('data')) === 'Bound');
    await until('orphan gone', async () => !(await readdir(path.join(dir, 'volumes'))).includes('pvc-orphan'));
    expect((await readdir(path.join(dir, 'volumes'))).sort()).toEqual(['not-ours', `pvc-${claimNamed('data')?.metadata.uid ?? ''}`, 'pvc-retained'].sort());
  });
});
