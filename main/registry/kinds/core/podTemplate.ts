// PodTemplate (core/v1), after pkg/registry/core/podtemplate/strategy.go: the template gets pod
// spec defaults and validation.
import { podTemplateTable } from '../../../../shared/printers/core';
import { defaultPodTemplate } from '../../defaults/core';
import { validatePodTemplate, validatePodTemplateUpdate } from '../../validation/core';
import { defineKind } from '../../strategy';

export const podTemplateStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'podtemplates',
  kind: 'PodTemplate',
  namespaced: true,
  defaults: defaultPodTemplate,
  validateCreate: validatePodTemplate,
  validateUpdate: validatePodTemplateUpdate,
  printer: podTemplateTable,
});
