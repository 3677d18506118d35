// Network failures worded as Go's net package words them (`dial tcp 10.0.0.5:8080: connect:
// connection refused`), since probe output reaches users verbatim in `Unhealthy` events and upstream's
// kubelet is a Go program.

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** `dial tcp <address>: …` for a failed connection attempt. */
export function dialErrorText(error: unknown, address: string): string {
  const code = errorCode(error);
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${address}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `dial tcp ${address}: i/o timeout`;
    case 'ECONNRESET':
      return `read tcp ${address}: read: connection reset by peer`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN': {
      const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
      return `dial tcp: lookup ${host}: no such host`;
    }
  }
  return `dial tcp ${address}: ${error instanceof Error ? error.message : String(error)}`;
}

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
