// Store: the cluster's only source of truth. One table of current objects keyed by
// (resource, namespace, name), one global revision counter used as resourceVersion, and a log of
// changes kept for watch resumption until compacted (after kine's SQLite layout and the apiserver
// etcd3 store: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go).
//
// The store knows nothing about kinds: values are JSON objects whose metadata.resourceVersion it sets.
import type { KubeObject } from '../../shared/kubernetes/types';

export type StorageErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    /** For Expired: the oldest revision still available. */
    readonly oldestRevision?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export interface ObjectKey {
  /** group-qualified resource, e.g. `pods`, `deployments.apps` */
  resource: string;
  /** '' for cluster-scoped objects */
  namespace: string;
  name: string;
}

export interface ListOptions {
  /** undefined = all namespaces */
  namespace?: string;
  /** at most this many items (0/undefined = all) */
  limit?: number;
  /** continue after this (namespace, name), exclusive — decoded from a continue token by the caller */
  after?: { namespace: string; name: string };
  /** optional filter applied before limit counting */
  filter?: (obj: KubeObject) => boolean;
}

export interface ListResult {
  items: KubeObject[];
  /** the store revision the list reflects */
  revision: number;
  /** set when more items remain: the last returned key */
  last?: { namespace: string; name: string };
  /** how many matching items remain after this page (only when `last` is set and cheaply known) */
  remaining?: number;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  resource: string;
  namespace: string;
  name: string;
  revision: number;
  /** for DELETED: the last state, with metadata.resourceVersion = the deletion revision */
  object: KubeObject;
  /** for MODIFIED and DELETED: the state before (lets watchers with selectors send DELETED when an object stops matching) */
  previous?: KubeObject;
}

export interface WatchOptions {
  /** group-qualified resource */
  resource: string;
  /** undefined = all namespaces */
  namespace?: string;
  /** deliver events with revision > fromRevision. Throws StorageError('Expired') if compacted past it. */
  fromRevision: number;
}

export interface Disposable {
  dispose(): void;
}

export interface Store extends Disposable {
  /** the latest committed revision */
  currentRevision(): number;
  get(key: ObjectKey): KubeObject | undefined;
  list(resource: string, options: ListOptions): ListResult;
  /** Inserts; sets metadata.resourceVersion. AlreadyExists if the key exists. Returns the stored object. */
  create(key: ObjectKey, obj: KubeObject): KubeObject;
  /**
   * Compare-and-swap replace: NotFound if absent; Conflict if expectedRevision is given and differs from
   * the stored object's revision. Returns the stored object with its new resourceVersion.
   */
  update(key: ObjectKey, obj: KubeObject, expectedRevision?: number): KubeObject;
  /** Removes; Conflict on expectedRevision mismatch; NotFound if absent. Returns the last state. */
  delete(key: ObjectKey, expectedRevision?: number): KubeObject;
  /**
   * Events after fromRevision, first replayed from the log, then live, in revision order.
   * The listener is called synchronously after each commit; it must not throw or block.
   */
  watch(options: WatchOptions, listener: (event: StoreEvent) => void): Disposable;
  /** the oldest revision a watch may start from */
  oldestRevision(): number;
  /** Drop log entries older than keepRevisions back from the current revision, in small batches. */
  compact(keepRevisions: number): void;
}
