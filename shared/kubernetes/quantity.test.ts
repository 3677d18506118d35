import { describe, expect, it } from 'vitest';
import { formatIecBytes, humanQuantity, parseMilliValue, parseQuantity, parseValue } from './quantity';

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

describe('quantities for people', () => {
  it.each([
    [0, '0 B'],
    [512, '512 B'],
    [1536, '1.5 KiB'],
    [1024 ** 3, '1 GiB'],
    [24684096 * 1024, '23.5 GiB'],
    [150 * 1024 ** 3, '150 GiB'],
  ])('writes %d bytes as %s', (bytes, text) => {
    expect(formatIecBytes(bytes)).toBe(text);
  });

  it.each([
    ['memory', '24684096Ki', '23.5 GiB'],
    ['ephemeral-storage', '100Gi', '100 GiB'],
    ['hugepages-2Mi', '0', '0 B'],
    ['storage', '1G', '954 MiB'],
    ['cpu', '8', '8 cores'],
    ['cpu', '1', '1 core'],
    ['cpu', '250m', '0.25 cores'],
    ['pods', '110', '110'],
    ['memory', 'lots', 'lots'],
  ])('shows %s %s as %s', (resource, raw, text) => {
    expect(humanQuantity(resource, raw)).toBe(text);
  });
});
