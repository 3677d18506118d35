// RoleBinding (rbac.authorization.k8s.io/v1), after pkg/registry/rbac/rolebinding/strategy.go:
// the roleRef is immutable; binding only roles one holds is admission (main/apiserver/auth/escalation.ts).
import { roleBindingTable } from '../../../../shared/printers/rbac';
import { defaultRbacBinding } from '../../defaults/rbac';
import { validateRoleBinding, validateRoleBindingUpdate } from '../../validation/rbac';
import { defineKind } from '../../strategy';

export const roleBindingStrategy = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'rolebindings',
  kind: 'RoleBinding',
  namespaced: true,
  defaults: defaultRbacBinding,
  validateCreate: validateRoleBinding,
  validateUpdate: validateRoleBindingUpdate,
  printer: roleBindingTable,
});
