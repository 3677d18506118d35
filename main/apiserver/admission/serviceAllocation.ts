// Cluster IP and node port allocation for Services, as upstream's service REST does it
// (pkg/registry/core/service/storage/alloc.go, ipallocator, portallocator): after validation a
// Service without a cluster IP gets a free one from the service range, one asking for a specific
// IP gets it only when it lies in the range and is free, NodePort and LoadBalancer ports get free
// node ports (or the ones asked for), and LoadBalancer Services with externalTrafficPolicy Local a
// healthCheckNodePort. Errors carry upstream's texts and field paths. What is "in use" is read
// from the stored Services each time, so a deleted Service frees its addresses without any
// separate bookkeeping that could leak (kubedesk's writes are serialized, so reading then writing
// in one synchronous step cannot hand out an address twice).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../../registry/fieldErrors';
import { cidrSize, formatIpv4, parseCidr, parseIpv4 } from '../../../shared/net/ipv4';

export interface ServiceNetworkConfig {
  /** IPv4 CIDR that ClusterIPs come from, e.g. 10.123.128.0/17 */
  serviceRange: string;
  nodePortRange: { min: number; max: number };
  /**
   * Ports something on the host already holds (another local cluster's NodePort listeners among
   * them): automatic node ports skip them; asked-for ones are still given.
   */
  hostPortsInUse?: () => ReadonlySet<number>;
}

export const defaultNodePortRange = { min: 30000, max: 32767 };

interface Range {
  base: number;
  size: number;
  text: string;
}

function parseRange(cidr: string): Range {
  const parsed = parseCidr(cidr);
  if (!parsed || parsed.prefix < 8 || parsed.prefix > 30) throw new Error(`invalid service range ${cidr}`);
  return { base: parsed.address, size: cidrSize(parsed), text: cidr };
}

function specOf(service: KubeObject): Record<string, unknown> {
  if (!isRecord(service.spec)) service.spec = {};
  return service.spec as Record<string, unknown>;
}

function portsOf(spec: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : [];
}

function needsClusterIp(spec: Record<string, unknown>): boolean {
  return spec.type !== 'ExternalName' && spec.clusterIP !== 'None';
}

function needsNodePorts(spec: Record<string, unknown>): boolean {
  if (spec.type === 'NodePort') return true;
  return spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false;
}

export class ServiceAllocator {
  private readonly range: Range;

  constructor(private readonly config: ServiceNetworkConfig) {
    this.range = parseRange(config.serviceRange);
  }

  get serviceRange(): string {
    return this.config.serviceRange;
  }

  /**
   * Fills spec.clusterIP(s), nodePorts and healthCheckNodePort of `service` (being created when
   * `old` is undefined, else updated), given every other stored Service. Throws the field errors
   * upstream gives; returns nothing.
   */
  allocate(service: KubeObject, old: KubeObject | undefined, others: KubeObject[]): FieldError[] {
    const spec = specOf(service);
    const previous = old && isRecord(old.spec) ? old.spec : undefined;
    const sameService = (other: KubeObject) => other.metadata.namespace === service.metadata.namespace && other.metadata.name === service.metadata.name;
    const rest = others.filter((other) => !sameService(other));
    const errors: FieldError[] = [];
    if (previous) this.dropTypeDependentFields(spec, previous);
    if (needsClusterIp(spec)) this.allocateClusterIp(spec, rest, errors);
    if (needsNodePorts(spec) || spec.type === 'LoadBalancer') this.allocateNodePorts(spec, rest, errors);
    return errors;
  }

  /** Upstream's dropTypeDependentFields: a type change releases what the old type had allocated. */
  private dropTypeDependentFields(spec: Record<string, unknown>, previous: Record<string, unknown>): void {
    if (spec.type === 'ExternalName' && previous.type !== 'ExternalName' && spec.clusterIP === previous.clusterIP) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
    }
    if (!needsNodePorts(spec) && needsNodePorts(previous)) {
      const oldPorts = portsOf(previous);
      for (const port of portsOf(spec)) {
        const match = oldPorts.find((candidate) => candidate.port === port.port && (candidate.protocol ?? 'TCP') === (port.protocol ?? 'TCP'));
        if (match && match.nodePort === port.nodePort) delete port.nodePort;
      }
    }
    if (!(spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') && spec.healthCheckNodePort === previous.healthCheckNodePort) {
      delete spec.healthCheckNodePort;
    }
  }

  private allocateClusterIp(spec: Record<string, unknown>, others: KubeObject[], errors: FieldError[]): void {
    const used = new Set<string>();
    for (const other of others) {
      const otherSpec = isRecord(other.spec) ? other.spec : {};
      if (typeof otherSpec.clusterIP === 'string') used.add(otherSpec.clusterIP);
    }
    const requested = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
    if (requested !== '') {
      // IPv6 or a second family cannot be served by kubedesk's single IPv4 range.
      const value = parseIpv4(requested);
      const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [requested];
      if (value === undefined || value < this.range.base || value >= this.range.base + this.range.size) {
        errors.push(fieldErrors.invalid('spec.clusterIPs', ips, `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${this.range.text}`));
      } else if (used.has(requested)) {
        errors.push(fieldErrors.invalid('spec.clusterIPs', ips, `failed to allocate IP ${requested}: provided IP is already allocated`));
      }
      return;
    }
    const ip = this.freeIp(used);
    if (!ip) {
      errors.push(fieldErrors.invalid('spec.clusterIPs', [], 'failed to allocate a serviceIP: range is full'));
      return;
    }
    spec.clusterIP = ip;
    spec.clusterIPs = [ip];
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }

  /**
   * A random free address. Like upstream (KEP-3070) dynamic allocation prefers the upper part of the
   * range and leaves the first addresses to Services that ask for a fixed IP (kubernetes, kube-dns).
   */
  private freeIp(used: Set<string>): string | undefined {
    const first = 1;
    const last = this.range.size - 2; // not the network or broadcast address
    const reserved = Math.max(first, Math.min(256, Math.floor(this.range.size / 16)));
    for (let attempt = 0; attempt < 64; attempt++) {
      const offset = reserved + Math.floor(Math.random() * (last - reserved + 1));
      const ip = formatIpv4(this.range.base + offset);
      if (!used.has(ip)) return ip;
    }
    for (let offset = first; offset <= last; offset++) {
      const ip = formatIpv4(this.range.base + offset);
      if (!used.has(ip)) return ip;
    }
    return undefined;
  }

  private allocateNodePorts(spec: Record<string, unknown>, others: KubeObject[], errors: FieldError[]): void {
    const { min, max } = this.config.nodePortRange;
    const used = new Set<number>();
    for (const other of others) {
      const otherSpec = isRecord(other.spec) ? other.spec : {};
      for (const port of portsOf(otherSpec)) if (typeof port.nodePort === 'number') used.add(port.nodePort);
      if (typeof otherSpec.healthCheckNodePort === 'number') used.add(otherSpec.healthCheckNodePort);
    }
    const ports = portsOf(spec);
    const mine = new Map<number, string>(); // node port → protocol already holding it in this Service
    const check = (value: number, field: string, protocol: string): boolean => {
      if (value < min || value > max) {
        errors.push(fieldErrors.invalid(field, value, `provided port is not in the valid range. The range of valid ports is ${min}-${max}`));
        return false;
      }
      const holder = mine.get(value);
      // The same node port may serve one Service port number over two protocols (upstream allows it).
      if (used.has(value) || (holder !== undefined && holder === protocol)) {
        errors.push(fieldErrors.invalid(field, value, 'provided port is already allocated'));
        return false;
      }
      return true;
    };
    if (needsNodePorts(spec)) {
      ports.forEach((port, index) => {
        const protocol = typeof port.protocol === 'string' ? port.protocol : 'TCP';
        if (typeof port.nodePort === 'number' && port.nodePort !== 0) {
          if (check(port.nodePort, `spec.ports[${index}].nodePort`, protocol)) mine.set(port.nodePort, protocol);
        }
      });
      ports.forEach((port) => {
        if (typeof port.nodePort === 'number' && port.nodePort !== 0) return;
        const protocol = typeof port.protocol === 'string' ? port.protocol : 'TCP';
        // A second protocol on the same port number shares the first one's node port.
        const sibling = ports.find((other) => other !== port && other.port === port.port && typeof other.nodePort === 'number' && other.nodePort !== 0 && mine.get(other.nodePort) !== protocol);
        if (sibling && typeof sibling.nodePort === 'number') {
          port.nodePort = sibling.nodePort;
          return;
        }
        const value = this.freePort(used, mine);
        if (value === undefined) {
          errors.push(fieldErrors.invalid('spec.ports[0].nodePort', 0, 'failed to allocate a nodePort: range is full'));
          return;
        }
        port.nodePort = value;
        mine.set(value, protocol);
      });
    }
    if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local') {
      if (typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort !== 0) {
        if (mine.has(spec.healthCheckNodePort)) errors.push(fieldErrors.invalid('spec.healthCheckNodePort', spec.healthCheckNodePort, 'provided port is already allocated'));
        else check(spec.healthCheckNodePort, 'spec.healthCheckNodePort', 'TCP');
      } else {
        const value = this.freePort(used, mine);
        if (value !== undefined) spec.healthCheckNodePort = value;
      }
    }
  }

  private freePort(used: Set<number>, mine: Map<number, string>): number | undefined {
    const { min, max } = this.config.nodePortRange;
    const size = max - min + 1;
    const held = this.config.hostPortsInUse?.() ?? new Set<number>();
    const free = (value: number) => !used.has(value) && !mine.has(value) && !held.has(value);
    for (let attempt = 0; attempt < 64; attempt++) {
      const value = min + Math.floor(Math.random() * size);
      if (free(value)) return value;
    }
    for (let value = min; value <= max; value++) if (free(value)) return value;
    // every port of the range is held on the host: the cluster's own bookkeeping decides alone
    for (let value = min; value <= max; value++) if (!used.has(value) && !mine.has(value)) return value;
    return undefined;
  }
}
