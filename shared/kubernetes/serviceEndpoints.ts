// Which backends a Service port sends traffic to, read from the Service's EndpointSlices as
// kube-proxy does (pkg/proxy/endpointslicecache.go): slices are found by the
// `kubernetes.io/service-name` label, a slice port matches the Service port by name (the unnamed
// port matches the one unnamed slice port), endpoints count when `conditions.ready` is not false,
// and terminating-but-serving endpoints are used only when no ready one is left (upstream's
// ProxyTerminatingEndpoints). Pure functions, shared by the service proxy, the host-port
// listeners, the Ingress controller and the API server's service proxy.
import { isRecord, type KubeObject } from './types';

export const serviceNameLabel = 'kubernetes.io/service-name';

export interface ServicePortSpec {
  name: string;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  port: number;
  targetPort: number | string;
  nodePort?: number;
}

export interface Backend {
  ip: string;
  port: number;
  /** the pod behind the endpoint, when the slice names one */
  podName?: string;
  podNamespace?: string;
  hostname?: string;
  nodeName?: string;
}

/** The Service's ports with defaults applied (protocol TCP, targetPort = port). */
export function servicePorts(service: KubeObject): ServicePortSpec[] {
  const spec = isRecord(service.spec) ? service.spec : {};
  const ports = Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : [];
  return ports.flatMap((port): ServicePortSpec[] => {
    if (typeof port.port !== 'number') return [];
    const protocol = port.protocol === 'UDP' || port.protocol === 'SCTP' ? port.protocol : 'TCP';
    const targetPort = typeof port.targetPort === 'number' || (typeof port.targetPort === 'string' && port.targetPort !== '') ? port.targetPort : port.port;
    const result: ServicePortSpec = { name: typeof port.name === 'string' ? port.name : '', protocol, port: port.port, targetPort };
    if (typeof port.nodePort === 'number' && port.nodePort > 0) result.nodePort = port.nodePort;
    return [result];
  });
}

/** Picks one Service port by name, by number (as a string or number), or the only one. */
export function findServicePort(service: KubeObject, nameOrNumber?: string | number): ServicePortSpec | undefined {
  const ports = servicePorts(service);
  // upstream's service proxy picks the unnamed port when none is given
  if (nameOrNumber === undefined || nameOrNumber === '') return ports.find((port) => port.name === '') ?? (ports.length === 1 ? ports[0] : undefined);
  return ports.find((port) => port.name === nameOrNumber) ?? ports.find((port) => String(port.port) === String(nameOrNumber));
}

/** The slices of one Service among all slices (any namespace). */
export function slicesOfService(service: KubeObject, slices: Iterable<KubeObject>): KubeObject[] {
  const result: KubeObject[] = [];
  for (const slice of slices) {
    if (slice.metadata.namespace !== service.metadata.namespace) continue;
    if (slice.metadata.labels?.[serviceNameLabel] !== service.metadata.name) continue;
    result.push(slice);
  }
  return result;
}

/**
 * The backends of one Service port: ready endpoints, or, when none is ready, the serving ones that
 * are terminating. Duplicates (the same ip:port in two slices) are listed once, in a stable order.
 */
export function backendsFor(port: ServicePortSpec, slices: Iterable<KubeObject>): Backend[] {
  const ready = new Map<string, Backend>();
  const terminating = new Map<string, Backend>();
  for (const slice of slices) {
    const raw = slice as unknown as Record<string, unknown>;
    if (raw.addressType !== undefined && raw.addressType !== 'IPv4') continue;
    const slicePorts = Array.isArray(raw.ports) ? raw.ports.filter(isRecord) : [];
    const match = slicePorts.find((candidate) => (typeof candidate.name === 'string' ? candidate.name : '') === port.name && (candidate.protocol ?? 'TCP') === port.protocol);
    if (!match || typeof match.port !== 'number') continue;
    const endpoints = Array.isArray(raw.endpoints) ? raw.endpoints.filter(isRecord) : [];
    for (const endpoint of endpoints) {
      const conditions = isRecord(endpoint.conditions) ? endpoint.conditions : {};
      const addresses = Array.isArray(endpoint.addresses) ? endpoint.addresses.filter((address): address is string => typeof address === 'string') : [];
      const targetRef = isRecord(endpoint.targetRef) ? endpoint.targetRef : {};
      for (const ip of addresses) {
        const backend: Backend = { ip, port: match.port };
        if (targetRef.kind === 'Pod' && typeof targetRef.name === 'string') {
          backend.podName = targetRef.name;
          if (typeof targetRef.namespace === 'string') backend.podNamespace = targetRef.namespace;
        }
        if (typeof endpoint.hostname === 'string') backend.hostname = endpoint.hostname;
        if (typeof endpoint.nodeName === 'string') backend.nodeName = endpoint.nodeName;
        const key = `${ip}:${match.port}`;
        if (conditions.ready !== false) ready.set(key, backend);
        else if (conditions.serving === true && conditions.terminating === true) terminating.set(key, backend);
      }
    }
  }
  const chosen = ready.size > 0 ? ready : terminating;
  return [...chosen.entries()].sort(([first], [second]) => (first < second ? -1 : first > second ? 1 : 0)).map(([, backend]) => backend);
}

export function serviceType(service: KubeObject): string {
  const spec = isRecord(service.spec) ? service.spec : {};
  return typeof spec.type === 'string' ? spec.type : 'ClusterIP';
}

/** The IPv4 cluster IP, or undefined for headless, ExternalName and not-yet-allocated Services. */
export function clusterIpOf(service: KubeObject): string | undefined {
  const spec = isRecord(service.spec) ? service.spec : {};
  const ip = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
  return ip === '' || ip === 'None' || ip.includes(':') ? undefined : ip;
}
