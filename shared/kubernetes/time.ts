// metav1.Time and metav1.MicroTime in text (staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/
// time.go, micro_time.go): RFC 3339 in UTC, whole seconds for Time (`2024-05-01T10:00:00Z`),
// microseconds for MicroTime (`2024-05-01T10:00:00.123000Z`, Leases' renewTime, Events' eventTime).

/** The last second formatTime formatted: every write stamps the time, mostly within the same second. */
let lastSecond = NaN;
let lastText = '';

/** metav1.Time's JSON form: RFC 3339, UTC, whole seconds (fractions are truncated, as Go's Time.Format). */
export function formatTime(time: Date | number): string {
  const ms = typeof time === 'number' ? time : time.getTime();
  const second = Math.floor(ms / 1000);
  if (second === lastSecond) return lastText;
  const text = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  lastSecond = second;
  lastText = text;
  return text;
}

/** metav1.MicroTime's JSON form: RFC 3339, UTC, six fractional digits. */
export function formatMicroTime(time: Date | number): string {
  return new Date(time).toISOString().replace(/Z$/, '000Z');
}

/** Milliseconds since the epoch of an RFC 3339 timestamp, or undefined when it is absent or not a time. */
export function parseTime(text: unknown): number | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const time = Date.parse(text);
  return Number.isFinite(time) ? time : undefined;
}
