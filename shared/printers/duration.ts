// Human-readable durations for Age-like table cells, following upstream
// k8s.io/apimachinery/pkg/util/duration (HumanDuration, ShortHumanDuration) and the
// translateTimestampSince helper of pkg/printers/internalversion/printers.go.

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

// Go converts float64 and integer divisions toward zero; Math.trunc gives the same for negatives.
function whole(value: number): number {
  return Math.trunc(value);
}

/**
 * Upstream duration.HumanDuration: about two or three significant figures, e.g. `45s`, `5m10s`,
 * `25m`, `3h5m`, `20h`, `3d4h`, `30d`, `2y10d`, `9y`. Up to one second in the future reads `0s`
 * (clock skew); further in the future reads `<invalid>`.
 */
export function humanDuration(milliseconds: number): string {
  const seconds = whole(milliseconds / second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = whole(milliseconds / minute);
  if (minutes < 10) {
    const remainder = seconds % 60;
    return remainder === 0 ? `${minutes}m` : `${minutes}m${remainder}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = whole(milliseconds / hour);
  if (hours < 8) {
    const remainder = minutes % 60;
    return remainder === 0 ? `${hours}h` : `${hours}h${remainder}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = whole(hours / 24);
  if (hours < 24 * 8) {
    const remainder = hours % 24;
    return remainder === 0 ? `${days}d` : `${days}d${remainder}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = whole(days / 365);
  if (hours < 24 * 365 * 8) {
    const remainder = days % 365;
    return remainder === 0 ? `${years}y` : `${years}y${remainder}d`;
  }
  return `${years}y`;
}

/** Upstream duration.ShortHumanDuration: one unit only, e.g. `59s`, `5m`, `23h`, `364d`, `2y`. */
export function shortHumanDuration(milliseconds: number): string {
  const seconds = whole(milliseconds / second);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = whole(milliseconds / minute);
  if (minutes < 60) return `${minutes}m`;
  const hours = whole(milliseconds / hour);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${whole(hours / 24)}d`;
  return `${whole(milliseconds / hour / 24 / 365)}y`;
}

// Go's zero time.Time (0001-01-01T00:00:00Z) is how an unset metav1.Time looks after a round trip.
const goZeroTime = Date.parse('0001-01-01T00:00:00Z');

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when unset or unparsable. */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const milliseconds = Date.parse(value);
  if (Number.isNaN(milliseconds) || milliseconds <= goZeroTime) return undefined;
  return milliseconds;
}

/** Upstream translateTimestampSince: `<unknown>` when unset, else HumanDuration(now - timestamp). */
export function translateTimestampSince(value: unknown, now: Date): string {
  const milliseconds = parseTimestamp(value);
  if (milliseconds === undefined) return '<unknown>';
  return humanDuration(now.getTime() - milliseconds);
}
