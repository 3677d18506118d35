// Where a services/<id>/proxy or pods/<id>/proxy request goes: the `[scheme:]name[:port]` id is
// split as apimachinery's SplitSchemeNamePort does, a Service is resolved to one random endpoint as
// pkg/registry/core/service/storage/storage.go ResourceLocation does (a port number is first mapped
// to the Service port's name, endpoints are matched by port name, an endpoint counts only while its
// Pod still has that IP), and a Pod to its IP and port as pkg/registry/core/pod/strategy.go
// ResourceLocation does (no port = the first declared container port, else the scheme's default).
// Error texts and codes are upstream's, so kubectl prints the same lines.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { backendsFor, servicePorts, slicesOfService, type Backend } from '../../../shared/kubernetes/serviceEndpoints';
import { ApiError } from '../apiError';

/** The objects the proxy reads; the composition root wires it to the store. */
export interface ProxyLookup {
  service(namespace: string, name: string): KubeObject | undefined;
  /** the EndpointSlices of one Service (extra slices are filtered out again) */
  endpointSlices(namespace: string, serviceName: string): Iterable<KubeObject>;
  pod(namespace: string, name: string): KubeObject | undefined;
}

export type ProxyKind = 'services' | 'pods';

export interface ProxyLocation {
  scheme: 'http' | 'https';
  ip: string;
  /** a number, or a port name the dial must still fail on (Go would look it up in /etc/services) */
  port: number | string;
  /** `ip:port` as upstream's location URL writes it; the HTML/Location rewriting compares hosts with it */
  host: string;
}

export interface SchemeNamePort {
  scheme: '' | 'http' | 'https';
  name: string;
  port: string;
}

/** `name`, `name:port` or `scheme:name:port`; undefined when the id is not one of those. */
export function splitSchemeNamePort(id: string): SchemeNamePort | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme: scheme as SchemeNamePort['scheme'], name, port };
}

export function resolveProxyLocation(lookup: ProxyLookup, kind: ProxyKind, namespace: string, id: string, random: () => number = Math.random): ProxyLocation {
  return kind === 'services' ? resolveServiceLocation(lookup, namespace, id, random) : resolvePodLocation(lookup, namespace, id);
}

export function resolveServiceLocation(lookup: ProxyLookup, namespace: string, id: string, random: () => number = Math.random): ProxyLocation {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw ApiError.badRequest(`invalid service request "${id}"`);
  const { name } = parsed;
  let portName = parsed.port;
  const service = lookup.service(namespace, name);
  if (/^[+-]?\d+$/.test(portName)) {
    if (!service) throw ApiError.notFound({ group: '', resource: 'services' }, name);
    const number = Number(portName);
    const declared = servicePorts(service).find((port) => port.port === number);
    if (!declared) throw new ApiError(503, 'ServiceUnavailable', `no service port ${number} found for service "${name}"`);
    portName = declared.name;
  }
  // Upstream reads the Endpoints object next, so a missing Service reads as missing endpoints.
  if (!service) throw ApiError.notFound({ group: '', resource: 'endpoints' }, name);
  const slices = slicesOfService(service, lookup.endpointSlices(namespace, name));
  if (!slices.some(hasEndpoints)) throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${name}"`);
  const port = servicePorts(service).find((candidate) => candidate.name === portName);
  const backends = port ? backendsFor(port, slices).filter((backend) => isValidAddress(lookup, namespace, backend)) : [];
  if (backends.length === 0) throw new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${id}"`);
  const chosen = backends[Math.min(backends.length - 1, Math.floor(random() * backends.length))];
  return { scheme: parsed.scheme === 'https' ? 'https' : 'http', ip: chosen.ip, port: chosen.port, host: `${chosen.ip}:${chosen.port}` };
}

export function resolvePodLocation(lookup: ProxyLookup, namespace: string, id: string): ProxyLocation {
  const parsed = splitSchemeNamePort(id);
  if (!parsed) throw ApiError.badRequest(`invalid pod request "${id}"`);
  const pod = lookup.pod(namespace, parsed.name);
  if (!pod) throw ApiError.notFound({ group: '', resource: 'pods' }, parsed.name);
  const scheme = parsed.scheme === 'https' ? 'https' : 'http';
  const containerPorts = podContainerPorts(pod);
  let port: string = parsed.port;
  if (port === '' && containerPorts.length > 0) port = String(containerPorts[0].containerPort);
  const ip = podIpOf(pod);
  if (!isGlobalUnicast(ip)) throw ApiError.badRequest('address not allowed');
  if (port === '') return { scheme, ip, port: scheme === 'https' ? 443 : 80, host: ip };
  const host = `${ip}:${port}`;
  if (/^\d+$/.test(port)) return { scheme, ip, port: Number(port), host };
  // Upstream hands `ip:name` to Go's dialer, which only knows /etc/services names; resolving the
  // pod's own named container ports first is what a user of `pods/web:http/proxy` means.
  const named = containerPorts.find((candidate) => candidate.name === port);
  if (named) return { scheme, ip, port: named.containerPort, host };
  const wellKnown = WELL_KNOWN_PORTS.get(port);
  return { scheme, ip, port: wellKnown ?? port, host };
}

const WELL_KNOWN_PORTS = new Map([
  ['http', 80],
  ['https', 443],
  ['www', 80],
]);

function hasEndpoints(slice: KubeObject): boolean {
  const endpoints = (slice as unknown as Record<string, unknown>).endpoints;
  return Array.isArray(endpoints) && endpoints.some((endpoint) => isRecord(endpoint) && Array.isArray(endpoint.addresses) && endpoint.addresses.length > 0);
}

/** upstream isValidAddress: the endpoint must name a Pod of this namespace that still has its IP */
function isValidAddress(lookup: ProxyLookup, namespace: string, backend: Backend): boolean {
  if (backend.podName === undefined) return false;
  if ((backend.podNamespace ?? namespace) !== namespace) return false;
  const pod = lookup.pod(namespace, backend.podName);
  return pod !== undefined && podIpsOf(pod).includes(backend.ip);
}

interface ContainerPort {
  name?: string;
  containerPort: number;
}

function podContainerPorts(pod: KubeObject): ContainerPort[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
  // in declaration order, so the first is upstream's default: the first port of the first container declaring any
  return containers.flatMap((container) =>
    (Array.isArray(container.ports) ? container.ports.filter(isRecord) : []).flatMap((port): ContainerPort[] =>
      typeof port.containerPort === 'number' ? [{ containerPort: port.containerPort, ...(typeof port.name === 'string' ? { name: port.name } : {}) }] : [],
    ),
  );
}

function podIpsOf(pod: KubeObject): string[] {
  const status = isRecord(pod.status) ? pod.status : {};
  const ips = Array.isArray(status.podIPs) ? status.podIPs.flatMap((entry) => (isRecord(entry) && typeof entry.ip === 'string' ? [entry.ip] : [])) : [];
  if (ips.length === 0 && typeof status.podIP === 'string' && status.podIP !== '') ips.push(status.podIP);
  return ips;
}

function podIpOf(pod: KubeObject): string {
  return podIpsOf(pod)[0] ?? '';
}

/** Go's net.IP.IsGlobalUnicast for IPv4 (the cluster is IPv4-only): not unspecified, loopback, multicast, link-local or broadcast. */
export function isGlobalUnicast(ip: string): boolean {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!match) return false;
  const octets = match.slice(1).map(Number);
  if (octets.some((octet) => octet > 255)) return false;
  const [first, second] = octets;
  if (first === 0 || first === 127 || first >= 224) return false;
  if (first === 169 && second === 254) return false;
  return true;
}
