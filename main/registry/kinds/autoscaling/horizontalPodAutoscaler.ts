// HorizontalPodAutoscaler, after pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go:
// stored as autoscaling/v2; created with desiredReplicas 0 in status, which the controller writes
// through /status (main-resource updates keep it). autoscaling/v1 is served by converting to and
// from the stored version (horizontalPodAutoscalerConversion.ts); its requests are forwarded to v2.
import { horizontalPodAutoscalerTable } from '../../../../shared/printers/autoscaling';
import { defaultHorizontalPodAutoscaler } from '../../defaults/autoscaling';
import { validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerUpdate } from '../../validation/autoscaling';
import { defineKind, statusSubresource, withStatus, type KindDescription } from '../../strategy';
import { toV1, toV2 } from './horizontalPodAutoscalerConversion';

const common: Omit<KindDescription, 'version'> = {
  group: 'autoscaling',
  resource: 'horizontalpodautoscalers',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  hasGeneration: true,
  printer: horizontalPodAutoscalerTable,
};

export const horizontalPodAutoscalerStrategy = defineKind({
  ...common,
  version: 'v2',
  ...withStatus({ desiredReplicas: 0 }),
  defaults: defaultHorizontalPodAutoscaler,
  validateCreate: validateHorizontalPodAutoscaler,
  validateUpdate: validateHorizontalPodAutoscalerUpdate,
});

export const horizontalPodAutoscalerV1Strategy = defineKind({
  ...common,
  version: 'v1',
  subresources: [statusSubresource()],
  conversion: { storageVersion: 'v2', toStorage: toV2, fromStorage: toV1 },
});
