// Cron schedules for the CronJob controller, evaluated as github.com/robfig/cron/v3 (the library
// upstream pkg/controller/cronjob uses): five fields (minute hour day-of-month month day-of-week)
// with names, ranges, steps and `*`/`?`, the descriptors @yearly/@annually/@monthly/@weekly/
// @daily/@midnight/@hourly and `@every <duration>`, an optional `TZ=`/`CRON_TZ=` prefix, and the
// library's day rule (day-of-month OR day-of-week unless either field starts with `*`). Times are
// computed in wall-clock time of an IANA zone through Intl.DateTimeFormat, as Go's time.Location.
// Validation (with the library's error texts) lives in the registry; this module only evaluates.
import { parseGoDuration } from '../../shared/kubernetes/duration';

export interface CronSchedule {
  /** The first activation strictly after `afterMs` (ms since the epoch), or undefined within the search horizon. */
  next(afterMs: number): number | undefined;
}

interface FieldBounds {
  minimum: number;
  maximum: number;
  names?: Record<string, number>;
}

const months: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const weekdays: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const minuteBounds: FieldBounds = { minimum: 0, maximum: 59 };
const hourBounds: FieldBounds = { minimum: 0, maximum: 23 };
const dayOfMonthBounds: FieldBounds = { minimum: 1, maximum: 31 };
const monthBounds: FieldBounds = { minimum: 1, maximum: 12, names: months };
const dayOfWeekBounds: FieldBounds = { minimum: 0, maximum: 6, names: weekdays };

const descriptors: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** robfig gives up after five years without a match (e.g. `0 0 30 2 *`). */
const SEARCH_YEARS = 5;

interface Field {
  values: Set<number>;
  /** The field started with `*` or `?` and had no step above 1 (robfig's starBit). */
  star: boolean;
}

function parseNumber(text: string, bounds: FieldBounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^\d+$/.test(text)) throw new Error(`failed to parse int from ${text}`);
  return Number(text);
}

function parseField(expression: string, bounds: FieldBounds): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of expression.split(',')) {
    const [range, stepText, extra] = part.split('/');
    if (extra !== undefined) throw new Error(`too many slashes: ${part}`);
    const ends = range.split('-');
    let start: number;
    let end: number;
    let partStar = false;
    if (ends[0] === '*' || ends[0] === '?') {
      if (ends.length > 1) throw new Error(`too many hyphens: ${part}`);
      start = bounds.minimum;
      end = bounds.maximum;
      partStar = true;
    } else {
      start = parseNumber(ends[0], bounds);
      if (ends.length === 1) end = start;
      else if (ends.length === 2) end = parseNumber(ends[1], bounds);
      else throw new Error(`too many hyphens: ${part}`);
    }
    let step = 1;
    if (stepText !== undefined) {
      step = parseNumber(stepText, bounds);
      if (step <= 0) throw new Error(`step of range should be a positive number: ${part}`);
      // `5/10` means 5 to the maximum, every 10
      if (ends.length === 1 && !partStar) end = bounds.maximum;
      if (step > 1) partStar = false;
    }
    if (start < bounds.minimum) throw new Error(`beginning of range (${start}) below minimum (${bounds.minimum}): ${part}`);
    if (end > bounds.maximum) throw new Error(`end of range (${end}) above maximum (${bounds.maximum}): ${part}`);
    if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
    for (let value = start; value <= end; value += step) values.add(value);
    star = star || partStar;
  }
  return { values, star };
}

// ---------------------------------------------------------------- time zones

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether the name is an IANA zone this runtime knows (Go's time.LoadLocation, near enough). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone === '' || zone === 'UTC' || zone === 'Local') return true;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

function resolveZone(zone: string | undefined): string {
  if (!zone || zone === 'Local') return localTimeZone();
  return zone;
}

/** The process's own zone, as a Go program's time.Local. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Offset of the zone from UTC at an instant, in milliseconds (east positive). */
export function zoneOffsetMs(zone: string, instantMs: number): number {
  if (zone === 'UTC') return 0;
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const truncated = Math.floor(instantMs / 1000) * 1000;
  return wall - truncated;
}

/** Wall-clock time (as ms in a UTC-based "naive" calendar) to an instant in the zone. */
function wallToInstant(zone: string, wallMs: number): number {
  const first = wallMs - zoneOffsetMs(zone, wallMs);
  const second = wallMs - zoneOffsetMs(zone, first);
  return second;
}

function pad(value: number, width = 2): string {
  return String(Math.abs(value)).padStart(width, '0');
}

/** Go's time.Format(time.RFC3339) of the instant in the zone: `2026-03-01T10:00:00+01:00` or `…Z` in UTC. */
export function formatRfc3339InZone(instantMs: number, zone: string | undefined): string {
  const name = zone || 'UTC';
  const offset = zoneOffsetMs(name, instantMs);
  const wall = new Date(Math.floor(instantMs / 1000) * 1000 + offset);
  const date = `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`;
  if (offset === 0) return `${date}Z`;
  const minutes = Math.round(offset / MINUTE_MS);
  return `${date}${minutes < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

// ---------------------------------------------------------------- schedules

class FieldSchedule implements CronSchedule {
  constructor(
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dayOfMonth: Field,
    private readonly month: Field,
    private readonly dayOfWeek: Field,
    private readonly zone: string,
  ) {}

  private dayMatches(wall: Date): boolean {
    const domMatch = this.dayOfMonth.values.has(wall.getUTCDate());
    const dowMatch = this.dayOfWeek.values.has(wall.getUTCDay());
    if (this.dayOfMonth.star || this.dayOfWeek.star) return domMatch && dowMatch;
    return domMatch || dowMatch;
  }

  next(afterMs: number): number | undefined {
    // Activations fall on whole minutes; start at the first minute strictly after `afterMs`.
    const firstInstant = Math.floor(afterMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    let wall = firstInstant + zoneOffsetMs(this.zone, firstInstant);
    wall = Math.floor(wall / MINUTE_MS) * MINUTE_MS;
    const horizon = new Date(wall).getUTCFullYear() + SEARCH_YEARS;
    while (new Date(wall).getUTCFullYear() <= horizon) {
      const date = new Date(wall);
      if (!this.month.values.has(date.getUTCMonth() + 1)) {
        wall = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
        continue;
      }
      if (!this.dayMatches(date)) {
        wall = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) + DAY_MS;
        continue;
      }
      if (!this.hour.values.has(date.getUTCHours())) {
        wall = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), date.getUTCHours() + 1);
        continue;
      }
      if (!this.minute.values.has(date.getUTCMinutes())) {
        wall += MINUTE_MS;
        continue;
      }
      const instant = wallToInstant(this.zone, wall);
      // A wall time repeated or skipped by a daylight-saving change can map before the start.
      if (instant > afterMs) return instant;
      wall += MINUTE_MS;
    }
    return undefined;
  }
}

/** robfig ConstantDelaySchedule: every `delay`, rounded to whole seconds, from the given time. */
class EverySchedule implements CronSchedule {
  constructor(private readonly delayMs: number) {}

  next(afterMs: number): number {
    return Math.floor(afterMs / 1000) * 1000 + this.delayMs;
  }
}

function parseEvery(text: string): number {
  const milliseconds = parseGoDuration(text);
  if (milliseconds === undefined) throw new Error(`failed to parse duration ${text}`);
  return milliseconds;
}

/**
 * Parses a schedule as cron.ParseStandard; `timeZone` (CronJob spec.timeZone) applies unless the
 * spec carries its own TZ= prefix. Without either, the process's local zone is used, as upstream.
 */
export function parseCronSchedule(spec: string, timeZone?: string): CronSchedule {
  let text = spec.trim();
  let zone = resolveZone(timeZone);
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    zone = resolveZone(text.slice(text.indexOf('=') + 1, space < 0 ? undefined : space));
    text = space < 0 ? '' : text.slice(space).trim();
  }
  if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
  if (text === '') throw new Error('empty spec string');
  if (text.startsWith('@every ')) {
    // robfig raises intervals below a second to one second and drops sub-second parts.
    const delay = Math.max(1000, parseEvery(text.slice('@every '.length).trim()));
    return new EverySchedule(Math.floor(delay / 1000) * 1000);
  }
  if (text.startsWith('@')) {
    const expanded = descriptors[text];
    if (!expanded) throw new Error(`unrecognized descriptor: ${text}`);
    text = expanded;
  }
  const fields = text.split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${text}`);
  return new FieldSchedule(
    parseField(fields[0], minuteBounds),
    parseField(fields[1], hourBounds),
    parseField(fields[2], dayOfMonthBounds),
    parseField(fields[3], monthBounds),
    parseField(fields[4], dayOfWeekBounds),
    zone,
  );
}
