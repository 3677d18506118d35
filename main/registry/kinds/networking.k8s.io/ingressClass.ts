// IngressClass (networking.k8s.io/v1), after pkg/registry/networking/ingressclass/strategy.go.
import { ingressClassTable } from '../../../../shared/printers/networking';
import { defaultIngressClass } from '../../defaults/networking';
import { validateIngressClass, validateIngressClassUpdate } from '../../validation/networking';
import { defineKind } from '../../strategy';

export const ingressClassStrategy = defineKind({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingressclasses',
  kind: 'IngressClass',
  namespaced: false,
  hasGeneration: true,
  defaults: defaultIngressClass,
  validateCreate: validateIngressClass,
  validateUpdate: validateIngressClassUpdate,
  printer: ingressClassTable,
});
