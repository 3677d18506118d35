// Cron schedule parsing as github.com/robfig/cron/v3 ParseStandard, which CronJob validation
// uses: five fields (minute hour day-of-month month day-of-week) or a descriptor (@hourly …,
// @every <duration>), with the library's error texts.
import { parseGoDurationNanoseconds } from '../../../shared/kubernetes/duration';

interface FieldBounds { minimum: number; maximum: number; names?: Record<string, number> }

const months: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const weekdays: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const fieldBounds: FieldBounds[] = [
  { minimum: 0, maximum: 59 },
  { minimum: 0, maximum: 23 },
  { minimum: 1, maximum: 31 },
  { minimum: 1, maximum: 12, names: months },
  { minimum: 0, maximum: 6, names: weekdays },
];

const descriptors = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Go's %s of a []string: `[a b c]`. */
function goStrings(values: string[]): string {
  return `[${values.join(' ')}]`;
}

function parseNumber(text: string, bounds: FieldBounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (value < 0) throw new Error(`negative number (${value}) not allowed: ${text}`);
  return value;
}

function parseRange(expression: string, bounds: FieldBounds): void {
  const rangeAndStep = expression.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.minimum;
    end = bounds.maximum;
  } else {
    start = parseNumber(lowAndHigh[0], bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseNumber(lowAndHigh[1], bounds);
    else throw new Error(`too many hyphens: ${expression}`);
  }
  if (rangeAndStep.length === 2) {
    const step = parseNumber(rangeAndStep[1], bounds);
    if (step <= 0) throw new Error(`step of range should be a positive number: ${expression}`);
    if (singleDigit && lowAndHigh[0] !== '*' && lowAndHigh[0] !== '?') end = bounds.maximum;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expression}`);
  }
  if (start < bounds.minimum) throw new Error(`beginning of range (${start}) below minimum (${bounds.minimum}): ${expression}`);
  if (end > bounds.maximum) throw new Error(`end of range (${end}) above maximum (${bounds.maximum}): ${expression}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expression}`);
}

/** The error message cron.ParseStandard would give, or undefined when the spec parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    let text = spec;
    if (text.length === 0) return 'empty spec string';
    if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
      const space = text.indexOf(' ');
      const location = text.slice(text.indexOf('=') + 1, space < 0 ? undefined : space);
      if (!isTimeZone(location)) return `provided bad location ${location}: unknown time zone ${location}`;
      text = space < 0 ? '' : text.slice(space).trim();
    }
    if (text.startsWith('@')) {
      if (descriptors.has(text)) return undefined;
      if (text.startsWith('@every ')) {
        const duration = text.slice('@every '.length);
        return parseGoDurationNanoseconds(duration) !== undefined ? undefined : `failed to parse duration ${text}: time: invalid duration ${JSON.stringify(duration)}`;
      }
      return `unrecognized descriptor: ${text}`;
    }
    const fields = text.split(/\s+/).filter((field) => field.length > 0);
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: ${goStrings(fields)}`;
    fields.forEach((field, index) => {
      for (const expression of field.split(',')) parseRange(expression, fieldBounds[index]);
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Whether an IANA zone name is known to this runtime's time zone database. */
export function isTimeZone(name: string): boolean {
  if (name === 'UTC' || name === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
