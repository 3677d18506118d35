// LimitRange (core/v1), after pkg/registry/core/limitrange/strategy.go: container defaults filled
// from max and min; printed with the default table, as upstream.
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import { defaultLimitRange } from '../../defaults/core';
import { validateLimitRange, validateLimitRangeUpdate } from '../../validation/core';
import { defineKind } from '../../strategy';

export const limitRangeStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'limitranges',
  kind: 'LimitRange',
  namespaced: true,
  shortNames: ['limits'],
  defaults: defaultLimitRange,
  validateCreate: validateLimitRange,
  validateUpdate: validateLimitRangeUpdate,
  printer: defaultTableDef,
});
