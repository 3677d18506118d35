// History: every committed write of an object, kept beside the store for a bounded time, with who
// made it and how (after the API server's audit events, staging/src/k8s.io/apiserver/pkg/apis/audit:
// user, impersonatedUser, verb, userAgent; and managedFields' manager). Kubernetes keeps only the
// current object; this log answers "who changed it, and what was it before?" and lets a deleted
// object be recreated.
//
// The store knows nothing about kinds: the API server hands it the object as it became.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { Disposable, ObjectKey } from './store';

/** How the object was written: the API verb (apply is a patch with the apply content type). */
export type HistoryOperation = 'CREATE' | 'UPDATE' | 'PATCH' | 'APPLY' | 'DELETE';

/** How a write was made and by whom. */
export interface WriteDetails {
  operation: HistoryOperation;
  /** true when the write removed the object from the store (a DELETE may only set deletionTimestamp) */
  removed: boolean;
  /** status, scale, binding…: the subresource the write went through */
  subresource?: string;
  /** the user the request acted as (after impersonation); absent for kubedesk's own internal writes */
  user?: string;
  /** the authenticated user when the request impersonated `user` */
  impersonator?: string;
  fieldManager?: string;
  userAgent?: string;
}

/** One write, as the API server reports it after the store committed it. */
export interface WriteRecord extends WriteDetails {
  key: ObjectKey;
  /** the object as it became; for a removal, its last state */
  object: KubeObject;
}

/** One stored revision. */
export interface HistoryEntry extends WriteDetails {
  key: ObjectKey;
  /** 1, 2, 3… per object key, never reused (pruning leaves gaps at the start) */
  revision: number;
  /** the store revision (resourceVersion) of the write */
  resourceVersion: number;
  /** milliseconds since the epoch */
  time: number;
  object: KubeObject;
}

export interface HistoryRetention {
  /** revisions kept per object (the newest) */
  maxRevisions: number;
  /** revisions older than this are dropped, in milliseconds */
  maxAgeMs: number;
  /** once the stored objects exceed this many bytes, the oldest revisions go first */
  maxBytes: number;
}

export const DEFAULT_HISTORY_RETENTION: HistoryRetention = { maxRevisions: 100, maxAgeMs: 7 * 24 * 3600 * 1000, maxBytes: 256 * 1024 * 1024 };

export interface ChangesQuery {
  /** only writes at or after this time (ms since the epoch) */
  since?: number;
  namespace?: string;
  /** group-qualified resource */
  resource?: string;
  user?: string;
  /** newest first, at most this many (default 500) */
  limit?: number;
}

/** What the API server calls after each committed write. Must not throw or block. */
export interface WriteRecorder {
  record(write: WriteRecord): void;
}

/** One object key's state at a past time, as far as the history knows it. */
export interface PastState {
  key: ObjectKey;
  /**
   * - `at`: `entry` is the key's newest revision at or before the time (removed = absent then)
   * - `created-after`: the key's oldest revision, a create after the time: absent then
   * - `unknown`: the key's oldest retained revision is later than the time and not its creation:
   *   it existed, in a state that is pruned; `entry` is that oldest retained revision
   */
  state: 'at' | 'created-after' | 'unknown';
  entry: HistoryEntry;
}

export interface History extends WriteRecorder, Disposable {
  /** every retained revision of one object key, oldest first */
  revisions(key: ObjectKey): HistoryEntry[];
  /** one revision of an object key */
  revision(key: ObjectKey, revision: number): HistoryEntry | undefined;
  /** object keys whose newest revision removed them: the last state of each, newest first */
  deleted(options: { namespace?: string; resource?: string }): HistoryEntry[];
  /** the change feed, newest first */
  changes(query: ChangesQuery): HistoryEntry[];
  /**
   * What the history knows of every key of one resource (optionally one namespace) at `time`; keys
   * never written in the retained history are absent (unchanged since before it starts)
   */
  asOf(resource: string, namespace: string | undefined, time: number): PastState[];
  /** the time of the oldest retained revision (ms since the epoch); undefined when none is kept */
  startTime(): number | undefined;
  /** starts dropping what the retention no longer keeps, in small batches off the write path */
  prune(now?: number): Promise<void>;
  /** bytes of stored object values */
  storedBytes(): number;
}
