// Pure builders of every request body the object actions send, each matching what kubectl sends
// for the same command: `kubectl scale` (merge patch of the scale subresource), `kubectl rollout
// restart` (template annotation kubectl.kubernetes.io/restartedAt), `kubectl rollout undo` (JSON
// patch of spec.template and metadata.annotations from the previous ReplicaSet revision,
// kubectl/pkg/polymorphichelpers/rollback.go; for StatefulSets and DaemonSets the previous
// ControllerRevision's data applied as a strategic merge patch, as StatefulSetRollbacker and
// DaemonSetRollbacker do), cordon/uncordon (spec.unschedulable), drain (which pods get evicted:
// kubectl/pkg/drain/filters.go skips DaemonSet pods and mirror pods; what to do with each eviction
// reply, after kubectl/pkg/drain/drain.go evictPods: 429 from a PodDisruptionBudget is retried every
// 5 s until a deadline, 404 means already gone), suspend/resume
// CronJob, and `kubectl create job --from=cronjob/x` (kubectl/pkg/cmd/create/create_job.go).
import { isRecord, type KubeObject, type OwnerReference } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { jsonEqual } from '../../shared/kubernetes/json';

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
export { formatTime as rfc3339 };

/** Strategic merge patch of `kubectl rollout restart`. */
export function restartPatch(now: Date): Record<string, unknown> {
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: formatTime(now) } } } } };
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

/** A StatefulSet's or DaemonSet's rollback: the strategic merge patch to send, or why there is none. */
export type RevisionRollbackPlan = { ok: true; patch: Record<string, unknown>; revision: number } | { ok: false; skipped: boolean; message: string };

function controllerRevisionNumber(revision: KubeObject): number | undefined {
  return typeof revision.revision === 'number' && Number.isFinite(revision.revision) ? revision.revision : undefined;
}

/** The patch the StatefulSet/DaemonSet controllers record as a revision's data (their getPatch). */
export function currentTemplatePatch(object: KubeObject): Record<string, unknown> {
  const spec = isRecord(object.spec) ? object.spec : {};
  return { spec: { template: { ...(isRecord(spec.template) ? structuredClone(spec.template) : {}), $patch: 'replace' } } };
}

/**
 * `kubectl rollout undo statefulset/x` / `daemonset/x` (to the previous revision): among the
 * ControllerRevisions the object controls, take the second-highest revision (the highest is the
 * current template; a rollback renumbers the restored revision to the top, so "second highest" is
 * always "the one before"), skip when its data already equals the object's template patch, and
 * otherwise send the data itself as a strategic merge patch (it replaces spec.template wholesale).
 */
export function revisionRollbackPlan(object: KubeObject, revisions: KubeObject[]): RevisionRollbackPlan {
  const numbered: { revision: number; data: unknown }[] = [];
  for (const candidate of revisions) {
    if (controllerOf(candidate)?.uid !== object.metadata.uid) continue;
    const revision = controllerRevisionNumber(candidate);
    if (revision !== undefined) numbered.push({ revision, data: candidate.data });
  }
  if (numbered.length <= 1) return { ok: false, skipped: false, message: 'no previous revision to roll back to' };
  numbered.sort((left, right) => left.revision - right.revision);
  const previous = numbered[numbered.length - 2];
  if (!isRecord(previous.data)) return { ok: false, skipped: false, message: `revision ${previous.revision} has no data to roll back to` };
  if (jsonEqual(previous.data, currentTemplatePatch(object))) return { ok: false, skipped: true, message: `skipped rollback (current template already matches revision ${previous.revision})` };
  return { ok: true, revision: previous.revision, patch: structuredClone(previous.data) };
}

/** kubectl drain retries an eviction refused by a PodDisruptionBudget after this long. */
export const EVICTION_RETRY_MS = 5_000;
/** What a pod gets to terminate beyond its grace period before drain gives up waiting. */
export const TERMINATION_SLACK_MS = 30_000;
const DEFAULT_GRACE_SECONDS = 30;

/** What drain does next with one pod, given the reply to its eviction (status undefined = 201 Created). */
export type EvictionStep = { action: 'evicted' } | { action: 'gone' } | { action: 'retry'; afterMs: number } | { action: 'blocked' } | { action: 'failed' };

/**
 * evictPods' loop for one pod: success → wait for it to go; 404 → nothing left to do; 429 (a
 * PodDisruptionBudget, or the API's own back-pressure) → try again in 5 s while the deadline allows,
 * else give up as blocked; anything else fails at once.
 */
export function evictionStep(status: number | undefined, now: number, deadline: number, retryMs = EVICTION_RETRY_MS): EvictionStep {
  if (status === undefined) return { action: 'evicted' };
  if (status === 404) return { action: 'gone' };
  if (status === 429) return now + retryMs <= deadline ? { action: 'retry', afterMs: retryMs } : { action: 'blocked' };
  return { action: 'failed' };
}

/** How long drain waits for the pods: the longest grace period among them plus slack (30 s grace when unset). */
export function terminationWaitMs(pods: KubeObject[], slackMs = TERMINATION_SLACK_MS): number {
  let longest = 0;
  for (const pod of pods) {
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const grace = typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds >= 0 ? spec.terminationGracePeriodSeconds : DEFAULT_GRACE_SECONDS;
    longest = Math.max(longest, grace);
  }
  return longest * 1000 + slackMs;
}

/** `namespace/name` of a pod, for messages and cache look-ups. */
export function podKey(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

/**
 * The evicted pods still present in a cache keyed by `namespace/name`; a pod with the same name but
 * another uid is a replacement (a StatefulSet's), so the evicted one counts as gone — waitForDelete's rule.
 */
export function podsRemaining(evicted: KubeObject[], cached: Record<string, KubeObject>): KubeObject[] {
  return evicted.filter((pod) => {
    const found = cached[podKey(pod)];
    return found !== undefined && (pod.metadata.uid === undefined || found.metadata.uid === pod.metadata.uid);
  });
}

/** The task title while drain waits. */
export function drainWaitTitle(nodeName: string, count: number): string {
  return `Draining ${nodeName}: waiting for ${count} pod${count === 1 ? '' : 's'} to terminate`;
}

export interface DrainOutcome {
  nodeName: string;
  /** pods evicted (or already gone) and seen to terminate */
  evicted: string[];
  /** pods a PodDisruptionBudget kept until the deadline */
  blocked: string[];
  /** pods whose eviction failed otherwise, with the reason */
  failed: { pod: string; message: string }[];
  /** pods evicted but still there at the deadline */
  stuck: string[];
  ignoredDaemonSetPods: number;
}

/** The one notice a drain ends with. */
export function drainSummary(outcome: DrainOutcome): { tone: 'ok' | 'error'; text: string } {
  const { nodeName } = outcome;
  const problems: string[] = [];
  if (outcome.blocked.length > 0) problems.push(`eviction refused by a PodDisruptionBudget until the deadline: ${outcome.blocked.join(', ')}`);
  for (const failure of outcome.failed) problems.push(`error when evicting ${failure.pod}: ${failure.message}`);
  if (outcome.stuck.length > 0) problems.push(`still terminating at the deadline: ${outcome.stuck.join(', ')}`);
  const ignored = outcome.ignoredDaemonSetPods > 0 ? `, ${outcome.ignoredDaemonSetPods} DaemonSet pod(s) ignored` : '';
  if (problems.length === 0) return { tone: 'ok', text: `node/${nodeName} drained: ${outcome.evicted.length} pod(s) evicted${ignored}` };
  const total = outcome.evicted.length + outcome.blocked.length + outcome.failed.length + outcome.stuck.length;
  const unfinished = total - outcome.evicted.length;
  return { tone: 'error', text: `node/${nodeName}: ${unfinished} of ${total} pod(s) not drained\n${problems.join('\n')}` };
}
