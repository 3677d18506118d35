// DaemonSet (apps/v1), after pkg/registry/apps/daemonset/strategy.go: created with zero counts in
// status, which the controller writes through /status; main-resource updates keep it.
import { daemonSetTable } from '../../../../shared/printers/apps';
import { defaultDaemonSet } from '../../defaults/apps';
import { validateDaemonSet, validateDaemonSetUpdate } from '../../validation/apps';
import { defineKind, withStatus } from '../../strategy';

export const daemonSetStrategy = defineKind({
  group: 'apps',
  version: 'v1',
  resource: 'daemonsets',
  kind: 'DaemonSet',
  namespaced: true,
  shortNames: ['ds'],
  categories: ['all'],
  hasGeneration: true,
  ...withStatus({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  defaults: defaultDaemonSet,
  validateCreate: validateDaemonSet,
  validateUpdate: validateDaemonSetUpdate,
  printer: daemonSetTable,
});
