// StatefulSet (apps/v1), after pkg/registry/apps/statefulset/strategy.go and storage/storage.go:
// created with zero replicas in status; status through /status; /scale is the autoscaling/v1 view
// of spec.replicas.
import { statefulSetTable } from '../../../../shared/printers/apps';
import { defaultStatefulSet } from '../../defaults/apps';
import { validateStatefulSet, validateStatefulSetUpdate } from '../../validation/apps';
import { defineKind, withStatus } from '../../strategy';

export const statefulSetStrategy = defineKind({
  group: 'apps',
  version: 'v1',
  resource: 'statefulsets',
  kind: 'StatefulSet',
  namespaced: true,
  shortNames: ['sts'],
  categories: ['all'],
  hasGeneration: true,
  ...withStatus({ replicas: 0, availableReplicas: 0 }, { scale: true }),
  defaults: defaultStatefulSet,
  validateCreate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  printer: statefulSetTable,
});
