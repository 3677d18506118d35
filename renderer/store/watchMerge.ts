// Applies watch events to a cached collection — the UI's counterpart of an informer's store update
// (client-go tools/cache: Replace on list, Add/Update/Delete per event; Headlamp KubeList.applyUpdate).
// Pure: returns a new collection when anything changed, the same one otherwise, so React selectors
// re-render only on real changes.
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';

export type CollectionPhase = 'loading' | 'ready' | 'error';

export interface Collection {
  /** objects by `namespace/name` (or `name` for cluster-scoped kinds) */
  items: Record<string, KubeObject>;
  /** the resourceVersion to resume a watch from */
  resourceVersion: string;
  phase: CollectionPhase;
  error?: string;
}

export const emptyCollection: Collection = { items: {}, resourceVersion: '', phase: 'loading' };

export function keyOf(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** A list page arrived: the first page replaces the collection, later ones add to it. */
export function applyListPage(collection: Collection, items: KubeObject[], resourceVersion: string, first: boolean, done: boolean): Collection {
  const next: Record<string, KubeObject> = first ? {} : { ...collection.items };
  for (const item of items) next[keyOf(item)] = item;
  return { items: next, resourceVersion, phase: done ? 'ready' : 'loading' };
}

/** Watch events in arrival order; ERROR events are the caller's business (they end the watch). */
export function applyWatchEvents(collection: Collection, events: WatchEvent[]): Collection {
  let items: Record<string, KubeObject> | undefined;
  let resourceVersion = collection.resourceVersion;
  for (const event of events) {
    const object = event.object;
    if (!object || typeof object !== 'object' || !object.metadata) continue;
    const eventVersion = object.metadata.resourceVersion;
    if (eventVersion) resourceVersion = eventVersion;
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') continue;
    const key = keyOf(object);
    const current = (items ?? collection.items)[key];
    if (event.type === 'DELETED') {
      if (!current) continue;
      items ??= { ...collection.items };
      delete items[key];
      continue;
    }
    // ADDED or MODIFIED: an event carrying the version already held changes nothing (a re-sent ADDED after a reconnect)
    if (current && current.metadata.resourceVersion === eventVersion && eventVersion !== undefined) continue;
    items ??= { ...collection.items };
    items[key] = object;
  }
  if (!items && resourceVersion === collection.resourceVersion) return collection;
  return { ...collection, items: items ?? collection.items, resourceVersion };
}
