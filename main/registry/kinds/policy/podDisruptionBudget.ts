// PodDisruptionBudget (policy/v1), after pkg/registry/policy/poddisruptionbudget/strategy.go:
// created with zero counts in status, which the disruption controller (and pods/eviction) write
// through /status; main-resource updates keep it. Not validated beyond its schema yet.
import { podDisruptionBudgetTable } from '../../../../shared/printers/policy';
import { defineKind, withStatus } from '../../strategy';

export const podDisruptionBudgetStrategy = defineKind({
  group: 'policy',
  version: 'v1',
  resource: 'poddisruptionbudgets',
  kind: 'PodDisruptionBudget',
  namespaced: true,
  shortNames: ['pdb'],
  hasGeneration: true,
  ...withStatus({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }),
  printer: podDisruptionBudgetTable,
});
