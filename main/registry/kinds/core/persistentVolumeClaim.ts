// PersistentVolumeClaim (core/v1), after pkg/registry/core/persistentvolumeclaim/strategy.go:
// created Pending; the binder writes status through /status; main-resource updates keep it.
import { persistentVolumeClaimTable } from '../../../../shared/printers/core';
import { defaultPersistentVolumeClaim } from '../../defaults/core';
import { validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate } from '../../validation/core';
import { defineKind, withStatus } from '../../strategy';

export const persistentVolumeClaimStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  namespaced: true,
  shortNames: ['pvc'],
  ...withStatus({ phase: 'Pending' }),
  defaults: defaultPersistentVolumeClaim,
  validateCreate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  printer: persistentVolumeClaimTable,
});
