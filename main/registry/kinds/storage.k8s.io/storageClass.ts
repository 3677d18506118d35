// StorageClass (storage.k8s.io/v1), after pkg/registry/storage/storageclass/strategy.go:
// provisioner and parameters immutable, reclaim policy and binding mode defaulted.
import { storageClassTable } from '../../../../shared/printers/storage';
import { defaultStorageClass } from '../../defaults/storage';
import { validateStorageClass, validateStorageClassUpdate } from '../../validation/storage';
import { defineKind } from '../../strategy';

export const storageClassStrategy = defineKind({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'storageclasses',
  kind: 'StorageClass',
  namespaced: false,
  shortNames: ['sc'],
  defaults: defaultStorageClass,
  validateCreate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
  printer: storageClassTable,
});
