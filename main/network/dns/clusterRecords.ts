// The cluster's DNS records, computed on demand from Services, EndpointSlices and Pods, after the
// Kubernetes DNS specification (kubernetes/dns docs/specification.md, schema 1.1.0) and CoreDNS's
// kubernetes plugin (plugin/kubernetes: parse.go, kubernetes.go findServices/findPods, reverse.go):
//   <svc>.<ns>.svc.<zone>                A: ClusterIP, or for a headless Service each ready endpoint;
//                                        CNAME for an ExternalName Service
//   <host>.<svc>.<ns>.svc.<zone>         A: the endpoint whose hostname (or dashed IP) is <host>
//   _<port>._<proto>.<svc>.<ns>.svc.<zone> SRV: the ClusterIP name, or one per endpoint (headless)
//   <a-b-c-d>.<ns>.pod.<zone>            A: a.b.c.d ("pods insecure", kubeadm's default)
//   d.c.b.a.in-addr.arpa                 PTR: Service ClusterIPs and endpoint addresses
//   dns-version.<zone>                   TXT "1.1.0"
// Names under the zone that do not exist get NXDOMAIN; names that exist without the asked type get
// NODATA; both carry the zone's SOA, with CoreDNS's 5 s TTL. Everything else, and reverse names this
// cluster does not know (CoreDNS's `fallthrough in-addr.arpa`), is "not mine" for the forwarder.
// Pure functions: no I/O, no clock.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { clusterIpOf, serviceType, servicePorts, slicesOfService } from '../../../shared/kubernetes/serviceEndpoints';
import { canonicalName, classInternet, nameLabels, RecordType, ResponseCode, type DnsQuestion, type DnsRecord } from './dnsMessage';

export const defaultClusterDomain = 'cluster.local';
export const defaultTtlSeconds = 5;
export const dnsSchemaVersion = '1.1.0';

export interface ClusterState {
  services: Iterable<KubeObject>;
  endpointSlices: Iterable<KubeObject>;
  pods: Iterable<KubeObject>;
  /** When absent, a namespace exists if some Service or Pod lives in it. */
  namespaces?: Iterable<KubeObject>;
}

export interface ClusterRecordOptions {
  domain?: string;
  ttl?: number;
  /** SOA serial; CoreDNS uses the time of the last change it saw. */
  serial?: number;
  /** CoreDNS's `pods` option: insecure answers any well-formed name, verified needs a pod with that IP, disabled answers none. */
  podMode?: 'insecure' | 'verified' | 'disabled';
}

export type ClusterAnswer =
  | { kind: 'notMine' }
  | {
      kind: 'answer';
      responseCode: number;
      answers: DnsRecord[];
      authorities: DnsRecord[];
      additionals: DnsRecord[];
      /** ExternalName: the CNAME target the server still has to resolve for the asked type. */
      chase?: string;
    };

/** True when `name` is the cluster domain or below it. */
export function isUnderDomain(name: string, domain: string = defaultClusterDomain): boolean {
  const canonical = canonicalName(name);
  const zone = canonicalName(domain);
  return canonical === zone || canonical.endsWith(`.${zone}`);
}

/** The zone's SOA record, as CoreDNS writes it (ns.dns.<zone>, hostmaster.<zone>). */
export function soaRecord(domain: string, ttl: number, serial: number): DnsRecord {
  return { name: domain, class: classInternet, ttl, type: 'SOA', primary: `ns.dns.${domain}`, mailbox: `hostmaster.${domain}`, serial, refresh: 7200, retry: 1800, expire: 86400, minimum: ttl };
}

interface Endpoint {
  ip: string;
  /** the endpoint's hostname, or its IP with dashes (CoreDNS's endpointHostname) */
  hostname: string;
  ports: { name: string; protocol: string; port: number }[];
}

/** Ready IPv4 endpoints of a Service, merged across its slices (one entry per address). */
export function serviceEndpoints(service: KubeObject, slices: Iterable<KubeObject>): Endpoint[] {
  const byAddress = new Map<string, Endpoint>();
  for (const slice of slicesOfService(service, slices)) {
    const raw = slice as unknown as Record<string, unknown>;
    if (raw.addressType !== undefined && raw.addressType !== 'IPv4') continue;
    const ports = (Array.isArray(raw.ports) ? raw.ports.filter(isRecord) : []).flatMap((port) =>
      typeof port.port === 'number' ? [{ name: typeof port.name === 'string' ? port.name : '', protocol: typeof port.protocol === 'string' ? port.protocol : 'TCP', port: port.port }] : [],
    );
    const endpoints = Array.isArray(raw.endpoints) ? raw.endpoints.filter(isRecord) : [];
    for (const endpoint of endpoints) {
      // the spec's "ready": publishNotReadyAddresses is already folded into `ready` by the slice controller
      if (isRecord(endpoint.conditions) && endpoint.conditions.ready === false) continue;
      const addresses = Array.isArray(endpoint.addresses) ? endpoint.addresses.filter((address): address is string => typeof address === 'string' && isIpv4(address)) : [];
      for (const ip of addresses) {
        const hostname = typeof endpoint.hostname === 'string' && endpoint.hostname !== '' ? endpoint.hostname : ip.replace(/\./g, '-');
        const key = `${ip}|${hostname.toLowerCase()}`;
        const existing = byAddress.get(key);
        if (existing) {
          for (const port of ports) if (!existing.ports.some((known) => known.name === port.name && known.protocol === port.protocol && known.port === port.port)) existing.ports.push(port);
        } else {
          byAddress.set(key, { ip, hostname, ports: [...ports] });
        }
      }
    }
  }
  return [...byAddress.values()].sort((first, second) => compareIp(first.ip, second.ip) || (first.hostname < second.hostname ? -1 : first.hostname > second.hostname ? 1 : 0));
}

function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

function compareIp(first: string, second: string): number {
  const a = first.split('.').map(Number);
  const b = second.split('.').map(Number);
  for (let index = 0; index < 4; index++) if (a[index] !== b[index]) return a[index] - b[index];
  return 0;
}

function isHeadlessService(service: KubeObject): boolean {
  const spec = isRecord(service.spec) ? service.spec : {};
  return spec.clusterIP === 'None';
}

function externalNameOf(service: KubeObject): string | undefined {
  if (serviceType(service) !== 'ExternalName') return undefined;
  const spec = isRecord(service.spec) ? service.spec : {};
  return typeof spec.externalName === 'string' && spec.externalName !== '' ? spec.externalName.replace(/\.$/, '') : undefined;
}

function sameName(first: string | undefined, second: string): boolean {
  return first !== undefined && first.toLowerCase() === second.toLowerCase();
}

function findService(state: ClusterState, namespace: string, name: string): KubeObject | undefined {
  for (const service of state.services) if (sameName(service.metadata.namespace, namespace) && sameName(service.metadata.name, name)) return service;
  return undefined;
}

function namespaceExists(state: ClusterState, namespace: string): boolean {
  if (state.namespaces) {
    for (const object of state.namespaces) if (sameName(object.metadata.name, namespace)) return true;
    return false;
  }
  for (const service of state.services) if (sameName(service.metadata.namespace, namespace)) return true;
  for (const pod of state.pods) if (sameName(pod.metadata.namespace, namespace)) return true;
  return false;
}

function podIps(pod: KubeObject): string[] {
  const status = isRecord(pod.status) ? pod.status : {};
  const ips: string[] = [];
  if (typeof status.podIP === 'string') ips.push(status.podIP);
  if (Array.isArray(status.podIPs)) for (const entry of status.podIPs) if (isRecord(entry) && typeof entry.ip === 'string') ips.push(entry.ip);
  return ips;
}

/** What one name holds: whether it exists, its records of every type, and extra records for the additional section. */
interface NameNode {
  exists: boolean;
  records: DnsRecord[];
  additionals?: DnsRecord[];
}

const missing: NameNode = { exists: false, records: [] };
const emptyNonTerminal: NameNode = { exists: true, records: [] };

interface Context {
  state: ClusterState;
  zone: string;
  ttl: number;
  serial: number;
  podMode: 'insecure' | 'verified' | 'disabled';
}

function aRecord(name: string, address: string, ttl: number): DnsRecord {
  return { name, class: classInternet, ttl, type: 'A', address };
}

function matchesLabel(query: string, value: string): boolean {
  // CoreDNS accepts the labels with or without their leading underscore
  return query.replace(/^_/, '').toLowerCase() === value.toLowerCase();
}

/** The records of `<service>.<ns>.svc.<zone>` and of the names below it. */
function serviceNode(context: Context, name: string, namespace: string, serviceName: string, below: string[]): NameNode {
  const service = findService(context.state, namespace, serviceName);
  if (!service) return missing;
  const { ttl, zone } = context;
  const serviceDomain = `${service.metadata.name}.${service.metadata.namespace}.svc.${zone}`.toLowerCase();
  const externalName = externalNameOf(service);
  if (serviceType(service) === 'ExternalName') {
    // an ExternalName Service has no endpoints and no port names below it (CoreDNS skips such queries)
    if (below.length > 0 || externalName === undefined) return missing;
    return { exists: true, records: [{ name, class: classInternet, ttl, type: 'CNAME', target: externalName }] };
  }
  let port: string | undefined;
  let protocol: string | undefined;
  let endpointName: string | undefined;
  if (below.length === 1) endpointName = below[0];
  else if (below.length === 2) [port, protocol] = below;
  else if (below.length > 2) return missing;
  const portMatches = (candidate: { name: string; protocol: string }): boolean =>
    (port === undefined || (candidate.name !== '' && matchesLabel(port, candidate.name))) && (protocol === undefined || matchesLabel(protocol, candidate.protocol));

  const headless = isHeadlessService(service);
  if (headless || endpointName !== undefined) {
    const endpoints = serviceEndpoints(service, context.state.endpointSlices).filter((endpoint) => endpointName === undefined || sameName(endpoint.hostname, endpointName));
    if (endpoints.length === 0) return missing;
    const records: DnsRecord[] = [];
    const additionals: DnsRecord[] = [];
    const srvTargets: { target: string; port: number }[] = [];
    for (const endpoint of endpoints) {
      const matched = endpoint.ports.filter(portMatches);
      // a port-less headless Service still has its A records; named-port names need a matching port
      if (port !== undefined && matched.length === 0) continue;
      records.push(aRecord(name, endpoint.ip, ttl));
      const target = `${endpoint.hostname}.${serviceDomain}`.toLowerCase();
      for (const match of matched) {
        srvTargets.push({ target, port: match.port });
        additionals.push(aRecord(target, endpoint.ip, ttl));
      }
    }
    if (records.length === 0) return missing;
    const weight = srvTargets.length > 0 ? Math.floor(100 / srvTargets.length) : 100;
    for (const { target, port: number } of srvTargets) records.push({ name, class: classInternet, ttl, type: 'SRV', priority: 0, weight, port: number, target });
    return { exists: true, records: dedupe(records), additionals: dedupe(additionals) };
  }

  const clusterIp = clusterIpOf(service);
  if (clusterIp === undefined) return missing;
  const ports = servicePorts(service).filter((candidate) => portMatches({ name: candidate.name, protocol: candidate.protocol }));
  if (port !== undefined && ports.length === 0) return missing;
  const records: DnsRecord[] = [aRecord(name, clusterIp, ttl)];
  const weight = ports.length > 0 ? Math.floor(100 / ports.length) : 100;
  for (const match of ports) records.push({ name, class: classInternet, ttl, type: 'SRV', priority: 0, weight, port: match.port, target: serviceDomain });
  return { exists: true, records, additionals: ports.length > 0 ? [aRecord(serviceDomain, clusterIp, ttl)] : [] };
}

function dedupe(records: DnsRecord[]): DnsRecord[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const key = JSON.stringify(record);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** `<a-b-c-d>.<ns>.pod.<zone>`: CoreDNS findPods. */
function podNode(context: Context, name: string, namespace: string, below: string[]): NameNode {
  if (context.podMode === 'disabled') return missing;
  if (below.length !== 1) return missing;
  const ip = below[0].replace(/-/g, '.');
  if (!/^\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}$/.test(below[0]) || !isIpv4(ip)) return missing;
  if (context.podMode === 'verified') {
    let found = false;
    for (const pod of context.state.pods) {
      if (sameName(pod.metadata.namespace, namespace) && podIps(pod).includes(ip)) {
        found = true;
        break;
      }
    }
    if (!found) return missing;
  }
  return { exists: true, records: [aRecord(name, ip, context.ttl)] };
}

/** Every name under the zone: `labels` are the query's labels left of the zone, lower-cased. */
function zoneNode(context: Context, name: string, labels: string[]): NameNode {
  const { state, zone, ttl } = context;
  const reversed = [...labels].reverse();
  if (reversed.length === 0) {
    const records: DnsRecord[] = [soaRecord(zone, ttl, context.serial), { name, class: classInternet, ttl, type: 'NS', target: `ns.dns.${zone}` }];
    const nameserver = dnsServiceAddresses(state).map((address) => aRecord(`ns.dns.${zone}`, address, ttl));
    return { exists: true, records, additionals: nameserver };
  }
  const [kind, namespace, objectName, ...rest] = reversed;
  const below = rest.reverse();
  if (reversed.length === 1 && kind === 'dns-version') return { exists: true, records: [{ name, class: classInternet, ttl, type: 'TXT', texts: [dnsSchemaVersion] }] };
  if (kind === 'dns') {
    if (reversed.length === 1) return emptyNonTerminal;
    if (reversed.length === 2 && namespace === 'ns') {
      const addresses = dnsServiceAddresses(state);
      return addresses.length > 0 ? { exists: true, records: addresses.map((address) => aRecord(name, address, ttl)) } : missing;
    }
    return missing;
  }
  if (kind !== 'svc' && kind !== 'pod') return missing;
  if (namespace === undefined) return emptyNonTerminal;
  if (objectName === undefined) {
    // `<ns>.svc.<zone>` is an empty non-terminal when the namespace exists (CoreDNS answers NODATA)
    if (kind === 'pod' && context.podMode === 'insecure') return emptyNonTerminal;
    return namespaceExists(state, namespace) ? emptyNonTerminal : missing;
  }
  if (kind === 'pod') return podNode(context, name, namespace, [objectName, ...below]);
  return serviceNode(context, name, namespace, objectName, below);
}

/** The ClusterIP of kube-system/kube-dns, which CoreDNS gives for ns.dns.<zone>. */
function dnsServiceAddresses(state: ClusterState): string[] {
  const service = findService(state, 'kube-system', 'kube-dns');
  const ip = service ? clusterIpOf(service) : undefined;
  return ip ? [ip] : [];
}

/** PTR names for an IPv4 address: Service ClusterIPs first, else every endpoint carrying it (CoreDNS serviceRecordForIP). */
export function reverseNames(state: ClusterState, ip: string, domain: string = defaultClusterDomain): string[] {
  const zone = canonicalName(domain);
  const names: string[] = [];
  const services = [...state.services];
  for (const service of services) {
    if (clusterIpOf(service) === ip) names.push(`${service.metadata.name}.${service.metadata.namespace}.svc.${zone}`);
  }
  if (names.length > 0) return names;
  for (const service of services) {
    if (serviceType(service) === 'ExternalName') continue;
    for (const endpoint of serviceEndpoints(service, state.endpointSlices)) {
      if (endpoint.ip === ip) names.push(`${endpoint.hostname}.${service.metadata.name}.${service.metadata.namespace}.svc.${zone}`.toLowerCase());
    }
  }
  return [...new Set(names)];
}

function reverseAnswer(question: DnsQuestion, state: ClusterState, zone: string, ttl: number): ClusterAnswer {
  const labels = nameLabels(canonicalName(question.name));
  // only full four-octet IPv4 names; everything else in in-addr.arpa falls through to the upstreams
  if (labels.length !== 6 || !labels.slice(0, 4).every((label) => /^\d{1,3}$/.test(label) && Number(label) <= 255 && String(Number(label)) === label)) return { kind: 'notMine' };
  const ip = labels.slice(0, 4).reverse().join('.');
  const names = reverseNames(state, ip, zone);
  if (names.length === 0) return { kind: 'notMine' };
  const answers: DnsRecord[] = question.type === RecordType.PTR || question.type === RecordType.ANY ? names.map((target) => ({ name: question.name, class: classInternet, ttl, type: 'PTR', target })) : [];
  // the name exists (it has a PTR); another type is NODATA, whose SOA is the reverse zone's own
  const authorities = answers.length > 0 ? [] : [soaRecord('in-addr.arpa', ttl, 0)];
  return { kind: 'answer', responseCode: ResponseCode.NoError, answers, authorities, additionals: [] };
}

const typeNames: Record<number, DnsRecord['type']> = { [RecordType.A]: 'A', [RecordType.AAAA]: 'AAAA', [RecordType.CNAME]: 'CNAME', [RecordType.PTR]: 'PTR', [RecordType.NS]: 'NS', [RecordType.SRV]: 'SRV', [RecordType.SOA]: 'SOA', [RecordType.TXT]: 'TXT' };

/**
 * Answers one question from the cluster's objects, or says the name is not the cluster's to answer.
 * Answer names repeat the question's spelling (case included); comparisons ignore case.
 */
export function answerQuestion(question: DnsQuestion, state: ClusterState, options: ClusterRecordOptions = {}): ClusterAnswer {
  const zone = canonicalName(options.domain ?? defaultClusterDomain);
  const ttl = options.ttl ?? defaultTtlSeconds;
  const serial = options.serial ?? 0;
  if (question.class !== classInternet && question.class !== 255) return { kind: 'notMine' };
  const canonical = canonicalName(question.name);
  if (canonical === 'in-addr.arpa' || canonical.endsWith('.in-addr.arpa')) return reverseAnswer(question, state, zone, ttl);
  if (!isUnderDomain(canonical, zone)) return { kind: 'notMine' };
  const labels = nameLabels(canonical);
  const zoneLabels = nameLabels(zone).length;
  const context: Context = { state, zone, ttl, serial, podMode: options.podMode ?? 'insecure' };
  // answers carry the question's own spelling so mixed-case (0x20) checks in resolvers succeed
  const node = zoneNode(context, question.name.replace(/\.$/, ''), labels.slice(0, labels.length - zoneLabels));
  const soa = [soaRecord(zone, ttl, serial)];
  if (!node.exists) return { kind: 'answer', responseCode: ResponseCode.NameError, answers: [], authorities: soa, additionals: [] };
  const cname = node.records.find((record) => record.type === 'CNAME');
  if (cname && cname.type === 'CNAME' && question.type !== RecordType.CNAME && question.type !== RecordType.ANY) {
    return { kind: 'answer', responseCode: ResponseCode.NoError, answers: [cname], authorities: [], additionals: [], chase: cname.target };
  }
  const wanted = question.type === RecordType.ANY ? node.records : node.records.filter((record) => record.type === typeNames[question.type]);
  if (wanted.length === 0) return { kind: 'answer', responseCode: ResponseCode.NoError, answers: [], authorities: soa, additionals: [] };
  // the additional section carries the A records that SRV and NS targets point to
  const additionals = wanted.some((record) => record.type === 'SRV' || record.type === 'NS') ? (node.additionals ?? []) : [];
  return { kind: 'answer', responseCode: ResponseCode.NoError, answers: wanted, authorities: [], additionals };
}
