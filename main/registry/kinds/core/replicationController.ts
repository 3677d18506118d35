// ReplicationController (core/v1), after pkg/registry/core/replicationcontroller/strategy.go and
// storage/storage.go: created with an empty status, which the controller writes through /status
// (validated as ValidateReplicationControllerStatusUpdate); /scale is the autoscaling/v1 view of
// spec.replicas whose selector is the label map as a string; `status.replicas` is selectable. A
// delete that names no propagation policy orphans the pods, as upstream keeps for core/v1.
import { replicationControllerTable } from '../../../../shared/printers/core';
import { selectorToString } from '../../../../shared/kubernetes/labelSelector';
import { isRecord } from '../../../../shared/kubernetes/types';
import { defaultReplicationController } from '../../defaults/core';
import { validateReplicationController, validateReplicationControllerStatus, validateReplicationControllerUpdate } from '../../validation/core';
import { defineKind, fieldText, keepAllButStatus, keepStoredStatus, replicasScaleSubresource, valueAt } from '../../strategy';

export const replicationControllerStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'replicationcontrollers',
  kind: 'ReplicationController',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  hasGeneration: true,
  subresources: [
    // spec.selector is a plain label map here, not a LabelSelector
    replicasScaleSubresource((rc) => {
      const selector = valueAt(rc, 'spec', 'selector');
      return selectorToString({ matchLabels: isRecord(selector) ? selector : {} });
    }),
    { name: 'status', type: 'update', prepareForUpdate: keepAllButStatus, validateUpdate: validateReplicationControllerStatus },
  ],
  prepareForCreate: (rc) => {
    rc.status = { replicas: 0 };
  },
  prepareForUpdate: keepStoredStatus,
  defaults: defaultReplicationController,
  validateCreate: validateReplicationController,
  validateUpdate: validateReplicationControllerUpdate,
  defaultGarbageCollectionPolicy: 'Orphan',
  printer: replicationControllerTable,
  selectableFields: (rc) => ({ 'status.replicas': fieldText(valueAt(rc, 'status', 'replicas') ?? 0) }),
});
