// ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1), after
// pkg/registry/admissionregistration/validatingadmissionpolicy/strategy.go: CEL validations the
// API server evaluates for the requests its bindings select (main/apiserver/webhooks).
import { validatingAdmissionPolicyTable } from '../../../../shared/printers/admissionRegistration';
import { defaultValidatingAdmissionPolicy } from '../../defaults/admissionRegistration';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyUpdate } from '../../validation/admissionRegistration';
import { defineKind, statusSubresource } from '../../strategy';

export const validatingAdmissionPolicyStrategy = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  namespaced: false,
  categories: ['api-extensions'],
  hasGeneration: true,
  subresources: [statusSubresource()],
  defaults: defaultValidatingAdmissionPolicy,
  validateCreate: validateValidatingAdmissionPolicy,
  validateUpdate: validateValidatingAdmissionPolicyUpdate,
  printer: validatingAdmissionPolicyTable,
});
