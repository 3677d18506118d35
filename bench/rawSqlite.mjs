// Baseline for the create benchmark: the fastest a single-writer SQLite store can go on this
// machine — one transaction per object holding the object's JSON row and its change-log row (what
// an etcd-style store with a watchable history must write per create, like kine's log table), in
// WAL mode with synchronous=NORMAL, in a temp file. No HTTP, TLS, validation or watch fan-out.
// This is the one bench file that talks to better-sqlite3 directly: it is the yardstick.
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { temporaryDir } from './lib.mjs';

/** A ConfigMap as the API server stores it after a create: the same size and shape as the bench's. */
export function storedConfigMap(index, revision) {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `raw-${index}`,
      namespace: 'bench',
      uid: randomUUID(),
      resourceVersion: String(revision),
      creationTimestamp: now,
      managedFields: [{ manager: 'kubedesk-bench', operation: 'Update', apiVersion: 'v1', time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:index': {}, 'f:payload': {} } } }],
    },
    data: { index: String(index), payload: 'x'.repeat(64) },
  };
}

/** Inserts until `maxInserts` or `maxMs`, whichever comes first; returns inserts per second. */
export function rawInsertLoop({ maxInserts = 30_000, maxMs = 3_000, warmup = 500 } = {}) {
  const directory = temporaryDir('raw-sqlite');
  const db = new Database(join(directory, 'raw.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`
      CREATE TABLE objects (id INTEGER PRIMARY KEY, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, revision INTEGER NOT NULL, value TEXT NOT NULL);
      CREATE UNIQUE INDEX objects_key ON objects (resource, namespace, name);
      CREATE TABLE log (revision INTEGER PRIMARY KEY, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, value TEXT NOT NULL);
    `);
    const insertObject = db.prepare('INSERT INTO objects (resource, namespace, name, revision, value) VALUES (?, ?, ?, ?, ?)');
    const insertLog = db.prepare('INSERT INTO log (revision, resource, namespace, name, type, value) VALUES (?, ?, ?, ?, ?, ?)');
    let revision = 0;
    const createOne = db.transaction((index) => {
      revision += 1;
      const object = storedConfigMap(index, revision);
      const json = JSON.stringify(object);
      insertObject.run('configmaps', 'bench', object.metadata.name, revision, json);
      insertLog.run(revision, 'configmaps', 'bench', object.metadata.name, 'ADDED', json);
    });
    let index = 0;
    for (; index < warmup; index++) createOne(index);
    const started = performance.now();
    const deadline = started + maxMs;
    let inserted = 0;
    // Check the clock every 100 inserts: cheap, and still bounds the loop in time.
    while (inserted < maxInserts && (inserted % 100 !== 0 || performance.now() < deadline)) {
      createOne(index++);
      inserted++;
    }
    const seconds = (performance.now() - started) / 1000;
    return { inserts: inserted, seconds, perSecond: inserted / seconds };
  } finally {
    db.close();
    rmSync(directory, { recursive: true, force: true });
  }
}
