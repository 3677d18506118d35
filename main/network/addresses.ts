// IPv4 arithmetic for the service range (no Docker, no I/O).

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^\d{1,3}$/.test(part) || Number(part) > 255)) return undefined;
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** The index-th address of a CIDR (1 = the first usable), as upstream's GetIndexedIP. */
export function indexedIpv4(cidr: string, index: number): string {
  const [address] = cidr.split('/');
  const base = parseIpv4(address ?? '');
  if (base === undefined) throw new Error(`invalid CIDR ${cidr}`);
  return formatIpv4(base + index);
}

export function cidrContains(cidr: string, ip: string): boolean {
  const [address, prefixText] = cidr.split('/');
  const base = parseIpv4(address ?? '');
  const value = parseIpv4(ip);
  const prefix = Number(prefixText);
  if (base === undefined || value === undefined || !Number.isInteger(prefix)) return false;
  const size = 2 ** (32 - prefix);
  return value >= base && value < base + size;
}
