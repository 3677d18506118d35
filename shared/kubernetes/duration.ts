// Go's time.Duration in text, as Kubernetes objects carry it (metav1.Duration's JSON form, the
// metrics API's `window`, CronJob's `@every`): ParseDuration and String() from Go's time package
// (src/time/format.go). Durations are held as numbers of nanoseconds where the exact value matters
// (protobuf's int64) and of milliseconds where JavaScript's timers use them.

const unitNanoseconds: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

const durationPattern = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;

/**
 * time.ParseDuration: an optional sign and a sequence of decimal numbers, each with a unit
 * (`300ms`, `-1.5h`, `2h45m`); `0` alone needs no unit. Nanoseconds, or undefined when the text is
 * not a duration.
 */
export function parseGoDurationNanoseconds(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  if (text === '0' || text === '+0' || text === '-0') return 0;
  if (!durationPattern.test(text)) return undefined;
  const negative = text.startsWith('-');
  let total = 0;
  for (const match of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(match[1]) * unitNanoseconds[match[2]];
  return negative ? -total : total;
}

/** time.ParseDuration in milliseconds (fractions kept), or undefined when the text is not a duration. */
export function parseGoDuration(text: unknown): number | undefined {
  const nanoseconds = parseGoDurationNanoseconds(text);
  return nanoseconds === undefined ? undefined : nanoseconds / 1e6;
}

function fraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const remainder = value % unit;
  if (remainder === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(remainder).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** time.Duration.String(): `1h2m3.5s`, `1m0s`, `1.5ms`, `250µs`, `0s`. */
export function formatGoDuration(nanoseconds: number | bigint): string {
  let rest = typeof nanoseconds === 'bigint' ? nanoseconds : BigInt(Math.trunc(nanoseconds));
  if (rest === 0n) return '0s';
  const sign = rest < 0n ? '-' : '';
  if (rest < 0n) rest = -rest;
  if (rest < 1_000_000_000n) {
    const units: [bigint, string][] = [
      [1_000_000n, 'ms'],
      [1_000n, 'µs'],
      [1n, 'ns'],
    ];
    for (const [size, unit] of units) if (rest >= size) return `${sign}${fraction(rest, size)}${unit}`;
  }
  const hours = rest / 3_600_000_000_000n;
  rest %= 3_600_000_000_000n;
  const minutes = rest / 60_000_000_000n;
  rest %= 60_000_000_000n;
  let text = `${fraction(rest, 1_000_000_000n)}s`;
  if (hours > 0n || minutes > 0n) text = `${minutes}m${text}`;
  if (hours > 0n) text = `${hours}h${text}`;
  return `${sign}${text}`;
}

/** time.Duration.String() of a whole number of milliseconds (fractions of a millisecond are dropped). */
export function formatGoDurationMilliseconds(milliseconds: number): string {
  return formatGoDuration(BigInt(Math.round(milliseconds)) * 1_000_000n);
}
