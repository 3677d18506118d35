// Endpoints and EndpointSlices for the two Services the kubedesk process serves itself, as a real
// cluster has them:
// - `default/kubernetes` as the apiserver's endpoint reconciler writes it
//   (pkg/controlplane/reconcilers/endpointsadapter.go): Endpoints labelled
//   `endpointslice.kubernetes.io/skip-mirror`, one subset, port `https` 6443/TCP; the EndpointSlice
//   named `kubernetes`, labelled only `kubernetes.io/service-name`, its endpoint ready;
// - `kube-system/kube-dns` as the endpoints and EndpointSlice controllers write it for CoreDNS pods:
//   the Service's labels plus their managed-by labels, ports `dns` 53/UDP and `dns-tcp` 53/TCP, a
//   slice named `kube-dns-<suffix>` owned by the Service, its endpoint ready and serving.
// The address is the one pods reach both at: kd-netd's on the cluster network, where it serves the
// API on 6443 and DNS on 53 as it serves the Services' ClusterIPs (serviceProxy.ts). Level-triggered
// like the reconciler: a change to these objects or Services, kd-netd's address changing, and a pass
// every 10 s (upstream's endpoint reconcile interval) put them back as they should be.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import type { ApiClient } from '../client/apiClient';
import { isAlreadyExists, isConflict, isNotFound } from '../client/errors';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { CoalescedSync } from './coalescedSync';

export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
const SLICE_MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
const SLICE_CONTROLLER = 'endpointslice-controller.k8s.io';
const ENDPOINTS_MANAGED_BY_LABEL = 'endpoints.kubernetes.io/managed-by';
const ENDPOINTS_CONTROLLER = 'endpoint-controller';
const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

interface EndpointPort {
  name: string;
  port: number;
  protocol: string;
}

/** The API server's port as the reconciler publishes it (kube-apiserver's secure port). */
export const apiServerPorts: EndpointPort[] = [{ name: 'https', port: 6443, protocol: 'TCP' }];

/** Cluster DNS ports: the kube-dns Service's, at the port kd-netd serves them on. */
export function dnsPorts(service: KubeObject): EndpointPort[] {
  const ports = isRecord(service.spec) && Array.isArray(service.spec.ports) ? service.spec.ports.filter(isRecord) : [];
  return ports
    .filter((port) => port.protocol === 'UDP' || port.protocol === 'TCP' || port.protocol === undefined)
    .map((port) => ({ name: typeof port.name === 'string' ? port.name : '', port: typeof port.targetPort === 'number' ? port.targetPort : Number(port.port), protocol: typeof port.protocol === 'string' ? port.protocol : 'TCP' }))
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

/** endpointsadapter updateEndpoints: what the `kubernetes` Endpoints holds. */
export function apiServerEndpoints(address: string): Pick<KubeObject, 'metadata'> & { subsets: unknown[] } {
  return {
    metadata: { name: 'kubernetes', namespace: 'default', labels: { [SKIP_MIRROR_LABEL]: 'true' } },
    subsets: [{ addresses: [{ ip: address }], ports: apiServerPorts }],
  };
}

/** endpointsadapter updateEndpointSlice: what the `kubernetes` EndpointSlice holds. */
export function apiServerEndpointSlice(address: string): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { [SERVICE_NAME_LABEL]: 'kubernetes' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: apiServerPorts,
  };
}

/** The endpoints controller's labels for a Service's Endpoints. */
export function endpointsControllerLabels(service: KubeObject): Record<string, string> {
  return { ...(service.metadata.labels ?? {}), [ENDPOINTS_MANAGED_BY_LABEL]: ENDPOINTS_CONTROLLER };
}

/** The EndpointSlice controller's labels for a Service's slices. */
export function sliceControllerLabels(service: KubeObject): Record<string, string> {
  const labels = { ...(service.metadata.labels ?? {}) };
  delete labels[SERVICE_NAME_LABEL];
  delete labels[SLICE_MANAGED_BY_LABEL];
  return { ...labels, [SERVICE_NAME_LABEL]: service.metadata.name ?? '', [SLICE_MANAGED_BY_LABEL]: SLICE_CONTROLLER };
}

/** JSON with sorted keys, to compare objects regardless of key order. */
function canonical(value: unknown): string {
  const sortKeys = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sortKeys);
    if (isRecord(item)) return Object.fromEntries(Object.keys(item).sort().filter((key) => item[key] !== undefined).map((key) => [key, sortKeys(item[key])]));
    return item;
  };
  return JSON.stringify(sortKeys(value));
}

export interface SystemServiceEndpointsOptions {
  /** kd-netd's address on the cluster network, once it runs */
  address: () => string | undefined;
  /** who writes: the API server itself (the `kubernetes` objects), the endpoints and EndpointSlice controllers (kube-dns's) */
  clients: { apiServer: ApiClient; endpointsController: ApiClient; endpointSliceController: ApiClient };
  /** a full pass this often; default 10 s (upstream's endpoint reconcile interval) */
  intervalMs?: number;
  now?: () => Date;
  onError?: (error: unknown) => void;
}

export class SystemServiceEndpoints {
  private readonly services: Informer;
  private readonly endpoints: Informer;
  private readonly slices: Informer;
  private readonly syncs: CoalescedSync;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    factory: SharedInformerFactory,
    private readonly options: SystemServiceEndpointsOptions,
  ) {
    this.services = factory.informerFor(resources.services);
    this.endpoints = factory.informerFor(resources.endpoints);
    this.slices = factory.informerFor(resources.endpointslices);
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: 'system service endpoints', retryIntervalMs: 1_000, onError: options.onError });
  }

  start(): void {
    for (const informer of [this.services, this.endpoints, this.slices]) this.syncs.follow(informer);
    this.syncs.request();
    this.timer = setInterval(() => this.request(), this.options.intervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Asks for a pass (kd-netd's address may have changed). */
  request(): void {
    this.syncs.request();
  }

  /** Resolves once every pass asked for so far has run (tests). */
  idle(): Promise<void> {
    return this.syncs.idle();
  }

  async dispose(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.syncs.dispose();
  }

  private async sync(): Promise<void> {
    const address = this.options.address();
    if (!address || !this.services.hasSynced() || !this.endpoints.hasSynced() || !this.slices.hasSynced()) return;
    const kubernetes = this.services.get('default', 'kubernetes');
    if (kubernetes) {
      await this.ensureEndpoints(this.options.clients.apiServer, apiServerEndpoints(address));
      await this.ensureApiServerSlice(address);
    }
    const dns = this.services.get('kube-system', 'kube-dns');
    if (dns) {
      const ports = dnsPorts(dns);
      const endpoints = { metadata: { name: 'kube-dns', namespace: 'kube-system', labels: endpointsControllerLabels(dns) }, subsets: [{ addresses: [{ ip: address }], ports }] };
      await this.ensureEndpoints(this.options.clients.endpointsController, endpoints);
      await this.ensureDnsSlice(dns, address, ports);
    }
  }

  /** Creates or resets an Endpoints object to `desired` (subsets and labels, as the reconciler compares). */
  private async ensureEndpoints(client: ApiClient, desired: Pick<KubeObject, 'metadata'> & { subsets: unknown[] }): Promise<void> {
    const { namespace = '', name = '' } = desired.metadata;
    const current = this.endpoints.get(namespace, name);
    const api = client.resource(resources.endpoints);
    const now = this.now();
    // the controller's trigger-time annotation marks a change of its endpoints; the apiserver writes none
    const annotate = (annotations: Record<string, string> | undefined) => (desired.metadata.labels?.[ENDPOINTS_MANAGED_BY_LABEL] ? { ...(annotations ?? {}), [LAST_CHANGE_TRIGGER_TIME]: now } : annotations);
    if (!current) {
      await this.write(() => api.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { ...desired.metadata, annotations: annotate(undefined) }, subsets: desired.subsets }));
      return;
    }
    if (canonical(current.subsets) === canonical(desired.subsets) && canonical(current.metadata.labels ?? {}) === canonical(desired.metadata.labels)) return;
    const updated: KubeObject = { ...structuredClone(current), apiVersion: 'v1', kind: 'Endpoints', subsets: desired.subsets };
    updated.metadata.labels = desired.metadata.labels;
    const annotations = annotate(updated.metadata.annotations);
    if (annotations) updated.metadata.annotations = annotations;
    await this.write(() => api.update(updated));
  }

  private async ensureApiServerSlice(address: string): Promise<void> {
    const desired = apiServerEndpointSlice(address);
    const api = this.options.clients.apiServer.resource(resources.endpointslices);
    // the reconciler owns every slice labelled with the Service's name: others are stale
    const owned = this.slices.listByNamespace('default').filter((slice) => slice.metadata.labels?.[SERVICE_NAME_LABEL] === 'kubernetes');
    for (const stale of owned.filter((slice) => slice.metadata.name !== 'kubernetes')) await this.write(() => api.delete('default', stale.metadata.name ?? ''));
    const current = owned.find((slice) => slice.metadata.name === 'kubernetes');
    if (!current) {
      await this.write(() => api.create(desired));
      return;
    }
    if (sameSlice(current, desired)) return;
    await this.write(() => api.update({ ...structuredClone(current), ...body(desired), metadata: { ...current.metadata, labels: desired.metadata.labels } }));
  }

  private async ensureDnsSlice(service: KubeObject, address: string, ports: EndpointPort[]): Promise<void> {
    const api = this.options.clients.endpointSliceController.resource(resources.endpointslices);
    const labels = sliceControllerLabels(service);
    const ownerReferences = [{ apiVersion: 'v1', kind: 'Service', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }];
    const desired: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { generateName: 'kube-dns-', namespace: 'kube-system', labels, ownerReferences, annotations: { [LAST_CHANGE_TRIGGER_TIME]: this.now() } },
      addressType: 'IPv4',
      endpoints: [{ addresses: [address], conditions: { ready: true, serving: true, terminating: false } }],
      ports,
    };
    const owned = this.slices.listByNamespace('kube-system').filter((slice) => slice.metadata.labels?.[SERVICE_NAME_LABEL] === 'kube-dns' && slice.metadata.labels[SLICE_MANAGED_BY_LABEL] === SLICE_CONTROLLER);
    const [current, ...extra] = owned.sort((left, right) => ((left.metadata.name ?? '') < (right.metadata.name ?? '') ? -1 : 1));
    for (const stale of extra) await this.write(() => api.delete('kube-system', stale.metadata.name ?? ''));
    if (!current) {
      await this.write(() => api.create(desired));
      return;
    }
    const sameOwner = (current.metadata.ownerReferences ?? []).some((reference) => reference.uid === service.metadata.uid && reference.controller);
    if (sameSlice(current, desired) && sameOwner) return;
    const updated: KubeObject = { ...structuredClone(current), ...body(desired) };
    updated.metadata.labels = labels;
    updated.metadata.ownerReferences = ownerReferences;
    updated.metadata.annotations = { ...(current.metadata.annotations ?? {}), [LAST_CHANGE_TRIGGER_TIME]: this.now() };
    await this.write(() => api.update(updated));
  }

  /** A write whose conflict or race means our cache is behind: the informer brings another pass. */
  private async write(run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (isConflict(error) || isAlreadyExists(error) || isNotFound(error)) {
        this.syncs.retryLater();
        return;
      }
      throw error;
    }
  }

  private now(): string {
    return formatTime(this.options.now?.() ?? new Date());
  }
}

function body(slice: KubeObject): Record<string, unknown> {
  return { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: slice.addressType, endpoints: slice.endpoints, ports: slice.ports };
}

/** endpointsadapter's comparison: endpoints, ports and labels. */
function sameSlice(current: KubeObject, desired: KubeObject): boolean {
  return canonical(current.endpoints) === canonical(desired.endpoints) && canonical(current.ports) === canonical(desired.ports) && canonical(current.metadata.labels ?? {}) === canonical(desired.metadata.labels ?? {}) && current.addressType === desired.addressType;
}
