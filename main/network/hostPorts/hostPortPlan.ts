// Which host ports kubedesk opens on 127.0.0.1 for NodePort and LoadBalancer Services: every
// service port's `nodePort` (what kube-proxy opens on each node, pkg/proxy/iptables/proxier.go
// "nodePorts"), and for LoadBalancer Services also the service port itself, as Docker Desktop and
// k3s ServiceLB (pkg/cloudprovider/servicelb.go) do, since 127.0.0.1 is the one "node" and the one
// load balancer address. A Service with `spec.loadBalancerClass` belongs to another load balancer
// implementation, as upstream's service controller (wantsLoadBalancer) leaves it alone: it gets
// its node ports but no load balancer. Two Services asking for the same host port: the older one
// keeps it and the other waits (k3s leaves the second one Pending the same way). Pure functions.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { serviceType, servicePorts } from '../../../shared/kubernetes/serviceEndpoints';

export type HostPortProtocol = 'TCP' | 'UDP';
export type HostPortKind = 'NodePort' | 'LoadBalancer';

/** One host port to listen on, and the Service port it forwards to. */
export interface HostPortListener {
  namespace: string;
  name: string;
  /** the Service port's name ('' for the unnamed one) */
  portName: string;
  /** the Service port number */
  port: number;
  protocol: HostPortProtocol;
  hostPort: number;
  /** LoadBalancer when the port is the load balancer's (it then decides the Service's status) */
  kind: HostPortKind;
  /** ClientIP session affinity timeout; 0 = none */
  affinitySeconds: number;
}

export interface HostPortConflict {
  /** the listener that cannot be opened */
  listener: HostPortListener;
  /** the listener of the (older) Service that has the port */
  heldBy: HostPortListener;
}

export interface HostPortPlan {
  listeners: HostPortListener[];
  conflicts: HostPortConflict[];
}

/** upstream's default for sessionAffinityConfig.clientIP.timeoutSeconds (3 hours) */
export const defaultAffinitySeconds = 10_800;

/** `TCP/8080`: protocols have separate port spaces, so TCP and UDP on one port can coexist. */
export function hostPortKey(protocol: HostPortProtocol, hostPort: number): string {
  return `${protocol}/${hostPort}`;
}

function specOf(service: KubeObject): Record<string, unknown> {
  return isRecord(service.spec) ? service.spec : {};
}

export function hasLoadBalancerClass(service: KubeObject): boolean {
  const loadBalancerClass = specOf(service).loadBalancerClass;
  return typeof loadBalancerClass === 'string' && loadBalancerClass !== '';
}

/** The finalizer the service controller keeps on a Service while it has a load balancer (servicehelper.LoadBalancerCleanupFinalizer). */
export const LOAD_BALANCER_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

/**
 * service_controller.go wantsLoadBalancer: type LoadBalancer and no other implementation named;
 * and not being deleted (needsCleanup: a deleted Service's load balancer goes).
 */
export function wantsLoadBalancer(service: KubeObject): boolean {
  return serviceType(service) === 'LoadBalancer' && !hasLoadBalancerClass(service) && !service.metadata.deletionTimestamp;
}

export function hasLoadBalancerFinalizer(service: KubeObject): boolean {
  return (service.metadata.finalizers ?? []).includes(LOAD_BALANCER_CLEANUP_FINALIZER);
}

/** The ClientIP affinity timeout in seconds, or 0 without session affinity. */
export function sessionAffinitySeconds(service: KubeObject): number {
  const spec = specOf(service);
  if (spec.sessionAffinity !== 'ClientIP') return 0;
  const config = isRecord(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : {};
  const clientIP = isRecord(config.clientIP) ? config.clientIP : {};
  return typeof clientIP.timeoutSeconds === 'number' && clientIP.timeoutSeconds > 0 ? clientIP.timeoutSeconds : defaultAffinitySeconds;
}

/** The listeners one Service asks for, in port order, before conflicts with other Services. */
export function serviceHostPorts(service: KubeObject): HostPortListener[] {
  const type = serviceType(service);
  if (type !== 'NodePort' && type !== 'LoadBalancer') return [];
  const namespace = service.metadata.namespace ?? '';
  const name = service.metadata.name ?? '';
  const affinitySeconds = sessionAffinitySeconds(service);
  const loadBalancer = wantsLoadBalancer(service);
  const result: HostPortListener[] = [];
  for (const port of servicePorts(service)) {
    // SCTP has no socket API in Node; upstream kube-proxy needs kernel support for it too.
    if (port.protocol === 'SCTP') continue;
    const base = { namespace, name, portName: port.name, port: port.port, protocol: port.protocol, affinitySeconds };
    if (loadBalancer) result.push({ ...base, hostPort: port.port, kind: 'LoadBalancer' });
    // A nodePort equal to the service port is the same socket; the load balancer role covers it.
    if (port.nodePort !== undefined && !(loadBalancer && port.nodePort === port.port)) result.push({ ...base, hostPort: port.nodePort, kind: 'NodePort' });
  }
  return result;
}

function creationOrder(first: KubeObject, second: KubeObject): number {
  const firstTime = first.metadata.creationTimestamp ?? '';
  const secondTime = second.metadata.creationTimestamp ?? '';
  if (firstTime !== secondTime) return firstTime < secondTime ? -1 : 1;
  const firstKey = `${first.metadata.namespace ?? ''}/${first.metadata.name ?? ''}`;
  const secondKey = `${second.metadata.namespace ?? ''}/${second.metadata.name ?? ''}`;
  return firstKey < secondKey ? -1 : firstKey > secondKey ? 1 : 0;
}

/**
 * The host ports to open for all Services. The oldest Service (then namespace/name) wins a port
 * two Services ask for, so a port that is serving never moves to a newcomer.
 */
export function planHostPorts(services: Iterable<KubeObject>): HostPortPlan {
  const ordered = [...services].sort(creationOrder);
  const taken = new Map<string, HostPortListener>();
  const conflicts: HostPortConflict[] = [];
  for (const service of ordered) {
    for (const listener of serviceHostPorts(service)) {
      const key = hostPortKey(listener.protocol, listener.hostPort);
      const holder = taken.get(key);
      if (holder) conflicts.push({ listener, heldBy: holder });
      else taken.set(key, listener);
    }
  }
  return { listeners: [...taken.values()], conflicts };
}

/** Whether two listeners forward to the same Service port (so an open socket can be kept). */
export function sameTarget(first: HostPortListener, second: HostPortListener): boolean {
  return first.namespace === second.namespace && first.name === second.name && first.portName === second.portName && first.protocol === second.protocol;
}
