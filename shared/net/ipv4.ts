// IPv4 and CIDR arithmetic (no I/O): the cluster network's subnets, the service range and the
// addresses allocated in it. Used by the kubelet's Docker network, the API server's Service
// allocator and the service proxy.

export interface Cidr {
  /** network address as an unsigned 32-bit integer */
  address: number;
  prefix: number;
}

export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** `a.b.c.d/n` (or a bare address, /32) with the host bits cleared; undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText] = text.split('/');
  const parsed = parseIpv4(address ?? '');
  const prefix = prefixText === undefined ? 32 : Number(prefixText);
  if (parsed === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) return undefined;
  return { address: (parsed & maskOf(prefix)) >>> 0, prefix };
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export function cidrSize(cidr: Cidr): number {
  return 2 ** (32 - cidr.prefix);
}

export function cidrsOverlap(first: Cidr, second: Cidr): boolean {
  const prefix = Math.min(first.prefix, second.prefix);
  const mask = maskOf(prefix);
  return ((first.address & mask) >>> 0) === ((second.address & mask) >>> 0);
}

export function cidrContains(cidr: string, ip: string): boolean {
  const range = parseCidr(cidr);
  const value = parseIpv4(ip);
  return range !== undefined && value !== undefined && value >= range.address && value < range.address + cidrSize(range);
}

/** The index-th address of a CIDR (1 = the first usable), as upstream's GetIndexedIP. */
export function indexedIpv4(cidr: string, index: number): string {
  const range = parseCidr(cidr);
  if (!range) throw new Error(`invalid CIDR ${cidr}`);
  return formatIpv4(range.address + index);
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIpv4(cidr.address)}/${cidr.prefix}`;
}

/**
 * `cidr` without the blocks in `excluded`, as the fewest CIDRs that cover the rest, in address
 * order (a NetworkPolicy ipBlock's `except`): 10.0.0.0/8 without 10.1.0.0/16 is eight CIDRs.
 */
export function subtractCidrs(cidr: Cidr, excluded: Cidr[]): Cidr[] {
  const overlapping = excluded.filter((block) => cidrsOverlap(cidr, block));
  if (overlapping.length === 0) return [cidr];
  if (overlapping.some((block) => block.prefix <= cidr.prefix)) return [];
  // Some excluded block lies strictly inside: split in halves and look again.
  const prefix = cidr.prefix + 1;
  const lower: Cidr = { address: cidr.address, prefix };
  const upper: Cidr = { address: (cidr.address + 2 ** (32 - prefix)) >>> 0, prefix };
  return [...subtractCidrs(lower, overlapping), ...subtractCidrs(upper, overlapping)];
}
