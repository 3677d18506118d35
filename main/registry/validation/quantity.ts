// resource.Quantity parsing and comparison (apimachinery pkg/api/resource/quantity.go): decimal
// and binary SI suffixes and exponents, held exactly as BigInt nano-units (upstream rounds
// values finer than nano up), so requests can be compared with limits.

const quantityPattern = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

const binarySuffixes: Record<string, bigint> = {
  Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n,
};
const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** The message upstream gives when a quantity string does not parse. */
export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A parsed quantity in nano-units, or undefined when the text is not a quantity. */
export function parseQuantity(value: unknown): bigint | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    return parseQuantity(String(value));
  }
  if (typeof value !== 'string') return undefined;
  const match = quantityPattern.exec(value.trim());
  if (!match) return undefined;
  const [, numberText, suffix] = match;
  const numberMatch = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(numberText);
  if (!numberMatch || (numberMatch[2] === '' && (numberMatch[3] ?? '') === '')) return undefined;
  const negative = numberMatch[1] === '-';
  const whole = numberMatch[2] || '0';
  const fraction = numberMatch[3] ?? '';
  // digits as an integer, scaled by 10^-fraction.length
  let mantissa = BigInt(whole + fraction);
  let exponent10 = -fraction.length;
  let multiplier = 1n;
  if (suffix in binarySuffixes) {
    multiplier = binarySuffixes[suffix];
  } else if (suffix in decimalExponents) {
    exponent10 += decimalExponents[suffix];
  } else if (/^[eE][-+]?\d+$/.test(suffix)) {
    exponent10 += Number(suffix.slice(1));
    if (Math.abs(exponent10) > 100) return undefined;
  } else {
    return undefined;
  }
  mantissa *= multiplier;
  // to nano units: multiply by 10^(exponent10 + 9), rounding up any remainder
  const scale = exponent10 + 9;
  let nanos: bigint;
  if (scale >= 0) {
    nanos = mantissa * 10n ** BigInt(scale);
  } else {
    const divisor = 10n ** BigInt(-scale);
    nanos = mantissa / divisor + (mantissa % divisor === 0n ? 0n : 1n);
  }
  return negative ? -nanos : nanos;
}

export function compareQuantities(left: bigint, right: bigint): number {
  return left === right ? 0 : left < right ? -1 : 1;
}

/** Quantity.String() for the common cases: the text the user wrote, or a number as written. */
export function quantityText(value: unknown): string {
  return typeof value === 'string' ? value.trim() : String(value);
}
