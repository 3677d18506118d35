// Role (rbac.authorization.k8s.io/v1), after pkg/registry/rbac/role/strategy.go: rules validated; the
// escalation check (no rules beyond the writer's own) is admission (main/apiserver/auth/escalation.ts).
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { validateRole, validateRoleUpdate } from '../../validation/rbac';
import { defineKind } from '../../strategy';

export const roleStrategy = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'roles',
  kind: 'Role',
  namespaced: true,
  validateCreate: validateRole,
  validateUpdate: validateRoleUpdate,
  printer: defaultTableDef,
});
