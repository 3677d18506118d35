// PriorityClass (scheduling.k8s.io/v1), after pkg/registry/scheduling/priorityclass/strategy.go:
// value and preemption policy immutable; the system classes are reserved.
import { priorityClassTable } from '../../../../shared/printers/policy';
import { defaultPriorityClass } from '../../defaults/scheduling';
import { validatePriorityClass, validatePriorityClassUpdate } from '../../validation/scheduling';
import { defineKind } from '../../strategy';

export const priorityClassStrategy = defineKind({
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  kind: 'PriorityClass',
  namespaced: false,
  shortNames: ['pc'],
  defaults: defaultPriorityClass,
  validateCreate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
  printer: priorityClassTable,
});
