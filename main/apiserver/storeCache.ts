// Values derived from stored objects, kept until one of the resources they read changes: a store
// watch (delivered synchronously with each commit) drops the value, so the next read rebuilds it
// and never sees an older state than the store. Upstream's authorizer and admission plugins read
// through shared informers for the same reason: not the database on every request.
import type { Disposable, Store } from '../storage/store';

export class StoreCache implements Disposable {
  private readonly values = new Map<string, unknown>();
  private readonly dependents = new Map<string, Set<string>>();
  private readonly watches: Disposable[] = [];

  constructor(private readonly store: Store) {}

  /**
   * The value cached under `key`, built by `build` when missing. `resources` are the qualified
   * resources (`roles.rbac.authorization.k8s.io`) it is derived from; a change to any drops it.
   */
  get<T>(key: string, resources: readonly string[], build: () => T): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    for (const resource of resources) this.follow(resource, key);
    const value = build();
    this.values.set(key, value);
    return value;
  }

  private follow(resource: string, key: string): void {
    let keys = this.dependents.get(resource);
    if (!keys) {
      keys = new Set();
      this.dependents.set(resource, keys);
      const watched = keys;
      this.watches.push(this.store.watch({ resource, fromRevision: this.store.currentRevision() }, () => {
        for (const dependent of watched) this.values.delete(dependent);
      }));
    }
    keys.add(key);
  }

  dispose(): void {
    for (const watch of this.watches.splice(0)) watch.dispose();
    this.dependents.clear();
    this.values.clear();
  }
}
