import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { leaseTable } from './coordination';
import { podDisruptionBudgetTable, priorityClassTable, webhookConfigurationTable } from './policy';
import { clusterRoleBindingTable, roleBindingTable } from './rbac';
import { storageClassTable } from './storage';

const now = new Date('2025-01-01T12:00:00Z');

function object(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'x', creationTimestamp: '2025-01-01T11:00:00Z', ...metadata }, ...fields };
}

describe('policy tables', () => {
  it('prints disruption budgets with N/A for the unset bound', () => {
    expect(podDisruptionBudgetTable.row(object({ spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } }), now)).toEqual(['x', '50%', 'N/A', 1, '60m']);
    expect(podDisruptionBudgetTable.row(object({ spec: { maxUnavailable: 1 }, status: {} }), now)).toEqual(['x', 'N/A', '1', 0, '60m']);
  });

  it('prints priority classes', () => {
    expect(priorityClassTable.row(object({ value: 2000000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' }), now)).toEqual([
      'x', 2000000000, false, '60m', 'PreemptLowerPriority',
    ]);
  });

  it('counts webhooks', () => {
    expect(webhookConfigurationTable.row(object({ webhooks: [{}, {}] }), now)).toEqual(['x', 2, '60m']);
  });
});

describe('lease, rbac and storage tables', () => {
  it('prints the lease holder', () => {
    expect(leaseTable.row(object({ spec: { holderIdentity: 'node-1' } }), now)).toEqual(['x', 'node-1', '60m']);
    expect(leaseTable.row(object({ spec: {} }), now)).toEqual(['x', '', '60m']);
  });

  it('prints role bindings with their subjects', () => {
    const binding = object({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', namespace: 'default', name: 'builder' },
        { kind: 'User', name: 'bob' },
      ],
    });
    expect(roleBindingTable.row(binding, now)).toEqual(['x', 'ClusterRole/view', '60m', 'alice, bob', 'devs', 'default/builder']);
    expect(clusterRoleBindingTable.columns.map((column) => column.name)).toEqual(['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
  });

  it('marks the default storage class and fills defaults', () => {
    const storageClass = object({ provisioner: 'kubedesk.io/hostpath' }, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } });
    expect(storageClassTable.row(storageClass, now)).toEqual(['x (default)', 'kubedesk.io/hostpath', 'Delete', 'Immediate', false, '60m']);
  });
});
