// The kinds kubedesk serves, with their discovery metadata (as `kubectl api-resources` shows on a
// real 1.35 cluster) and their strategy hooks: defaults, validation, status rules, printers and
// selectable fields (upstream pkg/registry/<group>/<kind>/strategy.go).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ResourceDef, SubresourceDef } from './types';
import { kindHooks } from './kindHooks';

const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface ResourceMeta {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  /** subresource names: status and scale are understood; others are listed in discovery */
  subresources?: string[];
  hasGeneration?: boolean;
  selectableFields?: (obj: KubeObject) => Record<string, string>;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

function at(obj: unknown, ...path: string[]): unknown {
  let current: unknown = obj;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

function podFields(pod: KubeObject): Record<string, string> {
  return {
    'spec.nodeName': text(at(pod, 'spec', 'nodeName')),
    'spec.restartPolicy': text(at(pod, 'spec', 'restartPolicy')),
    'spec.schedulerName': text(at(pod, 'spec', 'schedulerName')),
    'spec.serviceAccountName': text(at(pod, 'spec', 'serviceAccountName')),
    'spec.hostNetwork': at(pod, 'spec', 'hostNetwork') === true ? 'true' : 'false',
    'status.phase': text(at(pod, 'status', 'phase')),
    'status.podIP': text(at(pod, 'status', 'podIP')),
    'status.nominatedNodeName': text(at(pod, 'status', 'nominatedNodeName')),
  };
}

function coreEventFields(event: KubeObject): Record<string, string> {
  const involved = (key: string) => text(at(event, 'involvedObject', key));
  return {
    'involvedObject.kind': involved('kind'),
    'involvedObject.namespace': involved('namespace'),
    'involvedObject.name': involved('name'),
    'involvedObject.uid': involved('uid'),
    'involvedObject.apiVersion': involved('apiVersion'),
    'involvedObject.resourceVersion': involved('resourceVersion'),
    'involvedObject.fieldPath': involved('fieldPath'),
    reason: text(event.reason),
    reportingComponent: text(event.reportingComponent),
    source: text(at(event, 'source', 'component')),
    type: text(event.type),
  };
}

function eventsV1Fields(event: KubeObject): Record<string, string> {
  const regarding = (key: string) => text(at(event, 'regarding', key));
  return {
    'regarding.kind': regarding('kind'),
    'regarding.namespace': regarding('namespace'),
    'regarding.name': regarding('name'),
    'regarding.uid': regarding('uid'),
    'regarding.apiVersion': regarding('apiVersion'),
    'regarding.resourceVersion': regarding('resourceVersion'),
    'regarding.fieldPath': regarding('fieldPath'),
    reason: text(event.reason),
    reportingController: text(event.reportingController),
    type: text(event.type),
  };
}

const metas: ResourceMeta[] = [
  { group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], subresources: ['finalize', 'status'], selectableFields: (ns) => ({ 'status.phase': text(at(ns, 'status', 'phase')) }) },
  { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], categories: ['all'], subresources: ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'resize', 'status'], hasGeneration: true, selectableFields: podFields },
  { group: '', version: 'v1', resource: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: ['proxy', 'status'], selectableFields: (svc) => ({ 'spec.clusterIP': text(at(svc, 'spec', 'clusterIP')), 'spec.type': text(at(svc, 'spec', 'type')) }) },
  { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true, shortNames: ['ep'] },
  { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true, selectableFields: (secret) => ({ type: text(secret.type) }) },
  { group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'], subresources: ['token'] },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], selectableFields: coreEventFields },
  { group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], subresources: ['proxy', 'status'], selectableFields: (node) => ({ 'spec.unschedulable': at(node, 'spec', 'unschedulable') === true ? 'true' : 'false' }) },
  { group: '', version: 'v1', resource: 'limitranges', kind: 'LimitRange', namespaced: true, shortNames: ['limits'] },
  { group: '', version: 'v1', resource: 'resourcequotas', kind: 'ResourceQuota', namespaced: true, shortNames: ['quota'], subresources: ['status'] },
  { group: '', version: 'v1', resource: 'podtemplates', kind: 'PodTemplate', namespaced: true },
  { group: '', version: 'v1', resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], subresources: ['status'] },
  { group: '', version: 'v1', resource: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false, shortNames: ['pv'], subresources: ['status'] },
  { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: ['scale', 'status'], hasGeneration: true },
  { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: ['scale', 'status'], hasGeneration: true, selectableFields: (rs) => ({ 'status.replicas': text(at(rs, 'status', 'replicas') ?? 0) }) },
  { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: ['scale', 'status'], hasGeneration: true },
  { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: ['status'], hasGeneration: true },
  { group: 'apps', version: 'v1', resource: 'controllerrevisions', kind: 'ControllerRevision', namespaced: true },
  { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'], hasGeneration: true },
  // served from the autoscaling/v2 objects by conversion (main/apiserver/conversion/horizontalPodAutoscalerV1.ts)
  { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: ['status'], hasGeneration: true },
  { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job', namespaced: true, categories: ['all'], subresources: ['status'], hasGeneration: true, selectableFields: (job) => ({ 'status.successful': text(at(job, 'status', 'succeeded') ?? 0) }) },
  { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: ['status'], hasGeneration: true },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', namespaced: true },
  { group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'], selectableFields: eventsV1Fields },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses', kind: 'Ingress', namespaced: true, shortNames: ['ing'], subresources: ['status'], hasGeneration: true },
  { group: 'networking.k8s.io', version: 'v1', resource: 'ingressclasses', kind: 'IngressClass', namespaced: false, hasGeneration: true },
  // stored and listed; kubedesk does not enforce NetworkPolicy (docs/architecture.md says so)
  { group: 'networking.k8s.io', version: 'v1', resource: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'], hasGeneration: true },
  { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], subresources: ['status'], hasGeneration: true },
  { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false, shortNames: ['sc'] },
  // strategy hooks (validation, status, establishing) come from main/apiserver/crd/customResourceDefinitions.ts
  { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], subresources: ['status'], hasGeneration: true },
  { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false, shortNames: ['pc'] },
  { group: 'node.k8s.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', namespaced: false },
  { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', namespaced: false, shortNames: ['csr'], subresources: ['approval', 'status'] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'mutatingwebhookconfigurations', kind: 'MutatingWebhookConfiguration', namespaced: false, categories: ['api-extensions'], hasGeneration: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies', kind: 'ValidatingAdmissionPolicy', namespaced: false, categories: ['api-extensions'], subresources: ['status'], hasGeneration: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings', kind: 'ValidatingAdmissionPolicyBinding', namespaced: false, categories: ['api-extensions'], hasGeneration: true },
  { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations', kind: 'ValidatingWebhookConfiguration', namespaced: false, categories: ['api-extensions'], hasGeneration: true },
  // reviews: created and answered at once, never stored (main/apiserver/auth/reviews.ts)
  { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'] },
  { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'] },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true, verbs: ['create'] },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, verbs: ['create'] },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false, verbs: ['create'] },
  { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, verbs: ['create'] },
];

const subresourceKinds: Record<string, { kind: string; group?: string; version?: string; verbs: string[] }> = {
  status: { kind: '', verbs: ['get', 'patch', 'update'] },
  approval: { kind: '', verbs: ['get', 'patch', 'update'] },
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  finalize: { kind: 'Namespace', verbs: ['update'] },
  log: { kind: 'Pod', verbs: ['get'] },
  exec: { kind: 'PodExecOptions', verbs: ['create', 'get'] },
  attach: { kind: 'PodAttachOptions', verbs: ['create', 'get'] },
  portforward: { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
  proxy: { kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  binding: { kind: 'Binding', verbs: ['create'] },
  eviction: { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] },
  ephemeralcontainers: { kind: '', verbs: ['get', 'patch', 'update'] },
  resize: { kind: '', verbs: ['get', 'patch', 'update'] },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] },
};

function buildDef(meta: ResourceMeta): ResourceDef {
  const qualified = meta.group ? `${meta.resource}.${meta.group}` : meta.resource;
  const subresources: SubresourceDef[] = (meta.subresources ?? []).map((name) => {
    const info = subresourceKinds[name];
    let kind = info.kind || meta.kind;
    if (name === 'proxy') kind = meta.kind === 'Pod' ? 'PodProxyOptions' : meta.kind === 'Node' ? 'NodeProxyOptions' : 'ServiceProxyOptions';
    return { name, kind, group: info.group ?? meta.group, version: info.version ?? meta.version, verbs: info.verbs };
  });
  const hooks = kindHooks(qualified);
  const extraFields = meta.selectableFields;
  return {
    group: meta.group,
    version: meta.version,
    resource: meta.resource,
    singular: meta.kind.toLowerCase(),
    kind: meta.kind,
    listKind: `${meta.kind}List`,
    namespaced: meta.namespaced,
    shortNames: meta.shortNames ?? [],
    categories: meta.categories ?? [],
    verbs: meta.verbs ?? standardVerbs,
    subresources,
    hasStatus: subresources.some((sub) => sub.name === 'status'),
    hasGeneration: meta.hasGeneration ?? false,
    defaults: hooks.defaults,
    validateCreate: hooks.validateCreate,
    validateUpdate: hooks.validateUpdate,
    prepareForCreate: hooks.prepareForCreate,
    prepareForUpdate: hooks.prepareForUpdate,
    table: hooks.table,
    selectableFields: extraFields ?? (() => ({})),
  };
}

/** All built-in resources, in discovery order. */
export function builtinResources(): ResourceDef[] {
  return metas.map(buildDef);
}

export function qualifiedResource(def: Pick<ResourceDef, 'group' | 'resource'>): string {
  return def.group ? `${def.resource}.${def.group}` : def.resource;
}

export function apiVersionOf(def: Pick<ResourceDef, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
