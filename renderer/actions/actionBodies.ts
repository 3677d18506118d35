// Pure builders of every request body the object actions send, each matching what kubectl sends
// for the same command: `kubectl scale` (merge patch of the scale subresource), `kubectl rollout
// restart` (template annotation kubectl.kubernetes.io/restartedAt), `kubectl rollout undo` (JSON
// patch of spec.template and metadata.annotations from the previous ReplicaSet revision,
// kubectl/pkg/polymorphichelpers/rollback.go), cordon/uncordon (spec.unschedulable), drain (which
// pods get evicted: kubectl/pkg/drain/filters.go skips DaemonSet pods and mirror pods), suspend/resume
// CronJob, and `kubectl create job --from=cronjob/x` (kubectl/pkg/cmd/create/create_job.go).
import { isRecord, type KubeObject, type OwnerReference } from '../../shared/kubernetes/types';

/** The field manager the UI writes as (kubectl uses `kubectl-<command>` / `kubectl`). */
export const FIELD_MANAGER = 'kubedesk-ui';

export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const INSTANTIATE_ANNOTATION = 'cronjob.kubernetes.io/instantiate';

/** Deployment annotations a rollback keeps from the Deployment instead of copying from the ReplicaSet. */
const ROLLBACK_KEPT_ANNOTATIONS = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  'deployment.kubernetes.io/revision-history',
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'deprecated.deployment.rollback.to',
]);

/** Merge patch of the scale subresource (`kubectl scale --replicas=n`). */
export function scalePatch(replicas: number): { spec: { replicas: number } } {
  return { spec: { replicas } };
}

/** The replica count typed by the user, or an error message. */
export function parseReplicas(text: string): { ok: true; replicas: number } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return { ok: false, message: `invalid replica count "${text}": must be a whole number ≥ 0` };
  const replicas = Number(trimmed);
  if (replicas > 2_147_483_647) return { ok: false, message: `invalid replica count "${text}": too large` };
  return { ok: true, replicas };
}

/** RFC 3339 time in seconds, as Go's time.RFC3339 prints a UTC time. */
export function rfc3339(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Strategic merge patch of `kubectl rollout restart`. */
export function restartPatch(now: Date): Record<string, unknown> {
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: rfc3339(now) } } } } };
}

/** Merge patch of `kubectl cordon` / `kubectl uncordon`. */
export function cordonPatch(unschedulable: boolean): { spec: { unschedulable: boolean | null } } {
  // uncordon removes the field (null in a merge patch) rather than writing false, as kubectl's helper does
  return { spec: { unschedulable: unschedulable ? true : null } };
}

/** Merge patch suspending or resuming a CronJob. */
export function suspendPatch(suspend: boolean): { spec: { suspend: boolean } } {
  return { spec: { suspend } };
}

/** Background propagation, as `kubectl delete` sends (DeleteOptions). */
export function deleteOptions(): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' };
}

/** The Eviction posted to pods/<name>/eviction (policy/v1). */
export function evictionBody(pod: KubeObject): Record<string, unknown> {
  return { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace } };
}

/** The owner reference with controller: true, if any. */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((reference) => reference.controller === true);
}

/** Why drain leaves a pod alone (undefined = evict it). */
export function drainSkipReason(pod: KubeObject): string | undefined {
  const annotations = pod.metadata.annotations ?? {};
  if (MIRROR_POD_ANNOTATION in annotations) return 'mirror pod';
  if (controllerOf(pod)?.kind === 'DaemonSet') return 'DaemonSet-managed';
  if (pod.metadata.deletionTimestamp) return 'already terminating';
  return undefined;
}

/** The pods `kubectl drain --ignore-daemonsets` evicts from a node. */
export function podsToEvict(pods: KubeObject[], nodeName: string): KubeObject[] {
  return pods.filter((pod) => isRecord(pod.spec) && pod.spec.nodeName === nodeName && drainSkipReason(pod) === undefined);
}

/** A random name suffix like kubectl's generated ones (5 chars from the consonant/digit alphabet). */
export function randomSuffix(random: () => number = Math.random, length = 5): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let suffix = '';
  for (let index = 0; index < length; index++) suffix += alphabet[Math.floor(random() * alphabet.length) % alphabet.length];
  return suffix;
}

/** The Job `kubectl create job <name> --from=cronjob/<cronjob>` creates. */
export function jobFromCronJob(cronJob: KubeObject, jobName: string): KubeObject {
  const spec = isRecord(cronJob.spec) ? cronJob.spec : {};
  const template = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
  const templateMetadata = isRecord(template.metadata) ? template.metadata : {};
  const annotations: Record<string, string> = { [INSTANTIATE_ANNOTATION]: 'manual' };
  if (isRecord(templateMetadata.annotations)) for (const [key, value] of Object.entries(templateMetadata.annotations)) if (typeof value === 'string') annotations[key] = value;
  const labels: Record<string, string> = {};
  if (isRecord(templateMetadata.labels)) for (const [key, value] of Object.entries(templateMetadata.labels)) if (typeof value === 'string') labels[key] = value;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName,
      namespace: cronJob.metadata.namespace,
      annotations,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cronJob.metadata.name ?? '', uid: cronJob.metadata.uid ?? '', controller: true }],
    },
    spec: isRecord(template.spec) ? structuredClone(template.spec) : {},
  };
}

/** `<cronjob>-manual-<suffix>`, kept within the 63 characters a Job name (a pod label value) allows. */
export function manualJobName(cronJobName: string, suffix: string): string {
  const tail = `-manual-${suffix}`;
  return `${cronJobName.slice(0, 63 - tail.length)}${tail}`;
}

export type RollbackPlan = { ok: true; patch: Record<string, unknown>[]; revision: number } | { ok: false; skipped: boolean; message: string };

function revisionOf(object: KubeObject): number | undefined {
  const text = object.metadata.annotations?.[REVISION_ANNOTATION];
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

function withoutHashLabel(template: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(template);
  if (isRecord(copy.metadata) && isRecord(copy.metadata.labels)) {
    const labels = { ...copy.metadata.labels };
    delete labels[POD_TEMPLATE_HASH_LABEL];
    copy.metadata = { ...copy.metadata, labels };
  }
  return copy;
}

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right)) return left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  if (isRecord(left) && isRecord(right)) {
    const keys = new Set([...Object.keys(left), ...Object.keys(right)].filter((key) => left[key] !== undefined || right[key] !== undefined));
    for (const key of keys) if (!jsonEqual(left[key], right[key])) return false;
    return true;
  }
  return false;
}

/**
 * `kubectl rollout undo deployment/x` (to the previous revision): among the ReplicaSets the
 * Deployment controls, take the one with the second-highest revision, and JSON-patch its template
 * (minus pod-template-hash) and its annotations (except the Deployment's own bookkeeping ones).
 */
export function rollbackPlan(deployment: KubeObject, replicaSets: KubeObject[]): RollbackPlan {
  const name = deployment.metadata.name ?? '';
  const spec = isRecord(deployment.spec) ? deployment.spec : {};
  const owned = replicaSets.filter((replicaSet) => controllerOf(replicaSet)?.uid === deployment.metadata.uid);
  let latest: { revision: number; replicaSet: KubeObject } | undefined;
  let previous: { revision: number; replicaSet: KubeObject } | undefined;
  for (const replicaSet of owned) {
    const revision = revisionOf(replicaSet);
    if (revision === undefined) continue;
    if (!latest || revision > latest.revision) {
      previous = latest;
      latest = { revision, replicaSet };
    } else if (!previous || revision > previous.revision) previous = { revision, replicaSet };
  }
  if (!previous) return { ok: false, skipped: false, message: `no rollout history found for deployment "${name}"` };
  if (spec.paused === true) return { ok: false, skipped: false, message: `you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume deployment/${name}' and try again` };
  const replicaSetSpec = isRecord(previous.replicaSet.spec) ? previous.replicaSet.spec : {};
  const template = withoutHashLabel(isRecord(replicaSetSpec.template) ? replicaSetSpec.template : {});
  const current = withoutHashLabel(isRecord(spec.template) ? spec.template : {});
  if (jsonEqual(template, current)) return { ok: false, skipped: true, message: `skipped rollback (current template already matches revision ${previous.revision})` };
  const annotations: Record<string, string> = {};
  const deploymentAnnotations = deployment.metadata.annotations ?? {};
  for (const key of ROLLBACK_KEPT_ANNOTATIONS) if (key in deploymentAnnotations) annotations[key] = deploymentAnnotations[key];
  for (const [key, value] of Object.entries(previous.replicaSet.metadata.annotations ?? {})) if (!ROLLBACK_KEPT_ANNOTATIONS.has(key)) annotations[key] = value;
  return {
    ok: true,
    revision: previous.revision,
    patch: [
      { op: 'replace', path: '/spec/template', value: template },
      // `add` replaces an existing member and also works when the Deployment has no annotations yet
      { op: deployment.metadata.annotations ? 'replace' : 'add', path: '/metadata/annotations', value: annotations },
    ],
  };
}
