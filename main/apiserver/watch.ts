// Watch: a stream of ADDED/MODIFIED/DELETED/BOOKMARK/ERROR events for one resource, filtered by
// namespace and selectors, as staging/src/k8s.io/apiserver/pkg/storage/cacher (watch cache):
// objects that start or stop matching a selector arrive as ADDED or DELETED; `sendInitialEvents`
// (WatchList) replays the current state then sends the `k8s.io/initial-events-end` bookmark;
// a compacted resourceVersion gives an ERROR event with a 410 Expired Status.
import type { KubeObject, WatchEventType } from '../../shared/kubernetes/types';
import type { KindStrategy } from '../registry/strategy';
import { apiVersionOf, qualifiedResource } from '../registry/resources';
import type { Store, StoreEvent } from '../storage/store';
import { StorageError } from '../storage/store';
import { ApiError } from './apiError';
import type { ResourceStore } from './resourceStore';
import { withTypeMeta } from './resourceStore';
import type { FieldRequirement, LabelRequirement } from './selectors';

export interface WatchRequest {
  def: KindStrategy;
  /** '' = all namespaces */
  namespace: string;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  resourceVersion: string;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutSeconds: number;
}

export interface WatchSink {
  /** Returns false when the consumer is slow (backpressure is handled by the sink). */
  send(type: WatchEventType, object: KubeObject): void;
  close(): void;
}

export interface WatchHandle {
  dispose(): void;
}

const BOOKMARK_INTERVAL_MS = 60_000;

export function startWatch(store: Store, objects: ResourceStore, request: WatchRequest, sink: WatchSink): WatchHandle {
  const { def } = request;
  const matches = objects.matcher(def, request);
  const namespace = def.namespaced && request.namespace ? request.namespace : undefined;
  const inNamespace = (obj: KubeObject) => namespace === undefined || obj.metadata.namespace === namespace;
  let closed = false;
  let lastRevision = 0;
  const timers: NodeJS.Timeout[] = [];
  let subscription: { dispose(): void } | undefined;

  const close = () => {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    subscription?.dispose();
    sink.close();
  };

  const bookmark = (revision: number, initialEventsEnd = false) => {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    sink.send('BOOKMARK', { kind: def.kind, apiVersion: apiVersionOf(def), metadata });
  };

  const onEvent = (event: StoreEvent) => {
    if (closed) return;
    lastRevision = event.revision;
    const current = withTypeMeta(def, event.object);
    if (event.type === 'ADDED') {
      if (inNamespace(current) && matches(current)) sink.send('ADDED', current);
      return;
    }
    if (event.type === 'DELETED') {
      if (inNamespace(current) && matches(current)) sink.send('DELETED', current);
      else if (event.previous && matches(event.previous) && inNamespace(event.previous)) sink.send('DELETED', current);
      return;
    }
    const nowMatches = inNamespace(current) && matches(current);
    const previous = event.previous ? withTypeMeta(def, event.previous) : undefined;
    const usedToMatch = previous ? inNamespace(previous) && matches(previous) : nowMatches;
    if (nowMatches && usedToMatch) sink.send('MODIFIED', current);
    else if (nowMatches) sink.send('ADDED', current);
    else if (usedToMatch) sink.send('DELETED', current);
  };

  try {
    const replayAll = request.sendInitialEvents || request.resourceVersion === '' || request.resourceVersion === '0';
    let from: number;
    if (replayAll) {
      // Store calls are synchronous, so the list and the subscription see the same revision.
      let continueToken: string | undefined;
      const items: KubeObject[] = [];
      let revision = store.currentRevision();
      do {
        const page = objects.list(def, { namespace, labels: request.labels, fields: request.fields, limit: 1000, continueToken });
        if (!continueToken) revision = Number(page.resourceVersion);
        items.push(...page.items);
        continueToken = page.continueToken;
      } while (continueToken);
      from = revision;
      for (const item of items) sink.send('ADDED', item);
      if (request.sendInitialEvents) bookmark(from, true);
    } else {
      from = parseRevision(request.resourceVersion);
    }
    lastRevision = from;
    subscription = store.watch({ resource: qualifiedResource(def), namespace, fromRevision: from }, onEvent);
  } catch (error) {
    if (error instanceof StorageError && error.code === 'Expired') {
      sink.send('ERROR', ApiError.expired(error.message).toStatus() as unknown as KubeObject);
      close();
      return { dispose: close };
    }
    throw error;
  }

  if (request.allowBookmarks) {
    const tick = () => {
      if (closed) return;
      bookmark(Math.max(lastRevision, store.currentRevision()));
      timers.push(setTimeout(tick, BOOKMARK_INTERVAL_MS).unref());
    };
    timers.push(setTimeout(tick, BOOKMARK_INTERVAL_MS).unref());
  }
  timers.push(setTimeout(close, request.timeoutSeconds * 1000).unref());
  return { dispose: close };
}

function parseRevision(value: string): number {
  if (!/^\d+$/.test(value)) throw ApiError.badRequest(`invalid resource version: strconv.ParseUint: parsing "${value}": invalid syntax`);
  return Number(value);
}
