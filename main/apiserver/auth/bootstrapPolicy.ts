// The default ClusterRoles and ClusterRoleBindings a cluster starts with, as upstream
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (rendered in its
// testdata/cluster-roles.yaml): cluster-admin for system:masters, the aggregated user-facing roles
// admin ⊇ edit ⊇ view filled from system:aggregate-to-* by the aggregation controller, and the
// discovery/basic-user/public-info roles every caller needs. Missing objects are created at every
// start (upstream's storage_rbac.go PostStartHook); existing ones are left as the user changed them.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import type { ApiServerContext } from '../handlers/request';
import type { PolicyRule } from './rbacAuthorizer';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const AGGREGATE_TO = (role: string) => `${RBAC_GROUP}/aggregate-to-${role}`;
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function rule(verbs: string[], apiGroups: string[], resources: string[]): PolicyRule {
  return { apiGroups, resources, verbs };
}

function urls(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { nonResourceURLs, verbs };
}

interface RoleSpec {
  name: string;
  rules?: PolicyRule[];
  labels?: Record<string, string>;
  aggregateFrom?: string;
}

const clusterRoles: RoleSpec[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  { name: 'admin', aggregateFrom: 'admin' },
  { name: 'edit', aggregateFrom: 'edit', labels: { [AGGREGATE_TO('admin')]: 'true' } },
  { name: 'view', aggregateFrom: 'view', labels: { [AGGREGATE_TO('edit')]: 'true' } },
  {
    name: 'system:aggregate-to-admin',
    labels: { [AGGREGATE_TO('admin')]: 'true' },
    rules: [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['rolebindings', 'roles'])],
  },
  {
    name: 'system:aggregate-to-edit',
    labels: { [AGGREGATE_TO('edit')]: 'true' },
    rules: [
      rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
      rule(['create'], [''], ['pods/eviction']),
      rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
      rule(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ],
  },
  {
    name: 'system:aggregate-to-view',
    labels: { [AGGREGATE_TO('view')]: 'true' },
    rules: [
      rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
      rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
      rule(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ],
  },
  // kubedesk's own PortForward kind: forwarding a port is what pods/portforward allows, so edit
  // (and admin) may manage forwards and view may read them, as upstream aggregates a CRD's roles.
  { name: 'kubedesk:aggregate-to-edit', labels: { [AGGREGATE_TO('edit')]: 'true' }, rules: [rule(WRITE, ['kubedesk.dev'], ['portforwards'])] },
  { name: 'kubedesk:aggregate-to-view', labels: { [AGGREGATE_TO('view')]: 'true' }, rules: [rule(READ, ['kubedesk.dev'], ['portforwards', 'portforwards/status'])] },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  {
    name: 'system:basic-user',
    rules: [
      rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
      // the object history: its handler checks `get` on each object it shows (main/apiserver/history)
      rule(['get', 'list'], ['history.kubedesk.dev'], ['revisions', 'deletedobjects']),
      // resource usage history: its handler checks `get` on each pod or node it shows (main/apiserver/usage)
      rule(['get', 'list'], ['usage.kubedesk.dev'], ['pods', 'nodes']),
    ],
  },
  { name: 'system:discovery', rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])] },
  { name: 'system:monitoring', rules: [urls(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])] },
  { name: 'system:public-info-viewer', rules: [urls(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  { name: 'system:service-account-issuer-discovery', rules: [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])] },
];

const clusterRoleBindings: { name: string; role: string; groups: string[] }[] = [
  { name: 'cluster-admin', role: 'cluster-admin', groups: ['system:masters'] },
  { name: 'system:basic-user', role: 'system:basic-user', groups: ['system:authenticated'] },
  { name: 'system:discovery', role: 'system:discovery', groups: ['system:authenticated'] },
  { name: 'system:monitoring', role: 'system:monitoring', groups: ['system:monitoring'] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', groups: ['system:authenticated', 'system:unauthenticated'] },
  { name: 'system:service-account-issuer-discovery', role: 'system:service-account-issuer-discovery', groups: ['system:serviceaccounts'] },
];

function metadata(name: string, labels: Record<string, string> = {}): KubeObject['metadata'] {
  return { name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' }, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels } };
}

/** The default ClusterRoles, as objects to create. */
export function bootstrapClusterRoles(): KubeObject[] {
  return clusterRoles.map((spec) => {
    const role: KubeObject = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: metadata(spec.name, spec.labels) };
    if (spec.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(spec.aggregateFrom)]: 'true' } }] };
    else role.rules = spec.rules ?? [];
    return role;
  });
}

/** The default ClusterRoleBindings, as objects to create. */
export function bootstrapClusterRoleBindings(): KubeObject[] {
  return clusterRoleBindings.map((spec) => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: metadata(spec.name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: spec.role },
    subjects: spec.groups.map((group) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: group })),
  }));
}

/** Creates the default roles and bindings that do not exist yet. */
export function ensureBootstrapPolicy(api: ApiServerContext): void {
  const roles = api.registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  const bindings = api.registry.lookup(RBAC_GROUP, 'v1', 'clusterrolebindings');
  if (!roles || !bindings) return;
  const create = (def: typeof roles, object: KubeObject) => {
    if (api.objects.tryGet(def, '', object.metadata.name ?? '')) return;
    try {
      api.objects.create(def, '', object, { dryRun: false, fieldValidation: 'Ignore', warnings: [] });
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 409)) throw error;
    }
  };
  for (const role of bootstrapClusterRoles()) create(roles, role);
  for (const binding of bootstrapClusterRoleBindings()) create(bindings, binding);
}
