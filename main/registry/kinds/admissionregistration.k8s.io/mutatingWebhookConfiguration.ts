// MutatingWebhookConfiguration (admissionregistration.k8s.io/v1), after
// pkg/registry/admissionregistration/mutatingwebhookconfiguration/strategy.go: webhook defaults
// (reinvocationPolicy Never as well) and validation; read by the API server's dynamic admission.
import { webhookConfigurationTable } from '../../../../shared/printers/policy';
import { defaultMutatingWebhookConfiguration } from '../../defaults/admissionRegistration';
import { validateMutatingWebhookConfiguration, validateMutatingWebhookConfigurationUpdate } from '../../validation/admissionRegistration';
import { defineKind } from '../../strategy';

export const mutatingWebhookConfigurationStrategy = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
  categories: ['api-extensions'],
  hasGeneration: true,
  defaults: defaultMutatingWebhookConfiguration,
  validateCreate: validateMutatingWebhookConfiguration,
  validateUpdate: validateMutatingWebhookConfigurationUpdate,
  printer: webhookConfigurationTable,
});
