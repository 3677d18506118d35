// Go's wording of durations and host:port addresses for probe output, which reaches users verbatim in
// `Unhealthy` events (upstream's kubelet is a Go program). Dial errors are in shared/net/dialErrors.

/** Go's time.Duration String() for whole seconds: 1s, 1m30s, 1h0m0s. */
export function goDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  if (!Number.isInteger(seconds)) return `${seconds}s`;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  if (minutes > 0) return `${minutes}m${rest}s`;
  return `${rest}s`;
}

export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
