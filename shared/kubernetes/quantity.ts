// Resource quantities ("100m", "1.5Gi", "2e3") read exactly, after upstream
// k8s.io/apimachinery/pkg/api/resource (quantity.go): a decimal number with an optional binary
// (Ki…Ei), decimal (n, u, m, k, M…E) or exponent (e3, E-2) suffix. Values are kept as an exact
// fraction of big integers so that `milliValue` and `value` round up exactly as upstream
// MilliValue()/Value() do ("0.1" → 100 milli, "1m" → value 1).

export interface Quantity {
  /** The quantity is numerator / denominator (denominator > 0). */
  numerator: bigint;
  denominator: bigint;
}

const binarySuffixes: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

const decimalExponents: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const quantityPattern = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

/** Parses a quantity string (or a JSON number); undefined when it is not a valid quantity. */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === 'number' && Number.isFinite(input)) text = String(input);
  else if (typeof input === 'string') text = input.trim();
  else return undefined;
  const match = quantityPattern.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = '', suffix] = match;
  if (whole === '' && fraction === '') return undefined;
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  let exponent = 0;
  if (suffix in binarySuffixes) {
    numerator *= binarySuffixes[suffix];
  } else if (suffix in decimalExponents) {
    exponent = decimalExponents[suffix];
  } else {
    const scientific = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (!scientific) return undefined;
    exponent = Number(scientific[1]);
  }
  if (exponent > 0) numerator *= 10n ** BigInt(exponent);
  else if (exponent < 0) denominator *= 10n ** BigInt(-exponent);
  if (sign === '-') numerator = -numerator;
  return { numerator, denominator };
}

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
}

/** The quantity in thousandths, rounded up (upstream MilliValue): "100m" → 100, "1" → 1000. */
export function milliValue(quantity: Quantity): number {
  return Number(ceilDivide(quantity.numerator * 1000n, quantity.denominator));
}

/** The quantity in whole units, rounded up (upstream Value): "1Gi" → 1073741824, "1m" → 1. */
export function quantityValue(quantity: Quantity): number {
  return Number(ceilDivide(quantity.numerator, quantity.denominator));
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

/** resource.Quantity's canonical decimal form of nanocores: `1234567n`, `250m`, `2`. */
export function formatNanocores(nanocores: number): string {
  const value = Math.max(0, Math.round(nanocores));
  if (value === 0) return '0';
  if (value % 1e9 === 0) return `${value / 1e9}`;
  if (value % 1e6 === 0) return `${value / 1e6}m`;
  if (value % 1e3 === 0) return `${value / 1e3}u`;
  return `${value}n`;
}

/** resource.Quantity's canonical binary form of bytes: `12345Ki`, `3Mi`, or plain bytes. */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, Math.round(bytes));
  if (value === 0) return '0';
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let index = 0;
  while (index < suffixes.length - 1 && value % 1024 === 0) {
    value /= 1024;
    index++;
  }
  return `${value}${suffixes[index]}`;
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
