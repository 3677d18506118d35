// Lease (coordination.k8s.io/v1), after pkg/registry/coordination/lease/strategy.go: node
// heartbeats and leader election; a PUT of a missing lease creates it.
import { leaseTable } from '../../../../shared/printers/coordination';
import { validateLease, validateLeaseUpdate } from '../../validation/misc';
import { defineKind } from '../../strategy';

export const leaseStrategy = defineKind({
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
  validateCreate: validateLease,
  validateUpdate: validateLeaseUpdate,
  allowCreateOnUpdate: true,
  printer: leaseTable,
});
