// Snapshots of the store: the whole store at one revision (SQLite's online backup of its file,
// sqliteSnapshot.ts) plus the data of local PersistentVolumes and the images the pods use, and the
// plan that makes a running store converge back to one. No upstream counterpart (etcd's
// `etcdctl snapshot save/restore` restores a stopped member and rewinds revisions); here a restore
// is a set of ordinary writes at new revisions above the current one, so resourceVersions only grow
// and watchers see the change as events, never a stale cache.
//
// The store knows nothing about kinds: what a restore keeps live and how it prepares an object
// (e.g. a pod's runtime status) is the caller's RestorePolicy.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ObjectKey } from './store';

/** The snapshot format this build writes and reads; a snapshot of a newer format is refused. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** One stored object as its JSON text. */
export interface StoredObject {
  resource: string;
  namespace: string;
  name: string;
  value: string;
}

export type StoreWrite = { type: 'create' | 'update'; key: ObjectKey; object: KubeObject } | { type: 'delete'; key: ObjectKey };

export interface SnapshotVolume {
  /** the PersistentVolume's name, which is its directory's name under the volumes folder */
  name: string;
  files: number;
  bytes: number;
}

/** What a snapshot holds, written into it when it is saved. */
export interface SnapshotManifest {
  formatVersion: number;
  name: string;
  /** RFC 3339 */
  created: string;
  /** the store's revision the snapshot is consistent at */
  resourceVersion: number;
  objects: number;
  /** the images the snapshot's pods use (containers, init and ephemeral containers), sorted */
  images: string[];
  volumes: SnapshotVolume[];
}

/** How a restore treats each object; the API layer knows kinds, the store does not. */
export interface RestorePolicy {
  /** resources left as they are live (neither deleted, created nor changed) */
  keepLive(resource: string): boolean;
  /** the object to write for a snapshot object; `live` is the live object of the same key and uid, if any */
  prepare(resource: string, object: KubeObject, live: KubeObject | undefined): KubeObject;
  /** creates and updates go in ascending order of this rank (namespaces before what lives in them) */
  rank(resource: string): number;
}

export interface RestorePlan {
  writes: StoreWrite[];
  /** objects the snapshot holds that were missing live */
  created: number;
  /** objects of the same uid that differed */
  updated: number;
  /** objects of the same name but another uid live: deleted and created again */
  replaced: number;
  /** live objects the snapshot does not hold */
  deleted: number;
}

function parse(stored: StoredObject): KubeObject {
  const value: unknown = JSON.parse(stored.value);
  if (!isRecord(value) || !isRecord(value.metadata)) throw new Error(`${stored.resource} ${stored.namespace}/${stored.name}: stored value is not a Kubernetes object`);
  return value as KubeObject;
}

function keyOf(stored: StoredObject): ObjectKey {
  return { resource: stored.resource, namespace: stored.namespace, name: stored.name };
}

function idOf(key: ObjectKey): string {
  return `${key.resource}\u0000${key.namespace}\u0000${key.name}`;
}

/** The object's JSON without its resourceVersion, for comparing two states of it. */
function comparable(object: KubeObject): string {
  const { resourceVersion: _resourceVersion, ...metadata } = object.metadata;
  return JSON.stringify({ ...object, metadata });
}

/**
 * The writes that turn the live objects into the snapshot's: live objects the snapshot does not
 * hold are deleted, snapshot objects missing live are created (same names and uids), objects
 * whose uid changed are deleted and created again, and objects that differ are updated. Deletes
 * come first, then creates and updates by the policy's rank. Objects equal but for their
 * resourceVersion are left alone.
 */
export function planRestore(live: readonly StoredObject[], snapshot: readonly StoredObject[], policy: RestorePolicy): RestorePlan {
  const liveById = new Map<string, StoredObject>();
  for (const stored of live) if (!policy.keepLive(stored.resource)) liveById.set(idOf(keyOf(stored)), stored);
  const deletes: StoreWrite[] = [];
  const puts: { rank: number; write: StoreWrite }[] = [];
  let created = 0;
  let updated = 0;
  let replaced = 0;
  let deleted = 0;
  const seen = new Set<string>();
  for (const stored of snapshot) {
    if (policy.keepLive(stored.resource)) continue;
    const key = keyOf(stored);
    const id = idOf(key);
    seen.add(id);
    const wanted = parse(stored);
    const current = liveById.get(id);
    const currentObject = current === undefined ? undefined : parse(current);
    const sameObject = currentObject !== undefined && currentObject.metadata.uid === wanted.metadata.uid;
    const object = policy.prepare(key.resource, wanted, sameObject ? currentObject : undefined);
    const rank = policy.rank(key.resource);
    if (currentObject === undefined) {
      puts.push({ rank, write: { type: 'create', key, object } });
      created++;
    } else if (!sameObject) {
      deletes.push({ type: 'delete', key });
      puts.push({ rank, write: { type: 'create', key, object } });
      replaced++;
    } else if (comparable(object) !== comparable(currentObject)) {
      puts.push({ rank, write: { type: 'update', key, object } });
      updated++;
    }
  }
  for (const [id, stored] of liveById) {
    if (seen.has(id)) continue;
    deletes.push({ type: 'delete', key: keyOf(stored) });
    deleted++;
  }
  puts.sort((a, b) => a.rank - b.rank);
  return { writes: [...deletes, ...puts.map((put) => put.write)], created, updated, replaced, deleted };
}

/** The images a pod's containers use, in spec order. */
export function podImages(pod: KubeObject): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const images: string[] = [];
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    const containers = spec[field];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) if (isRecord(container) && typeof container.image === 'string' && container.image !== '') images.push(container.image);
  }
  return images;
}
