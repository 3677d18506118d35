import { describe, expect, it } from 'vitest';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { inMemoryApiServerPerTest } from '../../../test/fixtures/inMemoryApiServer';
import { componentClusterRoleBindings, componentClusterRoles, ensureComponentPolicy } from './componentPolicy';

const server = inMemoryApiServerPerTest({ namespaces: ['kube-system'] });

const options = { dryRun: false, fieldValidation: 'Ignore' as const, warnings: [] };

function def(group: string, resource: string) {
  const found = server.api.registry.lookup(group, 'v1', resource);
  if (!found) throw new Error(`no ${resource}`);
  return found;
}

function role(name: string): KubeObject | undefined {
  return server.api.objects.tryGet(def('rbac.authorization.k8s.io', 'clusterroles'), '', name);
}

describe('componentPolicy', () => {
  it('binds each system:controller role to the kube-system ServiceAccount of the same name', () => {
    const binding = componentClusterRoleBindings().find((item) => item.metadata.name === 'system:controller:deployment-controller');
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'deployment-controller', namespace: 'kube-system' }]);
    expect(binding?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:controller:deployment-controller' });
  });

  it('binds system:node to the group system:nodes and the scheduler roles to the user system:kube-scheduler', () => {
    const subjects = (name: string) => componentClusterRoleBindings().find((item) => item.metadata.name === name)?.subjects;
    expect(subjects('system:node')).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }]);
    expect(subjects('system:kube-scheduler')).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-scheduler' }]);
    expect(subjects('system:volume-scheduler')).toEqual([{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-scheduler' }]);
  });

  it('marks every role and binding as an autoupdated bootstrap default', () => {
    for (const object of [...componentClusterRoles(), ...componentClusterRoleBindings()]) {
      expect(object.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
      expect(object.metadata.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    }
  });

  it('creates the roles, bindings and ServiceAccounts, and is idempotent', () => {
    ensureComponentPolicy(server.api);
    ensureComponentPolicy(server.api);
    expect(role('system:controller:replicaset-controller')).toBeDefined();
    expect(role('system:kubedesk:network')).toBeDefined();
    expect(server.api.objects.tryGet(def('', 'serviceaccounts'), 'kube-system', 'endpointslice-controller')).toBeDefined();
  });

  it('adds missing rules to an autoupdated role a user trimmed and leaves one marked autoupdate=false alone', () => {
    const roles = def('rbac.authorization.k8s.io', 'clusterroles');
    const trimmed = (name: string, autoupdate: string): KubeObject => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': autoupdate } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] });
    server.api.objects.create(roles, '', trimmed('system:controller:job-controller', 'true'), options);
    server.api.objects.create(roles, '', trimmed('system:controller:cronjob-controller', 'false'), options);
    ensureComponentPolicy(server.api);
    const rulesOf = (name: string) => {
      const rules = role(name)?.rules;
      return Array.isArray(rules) ? rules.filter(isRecord) : [];
    };
    expect(rulesOf('system:controller:job-controller').some((rule) => JSON.stringify(rule.resources) === '["jobs/status"]')).toBe(true);
    expect(rulesOf('system:controller:job-controller')[0]).toEqual({ apiGroups: [''], resources: ['pods'], verbs: ['list'] });
    expect(rulesOf('system:controller:cronjob-controller')).toHaveLength(1);
  });
});
