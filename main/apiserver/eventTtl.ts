// Events expire an hour after they were last written, as upstream's event storage sets an etcd lease
// of --event-ttl (default 1h) on every write (pkg/registry/core/event/storage): the object goes,
// watchers see it DELETED, and no finalizer or admission is involved. Both groups' events expire
// (core/v1 and events.k8s.io/v1). The last write is the newest of the times the event carries
// (creation, managedFields, lastTimestamp, eventTime, series.lastObservedTime). Expired events leave
// no deletion in the object history; their revisions stay readable there for its retention window.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { parseTime } from '../../shared/kubernetes/time';
import type { Disposable, Store } from '../storage/store';

export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;
const EVENT_RESOURCES = ['events', 'events.events.k8s.io'];

/** When the event was last written, as far as its own fields tell (milliseconds since the epoch). */
export function lastWrittenAt(event: KubeObject): number | undefined {
  const times: unknown[] = [event.metadata.creationTimestamp, event.lastTimestamp, event.eventTime, event.deprecatedLastTimestamp];
  if (isRecord(event.series)) times.push(event.series.lastObservedTime);
  for (const entry of event.metadata.managedFields ?? []) if (isRecord(entry)) times.push(entry.time);
  let newest: number | undefined;
  for (const time of times) {
    const parsed = parseTime(time);
    if (parsed !== undefined && (newest === undefined || parsed > newest)) newest = parsed;
  }
  return newest;
}

/** Removes the events last written more than ttlMs ago; returns how many went. */
export function expireEvents(store: Store, ttlMs: number, now: number): number {
  let removed = 0;
  for (const resource of EVENT_RESOURCES) {
    for (const event of store.list(resource, {}).items) {
      const written = lastWrittenAt(event);
      if (written === undefined || now - written < ttlMs) continue;
      const revision = Number(event.metadata.resourceVersion);
      try {
        // at the revision read: an event written again meanwhile has a new lease
        store.delete({ resource, namespace: event.metadata.namespace ?? '', name: event.metadata.name ?? '' }, Number.isFinite(revision) ? revision : undefined);
        removed++;
      } catch {
        // written again or already gone: the next sweep judges it afresh
      }
    }
  }
  return removed;
}

/** Sweeps expired events every intervalMs; the timer does not keep the process alive. */
export function startEventExpiry(store: Store, options: { ttlMs?: number; intervalMs?: number; now?: () => number } = {}): Disposable {
  const ttlMs = options.ttlMs ?? DEFAULT_EVENT_TTL_MS;
  const now = options.now ?? Date.now;
  const timer = setInterval(() => {
    try {
      expireEvents(store, ttlMs, now());
    } catch (error) {
      // a disposed store throws; its owner disposes this timer too
      console.error('kubedesk: event expiry failed', error);
    }
  }, options.intervalMs ?? 60_000);
  timer.unref();
  return { dispose: () => clearInterval(timer) };
}
