import { describe, expect, it } from 'vitest';
import {
  addQuantities,
  approximateValue,
  canonicalQuantity,
  compareQuantities,
  exactMilliValue,
  exactValue,
  formatBytes,
  formatIecBytes,
  formatMilliQuantity,
  formatNanocores,
  formatQuantity,
  humanQuantity,
  newMilliQuantity,
  newQuantity,
  parseMilliValue,
  parseQuantity,
  parseValue,
  quantityText,
  subtractQuantities,
  zeroQuantity,
  type Quantity,
} from './quantity';

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

  it.each(['1K', '1e', '1e101', '1 Gi', 'Infinity', Number.NaN])('rejects %j too', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });

  it.each<[unknown, bigint, Quantity['format']]>([
    ['1Gi', 1073741824000000000n, 'BinarySI'],
    ['2e3', 2000000000000n, 'DecimalExponent'],
    ['1.5', 1500000000n, 'DecimalSI'],
    ['0.5n', 1n, 'DecimalSI'],
    ['-0.5n', -1n, 'DecimalSI'],
    [' 250m ', 250000000n, 'DecimalSI'],
    ['+1', 1000000000n, 'DecimalSI'],
    [1e21, 10n ** 30n, 'DecimalExponent'],
  ])('holds %j exactly in nano-units, with its format', (text, nanos, format) => {
    expect(parseQuantity(text)).toEqual({ nanos, format });
  });

  it.each([
    ['1000m', '1'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1.5', '1500m'],
    ['1024Mi', '1Gi'],
    ['1Gi', '1Gi'],
    ['1536Mi', '1536Mi'],
    ['512', '512'],
    ['1000', '1k'],
    ['2e3', '2e3'],
    ['0', '0'],
    ['100Ki', '100Ki'],
    ['0.5Gi', '512Mi'],
    ['1Ki', '1Ki'],
    ['1.5Ki', '1536'],
    ['-2Gi', '-2Gi'],
    ['1e-3', '1e-3'],
    ['12e6', '12e6'],
    [2, '2'],
    ['nonsense', 'nonsense'],
  ])('prints %s as %s, as upstream Quantity.String()', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it('adds and subtracts keeping the left operand format, and compares', () => {
    const memory = parseQuantity('128Mi') as Quantity;
    expect(addQuantities(memory, memory).format).toBe('BinarySI');
    expect(formatQuantity(addQuantities(memory, memory))).toBe('256Mi');
    expect(addQuantities(newQuantity(1), newQuantity(2)).nanos).toBe(3_000_000_000n);
    expect(formatQuantity(subtractQuantities(parseQuantity('1') as Quantity, parseQuantity('250m') as Quantity))).toBe('750m');
    expect(compareQuantities(parseQuantity('1Gi') as Quantity, parseQuantity('1024Mi') as Quantity)).toBe(0);
    expect(compareQuantities(parseQuantity('999m') as Quantity, parseQuantity('1') as Quantity)).toBe(-1);
    expect(compareQuantities(parseQuantity('2') as Quantity, zeroQuantity())).toBe(1);
  });

  it.each<[unknown, number]>([
    ['250m', 0.25],
    ['1234567n', 0.001234567],
    ['2Gi', 2 ** 31],
    ['1e3', 1000],
    [-1.5, -1.5],
    ['x', Number.NaN],
  ])('reads %j as the approximate number %d', (text, value) => {
    expect(approximateValue(text)).toBe(value);
  });

  it('rounds values up exactly, beyond the range of a number', () => {
    const huge = parseQuantity('8Ei') as Quantity;
    expect(exactValue(huge)).toBe(9223372036854775808n);
    expect(exactMilliValue(parseQuantity('1n') as Quantity)).toBe(1n);
    expect(exactValue(newMilliQuantity(1500))).toBe(2n);
  });

  it.each([
    [0, '0'], [250, '250m'], [1000, '1'], [1500, '1500m'], [64_000_000_000, '64M'], [67_108_864_000, '67108864'],
  ])('prints %d milli-units as %s', (milli, text) => {
    expect(formatMilliQuantity(milli)).toBe(text);
  });

  it.each([
    [0, '0'],
    [1_234_567, '1234567n'],
    [7_000, '7u'],
    [200_000_000, '200m'],
    [3_000_000_000, '3'],
  ])('prints %d nanocores as %s', (value, text) => {
    expect(formatNanocores(value)).toBe(text);
  });

  it.each([
    [0, '0'],
    [1000, '1000'],
    [4097, '4097'],
    [12_345 * 1024, '12345Ki'],
    [3 * 1024 * 1024, '3Mi'],
    [2 ** 31, '2Gi'],
  ])('prints %d bytes as %s', (value, text) => {
    expect(formatBytes(value)).toBe(text);
  });

  it.each<[unknown, string]>([
    [' 1Gi ', '1Gi'],
    [2.5, '2.5'],
  ])('keeps the text of %j as written', (input, text) => {
    expect(quantityText(input)).toBe(text);
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
