// Network failures worded as Go's net package words them (`dial tcp 10.0.0.5:8080: connect:
// connection refused`): the kubelet's probe output and the API server's proxy errors reach users
// verbatim (in `Unhealthy` events, in kubectl's error lines), and upstream's are Go programs.

/** Node's error code (`ECONNREFUSED`, …) of a failed socket operation, if it has one. */
export function networkErrorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Go's text for the socket errors it names the same way whoever dials; undefined for any other error. */
export function socketErrorText(error: unknown, address: string): string | undefined {
  switch (networkErrorCode(error)) {
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
  }
  return undefined;
}

/** `dial tcp <address>: …` for a failed connection attempt, host lookups included. */
export function dialErrorText(error: unknown, address: string): string {
  const known = socketErrorText(error, address);
  if (known !== undefined) return known;
  const code = networkErrorCode(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const host = address.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return `dial tcp: lookup ${host}: no such host`;
  }
  return `dial tcp ${address}: ${error instanceof Error ? error.message : String(error)}`;
}
