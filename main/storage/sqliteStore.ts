// SqliteStore: the Store on one SQLite file (better-sqlite3, synchronous). Follows kine's layout and
// the apiserver etcd3 store (staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go): one global
// revision is every object's resourceVersion, each write commits the object row and a log row in one
// transaction, an update whose bytes equal the stored bytes writes nothing (as GuaranteedUpdate does),
// a delete returns the last state stamped with the deletion revision, and watches replay the log
// before going live, failing with "too old resource version: %d (%d)" once compaction passed them
// (as the watch cache in staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go does).
//
// This file and sqliteHistory.ts (the history table in the same file) are the only ones that import
// better-sqlite3.
//
// Objects handed out by get/list/create/update/delete are fresh copies the caller may change. The
// object (and previous) of a StoreEvent is parsed once and shared by every listener: treat it as
// read-only.
import Database from 'better-sqlite3';
import { copyFileSync } from 'node:fs';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import {
  StorageError,
  type Disposable,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type Store,
  type StoreEvent,
  type StoreEventType,
  type WatchOptions,
} from './store';
import type { StoredObject, StoreWrite } from './snapshot';
import type { History, HistoryRetention } from './history';
import { SqliteHistory } from './sqliteHistory';
import { BATCH_ROWS, runInBatches } from './batches';

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS objects (
  id INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  revision INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS objects_key ON objects (resource, namespace, name);
CREATE TABLE IF NOT EXISTS log (
  revision INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  value TEXT NOT NULL,
  previous TEXT
);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Log rows read per replay query: bounds memory when a watch resumes far back. */
const REPLAY_CHUNK = 1000;
/** Rows read per query while a filtered list looks for `limit` matches. */
const FILTER_CHUNK = 256;

interface ObjectRow {
  id: number;
  revision: number;
  value: string;
}

interface ListRow {
  namespace: string;
  name: string;
  value: string;
}

interface LogRow {
  revision: number;
  namespace: string;
  name: string;
  type: string;
  value: string;
  previous: string | null;
}

type KeyParams = [resource: string, namespace: string, name: string];
type ListAllParams = [resource: string, afterNamespace: string, afterName: string, limit: number];
type ListNamespaceParams = [resource: string, namespace: string, afterName: string, limit: number];
type CountAllParams = [resource: string, afterNamespace: string, afterName: string];
type CountNamespaceParams = [resource: string, namespace: string, afterName: string];
type ReplayAllParams = [after: number, upTo: number, resource: string, limit: number];
type ReplayNamespaceParams = [after: number, upTo: number, resource: string, namespace: string, limit: number];
type LogParams = [revision: number, resource: string, namespace: string, name: string, type: StoreEventType, value: string, previous: string | null];

interface Statements {
  getValue: Database.Statement<KeyParams, string>;
  getRow: Database.Statement<KeyParams, ObjectRow>;
  insertObject: Database.Statement<[...KeyParams, revision: number, createRevision: number, value: string]>;
  updateObject: Database.Statement<[value: string, revision: number, id: number]>;
  deleteObject: Database.Statement<[id: number]>;
  insertLog: Database.Statement<LogParams>;
  listAll: Database.Statement<ListAllParams, ListRow>;
  listNamespace: Database.Statement<ListNamespaceParams, ListRow>;
  countAll: Database.Statement<CountAllParams, number>;
  countNamespace: Database.Statement<CountNamespaceParams, number>;
  replayAll: Database.Statement<ReplayAllParams, LogRow>;
  replayNamespace: Database.Statement<ReplayNamespaceParams, LogRow>;
  compactLog: Database.Statement<[upTo: number]>;
  allObjects: Database.Statement<[], StoredObject>;
  setMeta: Database.Statement<[key: string, value: number]>;
}

interface Watcher {
  resource: string;
  namespace: string | undefined;
  listener: (event: StoreEvent) => void;
  /** events up to here were delivered (or are before the requested start): later ones only */
  lastRevision: number;
  /** while the log is being replayed, live dispatch skips this watcher: the replay reads those events itself */
  replaying: boolean;
  disposed: boolean;
}

/** Watchers of one resource, split so a write only visits the watchers that can match it. */
interface WatcherGroup {
  allNamespaces: Set<Watcher>;
  byNamespace: Map<string, Set<Watcher>>;
}

function parseObject(text: string): KubeObject {
  const value: unknown = JSON.parse(text);
  if (!isRecord(value) || !isRecord(value.metadata)) {
    throw new Error('stored value is not a Kubernetes object');
  }
  return value as KubeObject;
}

function serialize(obj: KubeObject, revision: number): string {
  // A shallow copy: the caller's object is never changed.
  return JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } });
}

function isEventType(type: string): type is StoreEventType {
  return type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED';
}

function describe(key: ObjectKey): string {
  return key.namespace === '' ? `${key.resource} "${key.name}"` : `${key.resource} "${key.namespace}/${key.name}"`;
}

export class SqliteStore implements Store {
  private readonly statements: Statements;
  private readonly insertTransaction: (key: ObjectKey, revision: number, text: string) => void;
  private readonly updateTransaction: (key: ObjectKey, id: number, revision: number, text: string, previous: string) => void;
  private readonly deleteTransaction: (key: ObjectKey, id: number, revision: number, text: string, previous: string) => void;
  private readonly compactTransaction: (upTo: number) => void;
  private readonly watchers = new Map<string, WatcherGroup>();
  /** events committed while listeners were being called: delivered after, so every listener sees revision order */
  private readonly pendingEvents: StoreEvent[] = [];
  private dispatching = false;
  private revision: number;
  private compactedRevision: number;
  private compactTarget = 0;
  private compaction: Promise<void> | undefined;
  private disposed = false;
  private historyLog: SqliteHistory | undefined;

  static open(path: string): SqliteStore {
    const db = new Database(path);
    try {
      return new SqliteStore(db, path === ':memory:' || path === '');
    } catch (error) {
      db.close();
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') {
        throw new Error(`${path} is in use by another process (${error.message})`, { cause: error });
      }
      throw error;
    }
  }

  private constructor(
    private readonly db: Database.Database,
    inMemory: boolean,
  ) {
    db.pragma('busy_timeout = 5000');
    if (!inMemory) {
      // One process owns the file: a second kubedesk on the same file would fork the revision
      // counter, so it must fail on open instead (SQLITE_BUSY after busy_timeout). Exclusive mode
      // also lets WAL run without the shared-memory index.
      db.pragma('locking_mode = EXCLUSIVE');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`could not switch ${db.name} to WAL (journal_mode=${String(mode)})`);
    }
    // NORMAL in WAL mode: a commit is in the WAL file (the OS page cache) before it returns, so
    // killing the process loses nothing; only a power cut could lose the last commits.
    db.pragma('synchronous = NORMAL');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -32000');
    db.pragma('journal_size_limit = 67108864');
    db.exec(SCHEMA);

    const getMeta = db.prepare<[key: string], number>('SELECT value FROM meta WHERE key = ?').pluck();
    const schemaVersion = getMeta.get('schema');
    if (schemaVersion !== undefined && schemaVersion !== SCHEMA_VERSION) {
      throw new Error(`${db.name}: schema version ${schemaVersion} is not ${SCHEMA_VERSION}`);
    }

    const statements: Statements = {
      getValue: db.prepare<KeyParams, string>('SELECT value FROM objects WHERE resource = ? AND namespace = ? AND name = ?').pluck(),
      getRow: db.prepare<KeyParams, ObjectRow>('SELECT id, revision, value FROM objects WHERE resource = ? AND namespace = ? AND name = ?'),
      insertObject: db.prepare(
        'INSERT INTO objects (resource, namespace, name, revision, create_revision, value) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      updateObject: db.prepare('UPDATE objects SET value = ?, revision = ? WHERE id = ?'),
      deleteObject: db.prepare('DELETE FROM objects WHERE id = ?'),
      insertLog: db.prepare('INSERT INTO log (revision, resource, namespace, name, type, value, previous) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      listAll: db.prepare<ListAllParams, ListRow>(
        'SELECT namespace, name, value FROM objects WHERE resource = ? AND (namespace, name) > (?, ?) ORDER BY namespace, name LIMIT ?',
      ),
      listNamespace: db.prepare<ListNamespaceParams, ListRow>(
        'SELECT namespace, name, value FROM objects WHERE resource = ? AND namespace = ? AND name > ? ORDER BY name LIMIT ?',
      ),
      countAll: db.prepare<CountAllParams, number>('SELECT count(*) FROM objects WHERE resource = ? AND (namespace, name) > (?, ?)').pluck(),
      countNamespace: db
        .prepare<CountNamespaceParams, number>('SELECT count(*) FROM objects WHERE resource = ? AND namespace = ? AND name > ?')
        .pluck(),
      replayAll: db.prepare<ReplayAllParams, LogRow>(
        'SELECT revision, namespace, name, type, value, previous FROM log WHERE revision > ? AND revision <= ? AND resource = ? ORDER BY revision LIMIT ?',
      ),
      replayNamespace: db.prepare<ReplayNamespaceParams, LogRow>(
        'SELECT revision, namespace, name, type, value, previous FROM log WHERE revision > ? AND revision <= ? AND resource = ? AND namespace = ? ORDER BY revision LIMIT ?',
      ),
      compactLog: db.prepare('DELETE FROM log WHERE revision <= ?'),
      allObjects: db.prepare<[], StoredObject>('SELECT resource, namespace, name, value FROM objects ORDER BY resource, namespace, name'),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    };
    this.statements = statements;
    if (schemaVersion === undefined) statements.setMeta.run('schema', SCHEMA_VERSION);

    // Revisions never go back: after a restart continue from the newest log row, or from the
    // compacted revision when compaction emptied the log (object rows are never newer than either).
    this.compactedRevision = getMeta.get('compacted') ?? 0;
    const newestLogged = db.prepare<[], number | null>('SELECT max(revision) FROM log').pluck().get() ?? 0;
    this.revision = Math.max(newestLogged, this.compactedRevision);

    this.insertTransaction = db.transaction((key: ObjectKey, revision: number, text: string) => {
      if (statements.insertObject.run(key.resource, key.namespace, key.name, revision, revision, text).changes === 0) {
        throw new StorageError('AlreadyExists', `${describe(key)} already exists`);
      }
      statements.insertLog.run(revision, key.resource, key.namespace, key.name, 'ADDED', text, null);
    });
    this.updateTransaction = db.transaction((key: ObjectKey, id: number, revision: number, text: string, previous: string) => {
      statements.updateObject.run(text, revision, id);
      statements.insertLog.run(revision, key.resource, key.namespace, key.name, 'MODIFIED', text, previous);
    });
    this.deleteTransaction = db.transaction((key: ObjectKey, id: number, revision: number, text: string, previous: string) => {
      statements.deleteObject.run(id);
      statements.insertLog.run(revision, key.resource, key.namespace, key.name, 'DELETED', text, previous);
    });
    this.compactTransaction = db.transaction((upTo: number) => {
      statements.compactLog.run(upTo);
      statements.setMeta.run('compacted', upTo);
    });
  }

  currentRevision(): number {
    return this.revision;
  }

  oldestRevision(): number {
    return this.compactedRevision;
  }

  get(key: ObjectKey): KubeObject | undefined {
    const text = this.statements.getValue.get(key.resource, key.namespace, key.name);
    return text === undefined ? undefined : parseObject(text);
  }

  list(resource: string, options: ListOptions): ListResult {
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    const namespace = options.namespace;
    const filter = options.filter;
    // ('', '') sorts before every real key: names are never empty.
    let afterNamespace = options.after?.namespace ?? '';
    let afterName = options.after?.name ?? '';
    if (namespace !== undefined && afterNamespace !== namespace) {
      // Within one namespace the index range is on name alone (a row-value range would scan the whole namespace).
      if (afterNamespace > namespace) return { items: [], revision: this.revision };
      afterNamespace = namespace;
      afterName = '';
    }
    const read = (count: number): ListRow[] =>
      namespace === undefined
        ? this.statements.listAll.all(resource, afterNamespace, afterName, count)
        : this.statements.listNamespace.all(resource, namespace, afterName, count);
    const items: KubeObject[] = [];

    if (filter === undefined) {
      // One row more than asked tells whether another page exists.
      const rows = read(limit === 0 ? -1 : limit + 1);
      const more = limit !== 0 && rows.length > limit;
      if (more) rows.length = limit;
      for (const row of rows) items.push(parseObject(row.value));
      if (!more) return { items, revision: this.revision };
      const lastRow = rows[rows.length - 1];
      const last = { namespace: lastRow.namespace, name: lastRow.name };
      const remaining =
        namespace === undefined
          ? this.statements.countAll.get(resource, last.namespace, last.name)
          : this.statements.countNamespace.get(resource, namespace, last.name);
      return { items, revision: this.revision, last, remaining };
    }

    // With a filter, keep reading until `limit` items match. Like the etcd3 store, a page that
    // filled up with keys left behind it gets a continue key even if none of those would match.
    const chunk = limit === 0 ? -1 : Math.max(FILTER_CHUNK, limit + 1);
    for (;;) {
      const rows = read(chunk);
      for (let index = 0; index < rows.length; index++) {
        const row = rows[index];
        const obj = parseObject(row.value);
        if (!filter(obj)) continue;
        items.push(obj);
        if (limit !== 0 && items.length === limit) {
          afterNamespace = row.namespace;
          afterName = row.name;
          const more = index < rows.length - 1 || read(1).length > 0;
          return more ? { items, revision: this.revision, last: { namespace: row.namespace, name: row.name } } : { items, revision: this.revision };
        }
      }
      if (chunk === -1 || rows.length < chunk) return { items, revision: this.revision };
      const lastRow = rows[rows.length - 1];
      afterNamespace = lastRow.namespace;
      afterName = lastRow.name;
    }
  }

  create(key: ObjectKey, obj: KubeObject): KubeObject {
    const revision = this.revision + 1;
    const text = serialize(obj, revision);
    this.insertTransaction(key, revision, text);
    this.revision = revision;
    if (this.watchers.has(key.resource)) {
      this.publish({ type: 'ADDED', resource: key.resource, namespace: key.namespace, name: key.name, revision, object: parseObject(text) });
    }
    return parseObject(text);
  }

  update(key: ObjectKey, obj: KubeObject, expectedRevision?: number): KubeObject {
    const row = this.currentRow(key, expectedRevision);
    // Nothing changed: keep the revision and send no event, as the etcd3 store's GuaranteedUpdate does.
    if (serialize(obj, row.revision) === row.value) return parseObject(row.value);

    const revision = this.revision + 1;
    const text = serialize(obj, revision);
    this.updateTransaction(key, row.id, revision, text, row.value);
    this.revision = revision;
    this.publishChange('MODIFIED', key, revision, text, row.value);
    return parseObject(text);
  }

  delete(key: ObjectKey, expectedRevision?: number): KubeObject {
    const row = this.currentRow(key, expectedRevision);
    const revision = this.revision + 1;
    const text = serialize(parseObject(row.value), revision);
    this.deleteTransaction(key, row.id, revision, text, row.value);
    this.revision = revision;
    this.publishChange('DELETED', key, revision, text, row.value);
    return parseObject(text);
  }

  /** The stored row of `key`, which must exist and, when the caller expects one, be at `expectedRevision`. */
  private currentRow(key: ObjectKey, expectedRevision: number | undefined): ObjectRow {
    const row = this.statements.getRow.get(key.resource, key.namespace, key.name);
    if (row === undefined) throw new StorageError('NotFound', `${describe(key)} not found`);
    if (expectedRevision !== undefined && expectedRevision !== row.revision) {
      throw new StorageError('Conflict', `${describe(key)} is at revision ${row.revision}, not ${expectedRevision}`);
    }
    return row;
  }

  /** Tells the resource's watchers, if any, of a modification or deletion at `revision`. */
  private publishChange(type: 'MODIFIED' | 'DELETED', key: ObjectKey, revision: number, text: string, previousText: string): void {
    if (!this.watchers.has(key.resource)) return;
    this.publish({ type, resource: key.resource, namespace: key.namespace, name: key.name, revision, object: parseObject(text), previous: parseObject(previousText) });
  }

  watch(options: WatchOptions, listener: (event: StoreEvent) => void): Disposable {
    if (this.disposed) throw new Error('store is disposed');
    if (options.fromRevision < this.compactedRevision) {
      throw new StorageError(
        'Expired',
        `too old resource version: ${options.fromRevision} (${this.compactedRevision})`,
        this.compactedRevision,
      );
    }
    const watcher: Watcher = {
      resource: options.resource,
      namespace: options.namespace,
      listener,
      lastRevision: options.fromRevision,
      replaying: options.fromRevision < this.revision,
      disposed: false,
    };
    this.register(watcher);
    // Replay after watch() returns, so the caller holds its handle before the first event.
    if (watcher.replaying) queueMicrotask(() => this.replay(watcher));
    return {
      dispose: () => {
        if (watcher.disposed) return;
        watcher.disposed = true;
        this.unregister(watcher);
      },
    };
  }

  /**
   * Starts dropping log entries older than keepRevisions back from the current revision, one small
   * transaction per turn of the event loop. The promise resolves when that point is reached (callers
   * of the Store interface may ignore it; failures are logged, never rejected).
   */
  compact(keepRevisions: number): Promise<void> {
    const target = this.revision - Math.max(0, Math.floor(keepRevisions));
    if (target > this.compactTarget) this.compactTarget = target;
    if (this.compaction !== undefined) return this.compaction;
    if (this.compactTarget <= this.compactedRevision || this.disposed) return Promise.resolve();
    const step = (): boolean => {
      if (this.compactedRevision >= this.compactTarget) return false;
      // Every revision has exactly one log row, so a revision range this wide holds at most a batch.
      const upTo = Math.min(this.compactTarget, this.compactedRevision + BATCH_ROWS);
      this.compactTransaction(upTo);
      this.compactedRevision = upTo;
      return true;
    };
    this.compaction = runInBatches(step, 'compaction', () => this.disposed).then(() => {
      this.compaction = undefined;
    });
    return this.compaction;
  }

  /** Every stored object as its JSON text, in key order (a snapshot restore compares them with the snapshot's). */
  allObjects(): StoredObject[] {
    return this.statements.allObjects.all();
  }

  /**
   * Copies the whole file to `destination`, consistent at one revision (read it from the copy:
   * snapshot.ts revisionOf). Every write of the store goes through this one connection on this
   * thread, so a checkpoint that empties the WAL followed at once by a plain file copy, both
   * synchronous, cannot see a write in between: the main file then holds every committed page.
   * That is several times faster than SQLite's online backup, which copies page by page through a
   * second connection. When the checkpoint cannot finish (an open read statement still needs the
   * WAL) or the store is in memory, the online backup does it, writes going on meanwhile: writes
   * on this connection during that copy are carried into it. History writes still queued are
   * inserted first.
   */
  async backupTo(destination: string): Promise<void> {
    if (this.disposed) throw new Error('store is disposed');
    // the history's queued writes belong in the copy too
    this.historyLog?.flush();
    if (this.db.name !== ':memory:' && this.db.name !== '') {
      const [result] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
      if (result !== undefined && result.busy === 0 && result.log === result.checkpointed) {
        copyFileSync(this.db.name, destination);
        return;
      }
    }
    await this.db.backup(destination, { progress: () => 1_000_000 });
  }

  /**
   * Applies `writes` in order in one transaction, each at its own revision above the current one
   * (revisions never go back), then tells watchers of each in revision order: a watcher sees the
   * change as ordinary events and never holds a state older than the store. Creates of existing
   * keys fail with AlreadyExists and updates or deletes of missing keys with NotFound; either
   * leaves the store as it was. Returns each write's stored object (a deletion's last state,
   * stamped with the deletion revision), in order.
   */
  applyWrites(writes: readonly StoreWrite[]): KubeObject[] {
    if (this.disposed) throw new Error('store is disposed');
    const events: StoreEvent[] = [];
    const run = this.db.transaction(() => {
      let revision = this.revision;
      for (const write of writes) {
        const { key } = write;
        revision++;
        if (write.type === 'create') {
          const text = serialize(write.object, revision);
          if (this.statements.insertObject.run(key.resource, key.namespace, key.name, revision, revision, text).changes === 0) {
            throw new StorageError('AlreadyExists', `${describe(key)} already exists`);
          }
          this.statements.insertLog.run(revision, key.resource, key.namespace, key.name, 'ADDED', text, null);
          events.push({ type: 'ADDED', resource: key.resource, namespace: key.namespace, name: key.name, revision, object: parseObject(text) });
          continue;
        }
        const row = this.currentRow(key, undefined);
        const text = write.type === 'update' ? serialize(write.object, revision) : serialize(parseObject(row.value), revision);
        if (write.type === 'update') {
          this.statements.updateObject.run(text, revision, row.id);
        } else {
          this.statements.deleteObject.run(row.id);
        }
        const type = write.type === 'update' ? 'MODIFIED' : 'DELETED';
        this.statements.insertLog.run(revision, key.resource, key.namespace, key.name, type, text, row.value);
        events.push({ type, resource: key.resource, namespace: key.namespace, name: key.name, revision, object: parseObject(text), previous: parseObject(row.value) });
      }
      return revision;
    });
    this.revision = run();
    for (const event of events) if (this.watchers.has(event.resource)) this.publish(event);
    return events.map((event) => event.object);
  }

  /**
   * The history of every write (history.ts), in this store's file; one per store, created on first
   * call with the given retention. The store disposes it before closing the file.
   */
  history(retention: HistoryRetention, clock?: () => number): History {
    if (this.disposed) throw new Error('store is disposed');
    this.historyLog ??= new SqliteHistory(this.db, retention, clock);
    return this.historyLog;
  }

  dispose(): void {
    if (this.disposed) return;
    this.historyLog?.dispose();
    this.disposed = true;
    for (const group of this.watchers.values()) {
      for (const watcher of group.allNamespaces) watcher.disposed = true;
      for (const set of group.byNamespace.values()) for (const watcher of set) watcher.disposed = true;
    }
    this.watchers.clear();
    this.db.close();
  }

  private register(watcher: Watcher): void {
    let group = this.watchers.get(watcher.resource);
    if (group === undefined) {
      group = { allNamespaces: new Set(), byNamespace: new Map() };
      this.watchers.set(watcher.resource, group);
    }
    if (watcher.namespace === undefined) {
      group.allNamespaces.add(watcher);
      return;
    }
    let set = group.byNamespace.get(watcher.namespace);
    if (set === undefined) {
      set = new Set();
      group.byNamespace.set(watcher.namespace, set);
    }
    set.add(watcher);
  }

  private unregister(watcher: Watcher): void {
    const group = this.watchers.get(watcher.resource);
    if (group === undefined) return;
    if (watcher.namespace === undefined) {
      group.allNamespaces.delete(watcher);
    } else {
      const set = group.byNamespace.get(watcher.namespace);
      if (set !== undefined) {
        set.delete(watcher);
        if (set.size === 0) group.byNamespace.delete(watcher.namespace);
      }
    }
    // An empty group would make every write of this resource parse an event for nobody.
    if (group.allNamespaces.size === 0 && group.byNamespace.size === 0) this.watchers.delete(watcher.resource);
  }

  /** Reads the log from the watcher's start until it has caught up with the live revision. */
  private replay(watcher: Watcher): void {
    let cursor = watcher.lastRevision;
    while (!watcher.disposed && !this.disposed) {
      const upTo = this.revision;
      const rows =
        watcher.namespace === undefined
          ? this.statements.replayAll.all(cursor, upTo, watcher.resource, REPLAY_CHUNK)
          : this.statements.replayNamespace.all(cursor, upTo, watcher.resource, watcher.namespace, REPLAY_CHUNK);
      for (const row of rows) {
        if (watcher.disposed) return;
        if (!isEventType(row.type)) throw new Error(`log revision ${row.revision} has unknown type ${row.type}`);
        const event: StoreEvent = {
          type: row.type,
          resource: watcher.resource,
          namespace: row.namespace,
          name: row.name,
          revision: row.revision,
          object: parseObject(row.value),
        };
        if (row.previous !== null) event.previous = parseObject(row.previous);
        this.deliver(watcher, event);
      }
      if (rows.length < REPLAY_CHUNK) {
        cursor = upTo;
        // A listener may have written during this chunk; those events are in the log, not yet delivered.
        if (this.revision === upTo) break;
      } else {
        cursor = rows[rows.length - 1].revision;
      }
    }
    // Going live in the same synchronous step as the last read leaves no gap: no commit can come between.
    if (watcher.lastRevision < cursor) watcher.lastRevision = cursor;
    watcher.replaying = false;
  }

  private publish(event: StoreEvent): void {
    this.pendingEvents.push(event);
    // A listener that writes re-enters here; its event waits so that all listeners see revision order.
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      for (let index = 0; index < this.pendingEvents.length; index++) {
        const next = this.pendingEvents[index];
        const group = this.watchers.get(next.resource);
        if (group === undefined) continue;
        for (const watcher of group.allNamespaces) if (!watcher.replaying) this.deliver(watcher, next);
        const set = group.byNamespace.get(next.namespace);
        if (set !== undefined) for (const watcher of set) if (!watcher.replaying) this.deliver(watcher, next);
      }
    } finally {
      this.pendingEvents.length = 0;
      this.dispatching = false;
    }
  }

  private deliver(watcher: Watcher, event: StoreEvent): void {
    if (watcher.disposed || event.revision <= watcher.lastRevision) return;
    watcher.lastRevision = event.revision;
    try {
      watcher.listener(event);
    } catch (error) {
      // The write is committed: a failing listener must not turn it into an error for the writer.
      console.error(`storage: watch listener for ${event.resource} threw`, error);
    }
  }
}

export interface CompactorOptions {
  intervalMs: number;
  /** how many revisions of history to keep for watches that resume */
  keepRevisions: number;
}

/** Compacts the store every intervalMs; the timer does not keep the process alive. */
export function startCompactor(store: Store, options: CompactorOptions): Disposable {
  const timer = setInterval(() => {
    try {
      store.compact(options.keepRevisions);
    } catch (error) {
      // A disposed store throws; keep the timer harmless until its owner disposes it too.
      console.error('storage: compaction failed', error);
    }
  }, options.intervalMs);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}

/** Prunes the history every intervalMs (off the write path, in small batches); the timer does not keep the process alive. */
export function startHistoryPruner(history: History, intervalMs: number): Disposable {
  const timer = setInterval(() => void history.prune(), intervalMs);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}
