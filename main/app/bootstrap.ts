// Objects every cluster starts with, created through the API like upstream's bootstrap
// controllers (pkg/controlplane/controller/systemnamespaces, kubernetesservice) and kubeadm's DNS
// add-on: the system namespaces, the `kubernetes` Service on the first address of the service
// range and `kube-system/kube-dns` on the tenth. Both Services are served by the host process (the
// service proxy routes them to its unix sockets), so they have no selector; their Endpoints and
// EndpointSlices are written by network/systemServiceEndpoints.ts. Existing objects are
// left alone, except a Service whose address no longer fits the range, which is recreated as
// upstream's kubernetesservice reconciler does. The namespaces and priority classes need nothing
// else; the Services need the cluster's address plan, so start-up makes them in two steps.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ApiClient } from '../client/apiClient';
import { resources } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { systemPriorityClasses } from '../registry/validation/scheduling';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface BootstrapAddresses {
  kubernetesServiceIp: string;
  dnsServiceIp: string;
}

export async function bootstrapObjects(client: ApiClient, addresses: BootstrapAddresses): Promise<void> {
  await bootstrapSystemObjects(client);
  await bootstrapServices(client, addresses);
}

/** The system namespaces and priority classes. */
export async function bootstrapSystemObjects(client: ApiClient): Promise<void> {
  const namespaces = client.resource(resources.namespaces);
  for (const name of SYSTEM_NAMESPACES) {
    await ignoreExisting(namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }));
  }
  // upstream's scheduling REST PostStartHook: the two system classes every cluster has
  const priorityClasses = client.resource(resources.priorityclasses);
  for (const { name, value, description } of systemPriorityClasses) {
    await ignoreExisting(priorityClasses.create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, description, preemptionPolicy: 'PreemptLowerPriority' }));
  }
}

/** The `kubernetes` and `kube-system/kube-dns` Services on their fixed addresses of the plan. */
export async function bootstrapServices(client: ApiClient, addresses: BootstrapAddresses): Promise<void> {
  await ensureService(client, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: addresses.kubernetesServiceIp,
      clusterIPs: [addresses.kubernetesServiceIp],
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
      sessionAffinity: 'None',
    },
  });
  await ensureService(client, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'kube-dns',
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
      annotations: { 'kubedesk.dev/served-by': 'kubedesk (cluster DNS in the kubedesk process)' },
    },
    spec: {
      type: 'ClusterIP',
      clusterIP: addresses.dnsServiceIp,
      clusterIPs: [addresses.dnsServiceIp],
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
      sessionAffinity: 'None',
    },
  });
}

async function ensureService(client: ApiClient, service: KubeObject): Promise<void> {
  const services = client.resource(resources.services);
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name ?? '';
  const wanted = isRecord(service.spec) ? service.spec.clusterIP : undefined;
  try {
    const existing = await services.get(namespace, name);
    if (isRecord(existing.spec) && existing.spec.clusterIP === wanted) return;
    await services.delete(namespace, name).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await ignoreExisting(services.create(service));
}

async function ignoreExisting(write: Promise<unknown>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}
