// ControllerRevision (apps/v1), after pkg/registry/apps/controllerrevision/strategy.go: immutable
// snapshots of a StatefulSet's or DaemonSet's template; only metadata may change.
import { controllerRevisionTable } from '../../../../shared/printers/apps';
import { validateControllerRevision, validateControllerRevisionUpdate } from '../../validation/apps';
import { defineKind } from '../../strategy';

export const controllerRevisionStrategy = defineKind({
  group: 'apps',
  version: 'v1',
  resource: 'controllerrevisions',
  kind: 'ControllerRevision',
  namespaced: true,
  validateCreate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
  printer: controllerRevisionTable,
});
