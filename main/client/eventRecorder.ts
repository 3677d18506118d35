// EventRecorder: writes core/v1 Events about objects, after client-go tools/record
// (event.go, events_cache.go): an event repeated for the same object, reason and message within
// ten minutes bumps `count` and `lastTimestamp` on the existing Event instead of creating another.
// Writes are fire-and-forget — an event that cannot be written must never fail the caller.
import type { KubeObject } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import type { ApiClient } from './apiClient';
import { resources } from './resources';
import { isNotFound } from './errors';
import { realClock, type Clock } from './clock';

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  component: string; // e.g. default-scheduler, kubelet
  host?: string; // node name for the kubelet
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
  at: number;
}

const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;
const MAX_CACHE = 4096;

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private pending: Promise<void> = Promise.resolve();
  private lastNanos = 0n;

  constructor(
    private readonly client: ApiClient,
    private readonly source: EventSource,
    private readonly clock: Clock = realClock,
  ) {}

  /** Records an event; `fieldPath` names a part of the object, e.g. `spec.containers{web}`. */
  event(object: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void {
    this.pending = this.pending.then(() => this.write(object, type, reason, message, fieldPath)).catch(() => undefined);
  }

  /** resolves when every event recorded so far has been written (for tests) */
  flush(): Promise<void> {
    return this.pending;
  }

  private async write(object: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): Promise<void> {
    const now = this.clock.now();
    const timestamp = formatTime(now);
    const namespace = object.metadata.namespace || 'default';
    const involvedObject: Record<string, unknown> = {
      kind: object.kind,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid,
      apiVersion: object.apiVersion,
      resourceVersion: object.metadata.resourceVersion,
    };
    if (fieldPath) involvedObject.fieldPath = fieldPath;
    const key = [object.metadata.uid, fieldPath ?? '', type, reason, message, this.source.component, this.source.host ?? ''].join('\u0000');
    const events = this.client.resource(resources.events);
    const previous = this.seen.get(key);
    if (previous && now - previous.at < AGGREGATE_WINDOW_MS) {
      previous.count += 1;
      previous.at = now;
      try {
        await events.patch(previous.namespace, previous.name, { count: previous.count, lastTimestamp: timestamp }, 'merge');
        return;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    // upstream names events `<object>.<unix nanos in hex>`; nanos are made unique per recorder
    let nanos = BigInt(now) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    const name = `${object.metadata.name ?? 'unknown'}.${nanos.toString(16)}`;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject,
      reason,
      message,
      source: this.source.host ? { component: this.source.component, host: this.source.host } : { component: this.source.component },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: this.source.component,
      reportingInstance: this.source.host ?? '',
    };
    await events.create(event);
    if (this.seen.size >= MAX_CACHE) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key, { name, namespace, count: 1, firstTimestamp: timestamp, at: now });
  }
}
