// Tests for snapshots through the API server (snapshots.kubedesk.dev/v1) on a real store file: a
// restore brings deleted objects back with their names and uids, removes what was created since,
// moves resourceVersions forward and tells watchers; pods come back as new to the kubelet; volume
// data is put back; missing images are named; bad input (unknown name, corrupt or newer file,
// missing images) changes nothing; only cluster-admin-like users may save or restore.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { builtinResources } from '../../registry/resources';
import { SqliteStore } from '../../storage/sqliteStore';
import { DEFAULT_HISTORY_RETENTION, type History } from '../../storage/history';
import type { StoreEvent } from '../../storage/store';
import { ApiServer, type ApiReply, type ApiResponse } from '../apiServer';
import type { Attributes, Authorizer } from '../auth/rbacAuthorizer';
import { OpenApiService } from '../openapi/openapiDocuments';
import { ResourceRegistry } from '../resourceRegistry';
import { registerSnapshotApi } from './snapshotApi';
import { checkVolumeEntries, Snapshots } from './snapshots';
import { SnapshotFile, SnapshotFileError } from '../../storage/sqliteSnapshot';

let directory: string;
let store: SqliteStore;
let api: ApiServer;
let presentImages: Set<string>;
let history: History;

const admin = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };
/** may do anything with snapshots.kubedesk.dev, but not `*` on `*` */
const operator = { name: 'operator', groups: ['system:authenticated'] };

const authorizer: Authorizer = {
  authorize(attributes: Attributes) {
    if (attributes.user.name === 'admin') return { allowed: true, reason: '' };
    return { allowed: attributes.apiGroup === 'snapshots.kubedesk.dev', reason: '' };
  },
  rulesFor() {
    throw new Error('not used by the snapshot API');
  },
};

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'kubedesk-snapshot-api-'));
  store = SqliteStore.open(path.join(directory, 'state.db'));
  const registry = new ResourceRegistry(builtinResources());
  const openapi = new OpenApiService();
  openapi.setResources(registry.all());
  history = store.history(DEFAULT_HISTORY_RETENTION);
  api = new ApiServer({ store, registry, openapi, serverAddress: () => '127.0.0.1:6443', version: {}, history });
  presentImages = new Set(['busybox:1']);
  const snapshots = new Snapshots({
    store,
    history,
    directory: path.join(directory, 'snapshots'),
    volumesDir: path.join(directory, 'volumes'),
    imagePresent: async (image) => presentImages.has(image),
  });
  registerSnapshotApi(api, registry, { snapshots, authorizer });
  store.create({ resource: 'namespaces', namespace: '', name: 'default' }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default', uid: 'default-uid' }, status: { phase: 'Active' } });
});

afterEach(() => {
  store.dispose();
  rmSync(directory, { recursive: true, force: true });
});

async function send(method: string, url: string, options: { body?: unknown; user?: typeof admin; accept?: string; raw?: Buffer } = {}): Promise<ApiResponse> {
  const parsed = new URL(url, 'https://x');
  return api.handle({
    method,
    path: parsed.pathname,
    query: parsed.searchParams,
    headers: { 'content-type': options.raw ? 'application/octet-stream' : 'application/json', accept: options.accept ?? 'application/json' },
    body: options.raw ?? (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body))),
    user: options.user ?? admin,
  });
}

async function request(method: string, url: string, options: { body?: unknown; user?: typeof admin; accept?: string; raw?: Buffer } = {}): Promise<ApiReply & { json: Record<string, unknown> }> {
  const reply = await send(method, url, options);
  if ('watch' in reply || 'stream' in reply) throw new Error('unexpected streaming reply');
  const json: unknown = JSON.parse(reply.body.toString());
  if (!isRecord(json)) throw new Error('not an object');
  return { ...reply, json };
}

async function create(url: string, body: KubeObject): Promise<KubeObject> {
  const reply = await request('POST', url, { body });
  expect(reply.status, JSON.stringify(reply.json)).toBe(201);
  return reply.json as KubeObject;
}

const SNAPSHOTS = '/apis/snapshots.kubedesk.dev/v1/snapshots';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { name } });
const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'node-0', containers: [{ name: 'main', image: 'busybox:1' }] } });

async function stateOf(): Promise<string> {
  return JSON.stringify(store.allObjects());
}

describe('the snapshot API', () => {
  it('restores deleted objects with their uids, removes newer ones and moves resourceVersions forward', async () => {
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'app' } });
    const kept = await create('/api/v1/namespaces/app/configmaps', configMap('kept'));
    const running = await create('/api/v1/namespaces/app/pods', pod('web'));
    // the pod runs: the kubelet wrote its status
    const podKey = { resource: 'pods', namespace: 'app', name: 'web' };
    const live = store.get(podKey);
    if (!live) throw new Error('no pod');
    store.update(podKey, { ...live, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ name: 'main', containerID: 'docker://abc', restartCount: 0 }], qosClass: 'BestEffort' } });

    const saved = await request('POST', SNAPSHOTS, { body: { metadata: { name: 'before' } } });
    expect(saved.status).toBe(201);
    const savedAt = Number((saved.json.status as { resourceVersion: string }).resourceVersion);
    expect(savedAt).toBe(store.currentRevision());

    await request('DELETE', '/api/v1/namespaces/app/configmaps/kept');
    store.delete(podKey);
    await create('/api/v1/namespaces/app/configmaps', configMap('newer'));
    const beforeRestore = store.currentRevision();
    const events: StoreEvent[] = [];
    store.watch({ resource: 'configmaps', fromRevision: beforeRestore }, (event) => events.push(event));

    const restored = await request('POST', `${SNAPSHOTS}/before/restore`);
    expect(restored.status, JSON.stringify(restored.json)).toBe(200);
    expect(restored.json.status).toMatchObject({ created: 2, deleted: 1 });

    const back = store.get({ resource: 'configmaps', namespace: 'app', name: 'kept' });
    expect(back?.metadata.uid).toBe(kept.metadata.uid);
    expect(Number(back?.metadata.resourceVersion)).toBeGreaterThan(beforeRestore);
    expect(store.get({ resource: 'configmaps', namespace: 'app', name: 'newer' })).toBeUndefined();
    expect(events.map((event) => `${event.type} ${event.name}`).sort()).toEqual(['ADDED kept', 'DELETED newer']);
    // the pod is back as the kubelet must start it anew: no container of the snapshot is reused
    const podBack = store.get(podKey);
    expect(podBack?.metadata.uid).toBe(running.metadata.uid);
    expect(podBack?.status).toMatchObject({ phase: 'Pending', qosClass: 'BestEffort' });
    expect(podBack?.status).not.toHaveProperty('containerStatuses');
    expect(store.currentRevision()).toBeGreaterThan(beforeRestore);
  });

  it('records the restore\'s writes in the object history, so what came back is no longer listed as deleted', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('kept'));
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'before' } } });
    await request('DELETE', '/api/v1/namespaces/default/configmaps/kept');
    expect(history.deleted({ namespace: 'default' }).map((entry) => entry.key.name)).toEqual(['kept']);
    await request('POST', `${SNAPSHOTS}/before/restore`);
    expect(history.deleted({ namespace: 'default' })).toEqual([]);
    const revisions = history.revisions({ resource: 'configmaps', namespace: 'default', name: 'kept' });
    expect(revisions.at(-1)).toMatchObject({ operation: 'CREATE', user: 'admin', fieldManager: 'kubedesk-snapshot', removed: false });
  });

  it('puts the PersistentVolumes\' data back as it was saved', async () => {
    const volumeDir = path.join(directory, 'volumes', 'pvc-1234');
    mkdirSync(path.join(volumeDir, 'sub'), { recursive: true });
    writeFileSync(path.join(volumeDir, 'sub', 'file.txt'), 'saved');
    store.create({ resource: 'persistentvolumes', namespace: '', name: 'pvc-1234' }, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pvc-1234', uid: 'pv-uid' }, spec: { hostPath: { path: volumeDir } } });
    const saved = await request('POST', SNAPSHOTS, { body: { metadata: { name: 'data' } } });
    expect(saved.json.status).toMatchObject({ volumes: [{ name: 'pvc-1234', files: 1, bytes: 5 }] });
    writeFileSync(path.join(volumeDir, 'sub', 'file.txt'), 'changed');
    writeFileSync(path.join(volumeDir, 'extra.txt'), 'new');
    const inode = statSync(volumeDir).ino;
    expect((await request('POST', `${SNAPSHOTS}/data/restore`)).status).toBe(200);
    // the same directory, so a running pod's bind mount sees the restored data
    expect(statSync(volumeDir).ino).toBe(inode);
    expect(readFileSync(path.join(volumeDir, 'sub', 'file.txt'), 'utf8')).toBe('saved');
    expect(existsSync(path.join(volumeDir, 'extra.txt'))).toBe(false);
  });

  it('names the images missing from Docker and restores nothing unless asked to go on', async () => {
    await create('/api/v1/namespaces/default/pods', pod('web'));
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'images' } } });
    store.delete({ resource: 'pods', namespace: 'default', name: 'web' });
    presentImages.clear();
    const state = await stateOf();
    const refused = await request('POST', `${SNAPSHOTS}/images/restore`);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toContain('needs images missing from Docker: busybox:1');
    expect(await stateOf()).toBe(state);
    const forced = await request('POST', `${SNAPSHOTS}/images/restore?ignoreMissingImages=true`);
    expect(forced.status).toBe(200);
    expect(forced.json.status).toMatchObject({ missingImages: ['busybox:1'], created: 1 });
  });

  it('previews a restore with dryRun=All: the objects it would remove, bring back, change and replace, changing nothing', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('kept'));
    await create('/api/v1/namespaces/default/configmaps', configMap('edited'));
    await create('/api/v1/namespaces/default/configmaps', configMap('recreated'));
    await create('/api/v1/namespaces/default/pods', pod('web'));
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'plan' } } });
    await request('DELETE', '/api/v1/namespaces/default/configmaps/kept');
    const edited = store.get({ resource: 'configmaps', namespace: 'default', name: 'edited' });
    if (!edited) throw new Error('no ConfigMap');
    store.update({ resource: 'configmaps', namespace: 'default', name: 'edited' }, { ...edited, data: { name: 'changed' } });
    await request('DELETE', '/api/v1/namespaces/default/configmaps/recreated');
    await create('/api/v1/namespaces/default/configmaps', configMap('recreated'));
    await create('/api/v1/namespaces/default/configmaps', configMap('newer'));
    presentImages.clear();
    const state = await stateOf();
    const revision = store.currentRevision();

    const preview = await request('POST', `${SNAPSHOTS}/plan/restore?dryRun=All`);
    expect(preview.status, JSON.stringify(preview.json)).toBe(200);
    expect(preview.json).toMatchObject({ kind: 'SnapshotRestore', metadata: { name: 'plan' } });
    const key = (name: string) => ({ resource: 'configmaps', namespace: 'default', name });
    expect(preview.json.status).toEqual({
      dryRun: true,
      resourceVersion: String(revision),
      created: 1,
      updated: 1,
      replaced: 1,
      deleted: 1,
      // reported, not refused: the confirmation shows them
      missingImages: ['busybox:1'],
      changes: { created: [key('kept')], updated: [key('edited')], replaced: [key('recreated')], deleted: [key('newer')] },
    });
    expect(await stateOf()).toBe(state);
    expect(store.currentRevision()).toBe(revision);

    // the restore then does what the preview said
    const restored = await request('POST', `${SNAPSHOTS}/plan/restore?ignoreMissingImages=true`);
    expect(restored.json.status).toMatchObject({ created: 1, updated: 1, replaced: 1, deleted: 1 });
  });

  it('refuses a dryRun other than All and a preview of an unknown snapshot', async () => {
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'one' } } });
    const wrong = await request('POST', `${SNAPSHOTS}/one/restore?dryRun=Yes`);
    expect(wrong.status).toBe(422);
    expect(wrong.json).toMatchObject({ reason: 'Invalid', details: { causes: [{ reason: 'FieldValueNotSupported', field: 'dryRun' }] } });
    expect((await request('POST', `${SNAPSHOTS}/nosuch/restore?dryRun=All`)).status).toBe(404);
    expect((await request('POST', `${SNAPSHOTS}/one/restore?dryRun=All`, { user: operator })).status).toBe(403);
  });

  it('answers an unknown name with NotFound and leaves the cluster as it is', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('x'));
    const state = await stateOf();
    const reply = await request('POST', `${SNAPSHOTS}/nosuch/restore`);
    expect(reply.status).toBe(404);
    expect(reply.json).toMatchObject({ reason: 'NotFound', message: 'snapshots.snapshots.kubedesk.dev "nosuch" not found' });
    expect(await stateOf()).toBe(state);
  });

  it('exports one file that imports under another name, and refuses a corrupt upload without touching anything', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('x'));
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'first' } } });
    const exported = await send('GET', `${SNAPSHOTS}/first/export`);
    if (!('stream' in exported)) throw new Error('export is not a stream');
    const chunks: Buffer[] = [];
    for await (const chunk of exported.stream as Readable) chunks.push(chunk as Buffer);
    const file = Buffer.concat(chunks);
    expect(file.subarray(0, 15).toString()).toBe('SQLite format 3');

    const imported = await request('POST', `${SNAPSHOTS}/second/import`, { raw: file });
    expect(imported.status, JSON.stringify(imported.json)).toBe(201);
    expect(imported.json.metadata).toMatchObject({ name: 'second' });

    const state = await stateOf();
    const truncated = await request('POST', `${SNAPSHOTS}/third/import`, { raw: file.subarray(0, Math.floor(file.length / 2)) });
    expect(truncated.status).toBe(400);
    expect(truncated.json.message).toMatch(/truncated/);
    const list = await request('GET', SNAPSHOTS);
    expect((list.json.items as KubeObject[]).map((item) => item.metadata.name)).toEqual(['first', 'second']);
    expect(await stateOf()).toBe(state);
    expect(existsSync(path.join(directory, 'snapshots', 'third.kdsnap'))).toBe(false);
  });

  it('replies once the file is complete under its name, then syncs and checksums it; a restore right after waits for that', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('kept'));
    await create(SNAPSHOTS, { apiVersion: 'snapshots.kubedesk.dev/v1', kind: 'Snapshot', metadata: { name: 'quick' } });
    const file = path.join(directory, 'snapshots', 'quick.kdsnap');
    // under its name at once, its checksum still to come (open() checks it)
    expect(statSync(file).size).toBeGreaterThan(0);
    expect(() => SnapshotFile.open(file).close()).toThrow(SnapshotFileError);
    await request('DELETE', '/api/v1/namespaces/default/configmaps/kept');
    const restored = await request('POST', `${SNAPSHOTS}/quick/restore`);
    expect(restored.status, JSON.stringify(restored.json)).toBe(200);
    expect(store.get({ resource: 'configmaps', namespace: 'default', name: 'kept' })).toBeDefined();
    SnapshotFile.open(file).close();
  });

  it('writes the checksum of a save that stopped before it when the snapshot is next used, and never into a damaged file', async () => {
    await create('/api/v1/namespaces/default/configmaps', configMap('kept'));
    // what a save leaves when kubedesk ends between its reply and its checksum
    const snapshotsDir = path.join(directory, 'snapshots');
    mkdirSync(snapshotsDir, { recursive: true });
    for (const name of ['cut-short', 'damaged']) {
      const file = path.join(snapshotsDir, `${name}.kdsnap`);
      await store.backupTo(file);
      SnapshotFile.create(file, { name, created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
    }
    const damaged = path.join(snapshotsDir, 'damaged.kdsnap');
    writeFileSync(damaged, readFileSync(damaged).subarray(0, Math.floor(statSync(damaged).size / 2)));
    await request('DELETE', '/api/v1/namespaces/default/configmaps/kept');

    const refused = await request('POST', `${SNAPSHOTS}/damaged/restore`);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/truncated/);
    const restored = await request('POST', `${SNAPSHOTS}/cut-short/restore`);
    expect(restored.status, JSON.stringify(restored.json)).toBe(200);
    expect(store.get({ resource: 'configmaps', namespace: 'default', name: 'kept' })).toBeDefined();
    SnapshotFile.open(path.join(snapshotsDir, 'cut-short.kdsnap')).close();
  });

  it('lists snapshots as a Table for kubectl', async () => {
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'one' } } });
    const table = await request('GET', SNAPSHOTS, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.json.kind).toBe('Table');
    expect((table.json.columnDefinitions as { name: string }[]).map((column) => column.name)).toEqual(['Name', 'ResourceVersion', 'Objects', 'Volumes', 'Size', 'Age']);
    expect((table.json.rows as { cells: unknown[] }[])[0].cells[0]).toBe('one');
  });

  it('refuses save, restore, delete and export to users without every verb on every resource', async () => {
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'one' } } });
    const save = await request('POST', SNAPSHOTS, { body: { metadata: { name: 'two' } }, user: operator });
    expect(save.status).toBe(403);
    expect(save.json.message).toContain('User "operator" cannot create resource "snapshots" in API group "snapshots.kubedesk.dev"');
    expect((await request('POST', `${SNAPSHOTS}/one/restore`, { user: operator })).status).toBe(403);
    expect((await request('DELETE', `${SNAPSHOTS}/one`, { user: operator })).status).toBe(403);
    expect((await send('GET', `${SNAPSHOTS}/one/export`, { user: operator })).status).toBe(403);
    // reading the list needs only RBAC on snapshots
    expect((await request('GET', SNAPSHOTS, { user: operator })).status).toBe(200);
  });

  it('answers bad names and duplicates as Invalid and AlreadyExists', async () => {
    const bad = await request('POST', SNAPSHOTS, { body: { metadata: { name: 'Bad_Name' } } });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ reason: 'Invalid' });
    await request('POST', SNAPSHOTS, { body: { metadata: { name: 'once' } } });
    const again = await request('POST', SNAPSHOTS, { body: { metadata: { name: 'once' } } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ reason: 'AlreadyExists' });
    const missing = await request('POST', SNAPSHOTS, { body: { metadata: {} } });
    expect(missing.status).toBe(422);
  });
});

describe('checkVolumeEntries', () => {
  const volumes = new Set(['pvc-1']);
  it.each([
    [[{ volume: 'pvc-1', path: '', type: 'directory' as const }, { volume: 'pvc-1', path: 'a/b.txt', type: 'file' as const }], undefined],
    [[{ volume: 'pvc-1', path: '../escape', type: 'file' as const }], 'is outside its volume'],
    [[{ volume: 'pvc-1', path: '/etc/passwd', type: 'file' as const }], 'is outside its volume'],
    [[{ volume: 'pvc-2', path: 'x', type: 'file' as const }], 'is outside its volume'],
    [[{ volume: 'pvc-1', path: '', type: 'symlink' as const }], 'is not a directory'],
    [[{ volume: 'pvc-1', path: 'link', type: 'symlink' as const }, { volume: 'pvc-1', path: 'link/x', type: 'file' as const }], 'lies below a symbolic link'],
  ])('judges %j', (entries, problem) => {
    if (problem === undefined) expect(() => checkVolumeEntries(entries, volumes)).not.toThrow();
    else expect(() => checkVolumeEntries(entries, volumes)).toThrow(problem);
  });
});
