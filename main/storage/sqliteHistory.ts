// SqliteHistory: the History (history.ts) in a table of the store's own SQLite file. Writes are
// queued by `record` and inserted together in one transaction on the next turn of the event loop,
// so the write path pays for an array push, not a second commit; every read flushes the queue
// first, so a reader always sees the writes made before it asked. Pruning (age, revisions per
// object, total size) deletes a small batch per transaction, one per turn of the event loop, like
// the store's log compaction.
import type Database from 'better-sqlite3';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import type { ChangesQuery, History, HistoryEntry, HistoryOperation, HistoryRetention, PastState, WriteRecord } from './history';
import type { ObjectKey } from './store';
import { BATCH_ROWS, runInBatches } from './batches';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS history (
  id INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  seq INTEGER NOT NULL,
  resource_version INTEGER NOT NULL,
  time INTEGER NOT NULL,
  operation TEXT NOT NULL,
  removed INTEGER NOT NULL,
  subresource TEXT,
  user TEXT,
  impersonator TEXT,
  manager TEXT,
  user_agent TEXT,
  value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS history_key ON history (resource, namespace, name, seq);
`;
// No index on time: rows are inserted in time order, so id order is time order (age pruning and
// the change feed walk ids); one index fewer is one B-tree write fewer per recorded write.

const DEFAULT_CHANGES_LIMIT = 500;
const SEQ_CACHE_SIZE = 10_000;

interface HistoryRow {
  resource: string;
  namespace: string;
  name: string;
  seq: number;
  resource_version: number;
  time: number;
  operation: string;
  removed: number;
  subresource: string | null;
  user: string | null;
  impersonator: string | null;
  manager: string | null;
  user_agent: string | null;
  value: string;
}

type KeyParams = [resource: string, namespace: string, name: string];
type InsertParams = [
  resource: string,
  namespace: string,
  name: string,
  seq: number,
  resourceVersion: number,
  time: number,
  operation: string,
  removed: number,
  subresource: string | null,
  user: string | null,
  impersonator: string | null,
  manager: string | null,
  userAgent: string | null,
  value: string,
];

const COLUMNS = 'resource, namespace, name, seq, resource_version, time, operation, removed, subresource, user, impersonator, manager, user_agent, value';

function isOperation(text: string): text is HistoryOperation {
  return text === 'CREATE' || text === 'UPDATE' || text === 'PATCH' || text === 'APPLY' || text === 'DELETE';
}

function toEntry(row: HistoryRow): HistoryEntry {
  const value: unknown = JSON.parse(row.value);
  if (!isRecord(value) || !isRecord(value.metadata)) throw new Error('stored history value is not a Kubernetes object');
  if (!isOperation(row.operation)) throw new Error(`history row has unknown operation ${row.operation}`);
  const entry: HistoryEntry = {
    key: { resource: row.resource, namespace: row.namespace, name: row.name },
    revision: row.seq,
    resourceVersion: row.resource_version,
    time: row.time,
    operation: row.operation,
    removed: row.removed === 1,
    object: value as KubeObject,
  };
  if (row.subresource !== null) entry.subresource = row.subresource;
  if (row.user !== null) entry.user = row.user;
  if (row.impersonator !== null) entry.impersonator = row.impersonator;
  if (row.manager !== null) entry.fieldManager = row.manager;
  if (row.user_agent !== null) entry.userAgent = row.user_agent;
  return entry;
}

interface QueuedWrite {
  write: WriteRecord;
  time: number;
  value: string;
  resourceVersion: number;
}

function keyId(key: ObjectKey): string {
  return `${key.resource}\u0000${key.namespace}\u0000${key.name}`;
}

export class SqliteHistory implements History {
  private readonly queue: QueuedWrite[] = [];
  private flushScheduled = false;
  private readonly flushTransaction: (writes: QueuedWrite[]) => void;
  private readonly insert: Database.Statement<InsertParams>;
  private readonly lastSeq: Database.Statement<KeyParams, number | null>;
  private readonly byKey: Database.Statement<KeyParams, HistoryRow>;
  private readonly oneRevision: Database.Statement<[...KeyParams, seq: number], HistoryRow>;
  private readonly db: Database.Database;
  /** keys written since the last pruning: the only ones that may hold more than maxRevisions */
  private readonly dirtyKeys = new Map<string, ObjectKey>();
  private bytes: number;
  /** the last revision number of recently written keys: spares a query per write (bounded, cleared when full) */
  private readonly lastSeqs = new Map<string, number>();
  private pruning: Promise<void> | undefined;
  private disposed = false;

  constructor(
    db: Database.Database,
    private readonly retention: HistoryRetention,
    private readonly clock: () => number = Date.now,
  ) {
    this.db = db;
    db.exec(SCHEMA);
    this.insert = db.prepare(`INSERT INTO history (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.lastSeq = db.prepare<KeyParams, number | null>('SELECT max(seq) FROM history WHERE resource = ? AND namespace = ? AND name = ?').pluck();
    this.byKey = db.prepare<KeyParams, HistoryRow>(`SELECT ${COLUMNS} FROM history WHERE resource = ? AND namespace = ? AND name = ? ORDER BY seq`);
    this.oneRevision = db.prepare<[...KeyParams, number], HistoryRow>(`SELECT ${COLUMNS} FROM history WHERE resource = ? AND namespace = ? AND name = ? AND seq = ?`);
    this.bytes = db.prepare<[], number>('SELECT total(length(value)) FROM history').pluck().get() ?? 0;
    // Keys over the revision limit from an earlier run (e.g. a lower limit now) are pruned too.
    const over = db.prepare<[number], ObjectKey>('SELECT resource, namespace, name FROM history GROUP BY resource, namespace, name HAVING count(*) > ?').all(retention.maxRevisions);
    for (const key of over) this.dirtyKeys.set(keyId(key), key);
    this.flushTransaction = db.transaction((writes: QueuedWrite[]) => {
      const seqs = this.lastSeqs;
      for (const { write, time, value, resourceVersion } of writes) {
        const { key } = write;
        const id = keyId(key);
        const seq = (seqs.get(id) ?? this.lastSeq.get(key.resource, key.namespace, key.name) ?? 0) + 1;
        if (seqs.size >= SEQ_CACHE_SIZE) seqs.clear();
        seqs.set(id, seq);
        this.insert.run(
          key.resource,
          key.namespace,
          key.name,
          seq,
          resourceVersion,
          time,
          write.operation,
          write.removed ? 1 : 0,
          write.subresource ?? null,
          write.user ?? null,
          write.impersonator ?? null,
          write.fieldManager ?? null,
          write.userAgent ?? null,
          value,
        );
        this.bytes += value.length;
        if (seq > this.retention.maxRevisions) this.dirtyKeys.set(id, key);
      }
    });
  }

  record(write: WriteRecord): void {
    if (this.disposed) return;
    // Serialized now: the caller owns the object and may change it once this returns.
    this.queue.push({ write, time: this.clock(), value: JSON.stringify(write.object), resourceVersion: Number(write.object.metadata.resourceVersion ?? 0) });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      try {
        this.flush();
      } catch (error) {
        // Off the write path with nobody to throw to: the object write itself is committed.
        console.error('history: recording failed', error);
      }
    });
  }

  /** Inserts every queued write in one transaction. */
  flush(): void {
    if (this.disposed || this.queue.length === 0) return;
    const writes = this.queue.splice(0, this.queue.length);
    this.flushTransaction(writes);
  }

  revisions(key: ObjectKey): HistoryEntry[] {
    this.flush();
    return this.byKey.all(key.resource, key.namespace, key.name).map(toEntry);
  }

  revision(key: ObjectKey, revision: number): HistoryEntry | undefined {
    this.flush();
    const row = this.oneRevision.get(key.resource, key.namespace, key.name, revision);
    return row === undefined ? undefined : toEntry(row);
  }

  deleted(options: { namespace?: string; resource?: string }): HistoryEntry[] {
    this.flush();
    const where: string[] = ['h.removed = 1'];
    const params: string[] = [];
    if (options.namespace !== undefined) {
      where.push('h.namespace = ?');
      params.push(options.namespace);
    }
    if (options.resource !== undefined) {
      where.push('h.resource = ?');
      params.push(options.resource);
    }
    // The newest revision of its key removed it: nothing recreated the object since.
    const sql = `SELECT ${COLUMNS.split(', ').map((column) => `h.${column}`).join(', ')} FROM history h WHERE ${where.join(' AND ')}
      AND h.seq = (SELECT max(seq) FROM history l WHERE l.resource = h.resource AND l.namespace = h.namespace AND l.name = h.name)
      ORDER BY h.id DESC`;
    return this.db.prepare<string[], HistoryRow>(sql).all(...params).map(toEntry);
  }

  changes(query: ChangesQuery): HistoryEntry[] {
    this.flush();
    const where: string[] = ['time >= ?'];
    const params: (string | number)[] = [query.since ?? 0];
    if (query.namespace !== undefined) {
      where.push('namespace = ?');
      params.push(query.namespace);
    }
    if (query.resource !== undefined) {
      where.push('resource = ?');
      params.push(query.resource);
    }
    if (query.user !== undefined) {
      where.push('user = ?');
      params.push(query.user);
    }
    params.push(query.limit ?? DEFAULT_CHANGES_LIMIT);
    const sql = `SELECT ${COLUMNS} FROM history WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`;
    return this.db.prepare<(string | number)[], HistoryRow>(sql).all(...params).map(toEntry);
  }

  asOf(resource: string, namespace: string | undefined, time: number): PastState[] {
    this.flush();
    // per key: the newest revision at or before the time, else the oldest retained one (ids grow with time)
    const scope = namespace === undefined ? '' : ' AND namespace = ?';
    const params: (string | number)[] = [time, resource, ...(namespace === undefined ? [] : [namespace])];
    const picks = this.db
      .prepare<(string | number)[], { at: number | null; first: number }>(`SELECT max(CASE WHEN time <= ? THEN id END) AS at, min(id) AS first FROM history WHERE resource = ?${scope} GROUP BY namespace, name`)
      .all(...params);
    const byId = this.db.prepare<[number], HistoryRow>(`SELECT ${COLUMNS} FROM history WHERE id = ?`);
    const out: PastState[] = [];
    for (const pick of picks) {
      const row = byId.get(pick.at ?? pick.first);
      if (row === undefined) continue;
      const entry = toEntry(row);
      const state = pick.at !== null ? 'at' : entry.operation === 'CREATE' && entry.subresource === undefined ? 'created-after' : 'unknown';
      out.push({ key: entry.key, state, entry });
    }
    return out;
  }

  startTime(): number | undefined {
    this.flush();
    return this.db.prepare<[], number>('SELECT time FROM history ORDER BY id LIMIT 1').pluck().get();
  }

  storedBytes(): number {
    return this.bytes;
  }

  prune(now: number = this.clock()): Promise<void> {
    if (this.pruning !== undefined) return this.pruning;
    if (this.disposed) return Promise.resolve();
    const deleteIds = this.db.prepare<number[]>('DELETE FROM history WHERE id = ?');
    const oldest = this.db.prepare<[limit: number], { id: number; size: number; time: number }>('SELECT id, length(value) AS size, time FROM history ORDER BY id LIMIT ?');
    const firstIds = this.db.prepare<[limit: number], { id: number; size: number }>('SELECT id, length(value) AS size FROM history ORDER BY id LIMIT ?');
    const surplus = this.db.prepare<[...KeyParams, limit: number], { id: number; size: number }>(
      'SELECT id, length(value) AS size FROM history WHERE resource = ? AND namespace = ? AND name = ? ORDER BY seq DESC LIMIT -1 OFFSET ?',
    );
    const remove = this.db.transaction((rows: { id: number; size: number }[]) => {
      for (const row of rows) {
        deleteIds.run(row.id);
        this.bytes -= row.size;
      }
    });
    const cutoff = now - this.retention.maxAgeMs;
    // One small batch per step: age first, then revisions per object, then the size cap.
    const step = (): boolean => {
      this.flush();
      const first = oldest.all(BATCH_ROWS);
      const firstKept = first.findIndex((row) => row.time >= cutoff);
      const old = firstKept === -1 ? first : first.slice(0, firstKept);
      if (old.length > 0) {
        remove(old);
        return true;
      }
      let budget = BATCH_ROWS;
      for (const [id, key] of this.dirtyKeys) {
        if (budget <= 0) return true;
        const extra = surplus.all(key.resource, key.namespace, key.name, this.retention.maxRevisions);
        const rows = extra.slice(0, budget);
        remove(rows);
        budget -= rows.length;
        if (rows.length === extra.length) this.dirtyKeys.delete(id);
      }
      if (budget < BATCH_ROWS) return true;
      if (this.bytes > this.retention.maxBytes) {
        // the oldest first, just enough to get under the cap
        const rows: { id: number; size: number }[] = [];
        let excess = this.bytes - this.retention.maxBytes;
        for (const row of firstIds.all(BATCH_ROWS)) {
          if (excess <= 0) break;
          rows.push(row);
          excess -= row.size;
        }
        if (rows.length === 0) return false;
        remove(rows);
        return true;
      }
      return false;
    };
    this.pruning = runInBatches(step, 'history pruning', () => this.disposed).then(() => {
      this.pruning = undefined;
    });
    return this.pruning;
  }

  /** Writes what is queued; the store closes the database. */
  dispose(): void {
    if (this.disposed) return;
    try {
      this.flush();
    } finally {
      this.disposed = true;
    }
  }
}
