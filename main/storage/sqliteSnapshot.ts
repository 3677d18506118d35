// SnapshotFile: one snapshot as one SQLite file (snapshot.ts says what a snapshot is). The file is
// the store's own file as SqliteStore.backupTo copied it (objects, log, meta and history tables
// at one revision), plus two tables of its own: `snapshot` (the format version and the manifest)
// and `snapshot_files` (every file, directory and symbolic link of the local PersistentVolumes).
// Its application_id marks it as a kubedesk snapshot. A save writes the file in two steps:
// `create` (the copy taken out of WAL mode, the manifest and the volume entries: everything a
// restore reads) and the checksum (a SHA-256 of what a restore reads, stored in the file), which
// the save writes after its reply (snapshots.ts says how a restore or an export waits for it);
// `seal` does both at once. Opening a file for reading checks it whole before anything is read
// from it: the SQLite header, the size the header promises (a truncated file is shorter), SQLite's
// integrity check, the format version (a newer one is refused), the manifest and the checksum;
// every object row must parse. A restore reads nothing it has not checked.
//
// This file, sqliteStore.ts and sqliteHistory.ts are the only ones that import better-sqlite3.
import Database from 'better-sqlite3';
import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { closeSync, existsSync, fsyncSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import { isRecord } from '../../shared/kubernetes/types';
import { SNAPSHOT_FORMAT_VERSION, type SnapshotManifest, type SnapshotVolume, type StoredObject } from './snapshot';

/** 'kdsn': SQLite's application_id of a kubedesk snapshot file. */
const APPLICATION_ID = 0x6b64736e;
const SQLITE_MAGIC = 'SQLite format 3\u0000';

const SNAPSHOT_SCHEMA = `
CREATE TABLE IF NOT EXISTS snapshot (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshot_files (
  volume TEXT NOT NULL,
  path TEXT NOT NULL,
  type TEXT NOT NULL,
  mode INTEGER NOT NULL,
  uid INTEGER NOT NULL,
  gid INTEGER NOT NULL,
  data BLOB,
  PRIMARY KEY (volume, path)
) WITHOUT ROWID;
`;

/** A snapshot file that cannot be used: truncated, corrupt, of a newer format, or not a snapshot. */
export class SnapshotFileError extends Error {
  constructor(
    message: string,
    readonly reason: 'Corrupt' | 'NewerFormat' | 'NotASnapshot',
  ) {
    super(message);
    this.name = 'SnapshotFileError';
  }
}

export type VolumeFileType = 'directory' | 'file' | 'symlink';

/** One entry of a volume: `path` relative to the volume's directory ('' is the directory itself). */
export interface VolumeFile {
  volume: string;
  path: string;
  type: VolumeFileType;
  mode: number;
  uid: number;
  gid: number;
  /** a file's bytes, a link's target; null for directories */
  data: Buffer | null;
}

interface FileRow {
  volume: string;
  path: string;
  type: string;
  mode: number;
  uid: number;
  gid: number;
  data: Buffer | null;
}

function isFileType(type: string): type is VolumeFileType {
  return type === 'directory' || type === 'file' || type === 'symlink';
}

/** The manifest as stored, checked field by field. */
export function parseManifest(text: string): SnapshotManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SnapshotFileError('the snapshot manifest is not JSON', 'Corrupt');
  }
  const bad = (field: string) => new SnapshotFileError(`the snapshot manifest has no valid ${field}`, 'Corrupt');
  if (!isRecord(value)) throw bad('object');
  const { formatVersion, name, created, resourceVersion, objects, images, volumes } = value;
  if (typeof formatVersion !== 'number' || !Number.isInteger(formatVersion)) throw bad('formatVersion');
  if (typeof name !== 'string' || name === '') throw bad('name');
  if (typeof created !== 'string' || Number.isNaN(Date.parse(created))) throw bad('created');
  if (typeof resourceVersion !== 'number' || !Number.isInteger(resourceVersion) || resourceVersion < 0) throw bad('resourceVersion');
  if (typeof objects !== 'number' || !Number.isInteger(objects) || objects < 0) throw bad('objects');
  if (!Array.isArray(images) || !images.every((image): image is string => typeof image === 'string')) throw bad('images');
  if (!Array.isArray(volumes)) throw bad('volumes');
  const parsedVolumes: SnapshotVolume[] = volumes.map((volume) => {
    if (!isRecord(volume) || typeof volume.name !== 'string' || typeof volume.files !== 'number' || typeof volume.bytes !== 'number') throw bad('volumes');
    return { name: volume.name, files: volume.files, bytes: volume.bytes };
  });
  return { formatVersion, name, created, resourceVersion, objects, images, volumes: parsedVolumes };
}

/** The SQLite header's promises: the magic string, and a file at least as long as its page count says. */
function checkHeader(path: string): void {
  const size = statSync(path).size;
  const header = Buffer.alloc(100);
  const fd = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (read < 100 || header.toString('latin1', 0, 16) !== SQLITE_MAGIC) throw new SnapshotFileError('the file is not a kubedesk snapshot (no SQLite header)', 'NotASnapshot');
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pageCount = header.readUInt32BE(28);
  // The in-header size is valid when the change counter matches version-valid-for (SQLite's rule).
  if (header.readUInt32BE(24) === header.readUInt32BE(92) && pageCount > 0 && size < pageSize * pageCount) {
    throw new SnapshotFileError(`the snapshot file is truncated: ${size} bytes of ${pageSize * pageCount}`, 'Corrupt');
  }
  if (size % pageSize !== 0) throw new SnapshotFileError(`the snapshot file is truncated: ${size} bytes is not a whole number of ${pageSize}-byte pages`, 'Corrupt');
}

export class SnapshotFile {
  private constructor(
    private readonly db: Database.Database,
    readonly manifest: SnapshotManifest,
  ) {}

  /**
   * Turns a fresh backup of the store at `path` into a complete snapshot, checksum included, and
   * syncs it to disk: `create` then `writeChecksum`.
   */
  static seal(
    path: string,
    manifest: Pick<SnapshotManifest, 'name' | 'created'>,
    collect: (objects: StoredObject[]) => { images: string[]; volumes: SnapshotVolume[]; files: Iterable<VolumeFile> },
  ): SnapshotManifest {
    const complete = SnapshotFile.create(path, manifest, collect);
    SnapshotFile.writeChecksum(path);
    return complete;
  }

  /**
   * Turns a fresh backup of the store at `path` into a snapshot without its checksum: its own
   * tables and the manifest. `collect` is given the copy's pods and PersistentVolumes and says
   * which images they use and which volume entries to keep; the revision and object count come
   * from the copy itself. The file is not synced: the caller syncs it once it is complete.
   */
  static create(
    path: string,
    manifest: Pick<SnapshotManifest, 'name' | 'created'>,
    collect: (objects: StoredObject[]) => { images: string[]; volumes: SnapshotVolume[]; files: Iterable<VolumeFile> },
  ): SnapshotManifest {
    // A snapshot is one file: no WAL beside it (see leaveWalMode). A crash while writing leaves a
    // partial file the caller removes.
    const patched = leaveWalMode(path);
    const db = new Database(path);
    try {
      if (!patched) db.pragma('journal_mode = DELETE');
      db.pragma('synchronous = OFF');
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.exec(SNAPSHOT_SCHEMA);
      const collected = collect(
        db.prepare<[], StoredObject>("SELECT resource, namespace, name, value FROM objects WHERE resource IN ('pods', 'persistentvolumes') ORDER BY resource, namespace, name").all(),
      );
      const complete: SnapshotManifest = {
        formatVersion: SNAPSHOT_FORMAT_VERSION,
        name: manifest.name,
        created: manifest.created,
        resourceVersion: revisionOf(db),
        objects: objectCount(db),
        images: collected.images,
        volumes: collected.volumes,
      };
      const insert = db.prepare<[string, string, string, number, number, number, Buffer | null]>('INSERT INTO snapshot_files (volume, path, type, mode, uid, gid, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
      const put = db.prepare<[string, string]>(PUT_SNAPSHOT_VALUE);
      db.transaction(() => {
        for (const file of collected.files) insert.run(file.volume, file.path, file.type, file.mode, file.uid, file.gid, file.data);
        put.run('format', String(SNAPSHOT_FORMAT_VERSION));
        put.run('manifest', JSON.stringify(complete));
      })();
      return complete;
    } finally {
      db.close();
    }
  }

  /** Computes the checksum of a snapshot `create` wrote, stores it in the file and syncs the file. */
  static writeChecksum(path: string): void {
    const db = new Database(path, { fileMustExist: true });
    try {
      db.pragma('synchronous = OFF');
      putDigest(db, contentDigest(db));
    } finally {
      db.close();
    }
    syncFile(path);
  }

  /**
   * writeChecksum a hundred rows at a time, yielding to the event loop in between, so the
   * requests that come meanwhile are not held up behind the whole file; between two steps it also
   * waits for what `pause` returns, if anything.
   */
  static async writeChecksumInSteps(path: string, pause: () => Promise<void> | undefined = () => undefined): Promise<void> {
    // nothing before the caller's turn ends: a save's reply goes out before the first step
    await new Promise((resolve) => setImmediate(resolve));
    await pause();
    const db = new Database(path, { fileMustExist: true });
    try {
      db.pragma('synchronous = OFF');
      const hash = createHash('sha256');
      const steps = digestSteps(db, hash);
      while (!steps.next().done) {
        await new Promise((resolve) => setImmediate(resolve));
        await pause();
      }
      putDigest(db, hash.digest('hex'));
    } finally {
      db.close();
    }
    await syncFileToDisk(path);
  }

  /**
   * Writes the checksum of a snapshot whose save stopped before it (kubedesk ended between the
   * save's reply and its checksum): only a file that passes the header, format and integrity
   * checks gets one, so damage is never blessed with a checksum. Does nothing when the file has
   * a checksum; throws SnapshotFileError (or SQLite's error) when the file cannot be checked.
   */
  static writeMissingChecksum(path: string): void {
    checkHeader(path);
    const db = new Database(path, { fileMustExist: true });
    try {
      checkFormat(db);
      if (db.prepare<[], string>("SELECT value FROM snapshot WHERE key = 'digest'").pluck().get() !== undefined) return;
      checkIntegrity(db);
      db.pragma('synchronous = OFF');
      putDigest(db, contentDigest(db));
    } finally {
      db.close();
    }
    syncFile(path);
  }

  /** Opens a snapshot for reading after checking all of it (see the file header); throws SnapshotFileError. */
  static open(path: string): SnapshotFile {
    checkHeader(path);
    let db: Database.Database;
    try {
      db = new Database(path, { readonly: true, fileMustExist: true });
    } catch (error) {
      throw new SnapshotFileError(`the snapshot file cannot be opened: ${error instanceof Error ? error.message : String(error)}`, 'Corrupt');
    }
    try {
      const manifest = checkContent(db);
      return new SnapshotFile(db, manifest);
    } catch (error) {
      db.close();
      if (error instanceof SnapshotFileError) throw error;
      throw new SnapshotFileError(`the snapshot file is corrupt: ${error instanceof Error ? error.message : String(error)}`, 'Corrupt');
    }
  }

  /** Only the manifest, after the cheap checks (header, format): for listing snapshots. */
  static readManifest(path: string): SnapshotManifest {
    checkHeader(path);
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return checkFormat(db);
    } catch (error) {
      if (error instanceof SnapshotFileError) throw error;
      throw new SnapshotFileError(`the snapshot file is corrupt: ${error instanceof Error ? error.message : String(error)}`, 'Corrupt');
    } finally {
      db.close();
    }
  }

  objects(): StoredObject[] {
    return this.db.prepare<[], StoredObject>('SELECT resource, namespace, name, value FROM objects ORDER BY resource, namespace, name').all();
  }

  /** The volumes' entries, each volume's directory before what is in it. */
  *files(): Generator<VolumeFile> {
    const rows = this.db.prepare<[], FileRow>('SELECT volume, path, type, mode, uid, gid, data FROM snapshot_files ORDER BY volume, path').iterate();
    for (const row of rows) {
      if (!isFileType(row.type)) throw new SnapshotFileError(`volume ${row.volume}: entry ${row.path} has unknown type ${row.type}`, 'Corrupt');
      yield { volume: row.volume, path: row.path, type: row.type, mode: row.mode, uid: row.uid, gid: row.gid, data: row.data };
    }
  }

  close(): void {
    this.db.close();
  }
}

/** fsync of a file, on libuv's thread pool. */
export function syncFileToDisk(path: string): Promise<void> {
  return syncToDisk(path, 'r+');
}

/**
 * fsync of a folder: a rename in it is on disk once it is synced. Windows cannot open a folder
 * for syncing: there the rename is left to the file system.
 */
export function syncFolderToDisk(folder: string): Promise<void> {
  return process.platform === 'win32' ? Promise.resolve() : syncToDisk(folder, 'r');
}

async function syncToDisk(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes a copy of a store's file out of WAL mode by writing SQLite's header bytes 18 and 19
 * ("file format write/read version": 2 in WAL mode, 1 in rollback mode), which is all
 * `PRAGMA journal_mode = DELETE` changes in a file whose WAL is empty; the copy has no WAL beside
 * it (backupTo copies the main file after a checkpoint that emptied the WAL), so opening it never
 * creates one. Returns false when the file has a WAL beside it (then SQLite switches it).
 */
function leaveWalMode(path: string): boolean {
  if (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0) return false;
  const fd = openSync(path, 'r+');
  try {
    const header = Buffer.alloc(20);
    if (readSync(fd, header, 0, 20, 0) < 20 || header.toString('latin1', 0, 16) !== SQLITE_MAGIC) return false;
    if (header[18] === 2 || header[19] === 2) writeSync(fd, ROLLBACK_VERSIONS, 0, 2, 18);
    return true;
  } finally {
    closeSync(fd);
  }
}

const ROLLBACK_VERSIONS = Buffer.from([1, 1]);

/** The revision the copy of the store is at: its newest log row, or the compacted revision when compaction emptied the log. */
function revisionOf(db: Database.Database): number {
  const newest = db.prepare<[], number | null>('SELECT max(revision) FROM log').pluck().get() ?? 0;
  const compacted = db.prepare<[], number>("SELECT value FROM meta WHERE key = 'compacted'").pluck().get() ?? 0;
  return Math.max(newest ?? 0, compacted);
}

/**
 * Feeds `hash` what a restore reads (the objects and the volume entries), in key order, rows read
 * as bytes, not strings; yields every hundred rows (writeChecksumInSteps).
 */
function* digestSteps(db: Database.Database, hash: Hash): Generator<void> {
  const objects = db.prepare<[], unknown[]>("SELECT CAST(resource || char(0) || namespace || char(0) || name || char(0) AS BLOB), CAST(value AS BLOB) FROM objects ORDER BY resource, namespace, name").raw();
  let rows = 0;
  for (const row of objects.iterate()) {
    for (const cell of row) if (Buffer.isBuffer(cell)) hash.update(cell);
    if (++rows % DIGEST_STEP_ROWS === 0) yield;
  }
  const files = db.prepare<[], unknown[]>("SELECT CAST(volume || char(0) || path || char(0) || type || char(0) || mode || char(0) || uid || char(0) || gid || char(0) AS BLOB), data FROM snapshot_files ORDER BY volume, path").raw();
  for (const row of files.iterate()) {
    for (const cell of row) if (Buffer.isBuffer(cell)) hash.update(cell);
    hash.update(SEPARATOR);
    if (++rows % DIGEST_STEP_ROWS === 0) yield;
  }
}

const DIGEST_STEP_ROWS = 100;

/** The checksum of what a restore reads (digestSteps), as stored under the `digest` key. */
function contentDigest(db: Database.Database): string {
  const hash = createHash('sha256');
  const steps = digestSteps(db, hash);
  while (!steps.next().done);
  return hash.digest('hex');
}

/** A row of the `snapshot` table (format, manifest, digest), written or replaced. */
const PUT_SNAPSHOT_VALUE = 'INSERT INTO snapshot (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value';

function putDigest(db: Database.Database, digest: string): void {
  db.prepare<[string, string]>(PUT_SNAPSHOT_VALUE).run('digest', digest);
}

const SEPARATOR = Buffer.from([0]);

function objectCount(db: Database.Database): number {
  return db.prepare<[], number>('SELECT count(*) FROM objects').pluck().get() ?? 0;
}

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare<[string], number>("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(name) === 1;
}

function checkFormat(db: Database.Database): SnapshotManifest {
  if (db.pragma('application_id', { simple: true }) !== APPLICATION_ID || !hasTable(db, 'snapshot')) {
    throw new SnapshotFileError('the file is not a kubedesk snapshot', 'NotASnapshot');
  }
  const format = db.prepare<[], string>("SELECT value FROM snapshot WHERE key = 'format'").pluck().get();
  const version = Number(format);
  if (format === undefined || !Number.isInteger(version) || version < 1) throw new SnapshotFileError('the snapshot has no format version', 'Corrupt');
  if (version > SNAPSHOT_FORMAT_VERSION) {
    throw new SnapshotFileError(`the snapshot is of format version ${version}, newer than this kubedesk reads (${SNAPSHOT_FORMAT_VERSION}): restore it with a newer kubedesk`, 'NewerFormat');
  }
  const text = db.prepare<[], string>("SELECT value FROM snapshot WHERE key = 'manifest'").pluck().get();
  if (text === undefined) throw new SnapshotFileError('the snapshot has no manifest', 'Corrupt');
  const manifest = parseManifest(text);
  if (manifest.formatVersion !== version) throw new SnapshotFileError(`the snapshot's manifest says format ${manifest.formatVersion}, its file ${version}`, 'Corrupt');
  return manifest;
}

function checkIntegrity(db: Database.Database): void {
  const problems = db.prepare<[], string>('PRAGMA integrity_check(5)').pluck().all();
  if (problems.length !== 1 || problems[0] !== 'ok') {
    const summary = problems.join('; ').replace(/\s*\n\s*/g, '; ');
    throw new SnapshotFileError(`the snapshot file is corrupt: ${summary.length > 300 ? `${summary.slice(0, 300)}…` : summary}`, 'Corrupt');
  }
}

function checkContent(db: Database.Database): SnapshotManifest {
  const manifest = checkFormat(db);
  checkIntegrity(db);
  for (const table of ['objects', 'log', 'meta', 'snapshot_files']) if (!hasTable(db, table)) throw new SnapshotFileError(`the snapshot has no ${table} table`, 'Corrupt');
  const count = objectCount(db);
  if (count !== manifest.objects) throw new SnapshotFileError(`the snapshot holds ${count} objects, its manifest says ${manifest.objects}`, 'Corrupt');
  const digest = db.prepare<[], string>("SELECT value FROM snapshot WHERE key = 'digest'").pluck().get();
  if (digest === undefined || digest !== contentDigest(db)) throw new SnapshotFileError("the snapshot's objects or volume data do not match its checksum", 'Corrupt');
  for (const row of db.prepare<[], StoredObject>('SELECT resource, namespace, name, value FROM objects').iterate()) {
    let value: unknown;
    try {
      value = JSON.parse(row.value);
    } catch {
      value = undefined;
    }
    if (!isRecord(value) || !isRecord(value.metadata)) throw new SnapshotFileError(`the snapshot's ${row.resource} ${row.namespace ? `${row.namespace}/` : ''}${row.name} is not a Kubernetes object`, 'Corrupt');
  }
  return manifest;
}
