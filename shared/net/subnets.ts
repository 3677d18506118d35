// Subnets of the cluster network, shared by the address plan (main/network/clusterNetwork.ts) and
// the Docker bridge that carries it (main/docker): a 10.x.0.0/16 that overlaps no other Docker
// network and no host route, split into the pods' lower half (Docker's ip-range 10.x.0.0/17) and
// the upper half for Service ClusterIPs. Node-only (it reads the host's interfaces and routes).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { cidrsOverlap, formatIpv4, parseCidr, type Cidr } from './ipv4';

/**
 * The first free 10.x.0.0/16 (x in 100..249), starting at a position derived from the seed so
 * clusters created at the same moment tend to pick different subnets. Routes that cover
 * everything (a default route, /0) are not conflicts.
 */
export function chooseSubnet(used: Cidr[], seed: string, skip: ReadonlySet<string> = new Set()): string | undefined {
  const first = 100;
  const count = 150;
  const start = createHash('sha256').update(seed).digest().readUInt16BE(0) % count;
  const relevant = used.filter((cidr) => cidr.prefix > 0);
  for (let step = 0; step < count; step++) {
    const second = first + ((start + step) % count);
    const subnet = `10.${second}.0.0/16`;
    if (skip.has(subnet)) continue;
    const candidate = parseCidr(subnet);
    if (candidate && !relevant.some((cidr) => cidrsOverlap(cidr, candidate))) return subnet;
  }
  return undefined;
}

/** Halves of a /16: Docker's ip-range (pods) and the rest (Services), plus the gateway. */
export function splitSubnet(subnet: string): { gateway: string; podRange: string; serviceRange: string } {
  const cidr = parseCidr(subnet);
  if (!cidr) throw new Error(`invalid subnet ${subnet}`);
  const half = cidr.prefix + 1;
  const size = 2 ** (32 - half);
  return {
    gateway: formatIpv4(cidr.address + 1),
    podRange: `${formatIpv4(cidr.address)}/${half}`,
    serviceRange: `${formatIpv4(cidr.address + size)}/${half}`,
  };
}

/** Addresses and routes of this host (Linux: /proc/net/route), to avoid subnets the host already uses. */
export function hostNetworks(): Cidr[] {
  const result: Cidr[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family !== 'IPv4' || address.internal) continue;
      const cidr = parseCidr(address.cidr ?? `${address.address}/32`);
      if (cidr) result.push(cidr);
    }
  }
  try {
    const lines = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 8) continue;
      // Destination and mask are little-endian hex.
      const destination = Buffer.from(fields[1], 'hex').readUInt32LE(0);
      const mask = Buffer.from(fields[7], 'hex').readUInt32LE(0);
      const prefix = mask.toString(2).split('').filter((bit) => bit === '1').length;
      if (prefix > 0) result.push({ address: destination >>> 0, prefix });
    }
  } catch {
    // Not Linux, or no procfs: the interface addresses above must do.
  }
  return result;
}
