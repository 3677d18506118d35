// Go's net.JoinHostPort: the `host:port` form every address in Kubernetes texts takes (probe
// output, proxy errors, printer cells, service environment variables); IPv6 hosts are bracketed.

export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
