import { describe, expect, it } from 'vitest';
import { RbacAuthorizer, ruleAllows, type Attributes, type Binding, type PolicyRule, type RbacSource, type UserIdentity } from './rbacAuthorizer';
import { forbidden } from './forbidden';
import { impersonate } from './impersonation';
import { requestInfo } from './requestInfo';

const serviceAccount: UserIdentity = { name: 'system:serviceaccount:default:sa', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] };

function attributes(overrides: Partial<Attributes>): Attributes {
  return { user: serviceAccount, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'pods', subresource: '', name: '', ...overrides };
}

function source(options: { clusterRoles?: Record<string, PolicyRule[]>; roles?: Record<string, PolicyRule[]>; clusterRoleBindings?: Binding[]; roleBindings?: Binding[] }): RbacSource {
  return {
    clusterRole: (name) => options.clusterRoles?.[name],
    role: (namespace, name) => options.roles?.[`${namespace}/${name}`],
    clusterRoleBindings: () => options.clusterRoleBindings ?? [],
    roleBindings: (namespace) => (options.roleBindings ?? []).filter((binding) => binding.namespace === namespace),
  };
}

describe('ruleAllows', () => {
  const cases: { name: string; rule: PolicyRule; request: Partial<Attributes>; allowed: boolean }[] = [
    { name: 'an exact verb, group and resource match', rule: { verbs: ['list'], apiGroups: [''], resources: ['pods'] }, request: { verb: 'list' }, allowed: true },
    { name: 'another verb does not match', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request: { verb: 'list' }, allowed: false },
    { name: 'the verb wildcard matches', rule: { verbs: ['*'], apiGroups: [''], resources: ['pods'] }, request: { verb: 'delete' }, allowed: true },
    { name: 'another group does not match', rule: { verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, request: {}, allowed: false },
    { name: 'the group wildcard matches', rule: { verbs: ['get'], apiGroups: ['*'], resources: ['deployments'] }, request: { apiGroup: 'apps', resource: 'deployments' }, allowed: true },
    { name: 'a resource rule does not cover its subresources', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] }, request: { subresource: 'log' }, allowed: false },
    { name: 'resource/subresource matches', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, request: { subresource: 'log' }, allowed: true },
    { name: '*/subresource matches that subresource of any resource', rule: { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, request: { resource: 'services', subresource: 'status' }, allowed: true },
    { name: '*/subresource does not match the resource itself', rule: { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }, request: {}, allowed: false },
    { name: 'the resource wildcard matches subresources', rule: { verbs: ['create'], apiGroups: [''], resources: ['*'] }, request: { verb: 'create', subresource: 'exec' }, allowed: true },
    { name: 'resourceNames restrict to the named objects', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }, request: { name: 'web' }, allowed: true },
    { name: 'resourceNames refuse other names', rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }, request: { name: 'db' }, allowed: false },
    { name: 'resourceNames refuse unnamed requests such as list', rule: { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['web'] }, request: { verb: 'list' }, allowed: false },
    { name: 'a non-resource URL matches exactly', rule: { verbs: ['get'], nonResourceURLs: ['/version'] }, request: { isResourceRequest: false, path: '/version' }, allowed: true },
    { name: 'a trailing * matches a URL prefix', rule: { verbs: ['get'], nonResourceURLs: ['/apis/*'] }, request: { isResourceRequest: false, path: '/apis/apps/v1' }, allowed: true },
    { name: 'a URL prefix needs the star', rule: { verbs: ['get'], nonResourceURLs: ['/apis'] }, request: { isResourceRequest: false, path: '/apis/apps' }, allowed: false },
    { name: 'resource rules never match non-resource requests', rule: { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, request: { isResourceRequest: false, path: '/version' }, allowed: false },
  ];
  for (const testCase of cases) {
    it(`${testCase.allowed ? 'allows' : 'refuses'} when ${testCase.name}`, () => {
      expect(ruleAllows(attributes(testCase.request), testCase.rule)).toBe(testCase.allowed);
    });
  }
});

describe('RbacAuthorizer', () => {
  const view: PolicyRule[] = [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }];

  it('allows system:masters everything without any binding', () => {
    const authorizer = new RbacAuthorizer(source({}));
    expect(authorizer.authorize(attributes({ user: { name: 'admin', groups: ['system:masters'] }, verb: 'delete', resource: 'nodes', namespace: '' })).allowed).toBe(true);
  });

  it('denies a service account that nothing is bound to, with no reason', () => {
    const authorizer = new RbacAuthorizer(source({ clusterRoles: { view } }));
    expect(authorizer.authorize(attributes({ verb: 'list' }))).toEqual({ allowed: false, reason: '' });
  });

  it('allows through a RoleBinding to a ClusterRole in the binding namespace only', () => {
    const binding: Binding = { namespace: 'default', name: 'read', roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] };
    const authorizer = new RbacAuthorizer(source({ clusterRoles: { view }, roleBindings: [binding] }));
    expect(authorizer.authorize(attributes({ verb: 'list' }))).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "read/default" of ClusterRole "view" to ServiceAccount "sa/default"' });
    expect(authorizer.authorize(attributes({ verb: 'list', namespace: 'other' })).allowed).toBe(false);
    expect(authorizer.authorize(attributes({ verb: 'delete' })).allowed).toBe(false);
  });

  it('matches groups and users in ClusterRoleBindings', () => {
    const bindings: Binding[] = [
      { namespace: '', name: 'by-group', roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'Group', name: 'system:serviceaccounts:default' }] },
    ];
    const authorizer = new RbacAuthorizer(source({ clusterRoles: { view }, clusterRoleBindings: bindings }));
    expect(authorizer.authorize(attributes({ verb: 'watch', namespace: 'kube-system' })).allowed).toBe(true);
    expect(authorizer.authorize(attributes({ user: { name: 'jane', groups: [] }, verb: 'watch' })).allowed).toBe(false);
  });

  it('reports a binding to a missing role as the reason of the denial', () => {
    const binding: Binding = { namespace: 'default', name: 'broken', roleRef: { kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'jane' }] };
    const authorizer = new RbacAuthorizer(source({ roleBindings: [binding] }));
    const decision = authorizer.authorize(attributes({ user: { name: 'jane', groups: [] } }));
    expect(decision).toEqual({ allowed: false, reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found' });
  });

  it('lists the rules granted in a namespace for SelfSubjectRulesReview', () => {
    const binding: Binding = { namespace: 'default', name: 'read', roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'default' }] };
    const authorizer = new RbacAuthorizer(source({ clusterRoles: { view }, roleBindings: [binding] }));
    expect(authorizer.rulesFor(serviceAccount, 'default').resourceRules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
    expect(authorizer.rulesFor(serviceAccount, 'other').resourceRules).toEqual([]);
  });
});

describe('forbidden', () => {
  it('words a namespaced denial as upstream', () => {
    const error = forbidden(attributes({ verb: 'list' }), '');
    expect(error.code).toBe(403);
    expect(error.message).toBe('pods is forbidden: User "system:serviceaccount:default:sa" cannot list resource "pods" in API group "" in the namespace "default"');
  });

  it('names the object, group and cluster scope when there are ones', () => {
    const error = forbidden(attributes({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web', namespace: '' }), 'RBAC: x');
    expect(error.message).toBe('deployments.apps "web" is forbidden: User "system:serviceaccount:default:sa" cannot get resource "deployments/scale" in API group "apps" at the cluster scope: RBAC: x');
  });

  it('words a non-resource denial with the path', () => {
    expect(forbidden(attributes({ isResourceRequest: false, path: '/metrics' }), '').message).toBe('forbidden: User "system:serviceaccount:default:sa" cannot get path "/metrics"');
  });
});

describe('requestInfo', () => {
  const cases: { method: string; url: string; expected: Partial<ReturnType<typeof requestInfo>> }[] = [
    { method: 'GET', url: '/api/v1/namespaces/default/pods', expected: { verb: 'list', resource: 'pods', namespace: 'default', name: '' } },
    { method: 'GET', url: '/api/v1/pods?watch=true', expected: { verb: 'watch', resource: 'pods', namespace: '' } },
    { method: 'GET', url: '/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb', expected: { verb: 'list', name: 'web' } },
    { method: 'GET', url: '/api/v1/namespaces/default/pods/web/log', expected: { verb: 'get', resource: 'pods', subresource: 'log', name: 'web' } },
    { method: 'POST', url: '/api/v1/namespaces/default/pods/web/exec', expected: { verb: 'create', subresource: 'exec' } },
    { method: 'DELETE', url: '/apis/apps/v1/namespaces/ns/deployments', expected: { verb: 'deletecollection', apiGroup: 'apps', resource: 'deployments', namespace: 'ns' } },
    { method: 'PATCH', url: '/apis/apps/v1/namespaces/ns/deployments/web/scale', expected: { verb: 'patch', subresource: 'scale', name: 'web' } },
    { method: 'GET', url: '/api/v1/namespaces/kube-system', expected: { verb: 'get', resource: 'namespaces', name: 'kube-system', namespace: 'kube-system' } },
    { method: 'PUT', url: '/api/v1/namespaces/gone/finalize', expected: { verb: 'update', resource: 'namespaces', subresource: 'finalize', name: 'gone' } },
    { method: 'GET', url: '/apis/apps/v1', expected: { isResourceRequest: false, verb: 'get', path: '/apis/apps/v1' } },
    { method: 'GET', url: '/version', expected: { isResourceRequest: false, verb: 'get' } },
  ];
  for (const testCase of cases) {
    it(`reads ${testCase.method} ${testCase.url}`, () => {
      const url = new URL(testCase.url, 'https://localhost');
      expect(requestInfo(testCase.method, url.pathname, url.searchParams)).toMatchObject(testCase.expected);
    });
  }
});

describe('impersonate', () => {
  const admin: UserIdentity = { name: 'kubedesk-admin', groups: ['system:masters', 'system:authenticated'] };
  const authorizer = new RbacAuthorizer(source({}));

  it('acts as a service account with its groups', () => {
    expect(impersonate(admin, { 'impersonate-user': ['system:serviceaccount:ns:sa'] }, authorizer)).toEqual({
      name: 'system:serviceaccount:ns:sa',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated'],
    });
  });

  it('takes given groups and extras as they are, plus system:authenticated', () => {
    expect(impersonate(admin, { 'impersonate-user': ['jane'], 'impersonate-group': ['devs', 'ops'], 'impersonate-extra-scopes': ['a'] }, authorizer)).toEqual({
      name: 'jane',
      groups: ['devs', 'ops', 'system:authenticated'],
      extra: { scopes: ['a'] },
    });
  });

  it('refuses a user without the impersonate verb', () => {
    expect(() => impersonate(serviceAccount, { 'impersonate-user': ['jane'] }, authorizer)).toThrow('users "jane" is forbidden: User "system:serviceaccount:default:sa" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  it('refuses groups without a user', () => {
    expect(() => impersonate(admin, { 'impersonate-group': ['devs'] }, authorizer)).toThrow('without impersonating a user');
  });
});
