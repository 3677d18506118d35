// Tests for SqliteHistory: each write becomes a revision with its who/how, numbered per object; a
// reader sees writes made just before it asked; deleted objects are those whose newest revision
// removed them; pruning keeps the retention (age, revisions per object, total size) in batches.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import type { History, HistoryRetention, WriteRecord } from './history';
import { DEFAULT_HISTORY_RETENTION } from './history';
import { SqliteStore } from './sqliteStore';
import type { ObjectKey } from './store';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function open(retention: HistoryRetention = DEFAULT_HISTORY_RETENTION, clock?: () => number): { store: SqliteStore; history: History } {
  const store = SqliteStore.open(':memory:');
  cleanups.push(() => store.dispose());
  return { store, history: store.history(retention, clock) };
}

const key: ObjectKey = { resource: 'configmaps', namespace: 'default', name: 'settings' };

function configMap(value: string, resourceVersion: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default', resourceVersion }, data: { value } };
}

function write(overrides: Partial<WriteRecord> & { object: KubeObject }): WriteRecord {
  return { key, operation: 'UPDATE', removed: false, ...overrides };
}

describe('SqliteHistory', () => {
  it('records each write as a numbered revision with its operation, user, manager and user agent', () => {
    const { history } = open();
    history.record(write({ object: configMap('a', '5'), operation: 'CREATE', user: 'alice', fieldManager: 'kubectl-client-side-apply', userAgent: 'kubectl/v1.35.0' }));
    history.record(write({ object: configMap('b', '9'), operation: 'PATCH', user: 'bob', impersonator: 'alice', fieldManager: 'kubectl-edit' }));
    const revisions = history.revisions(key);
    expect(revisions.map((entry) => [entry.revision, entry.operation, entry.user, entry.fieldManager, entry.resourceVersion])).toEqual([
      [1, 'CREATE', 'alice', 'kubectl-client-side-apply', 5],
      [2, 'PATCH', 'bob', 'kubectl-edit', 9],
    ]);
    expect(revisions[0].userAgent).toBe('kubectl/v1.35.0');
    expect(revisions[1].impersonator).toBe('alice');
    expect(revisions[1].object.data).toEqual({ value: 'b' });
    expect(history.revision(key, 1)?.object.data).toEqual({ value: 'a' });
    expect(history.revision(key, 3)).toBeUndefined();
  });

  it('keeps the object as it was when recorded even if the caller changes it afterwards', () => {
    const { history } = open();
    const object = configMap('a', '1');
    history.record(write({ object, operation: 'CREATE' }));
    object.data = { value: 'changed later' };
    expect(history.revisions(key)[0].object.data).toEqual({ value: 'a' });
  });

  it('lists an object as deleted until a later write recreates it', () => {
    const { history } = open();
    history.record(write({ object: configMap('a', '1'), operation: 'CREATE' }));
    history.record(write({ object: configMap('a', '2'), operation: 'DELETE', removed: true }));
    const other: ObjectKey = { resource: 'deployments.apps', namespace: 'other', name: 'web' };
    history.record({ key: other, object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'other' } }, operation: 'DELETE', removed: true });
    expect(history.deleted({}).map((entry) => entry.key.name)).toEqual(['web', 'settings']);
    expect(history.deleted({ namespace: 'default' }).map((entry) => [entry.key.name, entry.revision])).toEqual([['settings', 2]]);
    history.record(write({ object: configMap('a', '3'), operation: 'CREATE' }));
    expect(history.deleted({ namespace: 'default' })).toEqual([]);
    expect(history.revisions(key).map((entry) => entry.revision)).toEqual([1, 2, 3]);
  });

  it('answers the change feed newest first, filtered by time, namespace, resource and user', () => {
    let now = 1_000;
    const { history } = open(DEFAULT_HISTORY_RETENTION, () => now);
    history.record(write({ object: configMap('a', '1'), operation: 'CREATE', user: 'alice' }));
    now = 2_000;
    history.record(write({ object: configMap('b', '2'), user: 'bob' }));
    history.record({ key: { resource: 'secrets', namespace: 'default', name: 's' }, object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, operation: 'CREATE', removed: false, user: 'bob' });
    expect(history.changes({}).map((entry) => entry.resourceVersion)).toEqual([0, 2, 1]);
    expect(history.changes({ since: 2_000, resource: 'configmaps' }).map((entry) => entry.user)).toEqual(['bob']);
    expect(history.changes({ user: 'alice' }).map((entry) => entry.operation)).toEqual(['CREATE']);
    expect(history.changes({ namespace: 'elsewhere' })).toEqual([]);
  });

  it('tells each key\'s state at a past time: its revision then, created later, or pruned', () => {
    let now = 1_000;
    const { history } = open(DEFAULT_HISTORY_RETENTION, () => now);
    const other: ObjectKey = { resource: 'configmaps', namespace: 'default', name: 'later' };
    const pruned: ObjectKey = { resource: 'configmaps', namespace: 'default', name: 'pruned' };
    history.record(write({ object: configMap('a', '1'), operation: 'CREATE' }));
    now = 2_000;
    history.record(write({ object: configMap('b', '2') }));
    history.record(write({ key: pruned, object: configMap('p', '3') }));
    now = 3_000;
    history.record(write({ object: configMap('b', '4'), operation: 'DELETE', removed: true }));
    history.record(write({ key: other, object: configMap('c', '5'), operation: 'CREATE' }));
    history.record({ key: { resource: 'secrets', namespace: 'default', name: 's' }, object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }, operation: 'CREATE', removed: false });
    const at = (time: number) => history.asOf('configmaps', 'default', time).map((past) => [past.key.name, past.state, past.entry.revision, past.entry.removed]);
    expect(at(1_500)).toEqual([
      ['later', 'created-after', 1, false],
      ['pruned', 'unknown', 1, false],
      ['settings', 'at', 1, false],
    ]);
    expect(at(2_000)).toEqual([
      ['later', 'created-after', 1, false],
      ['pruned', 'at', 1, false],
      ['settings', 'at', 2, false],
    ]);
    expect(at(3_000).map(([name, state, , removed]) => [name, state, removed])).toEqual([
      ['later', 'at', false],
      ['pruned', 'at', false],
      ['settings', 'at', true],
    ]);
    expect(history.asOf('configmaps', 'elsewhere', 3_000)).toEqual([]);
    expect(history.startTime()).toBe(1_000);
  });

  it('prunes revisions beyond the per-object limit, keeping the newest', async () => {
    const { history } = open({ ...DEFAULT_HISTORY_RETENTION, maxRevisions: 3 });
    for (let index = 1; index <= 1_200; index++) history.record(write({ object: configMap(String(index), String(index)) }));
    await history.prune();
    expect(history.revisions(key).map((entry) => entry.revision)).toEqual([1_198, 1_199, 1_200]);
  });

  it('prunes revisions older than the maximum age', async () => {
    let now = 0;
    const { history } = open({ ...DEFAULT_HISTORY_RETENTION, maxAgeMs: 60_000 }, () => now);
    history.record(write({ object: configMap('old', '1') }));
    now = 100_000;
    history.record(write({ object: configMap('new', '2') }));
    await history.prune();
    expect(history.revisions(key).map((entry) => entry.object.data)).toEqual([{ value: 'new' }]);
  });

  it('drops the oldest revisions once the stored objects exceed the size cap', async () => {
    const { history } = open({ ...DEFAULT_HISTORY_RETENTION, maxBytes: 10_000 });
    const big = 'x'.repeat(1_000);
    for (let index = 1; index <= 30; index++) {
      history.record({ key: { resource: 'configmaps', namespace: 'default', name: `cm${index}` }, object: configMap(big, String(index)), operation: 'CREATE', removed: false });
    }
    history.revisions(key);
    expect(history.storedBytes()).toBeGreaterThan(10_000);
    await history.prune();
    expect(history.storedBytes()).toBeLessThanOrEqual(10_000);
    const kept = history.changes({}).map((entry) => entry.key.name);
    expect(kept[0]).toBe('cm30');
    expect(kept).not.toContain('cm1');
  });

  it('keeps writing while pruning runs: pruning never holds the writer', async () => {
    const { history } = open({ ...DEFAULT_HISTORY_RETENTION, maxRevisions: 1 });
    for (let index = 1; index <= 2_000; index++) history.record(write({ object: configMap(String(index), String(index)) }));
    const pruning = history.prune();
    history.record(write({ object: configMap('during', '2001') }));
    await pruning;
    await history.prune();
    expect(history.revisions(key).map((entry) => entry.object.data)).toEqual([{ value: 'during' }]);
  });

  it('keeps the history across a restart: revisions continue from the last number, queued writes are saved on dispose', () => {
    const directory = mkdtempSync(join(tmpdir(), 'kubedesk-history-'));
    cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, 'state.db');
    const first = SqliteStore.open(path);
    first.history(DEFAULT_HISTORY_RETENTION).record(write({ object: configMap('a', '1'), operation: 'CREATE' }));
    first.dispose();
    const second = SqliteStore.open(path);
    cleanups.push(() => second.dispose());
    const history = second.history(DEFAULT_HISTORY_RETENTION);
    history.record(write({ object: configMap('b', '2') }));
    expect(history.revisions(key).map((entry) => [entry.revision, entry.object.data])).toEqual([
      [1, { value: 'a' }],
      [2, { value: 'b' }],
    ]);
  });
});
