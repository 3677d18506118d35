// PersistentVolume (core/v1), after pkg/registry/core/persistentvolume/strategy.go: created
// Pending; the binder writes status through /status; main-resource updates keep it.
import { persistentVolumeTable } from '../../../../shared/printers/core';
import { defaultPersistentVolume } from '../../defaults/storage';
import { validatePersistentVolume, validatePersistentVolumeUpdate } from '../../validation/storage';
import { defineKind, withStatus } from '../../strategy';

export const persistentVolumeStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'persistentvolumes',
  kind: 'PersistentVolume',
  namespaced: false,
  shortNames: ['pv'],
  ...withStatus({ phase: 'Pending' }),
  defaults: defaultPersistentVolume,
  validateCreate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  printer: persistentVolumeTable,
});
