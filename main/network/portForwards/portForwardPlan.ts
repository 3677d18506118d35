// Pure decisions of the PortForward controller: which pod (or Service endpoint) a new connection
// goes to, which local port to ask for, and what the status says. A Pod target follows its pod the
// way a user expects `kubectl port-forward deploy/x` to: the named pod while it is Running and Ready,
// else a ready pod with the same labels minus the per-revision ones (pod-template-hash from the
// Deployment controller, controller-revision-hash and statefulset.kubernetes.io/pod-name from the
// StatefulSet/DaemonSet controllers), so a replaced or rolled-out pod is picked up. A Service target
// resolves like kube-proxy (shared/kubernetes/serviceEndpoints.ts): the Service port by number or
// name, then the ready endpoints of its EndpointSlices, whose ports are the resolved targetPorts.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { backendsFor, servicePorts, slicesOfService, type Backend, type ServicePortSpec } from '../../../shared/kubernetes/serviceEndpoints';
import { isConditionTrue } from '../../../shared/kubernetes/conditions';
import { labelSetMatches, selectorToString } from '../../../shared/kubernetes/labelSelector';
import type { PortForwardSpec, PortForwardStatus } from './portForwardResource';

/** Labels that differ between a pod and its replacement, left out of the replacement selector. */
export const revisionLabels = ['pod-template-hash', 'controller-revision-hash', 'statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index'];

/** The labels a replacement pod must carry: the pod's labels without the per-revision ones. */
export function replacementSelector(pod: KubeObject): Record<string, string> {
  const selector: Record<string, string> = {};
  for (const [key, value] of Object.entries(pod.metadata.labels ?? {})) if (!revisionLabels.includes(key)) selector[key] = value;
  return selector;
}

function podIp(pod: KubeObject): string | undefined {
  const status = isRecord(pod.status) ? pod.status : {};
  return typeof status.podIP === 'string' && status.podIP !== '' ? status.podIP : undefined;
}

/** Running, Ready, not being deleted, with an IP: a pod a connection can go to. */
export function isPodServing(pod: KubeObject): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const status = isRecord(pod.status) ? pod.status : {};
  if (status.phase !== 'Running' || !podIp(pod)) return false;
  return isConditionTrue(pod, 'Ready');
}

/** The container port a port number or name means in this pod; a number is taken as is (as kubectl port-forward does). */
export function containerPort(pod: KubeObject, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
  for (const container of containers) {
    const ports = Array.isArray(container.ports) ? container.ports.filter(isRecord) : [];
    for (const candidate of ports) {
      if (candidate.name === port && typeof candidate.containerPort === 'number' && (candidate.protocol ?? 'TCP') === 'TCP') return candidate.containerPort;
    }
  }
  return undefined;
}

export interface PodChoice {
  pod: KubeObject;
  ip: string;
  port: number;
}

export type PodResolution = { found: true; choice: PodChoice; selector?: Record<string, string> } | { found: false; message: string; selector?: Record<string, string> };

function newestFirst(left: KubeObject, right: KubeObject): number {
  const leftTime = left.metadata.creationTimestamp ?? '';
  const rightTime = right.metadata.creationTimestamp ?? '';
  if (leftTime !== rightTime) return leftTime < rightTime ? 1 : -1;
  const leftName = left.metadata.name ?? '';
  const rightName = right.metadata.name ?? '';
  return leftName < rightName ? -1 : leftName > rightName ? 1 : 0;
}

/**
 * The pod a new connection to a Pod target goes to. Preference: the named pod; the pod the forward
 * used last (status.pod), so connections do not hop between replicas; then the newest ready pod
 * matching the replacement selector. `selector` in the result is the one to remember in status:
 * the stored one, else the named pod's labels the first time it is seen.
 */
export function resolvePodTarget(spec: PortForwardSpec, status: PortForwardStatus, pods: readonly KubeObject[]): PodResolution {
  const named = pods.find((pod) => pod.metadata.name === spec.target.name);
  let selector = status.podSelector;
  if (selector === undefined && named) selector = replacementSelector(named);
  const portText = typeof spec.port === 'number' ? String(spec.port) : `"${spec.port}"`;
  const withPort = (pod: KubeObject): PodChoice | undefined => {
    const ip = podIp(pod);
    const port = containerPort(pod, spec.port);
    return ip && port !== undefined ? { pod, ip, port } : undefined;
  };
  const candidates: KubeObject[] = [];
  if (named) candidates.push(named);
  const hasSelector = selector !== undefined && Object.keys(selector).length > 0;
  if (hasSelector && selector) {
    const last = status.pod ? pods.find((pod) => pod.metadata.name === status.pod) : undefined;
    if (last && last !== named && labelSetMatches(selector, last.metadata.labels)) candidates.push(last);
    candidates.push(...pods.filter((pod) => pod !== named && pod !== last && labelSetMatches(selector, pod.metadata.labels)).sort(newestFirst));
  }
  let missingPort: string | undefined;
  for (const pod of candidates) {
    if (!isPodServing(pod)) continue;
    const choice = withPort(pod);
    if (choice) return { found: true, choice, selector };
    missingPort ??= `pod "${pod.metadata.name ?? ''}" has no container port named ${portText}`;
  }
  if (missingPort) return { found: false, message: missingPort, selector };
  const namedState = named ? (named.metadata.deletionTimestamp ? 'is terminating' : 'is not running and ready') : 'not found';
  const subject = `pod "${spec.target.name}" ${namedState}`;
  if (!hasSelector || !selector) return { found: false, message: named ? subject : `${subject}; nothing to replace it with (its labels are unknown)`, selector };
  return { found: false, message: `${subject} and no ready pod matches ${selectorToString({ matchLabels: selector })}`, selector };
}

export type ServiceResolution = { found: true; backends: Backend[] } | { found: false; message: string };

/** The Service port a forward names: by port number, else by name. */
export function findForwardedServicePort(service: KubeObject, port: number | string): ServicePortSpec | undefined {
  const ports = servicePorts(service).filter((candidate) => candidate.protocol === 'TCP');
  if (typeof port === 'number') return ports.find((candidate) => candidate.port === port);
  return ports.find((candidate) => candidate.name === port);
}

/** The ready endpoints a new connection to a Service target may go to, in a stable order. */
export function resolveServiceTarget(spec: PortForwardSpec, service: KubeObject | undefined, slices: Iterable<KubeObject>): ServiceResolution {
  const portText = typeof spec.port === 'number' ? String(spec.port) : `"${spec.port}"`;
  if (!service) return { found: false, message: `service "${spec.target.name}" not found` };
  const port = findForwardedServicePort(service, spec.port);
  if (!port) return { found: false, message: `service "${spec.target.name}" has no TCP port ${portText}` };
  const backends = backendsFor(port, slicesOfService(service, slices));
  if (backends.length === 0) return { found: false, message: `service "${spec.target.name}" has no ready endpoints for port ${portText}` };
  return { found: true, backends };
}

/** Round robin: the backends starting at `turn`, so the first one dialled rotates. */
export function rotate<T>(items: readonly T[], turn: number): T[] {
  if (items.length === 0) return [];
  const start = ((turn % items.length) + items.length) % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/**
 * The port to ask the OS for: spec.localPort, else the port used before (status.localPort, so a
 * restart brings the forward back where the user's bookmarks point), else any (0).
 */
export function wantedLocalPort(spec: PortForwardSpec, status: PortForwardStatus): { port: number; fixed: boolean } {
  if (spec.localPort !== undefined && spec.localPort > 0) return { port: spec.localPort, fixed: true };
  if (status.localPort !== undefined && status.localPort > 0) return { port: status.localPort, fixed: false };
  return { port: 0, fixed: false };
}

export interface ListenerState {
  /** the bound port, when listening */
  localPort?: number;
  /** why the port cannot be opened */
  failure?: string;
  /** the port asked for, shown while it cannot be opened */
  wantedPort?: number;
}

export interface TargetState {
  found: boolean;
  message?: string;
  /** the pod chosen now (Pod targets) */
  pod?: string;
  selector?: Record<string, string>;
}

/** The status the forward should show. `host` is the address listeners bind to. */
export function desiredStatus(listener: ListenerState, target: TargetState, host = '127.0.0.1'): PortForwardStatus {
  const status: PortForwardStatus = {};
  if (listener.localPort !== undefined) {
    status.localPort = listener.localPort;
    status.url = `http://${host}:${listener.localPort}`;
  }
  if (listener.failure !== undefined) {
    if (listener.wantedPort !== undefined && listener.wantedPort > 0) status.localPort = listener.wantedPort;
    status.phase = 'Failed';
    status.message = listener.failure;
  } else if (listener.localPort === undefined) {
    status.phase = 'Waiting';
    status.message = 'opening the local port';
  } else if (target.found) {
    status.phase = 'Active';
  } else {
    status.phase = 'Waiting';
    status.message = target.message ?? 'no ready target';
  }
  if (target.pod !== undefined) status.pod = target.pod;
  if (target.selector !== undefined) status.podSelector = target.selector;
  return status;
}

function sameValue(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * A JSON merge patch turning `current` into `desired` (null removes a field; the selector map is
 * diffed key by key, since a merge patch merges maps), or undefined when nothing changes.
 */
export function statusPatch(current: PortForwardStatus, desired: PortForwardStatus): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const keys: (keyof PortForwardStatus)[] = ['phase', 'message', 'localPort', 'url', 'pod'];
  for (const key of keys) {
    if (sameValue(current[key], desired[key])) continue;
    patch[key] = desired[key] ?? null;
  }
  if (!sameValue(current.podSelector ?? {}, desired.podSelector ?? {})) {
    if (desired.podSelector === undefined) {
      patch.podSelector = null;
    } else {
      const selector: Record<string, string | null> = {};
      for (const key of Object.keys(current.podSelector ?? {})) if (!(key in desired.podSelector)) selector[key] = null;
      Object.assign(selector, desired.podSelector);
      patch.podSelector = selector;
    }
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
