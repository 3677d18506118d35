// Pod (core/v1), after pkg/registry/core/pod/strategy.go and storage/storage.go: created Pending
// with its QoS class; status is the kubelet's (written through /status); DELETE of a pod bound to
// a node is graceful — it waits terminationGracePeriodSeconds (or the request's grace period) for
// the kubelet to stop it and confirm with a delete at grace 0 — while unscheduled or finished pods
// go at once. /binding assigns the node once (BindingREST); /eviction deletes it within its
// PodDisruptionBudget (EvictionREST, provided by main/apiserver/subresources/eviction.ts);
// /ephemeralcontainers adds debugging containers and changes nothing else (EphemeralContainersREST
// with podEphemeralContainersStrategy); log, exec, attach, port-forward and proxy are streams the
// API server's plugins provide.
import { formatTime } from '../../../../shared/kubernetes/time';
import { isRecord, type KubeObject } from '../../../../shared/kubernetes/types';
import { podTable } from '../../../../shared/printers/pod';
import { jsonEqual } from '../../../../shared/kubernetes/json';
import { fieldErrors, type FieldError } from '../../fieldErrors';
import { defaultPod } from '../../defaults/core';
import { podQosClass } from '../../podQos';
import { validatePod, validatePodCreate, validatePodEphemeralContainersUpdate, validatePodUpdate } from '../../validation/core';
import { defineKind, fieldText, keepStoredStatus, statusSubresource, StrategyError, valueAt, type DeletionContext } from '../../strategy';

/** Upstream CheckGracefulDelete plus BeforeDelete: the grace period a deletion of this pod waits. */
function gracefulPodDelete(next: KubeObject, context: DeletionContext): KubeObject | undefined {
  const spec = isRecord(next.spec) ? next.spec : {};
  const phase = valueAt(next, 'status', 'phase');
  const defaultGrace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
  let grace = context.gracePeriodSeconds ?? defaultGrace;
  // Unscheduled or finished pods are deleted at once.
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') grace = 0;
  if (grace === 0 && context.finalizers.length === 0) return undefined;
  const current = next.metadata.deletionGracePeriodSeconds;
  // A deletion already under way is only ever shortened.
  if (current !== undefined && grace >= current && next.metadata.deletionTimestamp) return next;
  next.metadata.deletionTimestamp = formatTime(new Date(context.now.getTime() + grace * 1000));
  next.metadata.deletionGracePeriodSeconds = grace;
  if (next.metadata.generation !== undefined) next.metadata.generation += 1;
  return next;
}

/** The Binding's own checks (upstream ValidatePodBinding). */
function validateBinding(binding: Record<string, unknown>): FieldError[] {
  const target = isRecord(binding.target) ? binding.target : {};
  if (typeof target.name !== 'string' || target.name === '') return [fieldErrors.required('target.name')];
  if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') return [fieldErrors.notSupported('target.kind', target.kind, ['Node', ''])];
  return [];
}

/** BindingREST assignPod: spec.nodeName once, and the PodScheduled condition. */
function bindPod(pod: KubeObject, binding: Record<string, unknown>, now: Date): KubeObject {
  const name = pod.metadata.name ?? '';
  const nodeName = isRecord(binding.target) ? String(binding.target.name) : '';
  const spec = isRecord(pod.spec) ? pod.spec : {};
  if (pod.metadata.deletionTimestamp) throw new StrategyError('Conflict', 'pod is being deleted, cannot be assigned to a host');
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw new StrategyError('Conflict', `pod ${name} is already assigned to node "${spec.nodeName}"`);
  const status = isRecord(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter((condition) => !(isRecord(condition) && condition.type === 'PodScheduled')) : [];
  conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(now) });
  return { ...pod, spec: { ...spec, nodeName }, status: { ...status, conditions } };
}

/**
 * podEphemeralContainersStrategy.PrepareForUpdate (dropNonEphemeralContainerUpdates): the stored pod
 * with only spec.ephemeralContainers taken from the request; status and the metadata a status write
 * may not change (ResetObjectMetaForStatus: labels, annotations, finalizers, owners) stay as stored.
 * The generation counts the change (updatePodGeneration), compared once defaults are applied.
 */
function keepAllButEphemeralContainers(pod: KubeObject, old: KubeObject): void {
  const requested = isRecord(pod.spec) ? pod.spec.ephemeralContainers : undefined;
  const spec: Record<string, unknown> = structuredClone(isRecord(old.spec) ? old.spec : {});
  if (requested === undefined || requested === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = requested;
  pod.spec = spec;
  if (old.status === undefined) delete pod.status;
  else pod.status = structuredClone(old.status);
  const { labels, annotations, finalizers, ownerReferences } = structuredClone(old.metadata);
  pod.metadata = { ...pod.metadata, labels, annotations, finalizers, ownerReferences };
  for (const key of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) if (pod.metadata[key] === undefined) delete pod.metadata[key];
  const metadata = pod.metadata;
  const defaulted = structuredClone(pod);
  defaultPod(defaulted);
  if (!jsonEqual(defaulted.spec, old.spec)) metadata.generation = (old.metadata.generation ?? 0) + 1;
}

function podFields(pod: KubeObject): Record<string, string> {
  return {
    'spec.nodeName': fieldText(valueAt(pod, 'spec', 'nodeName')),
    'spec.restartPolicy': fieldText(valueAt(pod, 'spec', 'restartPolicy')),
    'spec.schedulerName': fieldText(valueAt(pod, 'spec', 'schedulerName')),
    'spec.serviceAccountName': fieldText(valueAt(pod, 'spec', 'serviceAccountName')),
    'spec.hostNetwork': valueAt(pod, 'spec', 'hostNetwork') === true ? 'true' : 'false',
    'status.phase': fieldText(valueAt(pod, 'status', 'phase')),
    'status.podIP': fieldText(valueAt(pod, 'status', 'podIP')),
    'status.nominatedNodeName': fieldText(valueAt(pod, 'status', 'nominatedNodeName')),
  };
}

export const podStrategy = defineKind({
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  hasGeneration: true,
  subresources: [
    { name: 'attach', type: 'connect', provider: 'podAttach', kind: 'PodAttachOptions', verbs: ['create', 'get'] },
    { name: 'binding', type: 'create', kind: 'Binding', validate: validateBinding, apply: bindPod },
    {
      name: 'ephemeralcontainers',
      type: 'update',
      prepareForUpdate: keepAllButEphemeralContainers,
      validateUpdate: validatePodEphemeralContainersUpdate,
      replacesKindValidation: true,
      admitted: true,
    },
    { name: 'eviction', type: 'create', provider: 'eviction', group: 'policy', version: 'v1', kind: 'Eviction' },
    { name: 'exec', type: 'connect', provider: 'podExec', kind: 'PodExecOptions', verbs: ['create', 'get'] },
    { name: 'log', type: 'connect', provider: 'podLog', verbs: ['get'] },
    { name: 'portforward', type: 'connect', provider: 'podPortForward', kind: 'PodPortForwardOptions', verbs: ['create', 'get'] },
    { name: 'proxy', type: 'connect', provider: 'podProxy', kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] },
    { name: 'resize', type: 'unserved' },
    statusSubresource(),
  ],
  prepareForCreate: (pod) => {
    pod.status = { phase: 'Pending', qosClass: podQosClass(pod.spec) };
  },
  prepareForUpdate: keepStoredStatus,
  defaults: defaultPod,
  validateCreate: validatePod,
  validateCreateOnly: validatePodCreate,
  validateUpdate: validatePodUpdate,
  gracefulDelete: gracefulPodDelete,
  readyToRemove: (pod) => (pod.metadata.deletionGracePeriodSeconds ?? 0) === 0,
  returnDeletedObject: true,
  printer: podTable,
  selectableFields: podFields,
});
