// resource.Quantity, the one copy for the cluster and the UI, after upstream
// staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go:
// - parsing: a decimal number with an optional binary (Ki…Ei), decimal (n, u, m, k, M…E) or
//   exponent (e3, E-2) suffix; the value is held exactly in nano-units (BigInt), values finer than
//   that rounded away from zero as upstream, and the format the text was written in is kept;
// - Value()/MilliValue() round up ("0.1" → 100 milli, "1m" → value 1);
// - String() prints the canonical form in the quantity's format: "1000m" → "1", "1024Mi" → "1Gi",
//   "1500m" stays "1500m", binary values below 1024 or with a fraction print in decimal;
// - arithmetic keeps the left operand's format, as Quantity.Add does.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in nano-units. */
  nanos: bigint;
  format: QuantityFormat;
}

/** The message upstream gives when a quantity string does not parse. */
export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const NANO = 1_000_000_000n;
const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const binarySuffixes: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const decimalSuffixes: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const binarySuffixList = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** resource.ParseQuantity of a string (or a JSON number); undefined when it is not a quantity. */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === 'number' && Number.isFinite(input)) text = String(input);
  else if (typeof input === 'string') text = input.trim();
  else return undefined;
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, numberText, suffix] = match;
  const number = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(numberText);
  if (!number || (number[2] === '' && (number[3] ?? '') === '')) return undefined;
  const fraction = number[3] ?? '';
  let mantissa = BigInt((number[2] || '0') + fraction);
  let exponent = -fraction.length;
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in binarySuffixes) {
    mantissa *= binarySuffixes[suffix];
    format = 'BinarySI';
  } else if (suffix in decimalExponents) {
    exponent += decimalExponents[suffix];
  } else if (/^[eE][-+]?\d+$/.test(suffix)) {
    exponent += Number(suffix.slice(1));
    if (Math.abs(exponent) > 100) return undefined;
    format = 'DecimalExponent';
  } else {
    return undefined;
  }
  // to nano-units: multiply by 10^(exponent + 9), rounding any remainder up (away from zero)
  const scale = exponent + 9;
  let nanos: bigint;
  if (scale >= 0) {
    nanos = mantissa * 10n ** BigInt(scale);
  } else {
    const divisor = 10n ** BigInt(-scale);
    nanos = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return { nanos: number[1] === '-' ? -nanos : nanos, format };
}

/** resource.NewQuantity(value, format): a whole number of units. */
export function newQuantity(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos: BigInt(value) * NANO, format };
}

/** resource.NewMilliQuantity(value, format): thousandths of a unit. */
export function newMilliQuantity(milli: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos: BigInt(typeof milli === 'number' ? Math.trunc(milli) : milli) * 1_000_000n, format };
}

export function zeroQuantity(): Quantity {
  return { nanos: 0n, format: 'DecimalSI' };
}

/** Quantity.Add: the sum keeps the left operand's format. */
export function addQuantities(left: Quantity, right: Quantity): Quantity {
  return { nanos: left.nanos + right.nanos, format: left.format };
}

/** Quantity.Sub: the difference keeps the left operand's format. */
export function subtractQuantities(left: Quantity, right: Quantity): Quantity {
  return { nanos: left.nanos - right.nanos, format: left.format };
}

/** Quantity.Cmp: -1, 0 or 1. */
export function compareQuantities(left: Quantity, right: Quantity): number {
  return left.nanos === right.nanos ? 0 : left.nanos < right.nanos ? -1 : 1;
}

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
}

/** Quantity.Value() exactly: whole units, rounded up. */
export function exactValue(quantity: Quantity): bigint {
  return ceilDivide(quantity.nanos, NANO);
}

/** Quantity.MilliValue() exactly: thousandths, rounded up. */
export function exactMilliValue(quantity: Quantity): bigint {
  return ceilDivide(quantity.nanos, 1_000_000n);
}

/** Quantity.Value() as a number: "1Gi" → 1073741824, "1m" → 1. */
export function quantityValue(quantity: Quantity): number {
  return Number(exactValue(quantity));
}

/** Quantity.MilliValue() as a number: "100m" → 100, "1" → 1000. */
export function milliValue(quantity: Quantity): number {
  return Number(exactMilliValue(quantity));
}

/**
 * Quantity.AsApproximateFloat64() of a quantity's text: the value in base units (cores, bytes) as
 * a number, `250m` → 0.25; NaN when the text is not a quantity.
 */
export function approximateValue(input: unknown): number {
  const quantity = parseQuantity(input);
  if (!quantity) return Number.NaN;
  // whole units and the nano remainder apart, so whole values stay exact up to 2^53
  return Number(quantity.nanos / NANO) + Number(quantity.nanos % NANO) / 1e9;
}

/** Parses and returns milliValue, or 0 when the text is not a quantity. */
export function parseMilliValue(input: unknown): number {
  const quantity = parseQuantity(input);
  return quantity ? milliValue(quantity) : 0;
}

/** Parses and returns the value in whole units, or 0 when the text is not a quantity. */
export function parseValue(input: unknown): number {
  const quantity = parseQuantity(input);
  return quantity ? quantityValue(quantity) : 0;
}

/** Quantity.String(): the canonical text of the quantity in its format. */
export function formatQuantity(quantity: Quantity): string {
  const { nanos } = quantity;
  if (nanos === 0n) return '0';
  const sign = nanos < 0n ? '-' : '';
  const magnitude = nanos < 0n ? -nanos : nanos;
  if (quantity.format === 'BinarySI' && magnitude % NANO === 0n && magnitude / NANO >= 1024n) {
    let value = magnitude / NANO;
    let index = 0;
    while (index < binarySuffixList.length - 1 && value % 1024n === 0n) {
      value /= 1024n;
      index++;
    }
    return `${sign}${value}${binarySuffixList[index]}`;
  }
  let mantissa = magnitude;
  let exponent = -9;
  while (exponent < 18 && mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (quantity.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${sign}${mantissa}${decimalSuffixes[exponent]}`;
}

/** Parses then prints canonically; the input as text when it does not parse. */
export function canonicalQuantity(input: unknown): string {
  const quantity = parseQuantity(input);
  return quantity ? formatQuantity(quantity) : String(input);
}

/** The text of a quantity field as the user wrote it (a string trimmed, a JSON number as written). */
export function quantityText(input: unknown): string {
  return typeof input === 'string' ? input.trim() : String(input);
}

/** resource.NewMilliQuantity(milli, DecimalSI).String(): `250m`, `1`, `1500m`, `64M`. */
export function formatMilliQuantity(milli: number): string {
  return formatQuantity(newMilliQuantity(milli));
}

/** The metrics API's cpu: nanocores in canonical decimal form, `1234567n`, `250m`, `2`. */
export function formatNanocores(nanocores: number): string {
  const value = Math.max(0, Math.round(nanocores));
  if (value === 0) return '0';
  if (value % 1e9 === 0) return `${value / 1e9}`;
  if (value % 1e6 === 0) return `${value / 1e6}m`;
  if (value % 1e3 === 0) return `${value / 1e3}u`;
  return `${value}n`;
}

/** The metrics API's memory: bytes in binary form when they are whole KiB (`12345Ki`, `3Mi`), else plain bytes. */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, Math.round(bytes));
  if (value === 0) return '0';
  let index = 0;
  while (index < binarySuffixList.length - 1 && value % 1024 === 0) {
    value /= 1024;
    index++;
  }
  return `${value}${binarySuffixList[index]}`;
}

/** Bytes in IEC units for people: `512 B`, `1.5 KiB`, `23.5 GiB`, `100 GiB` (one decimal below 100). */
export function formatIecBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = Math.max(0, bytes);
  let index = 0;
  while (value >= 1024 && index < units.length - 1) {
    value /= 1024;
    index++;
  }
  const text = index === 0 || value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[index]}`;
}

/**
 * A resource quantity as a person reads it, by the resource it measures: memory and storage in
 * IEC bytes (`24684096Ki` → `23.5 GiB`), cpu in cores (`250m` → `0.25 cores`), anything else (pods,
 * extended resources) as its plain value. Text that is not a quantity comes back unchanged.
 */
export function humanQuantity(resource: string, raw: unknown): string {
  const quantity = parseQuantity(raw);
  if (!quantity) return typeof raw === 'string' ? raw : '';
  if (resource === 'cpu') {
    const cores = milliValue(quantity) / 1000;
    return `${Number(cores.toFixed(3))} ${cores === 1 ? 'core' : 'cores'}`;
  }
  if (resource === 'memory' || resource === 'storage' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-')) return formatIecBytes(quantityValue(quantity));
  return String(quantityValue(quantity));
}
