// EndpointSlice (discovery.k8s.io/v1), after pkg/registry/discovery/endpointslice/strategy.go:
// written by the EndpointSlice controller; ports default to TCP.
import { endpointSliceTable } from '../../../../shared/printers/discovery';
import { defaultEndpointSlice } from '../../defaults/misc';
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../../validation/misc';
import { defineKind } from '../../strategy';

export const endpointSliceStrategy = defineKind({
  group: 'discovery.k8s.io',
  version: 'v1',
  resource: 'endpointslices',
  kind: 'EndpointSlice',
  namespaced: true,
  defaults: defaultEndpointSlice,
  validateCreate: validateEndpointSlice,
  validateUpdate: validateEndpointSliceUpdate,
  printer: endpointSliceTable,
});
