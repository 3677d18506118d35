// ClusterRoleBinding (rbac.authorization.k8s.io/v1), after
// pkg/registry/rbac/clusterrolebinding/strategy.go: the roleRef is immutable; binding only roles one
// holds is admission (main/apiserver/auth/escalation.ts).
import { clusterRoleBindingTable } from '../../../../shared/printers/rbac';
import { defaultRbacBinding } from '../../defaults/rbac';
import { validateClusterRoleBinding, validateClusterRoleBindingUpdate } from '../../validation/rbac';
import { defineKind } from '../../strategy';

export const clusterRoleBindingStrategy = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  namespaced: false,
  defaults: defaultRbacBinding,
  validateCreate: validateClusterRoleBinding,
  validateUpdate: validateClusterRoleBindingUpdate,
  printer: clusterRoleBindingTable,
});
