import { describe, expect, it } from 'vitest';
import { formatMicroTime, formatTime, parseTime } from './time';

describe('metav1 times', () => {
  it.each([
    [new Date('2024-05-01T10:00:00.987Z'), '2024-05-01T10:00:00Z', '2024-05-01T10:00:00.987000Z'],
    [Date.UTC(2020, 0, 1), '2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000000Z'],
  ])('prints %j as Time %s and MicroTime %s', (time, text, micro) => {
    expect(formatTime(time)).toBe(text);
    expect(formatMicroTime(time)).toBe(micro);
  });

  it('prints each second right when calls alternate between seconds and fractions of one', () => {
    const base = Date.UTC(2024, 4, 1, 10, 0, 0);
    expect(formatTime(base + 999)).toBe('2024-05-01T10:00:00Z');
    expect(formatTime(base + 1000)).toBe('2024-05-01T10:00:01Z');
    expect(formatTime(new Date(base + 1500))).toBe('2024-05-01T10:00:01Z');
    expect(formatTime(base + 10)).toBe('2024-05-01T10:00:00Z');
    expect(formatTime(-1)).toBe('1969-12-31T23:59:59Z');
    expect(() => formatTime(Number.NaN)).toThrow(RangeError);
  });

  it.each([
    ['2024-05-01T10:00:00Z', Date.UTC(2024, 4, 1, 10)],
    ['2024-05-01T10:00:00.500000Z', Date.UTC(2024, 4, 1, 10, 0, 0, 500)],
    ['2024-05-01T12:00:00+02:00', Date.UTC(2024, 4, 1, 10)],
  ])('parses %s', (text, time) => {
    expect(parseTime(text)).toBe(time);
  });

  it.each(['', 'yesterday', null, undefined, 5])('reads %j as no time', (text) => {
    expect(parseTime(text)).toBeUndefined();
  });
});
