// Cron schedules as github.com/robfig/cron/v3 reads them with ParseStandard (the library upstream's
// CronJob validation and pkg/controller/cronjob use): five fields (minute hour day-of-month month
// day-of-week) with names, ranges, steps and `*`/`?`, the descriptors @yearly/@annually/@monthly/
// @weekly/@daily/@midnight/@hourly and `@every <duration>`, an optional `TZ=`/`CRON_TZ=` prefix, and
// the library's day rule (day-of-month OR day-of-week unless either field starts with `*`), with the
// library's error texts, which CronJob validation and the controller's events show. Times are
// computed in wall-clock time of an IANA zone through Intl.DateTimeFormat, as Go's time.Location.
import { parseGoDuration } from './duration';

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

/** Minute, hour, day of month, month and day of week, in the order of the fields. */
const fieldBounds: readonly FieldBounds[] = [
  { minimum: 0, maximum: 59 },
  { minimum: 0, maximum: 23 },
  { minimum: 1, maximum: 31 },
  { minimum: 1, maximum: 12, names: months },
  { minimum: 0, maximum: 6, names: weekdays },
];

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

/** Go's %s of a []string: `[a b c]`. */
function goStrings(values: string[]): string {
  return `[${values.join(' ')}]`;
}

/** mustParseInt: strconv.Atoi of a number that must not be negative. */
function mustParseInt(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (value < 0) throw new Error(`negative number (${value}) not allowed: ${text}`);
  return value;
}

function parseIntOrName(text: string, bounds: FieldBounds): number {
  const name = text.toLowerCase();
  return bounds.names && Object.prototype.hasOwnProperty.call(bounds.names, name) ? bounds.names[name] : mustParseInt(text);
}

/** getRange: one comma-separated part of a field (`5`, `1-5`, `*`, `5/20`, `mon-fri`), added to `field`. */
function addRange(expression: string, bounds: FieldBounds, field: Field): void {
  const rangeAndStep = expression.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.minimum;
    end = bounds.maximum;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0], bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], bounds);
    else throw new Error(`too many hyphens: ${expression}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    // `5/10` means 5 to the maximum, every 10
    if (singleDigit) end = bounds.maximum;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expression}`);
  }
  if (start < bounds.minimum) throw new Error(`beginning of range (${start}) below minimum (${bounds.minimum}): ${expression}`);
  if (end > bounds.maximum) throw new Error(`end of range (${end}) above maximum (${bounds.maximum}): ${expression}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expression}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expression}`);
  for (let value = start; value <= end; value += step) field.values.add(value);
  field.star = field.star || star;
}

function parseField(text: string, bounds: FieldBounds): Field {
  const field: Field = { values: new Set(), star: false };
  for (const expression of text.split(',')) addRange(expression, bounds, field);
  return field;
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

interface ParsedSpec {
  /** the zone of a `TZ=`/`CRON_TZ=` prefix */
  zone?: string;
  /** `@every`: the delay in milliseconds */
  everyMs?: number;
  /** minute, hour, day of month, month, day of week */
  fields?: Field[];
}

/** Parser.Parse with ParseStandard's options; throws the library's error. */
function parseSpec(spec: string): ParsedSpec {
  if (spec.length === 0) throw new Error('empty spec string');
  let text = spec;
  let zone: string | undefined;
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    zone = text.slice(text.indexOf('=') + 1, space < 0 ? undefined : space);
    if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
    text = space < 0 ? '' : text.slice(space).trim();
  }
  if (text.startsWith('@')) {
    if (text.startsWith('@every ')) {
      const duration = text.slice('@every '.length);
      const milliseconds = parseGoDuration(duration);
      if (milliseconds === undefined) throw new Error(`failed to parse duration ${text}: time: invalid duration ${JSON.stringify(duration)}`);
      return { zone, everyMs: milliseconds };
    }
    if (!Object.prototype.hasOwnProperty.call(descriptors, text)) throw new Error(`unrecognized descriptor: ${text}`);
    text = descriptors[text];
  }
  const fields = text.split(/\s+/).filter((field) => field.length > 0);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: ${goStrings(fields)}`);
  return { zone, fields: fields.map((field, index) => parseField(field, fieldBounds[index])) };
}

/** The error cron.ParseStandard gives for the schedule (CronJob validation's text), or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseSpec(spec);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Parses a schedule as cron.ParseStandard; `timeZone` (CronJob spec.timeZone) applies unless the
 * spec carries its own TZ= prefix. Without either, the process's local zone is used, as upstream.
 */
export function parseCronSchedule(spec: string, timeZone?: string): CronSchedule {
  const parsed = parseSpec(spec);
  const zone = resolveZone(parsed.zone ?? timeZone);
  if (!isKnownTimeZone(zone)) throw new Error(`provided bad location ${zone}: unknown time zone ${zone}`);
  if (parsed.everyMs !== undefined) {
    // robfig raises intervals below a second to one second and drops sub-second parts.
    const delay = Math.max(1000, parsed.everyMs);
    return new EverySchedule(Math.floor(delay / 1000) * 1000);
  }
  const [minute, hour, dayOfMonth, month, dayOfWeek] = parsed.fields ?? [];
  return new FieldSchedule(minute, hour, dayOfMonth, month, dayOfWeek, zone);
}
