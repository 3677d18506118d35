// ConfigMap (core/v1), after pkg/registry/core/configmap/strategy.go: no defaults, keys and size
// validated, no status.
import { configMapTable } from '../../../../shared/printers/core';
import { validateConfigMap, validateConfigMapUpdate } from '../../validation/core';
import { defineKind } from '../../strategy';

export const configMapStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  validateCreate: validateConfigMap,
  validateUpdate: validateConfigMapUpdate,
  printer: configMapTable,
});
