import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../client/apiClient';
import { FakeTransport } from '../client/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import type { KubeObject } from '../../shared/kubernetes/types';
import { LOCAL_PATH_PROVISIONER_NAME, LocalPathProvisioner, PVC_PROTECTION_FINALIZER } from './localPathProvisioner';

let dir: string;
const stops: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'local-path-'));
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await rm(dir, { recursive: true, force: true });
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

async function start(seed: (transport: FakeTransport) => void = () => undefined): Promise<{ transport: FakeTransport; client: ApiClient; claimNamed(name: string): KubeObject | undefined }> {
  const transport = new FakeTransport();
  seed(transport);
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const provisioner = new LocalPathProvisioner(client, factory, { volumesDir: path.join(dir, 'volumes') });
  factory.start();
  await factory.waitForCacheSync();
  provisioner.start();
  stops.push(async () => {
    await provisioner.dispose();
    factory.dispose();
  });
  return { transport, client, claimNamed: (name) => transport.objectsOf(resources.persistentvolumeclaims).find((item) => item.metadata.name === name) };
}

const exists = (target: string) =>
  stat(target).then(
    () => true,
    () => false,
  );

describe('LocalPathProvisioner', () => {
  it('binds a claim to a new directory named after its uid', async () => {
    const { transport, claimNamed } = await start((fake) => fake.seed(resources.persistentvolumeclaims, claim('data')));
    await until('bound', () => (claimNamed('data')?.status as { phase?: string } | undefined)?.phase === 'Bound');
    const bound = claimNamed('data') as KubeObject;
    const volumeName = `pvc-${bound.metadata.uid ?? ''}`;
    expect(bound.spec).toMatchObject({ volumeName });
    expect(bound.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    expect(bound.metadata.finalizers).toEqual([PVC_PROTECTION_FINALIZER]);
    expect(bound.metadata.annotations).toMatchObject({ 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': LOCAL_PATH_PROVISIONER_NAME });
    const info = await stat(path.join(dir, 'volumes', volumeName));
    expect(info.isDirectory() && (info.mode & 0o777) === 0o777).toBe(true);
    const events = transport.objectsOf(resources.events).map((event) => `${String(event.reason)}: ${String(event.message)}`);
    expect(events).toContain(`ProvisioningSucceeded: Successfully provisioned volume ${volumeName}`);
  });

  it.each([
    ['another storage class', { storageClassName: 'fast' }, 'ProvisioningFailed: storageclass.storage.k8s.io "fast" not found'],
    ['an explicitly empty class', { storageClassName: '' }, 'FailedBinding: no persistent volumes available for this claim and no storage class is set'],
    ['a block volume', { volumeMode: 'Block' }, 'ProvisioningFailed: failed to provision volume with StorageClass "standard": local-path does not support block volumes'],
  ])('leaves a claim for %s Pending with an event', async (_what, spec, event) => {
    const { transport, claimNamed } = await start((fake) => fake.seed(resources.persistentvolumeclaims, claim('data', spec)));
    await until('event', () => transport.objectsOf(resources.events).some((item) => `${String(item.reason)}: ${String(item.message)}` === event));
    expect(claimNamed('data')?.status).toEqual({ phase: 'Pending' });
  });

  it('provisions the default class by name too', async () => {
    const { claimNamed } = await start((fake) => fake.seed(resources.persistentvolumeclaims, claim('data', { storageClassName: 'standard' })));
    await until('bound', () => (claimNamed('data')?.status as { phase?: string } | undefined)?.phase === 'Bound');
  });

  it('keeps a deleted claim while a running pod uses it, then removes its directory and lets it go', async () => {
    const { client, claimNamed } = await start((fake) => {
      fake.seed(resources.persistentvolumeclaims, claim('data'));
      fake.seed(resources.pods, { metadata: { name: 'user', namespace: 'default' }, spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] }, status: { phase: 'Running' } });
    });
    await until('bound', () => (claimNamed('data')?.status as { phase?: string } | undefined)?.phase === 'Bound');
    const directory = path.join(dir, 'volumes', String((claimNamed('data')?.spec as { volumeName: string }).volumeName));
    await writeFile(path.join(directory, 'file'), 'kept');
    await client.resource(resources.persistentvolumeclaims).delete('default', 'data');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(claimNamed('data')?.metadata.deletionTimestamp).toBeDefined();
    expect(await exists(directory)).toBe(true);
    await client.resource(resources.pods).delete('default', 'user');
    await until('claim gone', () => claimNamed('data') === undefined);
    await until('directory gone', async () => !(await exists(directory)));
  });

  it('removes directories that no claim refers to when it starts', async () => {
    await mkdir(path.join(dir, 'volumes', 'pvc-orphan'), { recursive: true });
    await mkdir(path.join(dir, 'volumes', 'not-ours'), { recursive: true });
    const { claimNamed } = await start((fake) => fake.seed(resources.persistentvolumeclaims, claim('data')));
    await until('bound', () => (claimNamed('data')?.status as { phase?: string } | undefined)?.phase === 'Bound');
    await until('orphan gone', async () => !(await readdir(path.join(dir, 'volumes'))).includes('pvc-orphan'));
    expect((await readdir(path.join(dir, 'volumes'))).sort()).toEqual(['not-ours', `pvc-${claimNamed('data')?.metadata.uid ?? ''}`]);
  });
});
