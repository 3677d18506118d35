// Job (batch/v1), after pkg/registry/batch/job/strategy.go: on create the selector is generated
// from the job's uid (unless manualSelector) and status starts empty; the controller writes status
// through /status; `status.successful` is selectable.
import { jobTable } from '../../../../shared/printers/batch';
import { defaultJob, prepareJobForCreate } from '../../defaults/batch';
import { validateJob, validateJobUpdate } from '../../validation/batch';
import { defineKind, fieldText, keepStoredStatus, leniently, statusSubresource, valueAt } from '../../strategy';

const generateSelector = leniently(prepareJobForCreate);

export const jobStrategy = defineKind({
  group: 'batch',
  version: 'v1',
  resource: 'jobs',
  kind: 'Job',
  namespaced: true,
  categories: ['all'],
  hasGeneration: true,
  subresources: [statusSubresource()],
  prepareForCreate: (job) => {
    generateSelector(job);
    job.status = {};
  },
  prepareForUpdate: keepStoredStatus,
  defaults: defaultJob,
  validateCreate: validateJob,
  validateUpdate: validateJobUpdate,
  printer: jobTable,
  selectableFields: (job) => ({ 'status.successful': fieldText(valueAt(job, 'status', 'succeeded') ?? 0) }),
});
