// Tests for SqliteStore: CRUD and compare-and-swap as the etcd3 store behaves, revisions that only
// grow (also across restarts and compaction), paging, watch replay and live delivery, Expired after
// compaction, and durability of every acknowledged write when the process is killed with SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { SqliteStore, startCompactor } from './sqliteStore';
import { StorageError, type Disposable, type ObjectKey, type StoreEvent } from './store';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function memoryStore(): SqliteStore {
  const store = SqliteStore.open(':memory:');
  cleanups.push(() => store.dispose());
  return store;
}

function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'kubedesk-store-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function key(namespace: string, name: string, resource = 'configmaps'): ObjectKey {
  return { resource, namespace, name };
}

function configMap(namespace: string, name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

function errorCode(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    if (error instanceof StorageError) return error.code;
    throw error;
  }
  return undefined;
}

function collect(events: StoreEvent[]): (event: StoreEvent) => void {
  return (event) => events.push(event);
}

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function revisionOf(obj: KubeObject | undefined): number {
  return Number(obj?.metadata.resourceVersion);
}

describe('SqliteStore', () => {
  it('creates, reads, updates and deletes an object, stamping resourceVersion with the global revision', () => {
    const store = memoryStore();
    expect(store.currentRevision()).toBe(0);

    const created = store.create(key('default', 'a'), configMap('default', 'a', { x: '1' }));
    expect(created.metadata.resourceVersion).toBe('1');
    expect(store.currentRevision()).toBe(1);
    expect(store.get(key('default', 'a'))).toEqual(created);

    const updated = store.update(key('default', 'a'), configMap('default', 'a', { x: '2' }));
    expect(updated.metadata.resourceVersion).toBe('2');
    expect(store.get(key('default', 'a'))?.data).toEqual({ x: '2' });

    const deleted = store.delete(key('default', 'a'));
    expect(deleted.data).toEqual({ x: '2' });
    expect(deleted.metadata.resourceVersion).toBe('3');
    expect(store.get(key('default', 'a'))).toBeUndefined();
    expect(store.currentRevision()).toBe(3);
  });

  it('never changes the object the caller passed in', () => {
    const store = memoryStore();
    const input = configMap('default', 'a');
    store.create(key('default', 'a'), input);
    expect(input.metadata.resourceVersion).toBeUndefined();
  });

  it('returns a fresh object from every get, so callers may change what they receive', () => {
    const store = memoryStore();
    store.create(key('default', 'a'), configMap('default', 'a', { x: '1' }));
    const first = store.get(key('default', 'a'));
    expect(first).toBeDefined();
    if (first) (first.data as Record<string, string>).x = 'changed';
    expect(store.get(key('default', 'a'))?.data).toEqual({ x: '1' });
    expect(store.get(key('default', 'a'))).not.toBe(store.get(key('default', 'a')));
  });

  it('keeps cluster-scoped and namespaced objects and different resources apart', () => {
    const store = memoryStore();
    store.create(key('', 'same'), configMap('', 'same', { scope: 'cluster' }));
    store.create(key('default', 'same'), configMap('default', 'same', { scope: 'namespace' }));
    store.create(key('default', 'same', 'secrets'), configMap('default', 'same', { scope: 'secret' }));
    expect(store.get(key('', 'same'))?.data).toEqual({ scope: 'cluster' });
    expect(store.get(key('default', 'same'))?.data).toEqual({ scope: 'namespace' });
    expect(store.get(key('default', 'same', 'secrets'))?.data).toEqual({ scope: 'secret' });
  });

  it.each([
    {
      case: 'create of an existing key fails with AlreadyExists',
      action: (store: SqliteStore) => store.create(key('default', 'a'), configMap('default', 'a')),
      code: 'AlreadyExists',
    },
    {
      case: 'update of a missing key fails with NotFound',
      action: (store: SqliteStore) => store.update(key('default', 'missing'), configMap('default', 'missing')),
      code: 'NotFound',
    },
    {
      case: 'delete of a missing key fails with NotFound',
      action: (store: SqliteStore) => store.delete(key('default', 'missing')),
      code: 'NotFound',
    },
    {
      case: 'update with a stale expected revision fails with Conflict',
      action: (store: SqliteStore) => store.update(key('default', 'a'), configMap('default', 'a', { y: '1' }), 99),
      code: 'Conflict',
    },
    {
      case: 'delete with a stale expected revision fails with Conflict',
      action: (store: SqliteStore) => store.delete(key('default', 'a'), 99),
      code: 'Conflict',
    },
  ])('$case, writing nothing', ({ action, code }) => {
    const store = memoryStore();
    store.create(key('default', 'a'), configMap('default', 'a'));
    const before = store.currentRevision();
    expect(errorCode(() => action(store))).toBe(code);
    expect(store.currentRevision()).toBe(before);
    expect(store.get(key('default', 'a'))?.metadata.resourceVersion).toBe(String(before));
  });

  it('compares and swaps: a write with the current revision succeeds, the next one with the same revision conflicts', () => {
    const store = memoryStore();
    const created = store.create(key('default', 'a'), configMap('default', 'a'));
    const revision = revisionOf(created);
    const updated = store.update(key('default', 'a'), configMap('default', 'a', { step: '1' }), revision);
    expect(revisionOf(updated)).toBeGreaterThan(revision);
    expect(errorCode(() => store.update(key('default', 'a'), configMap('default', 'a', { step: '2' }), revision))).toBe('Conflict');
    expect(errorCode(() => store.delete(key('default', 'a'), revision))).toBe('Conflict');
    expect(store.delete(key('default', 'a'), revisionOf(updated)).data).toEqual({ step: '1' });
  });

  it('keeps the revision and sends no event when an update changes nothing, as the etcd3 store does', async () => {
    const store = memoryStore();
    const created = store.create(key('default', 'a'), configMap('default', 'a', { x: '1' }));
    const events: StoreEvent[] = [];
    store.watch({ resource: 'configmaps', fromRevision: store.currentRevision() }, collect(events));
    const same = store.update(key('default', 'a'), configMap('default', 'a', { x: '1' }));
    expect(same).toEqual(created);
    expect(store.currentRevision()).toBe(1);
    await Promise.resolve();
    expect(events).toEqual([]);
  });

  it('keeps revisions growing across a reopen of a file database, also after compaction emptied the log', async () => {
    const path = join(temporaryDirectory(), 'store.db');
    const first = SqliteStore.open(path);
    first.create(key('default', 'a'), configMap('default', 'a'));
    first.create(key('default', 'b'), configMap('default', 'b'));
    first.delete(key('default', 'b'));
    expect(first.currentRevision()).toBe(3);
    first.dispose();

    const second = SqliteStore.open(path);
    expect(second.currentRevision()).toBe(3);
    expect(second.get(key('default', 'a'))?.metadata.resourceVersion).toBe('1');
    expect(second.create(key('default', 'b'), configMap('default', 'b')).metadata.resourceVersion).toBe('4');
    await second.compact(0);
    expect(second.oldestRevision()).toBe(4);
    // The newest revision was a delete: no object row remembers it, only the compaction mark does.
    second.delete(key('default', 'b'));
    await second.compact(0);
    second.dispose();

    const third = SqliteStore.open(path);
    cleanups.push(() => third.dispose());
    expect(third.currentRevision()).toBe(5);
    expect(third.oldestRevision()).toBe(5);
    expect(third.create(key('default', 'c'), configMap('default', 'c')).metadata.resourceVersion).toBe('6');
  });

  describe('list', () => {
    function seeded(): SqliteStore {
      const store = memoryStore();
      for (const namespace of ['b', 'a', '']) {
        for (const name of ['y', 'x', 'z']) store.create(key(namespace, name), configMap(namespace, name, { keep: name === 'z' ? 'no' : 'yes' }));
      }
      store.create(key('a', 'other-resource', 'secrets'), configMap('a', 'other-resource'));
      return store;
    }

    function names(items: KubeObject[]): string[] {
      return items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`);
    }

    it('orders by namespace then name across all namespaces and reports the current revision', () => {
      const store = seeded();
      const result = store.list('configmaps', {});
      expect(names(result.items)).toEqual(['/x', '/y', '/z', 'a/x', 'a/y', 'a/z', 'b/x', 'b/y', 'b/z']);
      expect(result.revision).toBe(store.currentRevision());
      expect(result.last).toBeUndefined();
    });

    it('lists one namespace only', () => {
      expect(names(seeded().list('configmaps', { namespace: 'a' }).items)).toEqual(['a/x', 'a/y', 'a/z']);
    });

    it('pages with limit and after across namespaces, counting the remaining items', () => {
      const store = seeded();
      const pages: string[][] = [];
      const remaining: (number | undefined)[] = [];
      let after: { namespace: string; name: string } | undefined;
      for (;;) {
        const page = store.list('configmaps', { limit: 4, after });
        pages.push(names(page.items));
        remaining.push(page.remaining);
        if (page.last === undefined) break;
        after = page.last;
      }
      expect(pages).toEqual([['/x', '/y', '/z', 'a/x'], ['a/y', 'a/z', 'b/x', 'b/y'], ['b/z']]);
      expect(remaining).toEqual([5, 1, undefined]);
    });

    it('pages within one namespace', () => {
      const store = seeded();
      const first = store.list('configmaps', { namespace: 'b', limit: 2 });
      expect(names(first.items)).toEqual(['b/x', 'b/y']);
      expect(first.last).toEqual({ namespace: 'b', name: 'y' });
      const second = store.list('configmaps', { namespace: 'b', limit: 2, after: first.last });
      expect(names(second.items)).toEqual(['b/z']);
      expect(second.last).toBeUndefined();
      expect(names(store.list('configmaps', { namespace: 'b', after: { namespace: 'a', name: 'z' } }).items)).toEqual(['b/x', 'b/y', 'b/z']);
      expect(store.list('configmaps', { namespace: 'b', after: { namespace: 'c', name: 'a' } }).items).toEqual([]);
    });

    it('fills a filtered page with matches, scanning past items that do not match', () => {
      const store = seeded();
      const filter = (obj: KubeObject): boolean => isKept(obj);
      const first = store.list('configmaps', { limit: 3, filter });
      expect(names(first.items)).toEqual(['/x', '/y', 'a/x']);
      expect(first.last).toEqual({ namespace: 'a', name: 'x' });
      const second = store.list('configmaps', { limit: 3, filter, after: first.last });
      expect(names(second.items)).toEqual(['a/y', 'b/x', 'b/y']);
      // Like the etcd3 store: keys remain after the page, so there is a continue even though none match.
      expect(second.last).toEqual({ namespace: 'b', name: 'y' });
      const third = store.list('configmaps', { limit: 3, filter, after: second.last });
      expect(third.items).toEqual([]);
      expect(third.last).toBeUndefined();
      expect(names(store.list('configmaps', { filter }).items)).toHaveLength(6);
    });

    it('keeps scanning in chunks when matches are sparse', () => {
      const store = memoryStore();
      for (let index = 0; index < 1200; index++) {
        const name = `item-${String(index).padStart(4, '0')}`;
        store.create(key('default', name), configMap('default', name, { keep: index % 400 === 399 ? 'yes' : 'no' }));
      }
      const result = store.list('configmaps', { limit: 2, filter: isKept });
      expect(names(result.items)).toEqual(['default/item-0399', 'default/item-0799']);
      expect(result.last).toEqual({ namespace: 'default', name: 'item-0799' });
    });
  });

  describe('watch', () => {
    it('replays the log after fromRevision, then delivers live events without gap or duplicate', async () => {
      const store = memoryStore();
      store.create(key('default', 'a'), configMap('default', 'a'));
      const from = store.currentRevision();
      store.create(key('default', 'b'), configMap('default', 'b'));
      store.update(key('default', 'a'), configMap('default', 'a', { x: '1' }));
      const events: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', fromRevision: from }, collect(events));
      // Written before the replay runs: must arrive exactly once, in order.
      store.create(key('default', 'c'), configMap('default', 'c'));
      await waitFor(() => events.length >= 3);
      store.delete(key('default', 'b'));
      store.create(key('other', 'd'), configMap('other', 'd'));
      store.create(key('default', 'ignored', 'secrets'), configMap('default', 'ignored'));

      expect(events.map((event) => [event.type, event.name, event.revision])).toEqual([
        ['ADDED', 'b', 2],
        ['MODIFIED', 'a', 3],
        ['ADDED', 'c', 4],
        ['DELETED', 'b', 5],
        ['ADDED', 'd', 6],
      ]);
      for (const event of events) expect(event.object.metadata.resourceVersion).toBe(String(event.revision));
    });

    it('replays more history than one read chunk and catches writes that a listener makes during the replay', async () => {
      const store = memoryStore();
      for (let index = 0; index < 2500; index++) store.create(key('default', `item-${index}`), configMap('default', `item-${index}`));
      const revisions: number[] = [];
      let written = false;
      store.watch({ resource: 'configmaps', fromRevision: 0 }, (event) => {
        revisions.push(event.revision);
        if (!written && event.revision === 1500) {
          written = true;
          store.create(key('default', 'written-during-replay'), configMap('default', 'written-during-replay'));
        }
      });
      store.create(key('default', 'last'), configMap('default', 'last'));
      await waitFor(() => revisions.length >= 2502);
      store.create(key('default', 'live'), configMap('default', 'live'));
      expect(revisions).toEqual(Array.from({ length: 2503 }, (_, index) => index + 1));
    });

    it('delivers only the events of the watched namespace', async () => {
      const store = memoryStore();
      store.create(key('a', 'old'), configMap('a', 'old'));
      store.create(key('b', 'old'), configMap('b', 'old'));
      const events: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', namespace: 'a', fromRevision: 0 }, collect(events));
      await waitFor(() => events.length >= 1);
      store.create(key('b', 'new'), configMap('b', 'new'));
      store.create(key('a', 'new'), configMap('a', 'new'));
      store.create(key('', 'cluster'), configMap('', 'cluster'));
      expect(events.map((event) => `${event.namespace}/${event.name}`)).toEqual(['a/old', 'a/new']);
    });

    it('sends DELETED with the last state stamped with the deletion revision, and the previous state on MODIFIED and DELETED', () => {
      const store = memoryStore();
      const created = store.create(key('default', 'a'), configMap('default', 'a', { x: '1' }));
      const events: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', fromRevision: store.currentRevision() }, collect(events));
      const updated = store.update(key('default', 'a'), configMap('default', 'a', { x: '2' }));
      const deleted = store.delete(key('default', 'a'));

      expect(events).toHaveLength(2);
      const [modified, removed] = events;
      expect(modified.type).toBe('MODIFIED');
      expect(modified.object).toEqual(updated);
      expect(modified.previous).toEqual(created);
      expect(removed.type).toBe('DELETED');
      expect(removed.revision).toBe(revisionOf(updated) + 1);
      expect(removed.object).toEqual(deleted);
      expect(removed.object.data).toEqual({ x: '2' });
      expect(removed.object.metadata.resourceVersion).toBe(String(removed.revision));
      expect(removed.previous).toEqual(updated);
    });

    it('replays DELETED and MODIFIED with the same objects as live delivery', async () => {
      const store = memoryStore();
      const live: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', fromRevision: 0 }, collect(live));
      store.create(key('default', 'a'), configMap('default', 'a', { x: '1' }));
      store.update(key('default', 'a'), configMap('default', 'a', { x: '2' }));
      store.delete(key('default', 'a'));
      const replayed: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', fromRevision: 0 }, collect(replayed));
      await waitFor(() => replayed.length >= 3);
      expect(replayed).toEqual(live);
    });

    it('delivers events in revision order to every listener even when a listener writes', () => {
      const store = memoryStore();
      const seenBySecond: number[] = [];
      store.watch({ resource: 'configmaps', fromRevision: 0 }, (event) => {
        if (event.name === 'trigger') store.create(key('default', 'reaction'), configMap('default', 'reaction'));
      });
      store.watch({ resource: 'configmaps', fromRevision: 0 }, (event) => seenBySecond.push(event.revision));
      store.create(key('default', 'trigger'), configMap('default', 'trigger'));
      expect(seenBySecond).toEqual([1, 2]);
    });

    it('stops delivering after dispose', () => {
      const store = memoryStore();
      const events: StoreEvent[] = [];
      const watch: Disposable = store.watch({ resource: 'configmaps', fromRevision: 0 }, collect(events));
      store.create(key('default', 'a'), configMap('default', 'a'));
      watch.dispose();
      store.create(key('default', 'b'), configMap('default', 'b'));
      expect(events.map((event) => event.name)).toEqual(['a']);
    });

    it('fails with Expired and the upstream message once compaction passed fromRevision', async () => {
      const store = memoryStore();
      for (let index = 0; index < 1200; index++) store.create(key('default', `item-${index}`), configMap('default', `item-${index}`));
      await store.compact(100);
      expect(store.oldestRevision()).toBe(1100);

      let caught: unknown;
      try {
        store.watch({ resource: 'configmaps', fromRevision: 5 }, () => undefined);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(StorageError);
      expect(caught).toMatchObject({ code: 'Expired', message: 'too old resource version: 5 (1100)', oldestRevision: 1100 });

      const events: StoreEvent[] = [];
      store.watch({ resource: 'configmaps', fromRevision: 1100 }, collect(events));
      await waitFor(() => events.length >= 100);
      expect(events[0].revision).toBe(1101);
      expect(events.at(-1)?.revision).toBe(1200);
    });

    it('compacts on a timer with startCompactor', async () => {
      const store = memoryStore();
      for (let index = 0; index < 50; index++) store.create(key('default', `item-${index}`), configMap('default', `item-${index}`));
      const compactor = startCompactor(store, { intervalMs: 10, keepRevisions: 10 });
      cleanups.push(() => compactor.dispose());
      await waitFor(() => store.oldestRevision() === 40);
      expect(errorCode(() => store.watch({ resource: 'configmaps', fromRevision: 39 }, () => undefined))).toBe('Expired');
    });
  });

  it('keeps every acknowledged write when the process is killed with SIGKILL', async () => {
    const directory = temporaryDirectory();
    const databasePath = join(directory, 'store.db');
    const entry = join(directory, 'writer.ts');
    const script = join(directory, 'writer.mjs');
    const storeModule = fileURLToPath(new URL('./sqliteStore.ts', import.meta.url));
    // Print after each write returns: a printed line is an acknowledged write.
    writeFileSync(
      entry,
      `import { writeSync } from 'node:fs';
import { SqliteStore } from ${JSON.stringify(storeModule)};
const store = SqliteStore.open(process.argv[2]);
for (let index = 0; ; index++) {
  const name = 'item-' + index;
  const created = store.create({ resource: 'configmaps', namespace: 'default', name }, { metadata: { name, namespace: 'default' }, data: { index: String(index) } });
  writeSync(1, name + ' ' + created.metadata.resourceVersion + '\\n');
  if (index % 3 === 0 && index > 0) {
    const updated = store.update({ resource: 'configmaps', namespace: 'default', name: 'item-0' }, { metadata: { name: 'item-0', namespace: 'default' }, data: { index: String(index) } });
    writeSync(1, 'item-0 ' + updated.metadata.resourceVersion + '\\n');
  }
}
`,
    );
    const betterSqlite = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;
    await build({
      entryPoints: [entry],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      plugins: [
        {
          name: 'better-sqlite3-from-this-checkout',
          setup(builder) {
            builder.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: betterSqlite, external: true }));
          },
        },
      ],
    });

    const child = spawn(process.execPath, [script, databasePath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const acknowledged = new Map<string, number>();
    let buffered = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [name, revision] = line.split(' ');
        acknowledged.set(name, Number(revision));
      }
      if (acknowledged.size >= 2000 && child.exitCode === null && !child.killed) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(stderr).toBe('');
    expect(signal).toBe('SIGKILL');
    expect(acknowledged.size).toBeGreaterThanOrEqual(2000);

    const store = SqliteStore.open(databasePath);
    cleanups.push(() => store.dispose());
    const newestAcknowledged = Math.max(...acknowledged.values());
    for (const [name, revision] of acknowledged) {
      const stored = store.get(key('default', name));
      expect(stored, name).toBeDefined();
      // The child may have committed a later write to item-0 before it died without printing it.
      if (name === 'item-0') expect(revisionOf(stored)).toBeGreaterThanOrEqual(revision);
      else expect(revisionOf(stored), name).toBe(revision);
    }
    expect(store.currentRevision()).toBeGreaterThanOrEqual(newestAcknowledged);
    const next = store.create(key('default', 'after-restart'), configMap('default', 'after-restart'));
    expect(revisionOf(next)).toBeGreaterThan(newestAcknowledged);
  }, 60_000);
});

function isKept(obj: KubeObject): boolean {
  const data = obj.data;
  return typeof data === 'object' && data !== null && 'keep' in data && data.keep === 'yes';
}
