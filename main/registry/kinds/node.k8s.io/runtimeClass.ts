// RuntimeClass (node.k8s.io/v1), after pkg/registry/node/runtimeclass/strategy.go: the handler is
// immutable.
import { runtimeClassTable } from '../../../../shared/printers/node';
import { validateRuntimeClass, validateRuntimeClassUpdate } from '../../validation/node';
import { defineKind } from '../../strategy';

export const runtimeClassStrategy = defineKind({
  group: 'node.k8s.io',
  version: 'v1',
  resource: 'runtimeclasses',
  kind: 'RuntimeClass',
  namespaced: false,
  validateCreate: validateRuntimeClass,
  validateUpdate: validateRuntimeClassUpdate,
  printer: runtimeClassTable,
});
