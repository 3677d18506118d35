// Informer: list + watch + local cache + indexers + event handlers for one resource, following
// upstream k8s.io/client-go/tools/cache (reflector.go, shared_informer.go, thread_safe_store.go):
// - list in pages (limit/continue), then watch from the list's resourceVersion with bookmarks;
// - a watch that ends normally (server timeoutSeconds) is reopened from the last resourceVersion seen
//   (events and bookmarks advance it), so nothing is replayed and no duplicate add is reported;
// - "410 Expired/Gone" (an ERROR event or an HTTP 410) means the history is gone: relist and
//   Replace the cache, reporting adds, updates and deletes (for objects that vanished meanwhile);
// - other failures back off exponentially (800 ms → 30 s, with jitter) before retrying.
// Cached objects are shared by every reader and handler: treat them as read-only and clone before
// changing (`freeze: true` deep-freezes them to catch mistakes in tests).
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient, type ResourceClient } from './apiClient';
import { realClock, type Clock, type Timer } from './clock';
import { ClientApiError, isResourceExpired, statusFromResponse } from './errors';
import type { GroupVersionResource } from './resources';
import type { WatchHandle } from './transport';

export interface Disposable {
  dispose(): void;
}

export interface ResourceEventHandler<T> {
  /** `isInInitialList`: the object came from the first list (or was replayed to a late handler). */
  onAdd?(object: T, isInInitialList: boolean): void;
  onUpdate?(oldObject: T, newObject: T): void;
  /** The last state seen: the DELETED event's object, or the cached one when a relist found it gone. */
  onDelete?(object: T): void;
}

export type IndexFunction<T> = (object: T) => string[];

/** Built-in index of every informer: objects by namespace ('' for cluster-scoped). */
export const namespaceIndex = 'namespace';

export interface InformerScope {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface InformerOptions extends InformerScope {
  /** Page size of the list; 0 lists in one page. Default 500 (upstream reflector default). */
  pageSize?: number;
  clock?: Clock;
  /** Deep-freeze cached objects (for tests: catches handlers that mutate the cache). */
  freeze?: boolean;
  /** Fixed watch timeoutSeconds; default random in [300, 600) as upstream, to spread reconnects. */
  watchTimeoutSeconds?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Source of randomness for jitter and timeouts; tests pass `() => 0`. */
  random?: () => number;
  /** Reports list/watch failures (they are retried regardless). Default: console.warn. */
  onError?: (error: unknown) => void;
}

/** `namespace/name`, or `name` for cluster-scoped objects (upstream MetaNamespaceKeyFunc). */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

type WatchOutcome = { kind: 'ended'; events: number } | { kind: 'expired' } | { kind: 'failed'; error: unknown; events: number } | { kind: 'disposed' };

export class Informer<T extends KubeObject = KubeObject> implements Disposable {
  private readonly cache = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunction<T>>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly handlers = new Set<ResourceEventHandler<T>>();
  private readonly clock: Clock;
  private readonly random: () => number;
  private synced = false;
  private syncWaiters: ((synced: boolean) => void)[] = [];
  private started = false;
  private disposed = false;
  private resourceVersion = '';
  private backoffMs = 0;
  private currentWatch: WatchHandle | undefined;
  private settleWatch: ((outcome: WatchOutcome) => void) | undefined;
  private sleeping: { timer: Timer; resolve: () => void } | undefined;

  constructor(
    readonly client: ResourceClient<T>,
    private readonly options: InformerOptions = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.addIndexer(namespaceIndex, (object) => [object.metadata.namespace ?? '']);
  }

  get gvr(): GroupVersionResource {
    return this.client.gvr;
  }

  /** Starts listing and watching in the background; calling it again does nothing. */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    void this.run();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once the first list is in the cache and handlers have seen it; false if disposed first. */
  waitForSync(): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.disposed) return Promise.resolve(false);
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** The resourceVersion the next watch would start from. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Registers handlers; objects already cached are replayed to them as adds (as upstream does). */
  addEventHandler(handler: ResourceEventHandler<T>): Disposable {
    this.handlers.add(handler);
    for (const object of this.cache.values()) this.call(() => handler.onAdd?.(object, true));
    return { dispose: () => this.handlers.delete(handler) };
  }

  onAdd(listener: (object: T, isInInitialList: boolean) => void): Disposable {
    return this.addEventHandler({ onAdd: listener });
  }

  onUpdate(listener: (oldObject: T, newObject: T) => void): Disposable {
    return this.addEventHandler({ onUpdate: listener });
  }

  onDelete(listener: (object: T) => void): Disposable {
    return this.addEventHandler({ onDelete: listener });
  }

  addIndexer(name: string, indexFunction: IndexFunction<T>): void {
    if (this.indexers.has(name)) throw new Error(`indexer "${name}" already exists`);
    this.indexers.set(name, indexFunction);
    const index = new Map<string, Set<string>>();
    this.indices.set(name, index);
    for (const [key, object] of this.cache) this.indexInto(index, indexFunction, key, object);
  }

  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((key) => this.cache.get(key)).filter((object): object is T => object !== undefined);
  }

  indexKeys(indexName: string, value: string): string[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`no indexer named "${indexName}"`);
    return [...(index.get(value) ?? [])];
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.cache.get(key);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  listKeys(): string[] {
    return [...this.cache.keys()];
  }

  listByNamespace(namespace: string): T[] {
    return this.byIndex(namespaceIndex, namespace);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.currentWatch?.close();
    this.currentWatch = undefined;
    this.settleWatch?.({ kind: 'disposed' });
    if (this.sleeping) {
      this.sleeping.timer.cancel();
      this.sleeping.resolve();
    }
    this.handlers.clear();
    for (const resolve of this.syncWaiters.splice(0)) resolve(false);
  }

  private async run(): Promise<void> {
    while (!this.disposed) {
      try {
        await this.listAndReplace();
      } catch (error) {
        if (this.disposed) return;
        this.reportError(error);
        await this.backoff();
        continue;
      }
      this.backoffMs = 0;
      await this.watchUntilExpired();
    }
  }

  /** Watches again and again from the last resourceVersion; returns when a relist is needed or on dispose. */
  private async watchUntilExpired(): Promise<void> {
    while (!this.disposed) {
      const startedAt = this.clock.now();
      const outcome = await this.watchOnce();
      switch (outcome.kind) {
        case 'disposed':
          return;
        case 'expired':
          return;
        case 'failed':
          if (outcome.events > 0) this.backoffMs = 0;
          this.reportError(outcome.error);
          await this.backoff();
          break;
        case 'ended':
          // A stream closed at once with nothing in it hints at a server problem: don't spin.
          if (outcome.events === 0 && this.clock.now() - startedAt < 1000) await this.backoff();
          else this.backoffMs = 0;
          break;
      }
    }
  }

  private async listAndReplace(): Promise<void> {
    const scope = { labelSelector: this.options.labelSelector, fieldSelector: this.options.fieldSelector };
    const pageSize = this.options.pageSize ?? 500;
    const items: T[] = [];
    let resourceVersion = '';
    let token: string | undefined;
    let paged = pageSize > 0;
    do {
      let page;
      try {
        page = await this.client.list(this.options.namespace, { ...scope, limit: paged ? pageSize : undefined, continue: token });
      } catch (error) {
        // An expired continue token: start over with one unpaged list, as the upstream pager does.
        if (token && isResourceExpired(error)) {
          items.length = 0;
          token = undefined;
          paged = false;
          continue;
        }
        throw error;
      }
      if (this.disposed) return;
      if (!token) resourceVersion = page.metadata.resourceVersion ?? '';
      items.push(...page.items);
      token = paged ? page.metadata.continue || undefined : undefined;
    } while (token);
    this.replace(items, resourceVersion);
  }

  /** Upstream Replace: the list is the truth; anything cached but absent was deleted meanwhile. */
  private replace(items: T[], resourceVersion: string): void {
    const initial = !this.synced;
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const object = this.own(item);
      const old = this.store(key, object);
      if (!old) this.dispatch((handler) => handler.onAdd?.(object, initial));
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) this.dispatch((handler) => handler.onUpdate?.(old, object));
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.remove(key);
      this.dispatch((handler) => handler.onDelete?.(old));
    }
    this.resourceVersion = resourceVersion;
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve(true);
    }
  }

  private watchOnce(): Promise<WatchOutcome> {
    return new Promise((resolve) => {
      let settled = false;
      let events = 0;
      const settle = (outcome: WatchOutcome): void => {
        if (settled) return;
        settled = true;
        this.settleWatch = undefined;
        handle?.close();
        if (this.currentWatch === handle) this.currentWatch = undefined;
        resolve(outcome);
      };
      this.settleWatch = settle;
      const timeoutSeconds = this.options.watchTimeoutSeconds ?? Math.floor(300 * (1 + this.random()));
      // Declared before the call: settle() may run before client.watch returns.
      let handle: WatchHandle | undefined = undefined;
      const opened = this.client.watch(
        this.options.namespace,
        {
          resourceVersion: this.resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds,
          labelSelector: this.options.labelSelector,
          fieldSelector: this.options.fieldSelector,
        },
        (event) => {
          if (settled) return;
          events++;
          if (event.type === 'ERROR') {
            const status = statusFromResponse(500, event.object);
            const error = new ClientApiError(status);
            settle(isResourceExpired(error) ? { kind: 'expired' } : { kind: 'failed', error, events });
            return;
          }
          this.apply(event.type, event.object);
        },
        (error) => {
          if (error === undefined) settle({ kind: 'ended', events });
          else if (isResourceExpired(error)) settle({ kind: 'expired' });
          else settle({ kind: 'failed', error, events });
        },
      );
      handle = opened;
      if (settled) opened.close();
      else this.currentWatch = opened;
    });
  }

  private apply(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', received: T): void {
    const resourceVersion = received.metadata.resourceVersion;
    if (type === 'BOOKMARK') {
      if (resourceVersion) this.resourceVersion = resourceVersion;
      return;
    }
    const object = this.own(received);
    const key = objectKey(object);
    if (type === 'DELETED') {
      const old = this.remove(key);
      if (old) this.dispatch((handler) => handler.onDelete?.(object));
    } else {
      const old = this.store(key, object);
      if (old) this.dispatch((handler) => handler.onUpdate?.(old, object));
      else this.dispatch((handler) => handler.onAdd?.(object, false));
    }
    if (resourceVersion) this.resourceVersion = resourceVersion;
  }

  private own(object: T): T {
    return this.options.freeze ? deepFreeze(object) : object;
  }

  private store(key: string, object: T): T | undefined {
    const old = this.cache.get(key);
    this.cache.set(key, object);
    for (const [name, indexFunction] of this.indexers) {
      const index = this.indices.get(name);
      if (!index) continue;
      if (old) this.unindexFrom(index, indexFunction, key, old);
      this.indexInto(index, indexFunction, key, object);
    }
    return old;
  }

  private remove(key: string): T | undefined {
    const old = this.cache.get(key);
    if (!old) return undefined;
    this.cache.delete(key);
    for (const [name, indexFunction] of this.indexers) {
      const index = this.indices.get(name);
      if (index) this.unindexFrom(index, indexFunction, key, old);
    }
    return old;
  }

  private indexInto(index: Map<string, Set<string>>, indexFunction: IndexFunction<T>, key: string, object: T): void {
    for (const value of indexFunction(object)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindexFrom(index: Map<string, Set<string>>, indexFunction: IndexFunction<T>, key: string, object: T): void {
    for (const value of indexFunction(object)) {
      const keys = index.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.delete(value);
    }
  }

  private dispatch(call: (handler: ResourceEventHandler<T>) => void): void {
    for (const handler of [...this.handlers]) this.call(() => call(handler));
  }

  /** A throwing handler must not stop the informer or starve the other handlers. */
  private call(invoke: () => void): void {
    try {
      invoke();
    } catch (error) {
      this.reportError(error);
    }
  }

  private reportError(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else console.warn(`[informer ${this.client.gvr.resource}]`, error instanceof Error ? error.message : error);
  }

  private backoff(): Promise<void> {
    const initial = this.options.backoffInitialMs ?? 800;
    const max = this.options.backoffMaxMs ?? 30_000;
    this.backoffMs = this.backoffMs === 0 ? initial : Math.min(this.backoffMs * 2, max);
    const delay = this.backoffMs * (1 + this.random());
    return new Promise((resolve) => {
      if (this.disposed) return resolve();
      const timer = this.clock.setTimeout(() => {
        this.sleeping = undefined;
        resolve();
      }, delay);
      this.sleeping = { timer, resolve };
    });
  }
}

/** One informer per (resource, namespace, selectors), shared by every component that asks for it. */
export class SharedInformerFactory implements Disposable {
  private readonly informers = new Map<string, Informer>();
  private started = false;

  constructor(
    readonly client: ApiClient,
    private readonly defaults: Omit<InformerOptions, keyof InformerScope> = {},
  ) {}

  /** Returns the shared informer; if the factory was already started, the informer is started too. */
  informerFor<T extends KubeObject = KubeObject>(gvr: GroupVersionResource, scope: InformerScope = {}): Informer<T> {
    const key = [gvr.group, gvr.version, gvr.resource, scope.namespace ?? '', scope.labelSelector ?? '', scope.fieldSelector ?? ''].join('|');
    let informer = this.informers.get(key);
    if (!informer) {
      informer = new Informer(this.client.resource(gvr), { ...this.defaults, ...scope });
      this.informers.set(key, informer);
      if (this.started) informer.start();
    }
    // The map holds informers of every kind; the caller names the type it expects for this resource.
    return informer as unknown as Informer<T>;
  }

  start(): void {
    this.started = true;
    for (const informer of this.informers.values()) informer.start();
  }

  /** Resolves true when every informer created so far has synced. */
  async waitForCacheSync(): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync()));
    return results.every(Boolean);
  }

  dispose(): void {
    for (const informer of this.informers.values()) informer.dispose();
    this.informers.clear();
  }
}
