// Well-known resources (group, version, plural, scope) the built-in components use, as upstream's
// generated clientsets know them (k8s.io/client-go/kubernetes/typed/*). Paths are built from these.

export interface GroupVersionResource {
  /** '' for the core ("legacy") group served under /api. */
  group: string;
  version: string;
  /** Lower-case plural, as in the URL. */
  resource: string;
  namespaced: boolean;
  /** Kind of one object, when known; used in messages and to fill apiVersion/kind on create. */
  kind?: string;
}

function core(resource: string, kind: string, namespaced = true): GroupVersionResource {
  return { group: '', version: 'v1', resource, namespaced, kind };
}

function grouped(group: string, version: string, resource: string, kind: string, namespaced = true): GroupVersionResource {
  return { group, version, resource, namespaced, kind };
}

export const resources = {
  pods: core('pods', 'Pod'),
  nodes: core('nodes', 'Node', false),
  namespaces: core('namespaces', 'Namespace', false),
  services: core('services', 'Service'),
  endpoints: core('endpoints', 'Endpoints'),
  configmaps: core('configmaps', 'ConfigMap'),
  secrets: core('secrets', 'Secret'),
  serviceaccounts: core('serviceaccounts', 'ServiceAccount'),
  events: core('events', 'Event'),
  podtemplates: core('podtemplates', 'PodTemplate'),
  limitranges: core('limitranges', 'LimitRange'),
  resourcequotas: core('resourcequotas', 'ResourceQuota'),
  persistentvolumeclaims: core('persistentvolumeclaims', 'PersistentVolumeClaim'),
  persistentvolumes: core('persistentvolumes', 'PersistentVolume', false),
  replicationcontrollers: core('replicationcontrollers', 'ReplicationController'),
  leases: grouped('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  deployments: grouped('apps', 'v1', 'deployments', 'Deployment'),
  replicasets: grouped('apps', 'v1', 'replicasets', 'ReplicaSet'),
  statefulsets: grouped('apps', 'v1', 'statefulsets', 'StatefulSet'),
  daemonsets: grouped('apps', 'v1', 'daemonsets', 'DaemonSet'),
  controllerrevisions: grouped('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
  jobs: grouped('batch', 'v1', 'jobs', 'Job'),
  cronjobs: grouped('batch', 'v1', 'cronjobs', 'CronJob'),
  endpointslices: grouped('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice'),
  eventsV1: grouped('events.k8s.io', 'v1', 'events', 'Event'),
  ingresses: grouped('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
  ingressclasses: grouped('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass', false),
  networkpolicies: grouped('networking.k8s.io', 'v1', 'networkpolicies', 'NetworkPolicy'),
  poddisruptionbudgets: grouped('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  priorityclasses: grouped('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false),
  certificatesigningrequests: grouped('certificates.k8s.io', 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
  clusterroles: grouped('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  customresourcedefinitions: grouped('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
} satisfies Record<string, GroupVersionResource>;

/** `v1` for core, `apps/v1` for groups. */
export function apiVersionOf(gvr: Pick<GroupVersionResource, 'group' | 'version'>): string {
  return gvr.group === '' ? gvr.version : `${gvr.group}/${gvr.version}`;
}

/** `deployments.apps`, `pods`: the qualified resource upstream uses in messages. */
export function groupResourceString(gvr: Pick<GroupVersionResource, 'group' | 'resource'>): string {
  return gvr.group === '' ? gvr.resource : `${gvr.resource}.${gvr.group}`;
}

/**
 * The URL path for a resource, collection or subresource: `/api/v1/namespaces/{ns}/pods/{name}/status`,
 * `/apis/apps/v1/deployments` (all namespaces), `/api/v1/nodes/{name}` (cluster-scoped). Segments are
 * URL-encoded. A namespace given for a cluster-scoped resource is ignored.
 */
export function resourcePath(gvr: GroupVersionResource, namespace?: string, name?: string, subresource?: string): string {
  let path = gvr.group === '' ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  if (gvr.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${gvr.resource}`;
  if (name !== undefined) {
    if (name === '') throw new Error(`resource name may not be empty (${groupResourceString(gvr)})`);
    path += `/${encodeURIComponent(name)}`;
    if (subresource) path += `/${subresource}`;
  } else if (subresource) {
    throw new Error('a subresource needs a resource name');
  }
  return path;
}
