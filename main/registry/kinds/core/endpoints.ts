// Endpoints (core/v1), after pkg/registry/core/endpoint/strategy.go: written by the endpoints
// controller; a PUT of a missing object creates it (AllowCreateOnUpdate).
import { endpointsTable } from '../../../../shared/printers/core';
import { defaultEndpoints } from '../../defaults/core';
import { validateEndpoints, validateEndpointsUpdate } from '../../validation/core';
import { defineKind } from '../../strategy';

export const endpointsStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'endpoints',
  kind: 'Endpoints',
  namespaced: true,
  shortNames: ['ep'],
  defaults: defaultEndpoints,
  validateCreate: validateEndpoints,
  validateUpdate: validateEndpointsUpdate,
  allowCreateOnUpdate: true,
  printer: endpointsTable,
});
