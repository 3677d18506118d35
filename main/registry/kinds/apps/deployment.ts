// Deployment (apps/v1), after pkg/registry/apps/deployment/strategy.go and storage/storage.go:
// generation counts spec changes, status is the controller's (written through /status, kept on
// main-resource updates), /scale is the autoscaling/v1 view of spec.replicas.
import { deploymentTable } from '../../../../shared/printers/apps';
import { defaultDeployment } from '../../defaults/apps';
import { validateDeployment, validateDeploymentUpdate } from '../../validation/apps';
import { defineKind, withStatus } from '../../strategy';

export const deploymentStrategy = defineKind({
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
  shortNames: ['deploy'],
  categories: ['all'],
  hasGeneration: true,
  ...withStatus({}, { scale: true }),
  defaults: defaultDeployment,
  validateCreate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  printer: deploymentTable,
});
