// Namespace (core/v1), after pkg/registry/core/namespace/strategy.go and storage/storage.go: created
// Active with the `kubernetes` finalizer; the phase is the server's (main-resource updates keep the
// stored status); DELETE marks it Terminating and waits until the namespace controller has emptied
// it and removed spec.finalizers through the `finalize` subresource.
import { formatTime } from '../../../../shared/kubernetes/time';
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { namespaceTable } from '../../../../shared/printers/core';
import { defaultNamespace, prepareNamespaceForCreate } from '../../defaults/core';
import { validateNamespace, validateNamespaceUpdate } from '../../validation/core';
import { defineKind, fieldText, leniently, statusSubresource, valueAt, type DeletionContext } from '../../strategy';

function specFinalizers(namespace: KubeObject): unknown[] {
  return isRecord(namespace.spec) && Array.isArray(namespace.spec.finalizers) ? namespace.spec.finalizers : [];
}

/** Upstream BeforeDelete: the first DELETE sets deletionTimestamp and phase Terminating while finalizers hold it. */
function markTerminating(next: KubeObject, context: DeletionContext): KubeObject | undefined {
  if (specFinalizers(next).length === 0 && context.finalizers.length === 0) return undefined;
  if (!next.metadata.deletionTimestamp) next.metadata.deletionTimestamp = formatTime(context.now);
  next.metadata.deletionGracePeriodSeconds = 0;
  next.status = { ...(isRecord(next.status) ? next.status : {}), phase: 'Terminating' };
  return next;
}

export const namespaceStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: [
    // finalizeNamespaceStrategy: only spec.finalizers changes, everything else stays as stored
    {
      name: 'finalize',
      type: 'update',
      verbs: ['update'],
      prepareForUpdate: (namespace, old) => {
        const finalizers = specFinalizers(namespace);
        for (const key of Object.keys(namespace)) delete namespace[key];
        Object.assign(namespace, structuredClone(old));
        namespace.spec = { ...(isRecord(namespace.spec) ? namespace.spec : {}), finalizers };
      },
    },
    statusSubresource(),
  ],
  defaults: defaultNamespace,
  prepareForCreate: leniently(prepareNamespaceForCreate),
  prepareForUpdate: (namespace, old) => {
    namespace.status = structuredClone(old.status ?? { phase: 'Active' });
  },
  validateCreate: validateNamespace,
  validateUpdate: validateNamespaceUpdate,
  gracefulDelete: markTerminating,
  readyToRemove: (namespace) => specFinalizers(namespace).length === 0,
  printer: namespaceTable,
  selectableFields: (namespace) => ({ 'status.phase': fieldText(valueAt(namespace, 'status', 'phase')) }),
});
