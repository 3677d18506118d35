// ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1), after
// pkg/registry/admissionregistration/validatingadmissionpolicybinding/strategy.go: binds a policy
// (by name) to the resources it selects, with its validation actions.
import { validatingAdmissionPolicyBindingTable } from '../../../../shared/printers/admissionRegistration';
import { defaultValidatingAdmissionPolicyBinding } from '../../defaults/admissionRegistration';
import { validateValidatingAdmissionPolicyBinding, validateValidatingAdmissionPolicyBindingUpdate } from '../../validation/admissionRegistration';
import { defineKind } from '../../strategy';

export const validatingAdmissionPolicyBindingStrategy = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  namespaced: false,
  categories: ['api-extensions'],
  hasGeneration: true,
  defaults: defaultValidatingAdmissionPolicyBinding,
  validateCreate: validateValidatingAdmissionPolicyBinding,
  validateUpdate: validateValidatingAdmissionPolicyBindingUpdate,
  printer: validatingAdmissionPolicyBindingTable,
});
