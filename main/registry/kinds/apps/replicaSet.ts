// ReplicaSet (apps/v1), after pkg/registry/apps/replicaset/strategy.go and storage/storage.go:
// created with zero replicas in status, which the controller writes through /status; /scale is the
// autoscaling/v1 view of spec.replicas; `status.replicas` is selectable.
import { replicaSetTable } from '../../../../shared/printers/apps';
import { defaultReplicaSet } from '../../defaults/apps';
import { validateReplicaSet, validateReplicaSetUpdate } from '../../validation/apps';
import { defineKind, fieldText, valueAt, withStatus } from '../../strategy';

export const replicaSetStrategy = defineKind({
  group: 'apps',
  version: 'v1',
  resource: 'replicasets',
  kind: 'ReplicaSet',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  hasGeneration: true,
  ...withStatus({ replicas: 0 }, { scale: true }),
  defaults: defaultReplicaSet,
  validateCreate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  printer: replicaSetTable,
  selectableFields: (replicaSet) => ({ 'status.replicas': fieldText(valueAt(replicaSet, 'status', 'replicas') ?? 0) }),
});
