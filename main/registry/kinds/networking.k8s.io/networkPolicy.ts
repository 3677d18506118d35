// NetworkPolicy (networking.k8s.io/v1), after pkg/registry/networking/networkpolicy/strategy.go:
// stored and listed; kubedesk does not enforce NetworkPolicy (docs/architecture.md says so).
import { networkPolicyTable } from '../../../../shared/printers/networking';
import { defaultNetworkPolicy } from '../../defaults/networking';
import { validateNetworkPolicy, validateNetworkPolicyUpdate } from '../../validation/networking';
import { defineKind } from '../../strategy';

export const networkPolicyStrategy = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'networkpolicies',
  kind: 'NetworkPolicy',
  namespaced: true,
  shortNames: ['netpol'],
  hasGeneration: true,
  defaults: defaultNetworkPolicy,
  validateCreate: validateNetworkPolicy,
  validateUpdate: validateNetworkPolicyUpdate,
  printer: networkPolicyTable,
});
