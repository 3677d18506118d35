// EndpointsController: keeps one core/v1 Endpoints object per Service that has a selector, after
// upstream pkg/controller/endpoint/endpoints_controller.go (syncService) and
// pkg/api/v1/endpoints/util.go (RepackSubsets). Ready pods go to `addresses`, the others to
// `notReadyAddresses` (unless publishNotReadyAddresses), ports are resolved per pod from each
// service port's targetPort (a number or a named container port), and addresses that offer the
// same ports are packed into one subset. Services without a selector (and ExternalName services)
// are left alone; an Endpoints this controller manages is deleted with its Service.
// The pod-membership helpers here are shared with the EndpointSlice controller, as upstream
// shares k8s.io/endpointslice/util.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { labelSetMatches } from '../../shared/kubernetes/labelSelector';
import { formatTime } from '../../shared/kubernetes/time';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { isAlreadyExists, isForbidden, isNotFound } from '../client/errors';
import { objectKey, splitKey, type SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isPodReady, podPhase, specOf, statusOf } from './controllerUtils';

export const ENDPOINTS_MANAGED_BY_LABEL = 'endpoints.kubernetes.io/managed-by';
export const ENDPOINTS_CONTROLLER_NAME = 'endpoint-controller';
export const HEADLESS_SERVICE_LABEL = 'service.kubernetes.io/headless';
export const LAST_CHANGE_TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
const MAX_RETRIES = 15;

// ---------------------------------------------------------------- helpers shared with EndpointSlices

/** The service's selector as a label map; undefined when it has none (it then selects nothing). */
export function serviceSelector(service: KubeObject): Record<string, string> | undefined {
  const selector = specOf(service).selector;
  if (!isRecord(selector)) return undefined;
  return Object.fromEntries(Object.entries(selector).map(([key, value]) => [key, String(value)]));
}

/** labels.Set(selector).AsSelector().Matches: every pair must match; an empty map matches every pod. */
export function serviceSelectsPod(service: KubeObject, pod: KubeObject): boolean {
  const selector = serviceSelector(service);
  if (!selector || service.metadata.namespace !== pod.metadata.namespace) return false;
  return labelSetMatches(selector, pod.metadata.labels);
}

/** Services the endpoint controllers manage: a selector and not ExternalName. */
export function serviceIsManaged(service: KubeObject): boolean {
  return serviceSelector(service) !== undefined && specOf(service).type !== 'ExternalName';
}

export function isHeadless(service: KubeObject): boolean {
  const clusterIP = specOf(service).clusterIP;
  return clusterIP === 'None' || clusterIP === undefined || clusterIP === '';
}

/** The pod's first IPv4 address (kubedesk services are single-stack IPv4). */
export function podIPv4(pod: KubeObject): string | undefined {
  const status = statusOf(pod);
  const candidates: string[] = [];
  if (Array.isArray(status.podIPs)) for (const entry of status.podIPs) if (isRecord(entry) && typeof entry.ip === 'string') candidates.push(entry.ip);
  if (typeof status.podIP === 'string') candidates.push(status.podIP);
  return candidates.find((ip) => ip !== '' && !ip.includes(':'));
}

/** endpointsliceutil.ShouldPodBeInEndpoints: not terminal, has an IP, and (unless included) not terminating. */
export function shouldPodBeInEndpoints(pod: KubeObject, includeTerminating: boolean): boolean {
  const phase = podPhase(pod);
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  if (!podIPv4(pod)) return false;
  if (!includeTerminating && pod.metadata.deletionTimestamp) return false;
  return true;
}

/** endpointsliceutil.ShouldSetHostname: the pod's subdomain names this service. */
export function shouldSetHostname(pod: KubeObject, service: KubeObject): boolean {
  const spec = specOf(pod);
  return typeof spec.hostname === 'string' && spec.hostname !== '' && spec.subdomain === service.metadata.name && pod.metadata.namespace === service.metadata.namespace;
}

export interface ServicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
  targetPort: number | string;
}

export function servicePorts(service: KubeObject): ServicePort[] {
  const ports = specOf(service).ports;
  if (!Array.isArray(ports)) return [];
  return ports.filter(isRecord).map((port) => {
    const number = typeof port.port === 'number' ? port.port : 0;
    const target = typeof port.targetPort === 'number' || (typeof port.targetPort === 'string' && port.targetPort !== '') ? port.targetPort : number;
    const result: ServicePort = { name: typeof port.name === 'string' ? port.name : '', port: number, protocol: typeof port.protocol === 'string' ? port.protocol : 'TCP', targetPort: target };
    if (typeof port.appProtocol === 'string') result.appProtocol = port.appProtocol;
    return result;
  });
}

/**
 * podutil.FindPort: a numeric targetPort is used as is; a named one is looked up among the pod's
 * container ports (and restartable init containers) with the same protocol. Undefined: no such port.
 */
export function findPort(pod: KubeObject, port: ServicePort): number | undefined {
  if (typeof port.targetPort === 'number') return port.targetPort;
  const asNumber = Number(port.targetPort);
  if (/^\d+$/.test(port.targetPort) && asNumber > 0) return asNumber;
  const spec = specOf(pod);
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers.filter((c) => isRecord(c) && c.restartPolicy === 'Always') : [])];
  for (const container of containers) {
    if (!isRecord(container) || !Array.isArray(container.ports)) continue;
    for (const containerPort of container.ports) {
      if (!isRecord(containerPort)) continue;
      const protocol = typeof containerPort.protocol === 'string' ? containerPort.protocol : 'TCP';
      if (containerPort.name === port.targetPort && protocol === port.protocol && typeof containerPort.containerPort === 'number') return containerPort.containerPort;
    }
  }
  return undefined;
}

/** Keys of the services (from `services`, same namespace) that select the pod. */
export function serviceKeysForPod(services: KubeObject[], pod: KubeObject): string[] {
  return services.filter((service) => serviceSelectsPod(service, pod)).map(objectKey);
}

/** JSON with sorted keys, to compare objects regardless of key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isRecord(value)) return Object.fromEntries(Object.keys(value).sort().filter((key) => value[key] !== undefined).map((key) => [key, sortKeys(value[key])]));
  return value;
}

// ---------------------------------------------------------------- Endpoints subsets

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: { kind: string; namespace?: string; name?: string; uid?: string };
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

interface AddressEntry {
  address: EndpointAddress;
  ready: boolean;
  /** undefined: a headless service without ports */
  port?: EndpointPort;
}

function addressKey(address: EndpointAddress): string {
  return `${address.ip}\u0000${address.targetRef?.uid ?? ''}`;
}

function portKey(port: EndpointPort | undefined): string {
  return port ? `${port.name ?? ''}\u0000${port.port}\u0000${port.protocol}\u0000${port.appProtocol ?? ''}` : '';
}

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  return addressKey(a) < addressKey(b) ? -1 : addressKey(a) > addressKey(b) ? 1 : 0;
}

/**
 * endpoints.RepackSubsets: each address is listed with the ports it offers; addresses offering the
 * same set of ports (with the same readiness) share a subset. Sorted so equal inputs compare equal.
 */
export function repackSubsets(entries: AddressEntry[]): EndpointSubset[] {
  const addresses = new Map<string, { address: EndpointAddress; ready: boolean }>();
  const byPort = new Map<string, { port: EndpointPort | undefined; members: Map<string, boolean> }>();
  for (const entry of entries) {
    const key = addressKey(entry.address);
    addresses.set(key, { address: entry.address, ready: entry.ready });
    const pKey = portKey(entry.port);
    let group = byPort.get(pKey);
    if (!group) byPort.set(pKey, (group = { port: entry.port, members: new Map() }));
    // A not-ready sighting wins, as upstream's mapAddressesByPort keeps the address not ready.
    group.members.set(key, (group.members.get(key) ?? true) && entry.ready);
  }
  const bySet = new Map<string, { members: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, members } of byPort.values()) {
    const setKey = [...members.entries()].map(([key, ready]) => `${key}=${ready}`).sort().join('\u0001');
    let subset = bySet.get(setKey);
    if (!subset) bySet.set(setKey, (subset = { members, ports: [] }));
    if (port) subset.ports.push(port);
  }
  const subsets: EndpointSubset[] = [];
  for (const { members, ports } of bySet.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [key, isReady] of members) {
      const address = addresses.get(key)?.address;
      if (address) (isReady ? ready : notReady).push(address);
    }
    const subset: EndpointSubset = {};
    if (ready.length) subset.addresses = ready.sort(compareAddresses);
    if (notReady.length) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (ports.length) subset.ports = ports.sort((a, b) => (portKey(a) < portKey(b) ? -1 : portKey(a) > portKey(b) ? 1 : 0));
    subsets.push(subset);
  }
  return subsets.sort((a, b) => {
    const keyA = canonicalJson(a);
    const keyB = canonicalJson(b);
    return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
  });
}

/** The subsets upstream syncService computes for a service and the pods its selector matches. */
export function endpointSubsetsFor(service: KubeObject, pods: KubeObject[]): EndpointSubset[] {
  const publishNotReady = specOf(service).publishNotReadyAddresses === true;
  const ports = servicePorts(service);
  const entries: AddressEntry[] = [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const ip = podIPv4(pod);
    if (!ip) continue;
    const address: EndpointAddress = {
      ip,
      nodeName: typeof specOf(pod).nodeName === 'string' ? String(specOf(pod).nodeName) : '',
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
    };
    if (shouldSetHostname(pod, service)) address.hostname = String(specOf(pod).hostname);
    const ready = publishNotReady || isPodReady(pod);
    if (ports.length === 0) {
      // Only a headless service may have no ports.
      if (specOf(service).clusterIP === 'None') entries.push({ address, ready });
      continue;
    }
    for (const servicePort of ports) {
      const number = findPort(pod, servicePort);
      if (number === undefined) continue;
      const port: EndpointPort = { name: servicePort.name, port: number, protocol: servicePort.protocol };
      if (servicePort.appProtocol) port.appProtocol = servicePort.appProtocol;
      entries.push({ address, ready, port });
    }
  }
  return repackSubsets(entries);
}

/** The labels upstream puts on a controller-managed Endpoints: the service's, plus managed-by and headless. */
export function endpointsLabels(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  labels[ENDPOINTS_MANAGED_BY_LABEL] = ENDPOINTS_CONTROLLER_NAME;
  if (isHeadless(service)) labels[HEADLESS_SERVICE_LABEL] = '';
  else delete labels[HEADLESS_SERVICE_LABEL];
  return labels;
}

export type EndpointsControllerOptions = ControllerOptions;

export class EndpointsController extends QueueController {
  private readonly services = this.factory.informerFor(resources.services);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly endpoints = this.factory.informerFor(resources.endpoints);

  constructor(client: ApiClient, factory: SharedInformerFactory, options: EndpointsControllerOptions = {}) {
    super(client, factory, { name: 'endpoint', component: ENDPOINTS_CONTROLLER_NAME, workers: 2, maxRetries: MAX_RETRIES }, options);
    this.enqueueChanges(this.services);
    this.enqueueRelated(this.pods, (pod) => serviceKeysForPod(this.services.listByNamespace(pod.metadata.namespace ?? ''), pod));
    this.handle(this.endpoints, {
      // Upstream checkLeftoverEndpoints: managed Endpoints whose Service vanished while we were down.
      onAdd: (endpoints) => {
        if (endpoints.metadata.labels?.[ENDPOINTS_MANAGED_BY_LABEL] === ENDPOINTS_CONTROLLER_NAME) this.enqueue(endpoints);
      },
      onDelete: (endpoints) => this.enqueue(endpoints),
    });
  }

  async reconcile(key: string): Promise<void> {
    const { namespace = '', name } = splitKey(key);
    const service = this.services.get(namespace, name);
    const current = this.endpoints.get(namespace, name);
    if (!service) {
      if (current && current.metadata.labels?.[ENDPOINTS_MANAGED_BY_LABEL] === ENDPOINTS_CONTROLLER_NAME) {
        try {
          await this.client.resource(resources.endpoints).delete(namespace, name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      return;
    }
    if (!serviceIsManaged(service)) return;
    const pods = this.pods.listByNamespace(namespace).filter((pod) => serviceSelectsPod(service, pod));
    const subsets = endpointSubsetsFor(service, pods);
    const labels = endpointsLabels(service);
    if (current && canonicalJson(current.subsets ?? []) === canonicalJson(subsets) && canonicalJson(current.metadata.labels ?? {}) === canonicalJson(labels)) return;
    const annotations: Record<string, string> = { ...(current?.metadata.annotations ?? {}) };
    annotations[LAST_CHANGE_TRIGGER_TIME_ANNOTATION] = formatTime(this.clock.now());
    const desired: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: current ? { ...structuredClone(current.metadata), labels, annotations } : { name, namespace, labels, annotations },
    };
    if (subsets.length) desired.subsets = subsets;
    const client = this.client.resource(resources.endpoints);
    try {
      if (current) await client.update(desired);
      else await client.create(desired);
    } catch (error) {
      // A terminating namespace refuses new objects; nothing to do until it is gone.
      if (!current && isForbidden(error)) return;
      // Our cache is behind: the informer will deliver the object and requeue us.
      if (!current && isAlreadyExists(error)) throw error;
      if (current) this.recorder.event(desired, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${namespace}/${name}: ${error instanceof Error ? error.message : String(error)}`);
      else this.recorder.event(desired, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${namespace}/${name}: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  }
}
