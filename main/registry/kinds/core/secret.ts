// Secret (core/v1), after pkg/registry/core/secret/strategy.go: type Opaque by default, stringData
// folded into data on the way in, `type` selectable.
import { secretTable } from '../../../../shared/printers/core';
import { defaultSecret } from '../../defaults/core';
import { validateSecret, validateSecretUpdate } from '../../validation/core';
import { defineKind, fieldText } from '../../strategy';

export const secretStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  defaults: defaultSecret,
  validateCreate: validateSecret,
  validateUpdate: validateSecretUpdate,
  printer: secretTable,
  selectableFields: (secret) => ({ type: fieldText(secret.type) }),
});
