// ResourceQuota (core/v1), after pkg/registry/core/resourcequota/strategy.go: created with an
// empty status that the quota controller fills through /status; main-resource updates keep it.
import { resourceQuotaTable } from '../../../../shared/printers/core';
import { validateResourceQuota, validateResourceQuotaUpdate } from '../../validation/core';
import { defineKind, withStatus } from '../../strategy';

export const resourceQuotaStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'resourcequotas',
  kind: 'ResourceQuota',
  namespaced: true,
  shortNames: ['quota'],
  ...withStatus({}),
  validateCreate: validateResourceQuota,
  validateUpdate: validateResourceQuotaUpdate,
  printer: resourceQuotaTable,
});
