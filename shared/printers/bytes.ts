// Byte counts as short binary sizes (`512`, `1.5Ki`, `20Mi`), in the suffixes of a Kubernetes
// Quantity, for columns such as a snapshot's SIZE.
const UNITS = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];

/** One decimal below 10 of a unit, whole numbers above. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? String(bytes) : `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10}${UNITS[unit]}`;
}
