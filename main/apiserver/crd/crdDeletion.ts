// The first DELETE of a CustomResourceDefinition, as apiextensions-apiserver
// pkg/registry/customresourcedefinition/etcd.go Delete: instead of removing the object it sets
// deletionTimestamp, adds the `customresourcecleanup.apiextensions.k8s.io` finalizer and a
// Terminating condition; the cleanup in customResourceDefinitions.ts deletes every custom object and
// then drops the finalizer, which lets the store remove the CRD.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { CLEANUP_FINALIZER } from './crdValidation';

export const CUSTOM_RESOURCE_DEFINITIONS = 'customresourcedefinitions.apiextensions.k8s.io';

/** Condition upsert keeping lastTransitionTime when the status does not change (SetCRDCondition). */
export function setCondition(status: Record<string, unknown>, condition: { type: string; status: string; reason: string; message: string }, timestamp: string): void {
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
  const existing = conditions.find((candidate) => candidate.type === condition.type);
  const lastTransitionTime = existing && existing.status === condition.status && typeof existing.lastTransitionTime === 'string' ? existing.lastTransitionTime : timestamp;
  const entry = { type: condition.type, status: condition.status, lastTransitionTime, reason: condition.reason, message: condition.message };
  status.conditions = existing ? conditions.map((candidate) => (candidate === existing ? entry : candidate)) : [...conditions, entry];
}

/**
 * `next` is the CRD about to be deleted (finalizers already reflect the delete options). Returns
 * the pending state, or undefined when it may go now.
 */
export function pendingCustomResourceDefinitionDeletion(next: KubeObject, timestamp: string): KubeObject | undefined {
  if (next.metadata.deletionTimestamp) return (next.metadata.finalizers ?? []).length > 0 ? next : undefined;
  next.metadata.deletionTimestamp = timestamp;
  next.metadata.deletionGracePeriodSeconds = 0;
  const finalizers = next.metadata.finalizers ?? [];
  if (!finalizers.includes(CLEANUP_FINALIZER)) next.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
  const status = isRecord(next.status) ? next.status : {};
  setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, timestamp);
  next.status = status;
  return next;
}
