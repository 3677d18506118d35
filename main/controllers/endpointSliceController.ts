// EndpointSliceController: keeps discovery.k8s.io/v1 EndpointSlices for every Service with a
// selector, after upstream pkg/controller/endpointslice/endpointslice_controller.go and
// staging/src/k8s.io/endpointslice (reconciler.go, utils.go): IPv4 slices named `<service>-<suffix>`,
// owned by the Service, labelled kubernetes.io/service-name and
// endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io; one endpoint per pod with
// conditions ready/serving/terminating, targetRef, nodeName and the node's zone; endpoints offering
// the same ports share slices of at most 100 endpoints. A service without endpoints keeps one empty
// placeholder slice, as upstream.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { isForbidden, isNotFound } from '../client/errors';
import { splitKey, type SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { isPodReady, specOf } from './controllerUtils';
import {
  canonicalJson,
  findPort,
  HEADLESS_SERVICE_LABEL,
  isHeadless,
  LAST_CHANGE_TRIGGER_TIME_ANNOTATION,
  podIPv4,
  serviceIsManaged,
  serviceKeysForPod,
  servicePorts,
  serviceSelectsPod,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from './endpointsController';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const SLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const SLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** upstream --max-endpoints-per-slice default */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const BY_SERVICE_INDEX = 'service';

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  hostname?: string;
  targetRef: { kind: string; namespace?: string; name?: string; uid?: string };
  nodeName?: string;
  zone?: string;
}

export interface SlicePort {
  name: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface DesiredSlice {
  ports: SlicePort[];
  endpoints: SliceEndpoint[];
}

function portsKey(ports: SlicePort[] | undefined): string {
  return canonicalJson(ports ?? []);
}

/**
 * What the reconciler wants for a service: endpoints grouped by the ports they offer, chunked to
 * `maxPerSlice`. Terminating pods stay (ready false), so consumers can drain connections.
 */
export function desiredSlices(service: KubeObject, pods: KubeObject[], zoneOfNode: (nodeName: string) => string | undefined, maxPerSlice = MAX_ENDPOINTS_PER_SLICE): DesiredSlice[] {
  const publishNotReady = specOf(service).publishNotReadyAddresses === true;
  const ports = servicePorts(service);
  const groups = new Map<string, DesiredSlice>();
  const sortedPods = [...pods].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const pod of sortedPods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ip = podIPv4(pod);
    if (!ip) continue;
    const podPorts: SlicePort[] = [];
    for (const servicePort of ports) {
      const number = findPort(pod, servicePort);
      if (number === undefined) continue;
      const port: SlicePort = { name: servicePort.name, port: number, protocol: servicePort.protocol };
      if (servicePort.appProtocol) port.appProtocol = servicePort.appProtocol;
      podPorts.push(port);
    }
    // upstream skips a pod that offers none of a ported service's ports (unless headless)
    if (ports.length > 0 && podPorts.length === 0 && !isHeadless(service)) continue;
    const serving = isPodReady(pod);
    const terminating = Boolean(pod.metadata.deletionTimestamp);
    const endpoint: SliceEndpoint = {
      addresses: [ip],
      conditions: { ready: publishNotReady || (serving && !terminating), serving, terminating },
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid },
    };
    if (shouldSetHostname(pod, service)) endpoint.hostname = String(specOf(pod).hostname);
    const nodeName = specOf(pod).nodeName;
    if (typeof nodeName === 'string' && nodeName !== '') {
      endpoint.nodeName = nodeName;
      const zone = zoneOfNode(nodeName);
      if (zone) endpoint.zone = zone;
    }
    const key = portsKey(podPorts);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports: podPorts, endpoints: [] }));
    group.endpoints.push(endpoint);
  }
  const slices: DesiredSlice[] = [];
  for (const group of groups.values()) {
    for (let start = 0; start < group.endpoints.length; start += maxPerSlice) slices.push({ ports: group.ports, endpoints: group.endpoints.slice(start, start + maxPerSlice) });
  }
  return slices;
}

/** upstream setEndpointSliceLabels: the service's labels minus the reserved ones, plus ours. */
export function sliceLabels(service: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata.labels ?? {}) };
  delete labels[SERVICE_NAME_LABEL];
  delete labels[SLICE_MANAGED_BY_LABEL];
  delete labels[HEADLESS_SERVICE_LABEL];
  labels[SERVICE_NAME_LABEL] = service.metadata.name ?? '';
  labels[SLICE_MANAGED_BY_LABEL] = SLICE_CONTROLLER_NAME;
  if (isHeadless(service)) labels[HEADLESS_SERVICE_LABEL] = '';
  return labels;
}

function sliceContent(slice: KubeObject): { ports: string; endpoints: string } {
  const ports = Array.isArray(slice.ports) ? slice.ports.filter(isRecord).map((port) => ({ ...port, name: typeof port.name === 'string' ? port.name : '' })) : [];
  return { ports: canonicalJson(ports), endpoints: canonicalJson(Array.isArray(slice.endpoints) ? slice.endpoints : []) };
}

export interface EndpointSliceControllerOptions extends ControllerOptions {
  maxEndpointsPerSlice?: number;
}

/** The key of the Service a slice this controller manages belongs to (none for other slices). */
function serviceKeyOfSlice(slice: KubeObject): string[] {
  const labels = slice.metadata.labels ?? {};
  return labels[SLICE_MANAGED_BY_LABEL] === SLICE_CONTROLLER_NAME && labels[SERVICE_NAME_LABEL] ? [`${slice.metadata.namespace ?? ''}/${labels[SERVICE_NAME_LABEL]}`] : [];
}

export class EndpointSliceController extends QueueController {
  private readonly services = this.factory.informerFor(resources.services);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly nodes = this.factory.informerFor(resources.nodes);
  private readonly slices = this.factory.informerFor(resources.endpointslices);
  /** Slices created but not yet seen by the informer, per service key (upstream's slice tracker). */
  private readonly pendingCreates = new Map<string, Map<string, number>>();

  constructor(client: ApiClient, factory: SharedInformerFactory, private readonly options: EndpointSliceControllerOptions = {}) {
    super(client, factory, { name: 'endpoint_slice', component: 'endpointslice-controller', workers: 2, maxRetries: 15 }, options);
    try {
      this.slices.addIndexer(BY_SERVICE_INDEX, serviceKeyOfSlice);
    } catch {
      // A second controller instance on the same factory (tests) reuses the index.
    }
    this.enqueueChanges(this.services);
    this.enqueueRelated(this.pods, (pod) => serviceKeysForPod(this.services.listByNamespace(pod.metadata.namespace ?? ''), pod));
    // Slices changed or removed by someone else are put back; leftovers of deleted services are removed.
    this.enqueueRelated(this.slices, serviceKeyOfSlice);
  }

  async reconcile(key: string): Promise<void> {
    const { namespace = '', name } = splitKey(key);
    const service = this.services.get(namespace, name);
    if (this.awaitingOwnCreates(key)) {
      // Acting on a cache without our own new slice would create a duplicate.
      this.queue.addAfter(key, 100);
      return;
    }
    const existing = this.slices.byIndex(BY_SERVICE_INDEX, key).filter((slice) => !slice.metadata.deletionTimestamp);
    const api = this.client.resource(resources.endpointslices);
    if (!service || !serviceIsManaged(service)) {
      // Upstream leaves this to the garbage collector (owner references); doing it here keeps a
      // cluster without one tidy. A selector-less service's own slices are not labelled as ours.
      if (!service) for (const slice of existing) await this.deleteIgnoringMissing(slice);
      return;
    }
    const pods = this.pods.listByNamespace(namespace).filter((pod) => serviceSelectsPod(service, pod));
    const zoneOf = (nodeName: string) => this.nodes.get(undefined, nodeName)?.metadata.labels?.[ZONE_LABEL];
    let desired = desiredSlices(service, pods, zoneOf, this.options.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE);
    if (desired.length === 0) desired = [{ ports: [], endpoints: [] }];
    const labels = sliceLabels(service);
    const ownerReferences = [{ apiVersion: 'v1', kind: 'Service', name, uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
    const unused = [...existing].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const now = formatTime(this.clock.now());
    // Pair each wanted slice with an existing one offering the same ports, then with any leftover.
    const pairs: { want: DesiredSlice; have?: KubeObject }[] = desired.map((want) => {
      const index = unused.findIndex((slice) => sliceContent(slice).ports === canonicalJson(want.ports));
      return { want, have: index >= 0 ? unused.splice(index, 1)[0] : undefined };
    });
    for (const pair of pairs) if (!pair.have && unused.length) pair.have = unused.shift();
    for (const { want, have } of pairs) {
      const body = { ports: want.ports.length ? want.ports : null, endpoints: want.endpoints };
      if (have) {
        const content = sliceContent(have);
        const sameLabels = canonicalJson(have.metadata.labels ?? {}) === canonicalJson(labels);
        const sameOwner = (have.metadata.ownerReferences ?? []).some((ref) => ref.uid === service.metadata.uid && ref.controller);
        if (content.ports === canonicalJson(want.ports) && content.endpoints === canonicalJson(want.endpoints) && sameLabels && sameOwner) continue;
        const updated: KubeObject = {
          ...structuredClone(have),
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          addressType: 'IPv4',
          ...body,
        };
        updated.metadata.labels = labels;
        updated.metadata.ownerReferences = ownerReferences;
        updated.metadata.annotations = { ...(have.metadata.annotations ?? {}), [LAST_CHANGE_TRIGGER_TIME_ANNOTATION]: now };
        await api.update(updated);
      } else {
        const created: KubeObject = {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: `${name}-`, namespace, labels, annotations: { [LAST_CHANGE_TRIGGER_TIME_ANNOTATION]: now }, ownerReferences },
          addressType: 'IPv4',
          ...body,
        };
        try {
          const stored = await api.create(created);
          let pending = this.pendingCreates.get(key);
          if (!pending) this.pendingCreates.set(key, (pending = new Map()));
          pending.set(stored.metadata.name ?? '', this.clock.now());
        } catch (error) {
          if (isForbidden(error)) return;
          throw error;
        }
      }
    }
    for (const slice of unused) await this.deleteIgnoringMissing(slice);
  }

  private awaitingOwnCreates(key: string): boolean {
    const pending = this.pendingCreates.get(key);
    if (!pending) return false;
    const { namespace } = splitKey(key);
    for (const [name, at] of pending) {
      // Seen, or given up on after 30 s (it may have been deleted before we saw it).
      if (this.slices.get(namespace, name) || this.clock.now() - at > 30_000) pending.delete(name);
    }
    if (pending.size === 0) this.pendingCreates.delete(key);
    return pending.size > 0;
  }

  private async deleteIgnoringMissing(slice: KubeObject): Promise<void> {
    try {
      await this.client.resource(resources.endpointslices).delete(slice.metadata.namespace, slice.metadata.name ?? '');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
