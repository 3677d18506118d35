// ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1), after
// pkg/registry/admissionregistration/validatingwebhookconfiguration/strategy.go: webhook defaults
// (failurePolicy Fail, matchPolicy Equivalent, selectors, timeout…) and validation; read by the
// API server's dynamic admission (main/apiserver/webhooks).
import { webhookConfigurationTable } from '../../../../shared/printers/policy';
import { defaultValidatingWebhookConfiguration } from '../../defaults/admissionRegistration';
import { validateValidatingWebhookConfiguration, validateValidatingWebhookConfigurationUpdate } from '../../validation/admissionRegistration';
import { defineKind } from '../../strategy';

export const validatingWebhookConfigurationStrategy = defineKind({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
  categories: ['api-extensions'],
  hasGeneration: true,
  defaults: defaultValidatingWebhookConfiguration,
  validateCreate: validateValidatingWebhookConfiguration,
  validateUpdate: validateValidatingWebhookConfigurationUpdate,
  printer: webhookConfigurationTable,
});
