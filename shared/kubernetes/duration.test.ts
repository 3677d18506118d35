import { describe, expect, it } from 'vitest';
import { formatGoDuration, formatGoDurationMilliseconds, parseGoDuration, parseGoDurationNanoseconds } from './duration';

describe('Go durations', () => {
  it.each([
    ['0', 0],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['1m30s', 90_000],
    ['10.002s', 10_002],
    ['-1.5s', -1500],
    ['+5s', 5000],
    ['.5s', 500],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['2000000ns', 2],
  ])('parses %j as %d ms', (text, milliseconds) => {
    expect(parseGoDuration(text)).toBeCloseTo(milliseconds, 9);
  });

  it.each(['', '1', '5 s', 's', '1d', '1.2.3s', '-', 'abc', 12, null, undefined])('rejects %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it('keeps nanoseconds exact for short durations', () => {
    expect(parseGoDurationNanoseconds('1µs')).toBe(1000);
    expect(parseGoDurationNanoseconds('7ns')).toBe(7);
  });

  it.each([
    [0, '0s'],
    [1, '1ns'],
    [1_500, '1.5µs'],
    [1_500_000, '1.5ms'],
    [500_000_000, '500ms'],
    [1_000_000_000, '1s'],
    [10_002_000_000, '10.002s'],
    [60_000_000_000, '1m0s'],
    [90_500_000_000, '1m30.5s'],
    [3_723_500_000_000, '1h2m3.5s'],
    [-1_500_000_000, '-1.5s'],
  ])('prints %d ns as Go does: %s', (nanoseconds, text) => {
    expect(formatGoDuration(nanoseconds)).toBe(text);
    expect(formatGoDuration(BigInt(nanoseconds))).toBe(text);
  });

  it.each([
    [0, '0s'],
    [500, '500ms'],
    [10_002, '10.002s'],
    [60_000, '1m0s'],
    [3_600_000, '1h0m0s'],
  ])('prints %d ms as Go does: %s', (milliseconds, text) => {
    expect(formatGoDurationMilliseconds(milliseconds)).toBe(text);
  });

  it('round-trips what it prints', () => {
    for (const nanoseconds of [1, 999, 1_234_567, 61_000_000_000, 7_384_000_000_000]) expect(parseGoDurationNanoseconds(formatGoDuration(nanoseconds))).toBe(nanoseconds);
  });
});
