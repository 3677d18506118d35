// When an Event happened, read as `kubectl get events` prints it (printers.go printEvent): the
// last occurrence is series.lastObservedTime for an event series, else lastTimestamp, else the
// first occurrence (firstTimestamp, else eventTime); events.k8s.io/v1 objects carry the same
// times under deprecated* names. Lists and the detail page sort on these times — newest first —
// and break ties the way the writes happened: the finer eventTime, the creation time, then the
// resourceVersion the API server gave each write (a later write has a larger one).
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** First occurrence: firstTimestamp (or deprecatedFirstTimestamp), else eventTime, else creation. */
export function eventFirstSeen(event: KubeObject): string {
  return text(event.firstTimestamp) || text(event.deprecatedFirstTimestamp) || text(event.eventTime) || (event.metadata.creationTimestamp ?? '');
}

/** Last occurrence: series.lastObservedTime, else lastTimestamp (or deprecatedLastTimestamp), else the first occurrence. */
export function eventLastSeen(event: KubeObject): string {
  const series = isRecord(event.series) ? text(event.series.lastObservedTime) : '';
  return series || text(event.lastTimestamp) || text(event.deprecatedLastTimestamp) || eventFirstSeen(event);
}

/**
 * An RFC 3339 time in microseconds since the epoch (MicroTime keeps six digits; Date.parse keeps
 * three), or NaN. Fractions beyond microseconds are cut.
 */
export function timeMicros(value: string): number {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(value);
  if (!match) return Number.NaN;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return Number.NaN;
  return seconds * 1000 + Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
}

/** When the event last happened, in milliseconds since the epoch (0 when unknown). */
export function eventLastSeenMs(event: KubeObject): number {
  const micros = timeMicros(eventLastSeen(event));
  return Number.isNaN(micros) ? 0 : Math.floor(micros / 1000);
}

/** Compares numbers where NaN (unknown) counts as the oldest. */
function newerFirst(left: number, right: number): number {
  const a = Number.isNaN(left) ? -Infinity : left;
  const b = Number.isNaN(right) ? -Infinity : right;
  return a === b ? 0 : a > b ? -1 : 1;
}

/** resourceVersions compared as the numbers they are here (and in etcd); other text by length, then text. */
function compareResourceVersions(left: string, right: string): number {
  if (left.length !== right.length) return left.length - right.length;
  return left < right ? -1 : left > right ? 1 : 0;
}

interface EventSortKey {
  last: number;
  eventTime: number;
  created: number;
  resourceVersion: string;
  name: string;
}

// parsed once per object version (objects are replaced, never mutated): sorting 5,000 events
// compares each many times
const sortKeys = new WeakMap<KubeObject, EventSortKey>();

function sortKeyOf(event: KubeObject): EventSortKey {
  let key = sortKeys.get(event);
  if (!key) {
    key = {
      last: timeMicros(eventLastSeen(event)),
      eventTime: timeMicros(text(event.eventTime)),
      created: timeMicros(event.metadata.creationTimestamp ?? ''),
      resourceVersion: event.metadata.resourceVersion ?? '',
      name: event.metadata.name ?? '',
    };
    sortKeys.set(event, key);
  }
  return key;
}

/** Newest first: last occurrence, then eventTime, creation time, resourceVersion, name (all newest first). */
export function compareEventsNewestFirst(left: KubeObject, right: KubeObject): number {
  const a = sortKeyOf(left);
  const b = sortKeyOf(right);
  return newerFirst(a.last, b.last) || newerFirst(a.eventTime, b.eventTime) || newerFirst(a.created, b.created) || -compareResourceVersions(a.resourceVersion, b.resourceVersion) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}
