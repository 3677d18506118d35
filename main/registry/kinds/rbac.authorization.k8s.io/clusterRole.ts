// ClusterRole (rbac.authorization.k8s.io/v1), after pkg/registry/rbac/clusterrole/strategy.go: rules
// and aggregationRule validated; escalation checks are admission (main/apiserver/auth/escalation.ts).
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { validateClusterRole, validateClusterRoleUpdate } from '../../validation/rbac';
import { defineKind } from '../../strategy';

export const clusterRoleStrategy = defineKind({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  resource: 'clusterroles',
  kind: 'ClusterRole',
  namespaced: false,
  validateCreate: validateClusterRole,
  validateUpdate: validateClusterRoleUpdate,
  printer: defaultTableDef,
});
