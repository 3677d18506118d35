// CronJob (batch/v1), after pkg/registry/batch/cronjob/strategy.go: schedule and time zone
// validated, status (last schedule and success times) written by the controller through /status.
import { cronJobTable } from '../../../../shared/printers/batch';
import { defaultCronJob } from '../../defaults/batch';
import { validateCronJob, validateCronJobUpdate } from '../../validation/batch';
import { defineKind, withStatus } from '../../strategy';

export const cronJobStrategy = defineKind({
  group: 'batch',
  version: 'v1',
  resource: 'cronjobs',
  kind: 'CronJob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  hasGeneration: true,
  ...withStatus({}),
  defaults: defaultCronJob,
  validateCreate: validateCronJob,
  validateUpdate: validateCronJobUpdate,
  printer: cronJobTable,
});
