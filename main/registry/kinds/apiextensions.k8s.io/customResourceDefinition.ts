// CustomResourceDefinition (apiextensions.k8s.io/v1), after apiextensions-apiserver
// pkg/registry/customresourcedefinition/strategy.go and etcd.go: defaults, validation of names,
// versions and structural schemas (main/registry/validation/apiextensions.ts); status starts with
// the storage version in storedVersions and is kept on main-resource updates (which add a new
// storage version). The first DELETE does not remove it: it adds the
// `customresourcecleanup.apiextensions.k8s.io` finalizer and a Terminating condition; the API
// server's CRD controller (main/apiserver/crd/customResourceDefinitions.ts) names and establishes
// served CRDs, registers their kinds, and on deletion removes every custom object, then the finalizer.
import { formatTime } from '../../../../shared/kubernetes/time';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { isRecord } from '../../../../shared/kubernetes/types';
import { defaultTableDef } from '../../../../shared/printers/defaultTable';
import {
  CLEANUP_FINALIZER,
  defaultCustomResourceDefinition,
  prepareCustomResourceDefinitionForCreate,
  prepareCustomResourceDefinitionForUpdate,
  setCondition,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
} from '../../validation/apiextensions';
import { defineKind, statusSubresource, type DeletionContext } from '../../strategy';

/** etcd.go Delete: the first DELETE starts the cleanup instead of removing the object. */
function startCleanup(next: KubeObject, context: DeletionContext): KubeObject | undefined {
  if (next.metadata.deletionTimestamp) return (next.metadata.finalizers ?? []).length > 0 ? next : undefined;
  const now = formatTime(context.now);
  next.metadata.deletionTimestamp = now;
  next.metadata.deletionGracePeriodSeconds = 0;
  const finalizers = next.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) next.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
  const status = isRecord(next.status) ? next.status : {};
  setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, now);
  next.status = status;
  return next;
}

export const customResourceDefinitionStrategy = defineKind({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  hasGeneration: true,
  subresources: [statusSubresource()],
  defaults: defaultCustomResourceDefinition,
  prepareForCreate: prepareCustomResourceDefinitionForCreate,
  prepareForUpdate: prepareCustomResourceDefinitionForUpdate,
  validateCreate: validateCustomResourceDefinition,
  validateUpdate: validateCustomResourceDefinitionUpdate,
  gracefulDelete: startCleanup,
  printer: defaultTableDef,
});
