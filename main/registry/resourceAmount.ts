// Resource quantities as amounts that can be added, compared and printed the way upstream's
// resource.Quantity does (k8s.io/apimachinery/pkg/api/resource/quantity.go): a value keeps the
// format it was written in (decimal SI, binary SI, decimal exponent) and String() prints the
// canonical form — "1000m" prints "1", "1024Mi" prints "1Gi", "1500m" stays "1500m". Quota and
// LimitRange messages print quantities through this, so the texts match upstream's.
import { parseQuantity } from './validation/quantity';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Amount {
  /** the value in nano-units (upstream rounds anything finer up) */
  nanos: bigint;
  format: QuantityFormat;
}

const NANO = 1_000_000_000n;
const decimalSuffixes: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const binarySuffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Parses a quantity (string or JSON number); undefined when it is not one. */
export function parseAmount(value: unknown): Amount | undefined {
  const nanos = parseQuantity(value);
  if (nanos === undefined) return undefined;
  const text = typeof value === 'string' ? value.trim() : String(value);
  let format: QuantityFormat = 'DecimalSI';
  if (/[KMGTPE]i$/.test(text)) format = 'BinarySI';
  else if (/\d[eE][-+]?\d+$/.test(text)) format = 'DecimalExponent';
  return { nanos, format };
}

/** A whole number of units (object counts), DecimalSI like resource.NewQuantity(n, DecimalSI). */
export function countAmount(count: number): Amount {
  return { nanos: BigInt(count) * NANO, format: 'DecimalSI' };
}

export function zeroAmount(): Amount {
  return { nanos: 0n, format: 'DecimalSI' };
}

/** Quantity.Add: the sum keeps the left operand's format. */
export function addAmounts(left: Amount, right: Amount): Amount {
  return { nanos: left.nanos + right.nanos, format: left.format };
}

export function subtractAmounts(left: Amount, right: Amount): Amount {
  return { nanos: left.nanos - right.nanos, format: left.format };
}

export function compareAmounts(left: Amount, right: Amount): number {
  return left.nanos === right.nanos ? 0 : left.nanos < right.nanos ? -1 : 1;
}

/** Value() in whole units, rounded up like upstream. */
export function amountValue(amount: Amount): bigint {
  return ceilDivide(amount.nanos, NANO);
}

/** MilliValue(), rounded up like upstream. */
export function amountMilliValue(amount: Amount): bigint {
  return ceilDivide(amount.nanos, 1_000_000n);
}

/** Quantity.String(): the canonical text of the amount in its format. */
export function formatAmount(amount: Amount): string {
  const { nanos } = amount;
  if (nanos === 0n) return '0';
  const negative = nanos < 0n;
  const magnitude = negative ? -nanos : nanos;
  const sign = negative ? '-' : '';
  // Binary values below 1024 or with a fraction print in decimal, as upstream CanonicalizeBytes.
  if (amount.format === 'BinarySI' && magnitude % NANO === 0n && magnitude / NANO >= 1024n) {
    let value = magnitude / NANO;
    let index = 0;
    while (index < binarySuffixes.length - 1 && value % 1024n === 0n) {
      value /= 1024n;
      index++;
    }
    return `${sign}${value}${binarySuffixes[index]}`;
  }
  let mantissa = magnitude;
  let exponent = -9;
  while (exponent < 18 && mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (amount.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${sign}${mantissa}${decimalSuffixes[exponent]}`;
}

/** Parses then prints canonically; the input text when it does not parse. */
export function canonicalQuantity(value: unknown): string {
  const amount = parseAmount(value);
  return amount ? formatAmount(amount) : String(value);
}

function ceilDivide(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
}
