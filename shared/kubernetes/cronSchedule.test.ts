import { describe, expect, it } from 'vitest';
import { cronScheduleError, formatRfc3339InZone, parseCronSchedule } from './cronSchedule';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('parseCronSchedule', () => {
  it.each([
    { spec: '* * * * *', after: '2026-03-01T10:00:00Z', next: '2026-03-01T10:01:00.000Z' },
    { spec: '* * * * *', after: '2026-03-01T10:00:30Z', next: '2026-03-01T10:01:00.000Z' },
    { spec: '*/15 * * * *', after: '2026-03-01T10:01:00Z', next: '2026-03-01T10:15:00.000Z' },
    { spec: '5/20 * * * *', after: '2026-03-01T10:30:00Z', next: '2026-03-01T10:45:00.000Z' },
    { spec: '0 9-17/4 * * *', after: '2026-03-01T13:00:00Z', next: '2026-03-01T17:00:00.000Z' },
    { spec: '30 2 * * mon-fri', after: '2026-02-28T00:00:00Z', next: '2026-03-02T02:30:00.000Z' },
    { spec: '0 0 1,15 * *', after: '2026-03-02T00:00:00Z', next: '2026-03-15T00:00:00.000Z' },
    { spec: '0 0 13 * 5', after: '2026-03-01T00:00:00Z', next: '2026-03-06T00:00:00.000Z' },
    { spec: '0 0 * jan,jul *', after: '2026-03-01T00:00:00Z', next: '2026-07-01T00:00:00.000Z' },
    { spec: '0 0 29 2 *', after: '2026-03-01T00:00:00Z', next: '2028-02-29T00:00:00.000Z' },
    { spec: '@hourly', after: '2026-03-01T10:00:00Z', next: '2026-03-01T11:00:00.000Z' },
    { spec: '@daily', after: '2026-03-01T10:00:00Z', next: '2026-03-02T00:00:00.000Z' },
    { spec: '@midnight', after: '2026-03-01T10:00:00Z', next: '2026-03-02T00:00:00.000Z' },
    { spec: '@weekly', after: '2026-03-02T10:00:00Z', next: '2026-03-08T00:00:00.000Z' },
    { spec: '@monthly', after: '2026-03-02T10:00:00Z', next: '2026-04-01T00:00:00.000Z' },
    { spec: '@yearly', after: '2026-03-02T10:00:00Z', next: '2027-01-01T00:00:00.000Z' },
    { spec: '@annually', after: '2026-03-02T10:00:00Z', next: '2027-01-01T00:00:00.000Z' },
    { spec: '@every 90s', after: '2026-03-02T10:00:00.500Z', next: '2026-03-02T10:01:30.000Z' },
    { spec: '0 0 30 2 *', after: '2026-03-02T10:00:00Z', next: undefined },
  ])('finds the activation of "$spec" after $after in UTC', ({ spec, after, next }) => {
    expect(iso(parseCronSchedule(spec, 'UTC').next(at(after)))).toBe(next);
  });

  it.each([
    { spec: '0 9 * * *', zone: 'Europe/Berlin', after: '2026-01-10T00:00:00Z', next: '2026-01-10T08:00:00.000Z' },
    { spec: '0 9 * * *', zone: 'Europe/Berlin', after: '2026-07-10T00:00:00Z', next: '2026-07-10T07:00:00.000Z' },
    { spec: '0 9 * * *', zone: 'America/New_York', after: '2026-01-10T00:00:00Z', next: '2026-01-10T14:00:00.000Z' },
    { spec: '30 0 * * *', zone: 'Asia/Kolkata', after: '2026-01-10T00:00:00Z', next: '2026-01-10T19:00:00.000Z' },
    { spec: 'TZ=Asia/Tokyo 0 0 * * *', zone: 'UTC', after: '2026-01-10T00:00:00Z', next: '2026-01-10T15:00:00.000Z' },
    // Europe/Berlin springs forward on 2026-03-29 at 02:00 → 03:00
    { spec: '30 3 * * *', zone: 'Europe/Berlin', after: '2026-03-28T12:00:00Z', next: '2026-03-29T01:30:00.000Z' },
  ])('evaluates "$spec" in the wall clock of $zone', ({ spec, zone, after, next }) => {
    expect(iso(parseCronSchedule(spec, zone).next(at(after)))).toBe(next);
  });

  it.each(['', '* * * *', '61 * * * *', '* * * * 7', '@fortnightly', '*/0 * * * *', '1-2-3 * * * *'])('rejects the schedule "%s"', (spec) => {
    expect(() => parseCronSchedule(spec, 'UTC')).toThrow();
  });

  it('rejects an unknown time zone', () => {
    expect(() => parseCronSchedule('* * * * *', 'Mars/Olympus')).toThrow(/unknown time zone/);
  });
});

describe('cronScheduleError', () => {
  it.each([
    ['', 'empty spec string'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['@sometimes', 'unrecognized descriptor: @sometimes'],
    ['@every 1x', 'failed to parse duration @every 1x: time: invalid duration "1x"'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['5-1/0 * * * *', 'beginning of range (5) beyond end of range (1): 5-1/0'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['* * * */jan *', 'failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax'],
    ['-1 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['1-2-3 * * * *', 'too many hyphens: 1-2-3'],
    ['1/2/3 * * * *', 'too many slashes: 1/2/3'],
    ['TZ=Mars/Olympus * * * * *', 'provided bad location Mars/Olympus: unknown time zone Mars/Olympus'],
  ])('refuses "%s" with the library\'s text', (spec, message) => {
    expect(cronScheduleError(spec)).toBe(message);
  });

  it.each(['* * * * *', '*-5 * * * *', '0 9-17/4 * * mon-fri', '@every 90s', '@weekly', 'TZ=Europe/Berlin 0 0 * * *'])('accepts "%s"', (spec) => {
    expect(cronScheduleError(spec)).toBeUndefined();
  });
});

describe('formatRfc3339InZone', () => {
  it.each([
    { instant: '2026-03-01T10:00:00Z', zone: undefined, text: '2026-03-01T10:00:00Z' },
    { instant: '2026-03-01T10:00:00Z', zone: 'Europe/Berlin', text: '2026-03-01T11:00:00+01:00' },
    { instant: '2026-03-01T10:00:00Z', zone: 'America/St_Johns', text: '2026-03-01T06:30:00-03:30' },
  ])('formats $instant in $zone as Go time.RFC3339', ({ instant, zone, text }) => {
    expect(formatRfc3339InZone(at(instant), zone)).toBe(text);
  });
});
