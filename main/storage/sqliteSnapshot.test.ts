// Tests for snapshot files and the store's two snapshot operations: the online backup is the
// store at one revision even with writes during it; a sealed file opens only when all of it
// checks out (truncated, corrupt, newer format and foreign files are refused with their reason);
// applyWrites commits a batch at new revisions, tells watchers, and changes nothing when one
// write fails.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from './sqliteStore';
import { SnapshotFile, SnapshotFileError, type VolumeFile } from './sqliteSnapshot';
import { SNAPSHOT_FORMAT_VERSION } from './snapshot';
import { DEFAULT_HISTORY_RETENTION } from './history';
import type { StoreEvent } from './store';

let directory: string;
let store: SqliteStore;

beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'kubedesk-snapshot-file-'));
  store = SqliteStore.open(path.join(directory, 'state.db'));
});

afterEach(() => {
  store.dispose();
  rmSync(directory, { recursive: true, force: true });
});

const configMap = (name: string, value = 'v') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'a', uid: `${name}-uid` }, data: { value } });
const key = (name: string) => ({ resource: 'configmaps', namespace: 'a', name });

async function saveSnapshot(file: string, files: VolumeFile[] = []) {
  await store.backupTo(file);
  return SnapshotFile.seal(file, { name: 'snap', created: '2026-01-02T03:04:05Z' }, () => ({ images: ['busybox:1'], volumes: files.length ? [{ name: 'pvc-1', files: 1, bytes: 5 }] : [], files }));
}

function openError(file: string): SnapshotFileError {
  try {
    SnapshotFile.open(file).close();
  } catch (error) {
    if (error instanceof SnapshotFileError) return error;
    throw error;
  }
  throw new Error('the snapshot opened');
}

describe('SnapshotFile', () => {
  it('holds the objects at the revision of the copy, with the manifest and the volume entries', async () => {
    for (let index = 0; index < 50; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`));
    const file = path.join(directory, 'snap.kdsnap');
    const manifest = await saveSnapshot(file, [{ volume: 'pvc-1', path: 'data.txt', type: 'file', mode: 0o644, uid: 0, gid: 0, data: Buffer.from('hello') }]);
    expect(manifest).toMatchObject({ formatVersion: SNAPSHOT_FORMAT_VERSION, name: 'snap', resourceVersion: store.currentRevision(), objects: 50, images: ['busybox:1'] });
    const snapshot = SnapshotFile.open(file);
    try {
      expect(snapshot.manifest).toEqual(manifest);
      expect(snapshot.objects().map((row) => row.name)).toHaveLength(50);
      expect([...snapshot.files()].map((entry) => [entry.path, entry.data?.toString()])).toEqual([['data.txt', 'hello']]);
    } finally {
      snapshot.close();
    }
    // one file, no WAL beside it
    expect(() => statSync(`${file}-wal`)).toThrow();
  });

  it('is consistent at one revision when writes go on during the backup', async () => {
    for (let index = 0; index < 2000; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`, 'x'.repeat(200)));
    const file = path.join(directory, 'busy.kdsnap');
    const backup = store.backupTo(file);
    let writes = 0;
    const writer = setInterval(() => store.create(key(`late-${writes++}`), configMap(`late-${writes}`)), 0);
    await backup;
    clearInterval(writer);
    const manifest = SnapshotFile.seal(file, { name: 'busy', created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
    const snapshot = SnapshotFile.open(file);
    try {
      const rows = snapshot.objects();
      // every object in the copy is at or below its revision, and every write at or below it is in it
      const revisions = rows.map((row) => Number((JSON.parse(row.value) as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
      expect(Math.max(...revisions)).toBe(manifest.resourceVersion);
      expect(rows).toHaveLength(manifest.resourceVersion);
    } finally {
      snapshot.close();
    }
  });

  it('holds the history of every write recorded before the copy, even those still queued', async () => {
    const history = store.history(DEFAULT_HISTORY_RETENTION);
    for (let index = 0; index < 30; index++) {
      const stored = store.create(key(`cm-${index}`), configMap(`cm-${index}`));
      history.record({ key: key(`cm-${index}`), object: stored, operation: 'CREATE', removed: false });
    }
    const file = path.join(directory, 'history.kdsnap');
    await store.backupTo(file);
    const copy = new Database(file, { readonly: true });
    try {
      expect(copy.prepare('SELECT count(*) FROM history').pluck().get()).toBe(30);
    } finally {
      copy.close();
    }
  });

  it('copies an in-memory store with the online backup', async () => {
    const memory = SqliteStore.open(':memory:');
    try {
      for (let index = 0; index < 20; index++) memory.create(key(`cm-${index}`), configMap(`cm-${index}`));
      const file = path.join(directory, 'memory.kdsnap');
      await memory.backupTo(file);
      const manifest = SnapshotFile.seal(file, { name: 'memory', created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
      expect(manifest).toMatchObject({ objects: 20, resourceVersion: memory.currentRevision() });
    } finally {
      memory.dispose();
    }
  });

  it('is created without its checksum, which the steps version writes as seal does', async () => {
    for (let index = 0; index < 450; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`));
    const sealed = path.join(directory, 'sealed.kdsnap');
    await saveSnapshot(sealed);
    const file = path.join(directory, 'stepped.kdsnap');
    await store.backupTo(file);
    SnapshotFile.create(file, { name: 'stepped', created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
    expect(openError(file).message).toMatch(/checksum/);
    await SnapshotFile.writeChecksumInSteps(file);
    SnapshotFile.open(file).close();
    const digestOf = (at: string) => {
      const db = new Database(at, { readonly: true });
      try {
        return db.prepare("SELECT value FROM snapshot WHERE key = 'digest'").pluck().get();
      } finally {
        db.close();
      }
    };
    expect(digestOf(file)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf(file)).toBe(digestOf(sealed));
  });

  it('holds its checksum back while the pause it is given lasts', async () => {
    for (let index = 0; index < 250; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`));
    const file = path.join(directory, 'paused.kdsnap');
    await store.backupTo(file);
    SnapshotFile.create(file, { name: 'paused', created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
    let release = () => {};
    let pause: Promise<void> | undefined = new Promise((resolve) => (release = resolve));
    const written = SnapshotFile.writeChecksumInSteps(file, () => pause);
    // three steps of a hundred rows would be done in three turns
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT count(*) FROM snapshot WHERE key = 'digest'").pluck().get()).toBe(0);
    db.close();
    pause = undefined;
    release();
    await written;
    SnapshotFile.open(file).close();
  });

  it('takes the copy out of WAL mode in its header, so opening it makes no WAL', async () => {
    store.create(key('cm'), configMap('cm'));
    const file = path.join(directory, 'header.kdsnap');
    await store.backupTo(file);
    // the store's file is in WAL mode: SQLite's header bytes 18 and 19 are 2
    expect([...readFileSync(file).subarray(18, 20)]).toEqual([2, 2]);
    await saveSnapshot(file);
    expect([...readFileSync(file).subarray(18, 20)]).toEqual([1, 1]);
    const snapshot = SnapshotFile.open(file);
    snapshot.close();
    const db = new Database(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
    expect(() => statSync(`${file}-wal`)).toThrow();
  });

  it('writes a missing checksum only into a file that checks out', async () => {
    for (let index = 0; index < 200; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`, 'x'.repeat(500)));
    const whole = path.join(directory, 'whole.kdsnap');
    const cut = path.join(directory, 'cut.kdsnap');
    for (const file of [whole, cut]) {
      await store.backupTo(file);
      SnapshotFile.create(file, { name: 'unsealed', created: '2026-01-02T03:04:05Z' }, () => ({ images: [], volumes: [], files: [] }));
    }
    SnapshotFile.writeMissingChecksum(whole);
    expect(SnapshotFile.open(whole).manifest.objects).toBe(200);
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    expect(() => SnapshotFile.writeMissingChecksum(cut)).toThrow(/truncated/);
    expect(openError(cut).message).toMatch(/truncated/);
  });

  it('refuses a truncated file and says how short it is', async () => {
    for (let index = 0; index < 200; index++) store.create(key(`cm-${index}`), configMap(`cm-${index}`, 'x'.repeat(500)));
    const file = path.join(directory, 'cut.kdsnap');
    await saveSnapshot(file);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const error = openError(file);
    expect(error.reason).toBe('Corrupt');
    expect(error.message).toMatch(/truncated/);
  });

  it('refuses a file whose object bytes were changed', async () => {
    store.create(key('cm'), configMap('cm', 'original-value'));
    const file = path.join(directory, 'flipped.kdsnap');
    await saveSnapshot(file);
    const bytes = readFileSync(file);
    const at = bytes.indexOf('original-value');
    expect(at).toBeGreaterThan(0);
    bytes.write('tampered-value', at);
    writeFileSync(file, bytes);
    const error = openError(file);
    expect(error.reason).toBe('Corrupt');
    expect(error.message).toMatch(/checksum/);
  });

  it('refuses a snapshot of a newer format, naming both versions', async () => {
    const file = path.join(directory, 'newer.kdsnap');
    await saveSnapshot(file);
    const db = new Database(file);
    db.prepare("UPDATE snapshot SET value = ? WHERE key = 'format'").run(String(SNAPSHOT_FORMAT_VERSION + 1));
    db.close();
    const error = openError(file);
    expect(error.reason).toBe('NewerFormat');
    expect(error.message).toContain(`format version ${SNAPSHOT_FORMAT_VERSION + 1}, newer than this kubedesk reads (${SNAPSHOT_FORMAT_VERSION})`);
  });

  it('refuses files that are not snapshots: text, and a plain store file', () => {
    const text = path.join(directory, 'text.kdsnap');
    writeFileSync(text, 'hello\n');
    expect(openError(text).reason).toBe('NotASnapshot');
    store.create(key('cm'), configMap('cm'));
    store.dispose();
    expect(openError(path.join(directory, 'state.db')).reason).toBe('NotASnapshot');
  });
});

describe('SqliteStore.applyWrites', () => {
  it('commits creates, updates and deletes at new revisions and tells watchers in order', () => {
    store.create(key('keep'), configMap('keep'));
    store.create(key('drop'), configMap('drop'));
    const before = store.currentRevision();
    const events: StoreEvent[] = [];
    store.watch({ resource: 'configmaps', fromRevision: before }, (event) => events.push(event));
    const stored = store.applyWrites([
      { type: 'delete', key: key('drop') },
      { type: 'update', key: key('keep'), object: configMap('keep', 'changed') },
      { type: 'create', key: key('back'), object: configMap('back') },
    ]);
    expect(store.currentRevision()).toBe(before + 3);
    expect(stored.map((object) => `${object.metadata.name} ${object.metadata.resourceVersion}`)).toEqual([`drop ${before + 1}`, `keep ${before + 2}`, `back ${before + 3}`]);
    expect(events.map((event) => `${event.type} ${event.name} ${event.revision}`)).toEqual([`DELETED drop ${before + 1}`, `MODIFIED keep ${before + 2}`, `ADDED back ${before + 3}`]);
    expect(store.get(key('back'))?.metadata).toMatchObject({ uid: 'back-uid', resourceVersion: String(before + 3) });
    expect(store.get(key('drop'))).toBeUndefined();
  });

  it('changes nothing when one write of the batch fails', () => {
    store.create(key('existing'), configMap('existing'));
    const before = store.currentRevision();
    expect(() =>
      store.applyWrites([
        { type: 'create', key: key('fresh'), object: configMap('fresh') },
        { type: 'create', key: key('existing'), object: configMap('existing') },
      ]),
    ).toThrow(/already exists/);
    expect(store.currentRevision()).toBe(before);
    expect(store.get(key('fresh'))).toBeUndefined();
    // the next write continues from the same revision
    expect(store.create(key('later'), configMap('later')).metadata.resourceVersion).toBe(String(before + 1));
  });
});
