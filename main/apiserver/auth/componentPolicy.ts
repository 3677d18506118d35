// The ClusterRoles and ClusterRoleBindings of kubedesk's own components, as upstream
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go (testdata
// controller-roles.yaml, controller-role-bindings.yaml) and policy.go (cluster-roles.yaml):
// every controller runs as the ServiceAccount kube-system/<name> (kube-controller-manager
// --use-service-account-credentials) with ClusterRole system:controller:<name>; the scheduler
// runs as User system:kube-scheduler with system:kube-scheduler and system:volume-scheduler; the
// kubelets run as system:node:<node> in group system:nodes. Upstream authorizes kubelets with the
// Node authorizer (system:node is bound to nobody); kubedesk approximates it with RBAC by binding
// system:node to the group system:nodes, as Kubernetes did before 1.8. The in-process Ingress
// controller, service proxy and DNS server have no upstream counterpart and get the
// kubedesk-specific ClusterRole system:kubedesk:network.
//
// Rules kubedesk needs beyond upstream's (kubedesk's controllers write with PATCH or do work that
// upstream spreads over more controllers) are listed in `kubedeskExtras` below, apart from the
// upstream rules, so the difference stays visible. Missing objects are created at every start;
// a role that exists keeps its rules and gains any of ours it lacks, like upstream's reconciliation
// of roles annotated rbac.authorization.kubernetes.io/autoupdate=true.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import type { ApiServerContext } from '../handlers/request';
import type { PolicyRule } from './rbacAuthorizer';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const WRITE_EVENTS = ['create', 'patch', 'update'];

function rule(verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule {
  return resourceNames ? { apiGroups, resources, resourceNames, verbs } : { apiGroups, resources, verbs };
}

/** upstream's eventsRule(): core and events.k8s.io Events */
const eventsRule = rule(WRITE_EVENTS, ['', 'events.k8s.io'], ['events']);

/** The namespace of the controllers' ServiceAccounts. */
export const CONTROLLER_NAMESPACE = 'kube-system';
export const KUBE_SCHEDULER_USER = 'system:kube-scheduler';
export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
/** kubedesk's ingress controller, service proxy and DNS server run as this ServiceAccount of kube-system. */
export const NETWORK_SERVICE_ACCOUNT = 'kubedesk-network';
export const NETWORK_CLUSTER_ROLE = 'system:kubedesk:network';
/** kubedesk's PortForward controller (kubedesk.dev PortForwards) runs as this ServiceAccount of kube-system. */
export const PORT_FORWARD_SERVICE_ACCOUNT = 'kubedesk-port-forward';
export const PORT_FORWARD_CLUSTER_ROLE = 'system:kubedesk:port-forward';

/** upstream's system:controller:<name> roles for the controllers kubedesk runs (controller-roles.yaml) */
const controllerRules: Record<string, PolicyRule[]> = {
  'certificate-controller': [
    rule(['delete', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/approval', 'certificatesigningrequests/status']),
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    rule(['sign'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving', 'kubernetes.io/legacy-unknown']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    eventsRule,
  ],
  'clusterrole-aggregation-controller': [rule(['escalate', 'get', 'list', 'patch', 'update', 'watch'], [RBAC_GROUP], ['clusterroles'])],
  'cronjob-controller': [
    rule(['get', 'list', 'update', 'watch'], ['batch'], ['cronjobs']),
    rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
    rule(['update'], ['batch'], ['cronjobs/status']),
    rule(['update'], ['batch'], ['cronjobs/finalizers']),
    rule(['delete', 'list', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'daemon-set-controller': [
    rule(READ, ['apps', 'extensions'], ['daemonsets']),
    rule(['update'], ['apps', 'extensions'], ['daemonsets/status']),
    rule(['update'], ['apps', 'extensions'], ['daemonsets/finalizers']),
    rule(['list', 'watch'], [''], ['nodes']),
    rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    rule(['create'], [''], ['pods/binding']),
    rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps'], ['controllerrevisions']),
    eventsRule,
  ],
  'deployment-controller': [
    rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['deployments']),
    rule(['update'], ['apps', 'extensions'], ['deployments/status']),
    rule(['update'], ['apps', 'extensions'], ['deployments/finalizers']),
    rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
    rule(['get', 'list', 'update', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'disruption-controller': [
    rule(READ, ['apps', 'extensions'], ['deployments']),
    rule(READ, ['apps', 'extensions'], ['replicasets']),
    rule(READ, [''], ['replicationcontrollers']),
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['get'], ['*'], ['*/scale']),
    eventsRule,
  ],
  'endpoint-controller': [
    rule(READ, [''], ['pods', 'services']),
    rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['endpoints']),
    rule(['create'], [''], ['endpoints/restricted']),
    eventsRule,
  ],
  'endpointslice-controller': [
    rule(READ, [''], ['nodes', 'pods', 'services']),
    rule(['update'], [''], ['services/finalizers']),
    rule(['create', 'delete', 'get', 'list', 'update', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    eventsRule,
  ],
  'generic-garbage-collector': [rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], ['*'], ['*']), eventsRule],
  'horizontal-pod-autoscaler': [
    rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
    rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
    rule(['get', 'update'], ['*'], ['*/scale']),
    rule(['list', 'watch'], [''], ['pods']),
    rule(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
    rule(READ, ['custom.metrics.k8s.io'], ['*']),
    rule(READ, ['external.metrics.k8s.io'], ['*']),
    eventsRule,
  ],
  'job-controller': [
    rule(['get', 'list', 'patch', 'update', 'watch'], ['batch'], ['jobs']),
    rule(['update'], ['batch'], ['jobs/status']),
    rule(['update'], ['batch'], ['jobs/finalizers']),
    rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'namespace-controller': [
    rule(['delete', 'get', 'list', 'watch'], [''], ['namespaces']),
    rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
    rule(['delete', 'deletecollection', 'get', 'list', 'watch'], ['*'], ['*']),
  ],
  'node-controller': [
    rule(['delete', 'get', 'list', 'patch', 'update', 'watch'], [''], ['nodes']),
    rule(['patch', 'update'], [''], ['nodes/status']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'persistent-volume-binder': [
    rule(['create', 'delete', 'get', 'list', 'update', 'watch'], [''], ['persistentvolumes']),
    rule(['update'], [''], ['persistentvolumes/status']),
    rule(['get', 'list', 'update', 'watch'], [''], ['persistentvolumeclaims']),
    rule(['update'], [''], ['persistentvolumeclaims/status']),
    rule(['create', 'delete', 'get', 'list', 'watch'], [''], ['pods']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['list', 'watch'], [''], ['nodes']),
    eventsRule,
    rule(['watch'], [''], ['events']),
  ],
  'pod-garbage-collector': [rule(['delete', 'list', 'watch'], [''], ['pods']), rule(READ, [''], ['nodes']), rule(['patch'], [''], ['pods/status'])],
  'replicaset-controller': [
    rule(['get', 'list', 'update', 'watch'], ['apps', 'extensions'], ['replicasets']),
    rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
    rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
    rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'replication-controller': [
    rule(['get', 'list', 'update', 'watch'], [''], ['replicationcontrollers']),
    rule(['update'], [''], ['replicationcontrollers/status']),
    rule(['update'], [''], ['replicationcontrollers/finalizers']),
    rule(['create', 'delete', 'list', 'patch', 'watch'], [''], ['pods']),
    eventsRule,
  ],
  'resourcequota-controller': [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), eventsRule],
  'root-ca-cert-publisher': [rule(['create', 'update'], [''], ['configmaps']), eventsRule],
  'service-account-controller': [rule(['create'], [''], ['serviceaccounts']), eventsRule],
  // the cloud-controller-manager's service controller (upstream's cloud-controller-manager role):
  // it also patches Services, for the load-balancer-cleanup finalizer
  'service-controller': [rule(READ, [''], ['services']), rule(['patch', 'update'], [''], ['services']), rule(['patch', 'update'], [''], ['services/status']), rule(['list', 'watch'], [''], ['nodes']), eventsRule],
  'statefulset-controller': [
    rule(['list', 'watch'], [''], ['pods']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(['update'], ['apps'], ['statefulsets/status']),
    rule(['update'], ['apps'], ['statefulsets/finalizers']),
    rule(['create', 'delete', 'get', 'patch', 'update'], [''], ['pods']),
    rule(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], ['apps'], ['controllerrevisions']),
    rule(['create', 'get', 'list', 'watch'], [''], ['persistentvolumeclaims']),
    rule(['delete', 'update'], [''], ['persistentvolumeclaims']),
    rule(['update'], [''], ['pods/finalizers']),
    eventsRule,
  ],
  'ttl-after-finished-controller': [rule(['delete', 'get', 'list', 'watch'], ['batch'], ['jobs']), eventsRule],
};

/**
 * What kubedesk's controllers need beyond upstream's roles, appended to those roles:
 * writes made with a merge patch where upstream's controllers PUT (status, scale, the
 * deployment's revision annotation, a claim's ownerReferences, kube-root-ca.crt), and the default
 * StorageClass the local path provisioner creates (kind's local-path-provisioner ships it as a
 * manifest instead).
 */
const kubedeskExtras: Record<string, PolicyRule[]> = {
  'daemon-set-controller': [rule(['patch'], ['apps'], ['daemonsets/status'])],
  'deployment-controller': [rule(['patch'], ['apps'], ['deployments'])],
  'horizontal-pod-autoscaler': [rule(['patch'], ['autoscaling'], ['horizontalpodautoscalers/status']), rule(['patch'], ['*'], ['*/scale'])],
  'persistent-volume-binder': [
    rule(['patch'], [''], ['persistentvolumes/status', 'persistentvolumeclaims/status']),
    rule(['create'], ['storage.k8s.io'], ['storageclasses']),
  ],
  'root-ca-cert-publisher': [rule(['patch'], [''], ['configmaps'])],
  'statefulset-controller': [rule(['patch'], ['apps'], ['statefulsets/status']), rule(['patch'], [''], ['persistentvolumeclaims'])],
};

/**
 * Controllers whose work upstream splits over two controllers run as one identity: the second
 * controller's role is bound to it as well (kubedesk's job controller also deletes finished jobs
 * after ttlSecondsAfterFinished; its namespace-defaults controller also publishes kube-root-ca.crt).
 */
const sharedRoles: Record<string, string[]> = {
  'ttl-after-finished-controller': ['job-controller'],
  'root-ca-cert-publisher': ['service-account-controller'],
};

/** The controllers' ServiceAccount names in kube-system (plus kubedesk's network components'). */
export function controllerServiceAccountNames(): string[] {
  return [...Object.keys(controllerRules), NETWORK_SERVICE_ACCOUNT, PORT_FORWARD_SERVICE_ACCOUNT];
}

/** system:kubedesk:network: what the ingress controller, service proxy and cluster DNS read and write. */
const networkRules: PolicyRule[] = [
  rule(READ, [''], ['services', 'pods', 'namespaces', 'secrets']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingressclasses']),
  rule(['patch', 'update'], ['networking.k8s.io'], ['ingresses/status']),
  // the IngressClass `kubedesk`, created when missing
  rule(['create'], ['networking.k8s.io'], ['ingressclasses']),
  eventsRule,
];

/** system:kubedesk:port-forward: the PortForward controller reads forwards and their targets and writes forward status only. */
const portForwardRules: PolicyRule[] = [
  rule(READ, ['kubedesk.dev'], ['portforwards']),
  rule(['patch', 'update'], ['kubedesk.dev'], ['portforwards/status']),
  rule(READ, [''], ['pods', 'services']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
];

/** upstream's system:kube-scheduler and system:volume-scheduler (cluster-roles.yaml) */
const schedulerRules: PolicyRule[] = [
  eventsRule,
  rule(['create'], ['coordination.k8s.io'], ['leases']),
  rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
  rule(READ, [''], ['nodes']),
  rule(['delete', 'get', 'list', 'watch'], [''], ['pods']),
  rule(['create'], [''], ['bindings', 'pods/binding']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(READ, [''], ['replicationcontrollers', 'services']),
  rule(READ, ['apps', 'extensions'], ['replicasets']),
  rule(READ, ['apps'], ['statefulsets']),
  rule(READ, ['policy'], ['poddisruptionbudgets']),
  rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  rule(READ, ['storage.k8s.io'], ['csinodes']),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['storage.k8s.io'], ['csidrivers']),
  rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
];

const volumeSchedulerRules: PolicyRule[] = [
  rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumes']),
  rule(READ, ['storage.k8s.io'], ['storageclasses']),
  rule(['get', 'list', 'patch', 'update', 'watch'], [''], ['persistentvolumeclaims']),
];

/** upstream's system:node (NodeRules in policy.go) */
const nodeRules: PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule(['patch', 'update'], [''], ['nodes']),
  rule(['create', 'patch', 'update'], [''], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['configmaps', 'secrets']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'patch', 'update'], [''], ['persistentvolumeclaims/status']),
  rule(READ, ['storage.k8s.io'], ['csidrivers']),
  rule(['create', 'delete', 'get', 'patch', 'update'], ['storage.k8s.io'], ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
  // kubedesk: the kubelet reads the pod's ServiceAccount for its imagePullSecrets itself (upstream's
  // ServiceAccount admission copies them into the pod; the Node authorizer grants this get too)
  rule(['get'], [''], ['serviceaccounts']),
];

interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

interface RoleSpec {
  name: string;
  rules: PolicyRule[];
  subjects: Subject[];
}

function serviceAccount(name: string): Subject {
  return { kind: 'ServiceAccount', name, namespace: CONTROLLER_NAMESPACE };
}

function componentRoles(): RoleSpec[] {
  const roles: RoleSpec[] = Object.entries(controllerRules).map(([name, rules]) => ({
    name: `system:controller:${name}`,
    rules: [...rules, ...(kubedeskExtras[name] ?? [])],
    subjects: [serviceAccount(name), ...(sharedRoles[name] ?? []).map(serviceAccount)],
  }));
  roles.push({ name: NETWORK_CLUSTER_ROLE, rules: networkRules, subjects: [serviceAccount(NETWORK_SERVICE_ACCOUNT)] });
  roles.push({ name: PORT_FORWARD_CLUSTER_ROLE, rules: portForwardRules, subjects: [serviceAccount(PORT_FORWARD_SERVICE_ACCOUNT)] });
  roles.push({ name: 'system:kube-scheduler', rules: schedulerRules, subjects: [{ kind: 'User', name: KUBE_SCHEDULER_USER }] });
  roles.push({ name: 'system:volume-scheduler', rules: volumeSchedulerRules, subjects: [{ kind: 'User', name: KUBE_SCHEDULER_USER }] });
  roles.push({ name: 'system:node', rules: nodeRules, subjects: [{ kind: 'Group', name: NODES_GROUP }] });
  return roles;
}

function metadata(name: string): KubeObject['metadata'] {
  return { name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } };
}

function roleObject(spec: RoleSpec): KubeObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: metadata(spec.name), rules: spec.rules.map((item) => ({ ...item })) };
}

function subjectObject(subject: Subject): Record<string, string> {
  return subject.kind === 'ServiceAccount' ? { kind: subject.kind, name: subject.name, namespace: subject.namespace ?? '' } : { apiGroup: RBAC_GROUP, kind: subject.kind, name: subject.name };
}

function bindingObject(spec: RoleSpec): KubeObject {
  return { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRoleBinding', metadata: metadata(spec.name), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: spec.name }, subjects: spec.subjects.map(subjectObject) };
}

/** The components' ClusterRoles, as objects to create. */
export function componentClusterRoles(): KubeObject[] {
  return componentRoles().map(roleObject);
}

/** The components' ClusterRoleBindings (each named after its role), as objects to create. */
export function componentClusterRoleBindings(): KubeObject[] {
  return componentRoles().map(bindingObject);
}

/** The ServiceAccounts of kube-system the controllers act as, as objects to create. */
export function componentServiceAccounts(): KubeObject[] {
  const names = new Set([...controllerServiceAccountNames(), ...Object.values(sharedRoles).flat()]);
  return [...names].map((name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: CONTROLLER_NAMESPACE } }));
}

function sameRule(left: unknown, right: PolicyRule): boolean {
  return JSON.stringify(normalize(left)) === JSON.stringify(normalize(right));
}

function normalize(value: unknown): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  if (!isRecord(value)) return result;
  for (const key of ['apiGroups', 'nonResourceURLs', 'resourceNames', 'resources', 'verbs']) {
    const list = value[key];
    if (Array.isArray(list) && list.length > 0) result[key] = list.map(String);
  }
  return result;
}

/**
 * Creates the components' roles, bindings and ServiceAccounts that do not exist yet; a role or
 * binding still marked autoupdate gains the rules and subjects of ours it lacks.
 */
export function ensureComponentPolicy(api: ApiServerContext): void {
  const roles = api.registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  const bindings = api.registry.lookup(RBAC_GROUP, 'v1', 'clusterrolebindings');
  const accounts = api.registry.lookup('', 'v1', 'serviceaccounts');
  const options = { dryRun: false, fieldValidation: 'Ignore' as const, warnings: [] };
  const create = (def: NonNullable<typeof roles>, namespace: string, object: KubeObject, merge: (existing: KubeObject) => KubeObject | undefined) => {
    const existing = api.objects.tryGet(def, namespace, object.metadata.name ?? '');
    try {
      if (!existing) {
        api.objects.create(def, namespace, object, options);
        return;
      }
      if (existing.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate'] === 'false') return;
      const merged = merge(existing);
      if (merged) api.objects.update(def, namespace, existing.metadata.name ?? '', merged, options);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409)) throw error;
    }
  };
  if (roles) {
    for (const spec of componentRoles()) {
      create(roles, '', roleObject(spec), (existing) => {
        if (existing.aggregationRule) return undefined;
        const current = Array.isArray(existing.rules) ? existing.rules : [];
        const missing = spec.rules.filter((wanted) => !current.some((have) => sameRule(have, wanted)));
        return missing.length ? { ...existing, rules: [...current, ...missing] } : undefined;
      });
    }
  }
  if (bindings) {
    for (const spec of componentRoles()) {
      create(bindings, '', bindingObject(spec), (existing) => {
        const current = Array.isArray(existing.subjects) ? existing.subjects : [];
        const key = (subject: unknown) => (isRecord(subject) ? ['kind', 'name', 'namespace'].map((field) => String(subject[field] ?? '')).join('/') : '');
        const missing = spec.subjects.map(subjectObject).filter((wanted) => !current.some((have) => key(have) === key(wanted)));
        return missing.length ? { ...existing, subjects: [...current, ...missing] } : undefined;
      });
    }
  }
  const namespaces = api.registry.lookup('', 'v1', 'namespaces');
  // the ServiceAccounts need kube-system, which bootstrapSystemObjects creates first
  if (accounts && namespaces && api.objects.tryGet(namespaces, '', CONTROLLER_NAMESPACE)) {
    for (const account of componentServiceAccounts()) create(accounts, CONTROLLER_NAMESPACE, account, () => undefined);
  }
}
