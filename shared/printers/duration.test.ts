import { describe, expect, it } from 'vitest';
import { humanDuration, parseTimestamp, shortHumanDuration, translateTimestampSince } from './duration';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;
const day = 24 * hour;
const year = 365 * day;

describe('humanDuration', () => {
  it.each([
    [-2 * second, '<invalid>'],
    [-1999, '0s'],
    [-1 * second, '0s'],
    [-1, '0s'],
    [0, '0s'],
    [999, '0s'],
    [45 * second, '45s'],
    [119 * second, '119s'],
    [2 * minute, '2m'],
    [2 * minute + 30 * second, '2m30s'],
    [5 * minute + 10 * second, '5m10s'],
    [9 * minute + 59 * second, '9m59s'],
    [10 * minute, '10m'],
    [10 * minute + 59 * second, '10m'],
    [179 * minute, '179m'],
    [3 * hour, '3h'],
    [3 * hour + 5 * minute, '3h5m'],
    [7 * hour + 59 * minute, '7h59m'],
    [8 * hour, '8h'],
    [47 * hour + 59 * minute, '47h'],
    [48 * hour, '2d'],
    [3 * day + 4 * hour, '3d4h'],
    [7 * day + 23 * hour, '7d23h'],
    [8 * day, '8d'],
    [8 * day + 5 * hour, '8d'],
    [2 * year - hour, '729d'],
    [2 * year, '2y'],
    [2 * year + 10 * day, '2y10d'],
    [8 * year - day, '7y364d'],
    [8 * year, '8y'],
    [20 * year + 100 * day, '20y'],
  ])('formats %d ms as %s', (milliseconds, expected) => {
    expect(humanDuration(milliseconds)).toBe(expected);
  });
});

describe('shortHumanDuration', () => {
  it.each([
    [-2 * second, '<invalid>'],
    [-1 * second, '0s'],
    [0, '0s'],
    [59 * second, '59s'],
    [60 * second, '1m'],
    [59 * minute + 59 * second, '59m'],
    [hour, '1h'],
    [23 * hour + 59 * minute, '23h'],
    [day, '1d'],
    [364 * day, '364d'],
    [year, '1y'],
    [2 * year + 200 * day, '2y'],
  ])('formats %d ms as %s', (milliseconds, expected) => {
    expect(shortHumanDuration(milliseconds)).toBe(expected);
  });
});

describe('translateTimestampSince', () => {
  const now = new Date('2025-01-01T12:00:00Z');

  it('prints the age of a timestamp relative to the injected clock', () => {
    expect(translateTimestampSince('2025-01-01T11:55:00Z', now)).toBe('5m');
    expect(translateTimestampSince('2025-01-01T11:59:15.123456Z', now)).toBe('44s');
  });

  it.each([[undefined], [''], ['not a time'], ['0001-01-01T00:00:00Z'], [42]])('prints <unknown> for %s', (value) => {
    expect(translateTimestampSince(value, now)).toBe('<unknown>');
  });

  it('treats a timestamp slightly in the future as now', () => {
    expect(translateTimestampSince('2025-01-01T12:00:01Z', now)).toBe('0s');
    expect(translateTimestampSince('2025-01-01T12:00:05Z', now)).toBe('<invalid>');
  });

  it('parses RFC 3339 with and without fractional seconds', () => {
    expect(parseTimestamp('2025-01-01T00:00:00Z')).toBe(Date.UTC(2025, 0, 1));
    expect(parseTimestamp('2025-01-01T00:00:00.500000Z')).toBe(Date.UTC(2025, 0, 1) + 500);
  });
});
