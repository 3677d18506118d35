// Ingress (networking.k8s.io/v1), after pkg/registry/networking/ingress/strategy.go: created with
// an empty load-balancer status that the ingress controller writes through /status.
import { ingressTable } from '../../../../shared/printers/networking';
import { validateIngress, validateIngressUpdate } from '../../validation/networking';
import { defineKind, withStatus } from '../../strategy';

export const ingressStrategy = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  hasGeneration: true,
  ...withStatus({ loadBalancer: {} }),
  validateCreate: validateIngress,
  validateUpdate: validateIngressUpdate,
  printer: ingressTable,
});
