// The events timeline: one lane per object the events are about, each event a mark from its first
// to its last occurrence (a repeated event — BackOff ×12 — is a bar, a single one a dot), lanes
// with the most recent activity first, within a window ending now. Times are read as the list
// reads them (kinds/eventTimes). Pure.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { eventFirstSeen, eventLastSeen } from '../../kinds/eventTimes';

export interface TimelineMark {
  key: string;
  start: number;
  end: number;
  type: string;
  reason: string;
  message: string;
  count: number;
}

export interface TimelineLane {
  key: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** newest occurrence of any of its events */
  last: number;
  warnings: number;
  marks: TimelineMark[];
}

export interface Timeline {
  from: number;
  to: number;
  lanes: TimelineLane[];
  ticks: { at: number; label: string }[];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function milliseconds(value: string): number {
  const parsed = Date.parse(value);
  return Number.isNaN(parsed) ? 0 : parsed;
}

function countOf(event: KubeObject): number {
  if (isRecord(event.series) && typeof event.series.count === 'number') return event.series.count;
  if (typeof event.count === 'number' && event.count > 0) return event.count;
  if (typeof event.deprecatedCount === 'number' && event.deprecatedCount > 0) return event.deprecatedCount;
  return 1;
}

/** `-30s`, `-45m`, `-2h`, `-1d`, `now`: a tick's distance from now. */
export function tickLabel(ago: number): string {
  if (ago <= 0) return 'now';
  const seconds = Math.round(ago / 1000);
  if (seconds < 120 && seconds % 60 !== 0) return `-${seconds}s`;
  const minutes = Math.round(ago / 60_000);
  if (minutes < 120 && minutes % 60 !== 0) return `-${minutes}m`;
  const hours = Math.round(minutes / 60);
  return hours % 24 === 0 && hours >= 48 ? `-${hours / 24}d` : `-${hours}h`;
}

const TICK_STEPS_MS = [15_000, 30_000, 60_000, 5 * 60_000, 10 * 60_000, 15 * 60_000, 30 * 60_000, 3_600_000, 2 * 3_600_000, 4 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 86_400_000];

/** A round tick step giving at most `most` intervals over the window. */
export function tickStep(windowMs: number, most = 6): number {
  return TICK_STEPS_MS.find((step) => windowMs / step <= most) ?? TICK_STEPS_MS[TICK_STEPS_MS.length - 1];
}

/** Window lengths the timeline fits to (1 minute … 7 days). */
export const FIT_WINDOWS_MS = [1, 5, 15, 30, 60, 120, 360, 720, 1440, 10_080].map((minutes) => minutes * 60_000);

/** The shortest fitting window that shows every event's first occurrence (the longest one when none fits). */
export function fitWindow(events: Iterable<KubeObject>, now: number): number {
  let oldest = now;
  for (const event of events) {
    const first = milliseconds(eventFirstSeen(event)) || milliseconds(eventLastSeen(event));
    if (first > 0 && first < oldest) oldest = first;
  }
  const needed = now - oldest;
  return FIT_WINDOWS_MS.find((window) => window >= needed) ?? FIT_WINDOWS_MS[FIT_WINDOWS_MS.length - 1];
}

/** The events of the last `windowMs` before `now`, in lanes by object, most recently active first. */
export function eventTimeline(events: Iterable<KubeObject>, now: number, windowMs: number): Timeline {
  const from = now - windowMs;
  const lanes = new Map<string, TimelineLane>();
  for (const event of events) {
    const end = milliseconds(eventLastSeen(event));
    if (end < from) continue;
    const start = Math.max(from, Math.min(end, milliseconds(eventFirstSeen(event)) || end));
    const involved = isRecord(event.involvedObject) ? event.involvedObject : isRecord(event.regarding) ? event.regarding : {};
    const kind = text(involved.kind);
    const name = text(involved.name);
    const namespace = text(involved.namespace) || undefined;
    const key = text(involved.uid) || `${kind}/${namespace ?? ''}/${name}`;
    let lane = lanes.get(key);
    if (!lane) {
      lane = { key, apiVersion: text(involved.apiVersion), kind, namespace, name, last: end, warnings: 0, marks: [] };
      lanes.set(key, lane);
    }
    const type = text(event.type) || 'Normal';
    lane.last = Math.max(lane.last, end);
    if (type === 'Warning') lane.warnings++;
    lane.marks.push({ key: event.metadata.uid ?? `${event.metadata.namespace ?? ''}/${event.metadata.name ?? ''}`, start, end: Math.min(end, now), type, reason: text(event.reason), message: text(event.message) || text(event.note), count: countOf(event) });
  }
  const sorted = [...lanes.values()].sort((left, right) => right.last - left.last || left.key.localeCompare(right.key));
  for (const lane of sorted) lane.marks.sort((left, right) => left.start - right.start || left.end - right.end);
  // ticks at round distances from now, oldest first
  const step = tickStep(windowMs);
  const ticks: Timeline['ticks'] = [];
  for (let ago = Math.floor(windowMs / step) * step; ago >= 0; ago -= step) ticks.push({ at: now - ago, label: tickLabel(ago) });
  return { from, to: now, lanes: sorted, ticks };
}

/** Where a mark sits on its lane, as fractions of the lane's width (a dot has no width). */
export function markPlacement(mark: Pick<TimelineMark, 'start' | 'end'>, timeline: Pick<Timeline, 'from' | 'to'>): { left: number; width: number } {
  const span = Math.max(1, timeline.to - timeline.from);
  const clamp = (value: number) => Math.min(1, Math.max(0, value));
  const left = clamp((mark.start - timeline.from) / span);
  return { left, width: clamp((mark.end - timeline.from) / span) - left };
}
