import { describe, expect, it } from 'vitest';
import { parseMilliValue, parseQuantity, parseValue } from './quantity';

describe('quantity', () => {
  it.each([
    ['100m', 100, 1],
    ['0.1', 100, 1],
    ['1', 1000, 1],
    ['2.5', 2500, 3],
    ['1Gi', 1073741824000, 1073741824],
    ['128Mi', 134217728000, 134217728],
    ['1k', 1_000_000, 1000],
    ['1e3', 1_000_000, 1000],
    ['1.5E-3', 2, 1],
    ['5n', 1, 1],
    ['-1', -1000, -1],
    [3, 3000, 3],
  ])('reads %j as %d milli and %d units', (text, milli, units) => {
    expect(parseMilliValue(text)).toBe(milli);
    expect(parseValue(text)).toBe(units);
  });

  it.each(['', 'abc', '1Xi', '.', '1..2', 'Gi', null])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});
