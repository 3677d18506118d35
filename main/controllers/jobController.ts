// JobController: runs a Job's pods to completion, after upstream pkg/controller/job/job_controller.go
// (with backoff_utils.go, pod_failure_policy.go, indexed_job_utils.go, and the TTL-after-finished
// controller folded in):
// - pods toward min(parallelism, completions - succeeded), NonIndexed (`<job>-xxxxx`) or Indexed
//   (`<job>-<index>-xxxxx`, hostname `<job>-<index>`, annotation and label
//   batch.kubernetes.io/job-completion-index, env JOB_COMPLETION_INDEX);
// - every pod carries the batch.kubernetes.io/job-tracking finalizer; a finished pod's UID goes to
//   status.uncountedTerminatedPods first, then the finalizer comes off, then the counters move —
//   so a pod is counted exactly once even across restarts;
// - failed pods (and, unless podReplacementPolicy is Failed, deleted ones) count toward backoffLimit,
//   as do container restarts under restartPolicy OnFailure; replacements wait 10 s doubling to 6 min;
// - podFailurePolicy rules (FailJob / Ignore / Count / FailIndex on exit codes and pod conditions);
// - activeDeadlineSeconds, suspend (deletes active pods, Suspended condition) and resume;
// - the interim SuccessCriteriaMet / FailureTarget conditions first, then Complete / Failed once no
//   pod is terminating, with upstream reasons and events;
// - ttlSecondsAfterFinished: the finished Job is deleted (and its pods, with Background propagation).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { conditionsOf, findCondition, getCondition, type Condition } from '../../shared/kubernetes/conditions';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { isConflict, isInvalid, isNotFound } from '../client/errors';
import { objectKey, splitKey, type SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { ControllerExpectations, controllerOf, controllerRef, isPodActive, isPodReady, podFromTemplate, podPhase, selectorMatches, SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, specOf, statusOf } from './controllerUtils';

export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const JOB_COMPLETION_INDEX_ANNOTATION = 'batch.kubernetes.io/job-completion-index';
export const JOB_COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';

/** upstream DefaultJobPodFailureBackOff and the cap this project uses (MaxJobPodFailureBackOff). */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;
/** upstream MaxUncountedPods and MaxPodCreateDeletePerSync */
const MAX_UNCOUNTED_PODS = 500;
const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
export type JobControllerOptions = ControllerOptions;

interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

interface PolicyMatch {
  /** A FailJob rule matched: the Job fails with this message. */
  failJobMessage?: string;
  /** Whether the failure counts toward backoffLimit (false for Ignore). */
  countFailed: boolean;
  action?: string;
}

// ---------------------------------------------------------------- pure helpers

/** upstream IsJobFinished: a Complete or Failed condition that is True. */
export function isJobFinished(job: KubeObject): boolean {
  return conditionsOf(job).some((condition) => (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True');
}

function newCondition(type: string, status: string, reason: string, message: string, now: number): Condition {
  const time = formatTime(now);
  return { type, status, lastProbeTime: time, lastTransitionTime: time, reason, message };
}

/** upstream ensureConditionStatus: appends or updates; never appends a False condition. */
function ensureCondition(conditions: Condition[], type: string, status: string, reason: string, message: string, now: number): boolean {
  const index = conditions.findIndex((condition) => condition.type === type);
  if (index >= 0) {
    const current = conditions[index];
    if (current.status === status && current.reason === reason && current.message === message) return false;
    conditions[index] = newCondition(type, status, reason, message, now);
    return true;
  }
  if (status === 'False') return false;
  conditions.push(newCondition(type, status, reason, message, now));
  return true;
}

function hasTrackingFinalizer(pod: KubeObject): boolean {
  return (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
}

function numberField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isIndexed(job: KubeObject): boolean {
  return specOf(job).completionMode === 'Indexed';
}

function isSuspended(job: KubeObject): boolean {
  return specOf(job).suspend === true;
}

/** podReplacementPolicy Failed: a terminating pod is not replaced (nor counted) until it has failed. */
function onlyReplaceFailedPods(job: KubeObject): boolean {
  const spec = specOf(job);
  return spec.podReplacementPolicy === 'Failed' || spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null;
}

/** upstream getCompletionIndex: the annotation (or, for adopted pods, the label); -1 when absent or bad. */
export function completionIndexOf(pod: KubeObject): number {
  const text = pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? pod.metadata.labels?.[JOB_COMPLETION_INDEX_ANNOTATION];
  if (text === undefined || !/^\d+$/.test(text)) return -1;
  return Number(text);
}

/** upstream isPodFailed */
function isPodFailed(pod: KubeObject, job: KubeObject): boolean {
  const phase = podPhase(pod);
  if (phase === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  // A deleted pod may never reach a terminal phase (e.g. its node vanished): count it as failed.
  return pod.metadata.deletionTimestamp !== undefined && phase !== 'Succeeded';
}

function isTerminating(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return pod.metadata.deletionTimestamp !== undefined && phase !== 'Failed' && phase !== 'Succeeded';
}

function containerStatuses(pod: KubeObject, field: 'containerStatuses' | 'initContainerStatuses'): Record<string, unknown>[] {
  const list = statusOf(pod)[field];
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function terminatedState(status: Record<string, unknown>): Record<string, unknown> | undefined {
  return isRecord(status.state) && isRecord(status.state.terminated) ? status.state.terminated : undefined;
}

/** upstream matchPodFailurePolicy (pod_failure_policy.go): the first matching rule decides. */
export function matchPodFailurePolicy(policy: unknown, pod: KubeObject): PolicyMatch {
  if (!isRecord(policy) || !Array.isArray(policy.rules)) return { countFailed: true };
  const rules = policy.rules.filter(isRecord);
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    const action = typeof rule.action === 'string' ? rule.action : '';
    let failJobMessage: string | undefined;
    if (isRecord(rule.onExitCodes)) {
      const requirement = rule.onExitCodes;
      const values = Array.isArray(requirement.values) ? requirement.values.filter((value): value is number => typeof value === 'number') : [];
      const matching = [...containerStatuses(pod, 'initContainerStatuses'), ...containerStatuses(pod, 'containerStatuses')].find((status) => {
        const terminated = terminatedState(status);
        if (!terminated) return false;
        if (typeof requirement.containerName === 'string' && requirement.containerName !== status.name) return false;
        const exitCode = numberField(terminated.exitCode) ?? 0;
        // exit code 0 never matches: a succeeded container is not a failure cause
        if (exitCode === 0) return false;
        return requirement.operator === 'In' ? values.includes(exitCode) : requirement.operator === 'NotIn' ? !values.includes(exitCode) : false;
      });
      if (!matching) continue;
      const terminated = terminatedState(matching) ?? {};
      failJobMessage = `Container ${String(matching.name)} for pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} failed with exit code ${String(numberField(terminated.exitCode) ?? 0)} matching ${action} rule at index ${index}`;
    } else if (Array.isArray(rule.onPodConditions)) {
      const conditions = conditionsOf(pod);
      const requirements = rule.onPodConditions.filter(isRecord);
      const matching = conditions.find((condition) => requirements.some((requirement) => requirement.type === condition.type && (requirement.status ?? 'True') === condition.status));
      if (!matching) continue;
      failJobMessage = `Pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} has condition ${String(matching.type)} matching ${action} rule at index ${index}`;
    } else {
      continue;
    }
    switch (action) {
      case 'FailJob':
        return { failJobMessage, countFailed: true, action };
      case 'Ignore':
        return { countFailed: false, action };
      case 'Count':
      case 'FailIndex':
        return { countFailed: true, action };
      default:
        continue;
    }
  }
  return { countFailed: true };
}

/** upstream getFinishedTime: the last container finish, else Ready=False time, else deletion, else creation. */
function finishedTime(pod: KubeObject): number {
  let latest: number | undefined;
  let allTerminated = true;
  const statuses = containerStatuses(pod, 'containerStatuses');
  for (const status of statuses) {
    const terminated = terminatedState(status);
    const at = terminated && typeof terminated.finishedAt === 'string' ? Date.parse(terminated.finishedAt) : NaN;
    if (!Number.isFinite(at)) {
      allTerminated = false;
      break;
    }
    latest = latest === undefined ? at : Math.max(latest, at);
  }
  if (allTerminated && latest !== undefined) return latest;
  const ready = getCondition(pod, 'Ready');
  if (ready && ready.status === 'False' && typeof ready.lastTransitionTime === 'string') {
    const at = Date.parse(ready.lastTransitionTime);
    if (Number.isFinite(at)) return at;
  }
  if (pod.metadata.deletionTimestamp) {
    const at = Date.parse(pod.metadata.deletionTimestamp) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
    if (Number.isFinite(at)) return at;
  }
  return Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
}

/** upstream getRemainingTimeForFailuresCount: 10 s, doubling per consecutive failure, capped. */
export function backoffRemainingMs(record: BackoffRecord, now: number, initialMs = POD_FAILURE_BACKOFF_MS, maxMs = MAX_POD_FAILURE_BACKOFF_MS): number {
  if (record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let backoff = initialMs;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    backoff *= 2;
    if (backoff >= maxMs) {
      backoff = maxMs;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return backoff < elapsed ? 0 : backoff - elapsed;
}

/** upstream backoffStore.newBackoffRecord */
function nextBackoffRecord(previous: BackoffRecord, newSucceeded: KubeObject[], newFailed: KubeObject[]): BackoffRecord {
  const failedTimes = newFailed.map(finishedTime).sort((a, b) => a - b);
  if (newSucceeded.length === 0) {
    if (failedTimes.length === 0) return { ...previous };
    return { failuresAfterLastSuccess: previous.failuresAfterLastSuccess + failedTimes.length, lastFailureTime: failedTimes[failedTimes.length - 1] };
  }
  const lastSuccess = Math.max(...newSucceeded.map(finishedTime));
  const after = failedTimes.filter((time) => time > lastSuccess);
  return after.length === 0 ? { failuresAfterLastSuccess: 0 } : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** Parses `1,3-5` (status.completedIndexes) into a sorted list of indexes below `completions`. */
export function parseIndexes(text: unknown, completions: number): number[] {
  if (typeof text !== 'string' || text === '') return [];
  const result = new Set<number>();
  for (const part of text.split(',')) {
    const [first, last] = part.split('-').map((value) => Number(value));
    if (!Number.isInteger(first)) continue;
    const end = Number.isInteger(last) ? last : first;
    for (let index = first; index <= end && index < completions; index++) result.add(index);
  }
  return [...result].sort((a, b) => a - b);
}

/** The inverse of parseIndexes: consecutive runs as `first-last`, as upstream orderedIntervals.String. */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const first = sorted[i];
    while (i + 1 < sorted.length && sorted[i + 1] === sorted[i] + 1) i++;
    parts.push(first === sorted[i] ? String(first) : `${first}-${sorted[i]}`);
  }
  return parts.join(',');
}

/** upstream pastBackoffLimitOnFailure: container restarts of running pods count with restartPolicy OnFailure. */
function pastBackoffLimitOnFailure(job: KubeObject, pods: KubeObject[], backoffLimit: number): boolean {
  const template = isRecord(specOf(job).template) ? (specOf(job).template as Record<string, unknown>) : {};
  const podSpec = isRecord(template.spec) ? template.spec : {};
  if (podSpec.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = podPhase(pod);
    if (phase !== 'Running' && phase !== 'Pending') continue;
    for (const status of [...containerStatuses(pod, 'initContainerStatuses'), ...containerStatuses(pod, 'containerStatuses')]) restarts += numberField(status.restartCount) ?? 0;
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

/** upstream controller.ActivePods ordering: the least advanced pods go first. */
function removalOrder(a: KubeObject, b: KubeObject): number {
  const scheduled = (pod: KubeObject) => (specOf(pod).nodeName ? 1 : 0);
  if (scheduled(a) !== scheduled(b)) return scheduled(a) - scheduled(b);
  const rank: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };
  const phaseRank = (pod: KubeObject) => rank[podPhase(pod)] ?? 0;
  if (phaseRank(a) !== phaseRank(b)) return phaseRank(a) - phaseRank(b);
  const ready = (pod: KubeObject) => (isPodReady(pod) ? 1 : 0);
  if (ready(a) !== ready(b)) return ready(a) - ready(b);
  return Date.parse(b.metadata.creationTimestamp ?? '') - Date.parse(a.metadata.creationTimestamp ?? '');
}

/** upstream addCompletionIndexEnvVariables: JOB_COMPLETION_INDEX from the annotation, unless already set. */
function addCompletionIndexEnv(podSpec: Record<string, unknown>): void {
  for (const field of ['containers', 'initContainers']) {
    const containers = podSpec[field];
    if (!Array.isArray(containers)) continue;
    for (const container of containers) {
      if (!isRecord(container)) continue;
      const env = Array.isArray(container.env) ? container.env : [];
      if (env.some((variable) => isRecord(variable) && variable.name === JOB_COMPLETION_INDEX_ENV)) continue;
      container.env = [...env, { name: JOB_COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } }];
    }
  }
}

// ---------------------------------------------------------------- the controller

interface SyncContext {
  job: KubeObject;
  key: string;
  pods: KubeObject[];
  activePods: KubeObject[];
  ready: number;
  terminating: number;
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  expectedRemovals: Set<string>;
  succeeded: number;
  failed: number;
  succeededIndexes: number[];
  previousSucceededIndexes: number[];
  finishedCondition?: Condition;
  backoff: BackoffRecord;
}

export class JobController extends QueueController {
  private readonly jobs = this.factory.informerFor(resources.jobs);
  private readonly pods = this.factory.informerFor(resources.pods);
  private readonly expectations = new ControllerExpectations(this.clock);
  private readonly finalizerRemovals = new Map<string, Set<string>>();
  private readonly backoffRecords = new Map<string, BackoffRecord>();

  constructor(client: ApiClient, factory: SharedInformerFactory, options: JobControllerOptions = {}) {
    super(client, factory, { name: 'job', component: 'job-controller', workers: 5 }, options);
    this.enqueueChanges(this.jobs);
    this.handle(this.pods, {
      onAdd: (pod) => {
        const key = this.jobKeyOf(pod);
        if (key) this.expectations.creationObserved(key);
        this.enqueueForPod(pod);
      },
      onUpdate: (old, pod) => {
        const key = this.jobKeyOf(pod);
        if (key && !old.metadata.deletionTimestamp && pod.metadata.deletionTimestamp) this.expectations.deletionObserved(key, objectKey(pod));
        if (key && hasTrackingFinalizer(old) && !hasTrackingFinalizer(pod)) this.finalizerRemovals.get(key)?.delete(pod.metadata.uid ?? '');
        const oldKey = this.jobKeyOf(old);
        if (oldKey && oldKey !== key) this.queue.add(oldKey);
        this.enqueueForPod(pod);
      },
      onDelete: (pod) => {
        const key = this.jobKeyOf(pod);
        if (key) {
          this.expectations.deletionObserved(key, objectKey(pod));
          this.finalizerRemovals.get(key)?.delete(pod.metadata.uid ?? '');
        }
        this.enqueueForPod(pod);
      },
    });
  }

  private jobKeyOf(pod: KubeObject): string | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1' || !pod.metadata.namespace) return undefined;
    return `${pod.metadata.namespace}/${ref.name}`;
  }

  private enqueueForPod(pod: KubeObject): void {
    const key = this.jobKeyOf(pod);
    if (key) {
      this.queue.add(key);
      return;
    }
    if (controllerOf(pod) || pod.metadata.deletionTimestamp || !pod.metadata.namespace) return;
    // An orphan: the Jobs whose selector matches may adopt it.
    for (const job of this.jobs.listByNamespace(pod.metadata.namespace)) {
      if (selectorMatches(specOf(job).selector, pod.metadata.labels)) this.queue.add(objectKey(job));
    }
  }

  private expectedRemovals(key: string): Set<string> {
    let set = this.finalizerRemovals.get(key);
    if (!set) this.finalizerRemovals.set(key, (set = new Set()));
    return set;
  }

  // ---- reconcile

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    if (!namespace) return;
    const cached = this.jobs.get(namespace, name);
    if (!cached) {
      this.expectations.delete(key);
      this.finalizerRemovals.delete(key);
      this.backoffRecords.delete(key);
      await this.releaseOrphanedPods(namespace, name);
      return;
    }
    const job = structuredClone(cached);
    if (isJobFinished(job)) {
      this.backoffRecords.delete(key);
      await this.removeFinalizers(key, this.ownedPods(job).filter(hasTrackingFinalizer));
      await this.handleTtl(key, job);
      return;
    }
    const spec = specOf(job);
    if (spec.completionMode !== undefined && spec.completionMode !== 'NonIndexed' && spec.completionMode !== 'Indexed') {
      this.recorder.event(job, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const status = statusOf(job);
    job.status = status;
    const uncounted = isRecord(status.uncountedTerminatedPods) ? status.uncountedTerminatedPods : {};
    const satisfiedExpectations = this.expectations.satisfied(key);
    const pods = await this.claimPods(job);
    const activePods = pods.filter(isPodActive);
    const now = this.clock.now();
    const context: SyncContext = {
      job,
      key,
      pods,
      activePods,
      ready: activePods.filter(isPodReady).length,
      terminating: pods.filter(isTerminating).length,
      uncountedSucceeded: new Set(Array.isArray(uncounted.succeeded) ? uncounted.succeeded.map(String) : []),
      uncountedFailed: new Set(Array.isArray(uncounted.failed) ? uncounted.failed.map(String) : []),
      expectedRemovals: this.expectedRemovals(key),
      succeeded: 0,
      failed: 0,
      succeededIndexes: [],
      previousSucceededIndexes: [],
      backoff: this.backoffRecords.get(key) ?? { failuresAfterLastSuccess: 0 },
    };
    const completions = numberField(spec.completions);
    const backoffLimit = numberField(spec.backoffLimit) ?? 6;
    let active = activePods.length;
    const newSucceeded = this.newFinishedPods(context, context.uncountedSucceeded, (pod) => podPhase(pod) === 'Succeeded');
    const newFailed = this.newFinishedPods(context, context.uncountedFailed, (pod) => isPodFailed(pod, job));
    const newFailedCounted = newFailed.filter((pod) => matchPodFailurePolicy(spec.podFailurePolicy, pod).countFailed);
    context.succeeded = (numberField(status.succeeded) ?? 0) + newSucceeded.length + context.uncountedSucceeded.size;
    context.failed = (numberField(status.failed) ?? 0) + newFailedCounted.length + context.uncountedFailed.size;
    if (!status.startTime && !isSuspended(job)) status.startTime = formatTime(now);
    context.backoff = nextBackoffRecord(context.backoff, newSucceeded, newFailed);

    const conditions = conditionsOf(job);
    const successCriteria = findCondition(conditions, 'SuccessCriteriaMet');
    if (successCriteria?.status === 'True') context.finishedCondition = successCriteria;
    if (!context.finishedCondition) {
      const failureTarget = findCondition(conditions, 'FailureTarget');
      if (failureTarget?.status === 'True') context.finishedCondition = newCondition('Failed', 'True', failureTarget.reason ?? '', failureTarget.message ?? '', now);
      else {
        const message = this.failJobMessage(job, pods);
        if (message) context.finishedCondition = newCondition('FailureTarget', 'True', 'PodFailurePolicy', message, now);
      }
    }
    if (!context.finishedCondition) {
      const deadline = numberField(spec.activeDeadlineSeconds);
      const startTime = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
      if (context.failed > backoffLimit || pastBackoffLimitOnFailure(job, pods, backoffLimit)) {
        context.finishedCondition = newCondition('FailureTarget', 'True', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now);
      } else if (deadline !== undefined && Number.isFinite(startTime) && !isSuspended(job)) {
        const remaining = deadline * 1000 - (now - startTime);
        if (remaining <= 0) context.finishedCondition = newCondition('FailureTarget', 'True', 'DeadlineExceeded', 'Job was active longer than specified deadline', now);
        else this.queue.addAfter(key, remaining);
      }
    }
    if (isIndexed(job)) {
      const count = completions ?? 0;
      context.previousSucceededIndexes = parseIndexes(status.completedIndexes, count);
      const fresh = pods.filter((pod) => podPhase(pod) === 'Succeeded' && hasTrackingFinalizer(pod)).map(completionIndexOf).filter((index) => index >= 0 && index < count);
      context.succeededIndexes = [...new Set([...context.previousSucceededIndexes, ...fresh])].sort((a, b) => a - b);
      context.succeeded = context.succeededIndexes.length;
    }

    let manageError: unknown;
    if (context.finishedCondition) {
      const { deleted, deletedReady, error } = await this.deletePods(job, activePods, false);
      if (deleted !== active || !satisfiedExpectations) context.finishedCondition = undefined;
      active -= deleted;
      context.terminating += deleted;
      context.ready -= deletedReady;
      manageError = error;
    } else {
      let managed = false;
      if (satisfiedExpectations && !job.metadata.deletionTimestamp) {
        try {
          active = await this.manageJob(context);
        } catch (error) {
          manageError = error;
          active = context.activePods.length;
        }
        managed = true;
      }
      const complete = completions === undefined ? context.succeeded > 0 && active === 0 : context.succeeded >= completions && active === 0;
      if (complete) {
        context.finishedCondition = newCondition('SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods', now);
      } else if (managed) {
        if (isSuspended(job)) {
          if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', now)) {
            this.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
          }
        } else if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', now)) {
          this.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
          // activeDeadlineSeconds counts continuous activity, so it restarts on resume.
          status.startTime = formatTime(now);
        }
      }
    }
    status.conditions = conditions;
    status.active = active;
    status.ready = Math.max(0, context.ready);
    status.terminating = context.terminating;
    await this.trackStatusAndRemoveFinalizers(context);
    if (manageError) throw manageError;
  }

  /** upstream getValidPodsWithFilter: finished pods still carrying the finalizer and not yet counted. */
  private newFinishedPods(context: SyncContext, uncounted: Set<string>, filter: (pod: KubeObject) => boolean): KubeObject[] {
    const completions = numberField(specOf(context.job).completions) ?? 0;
    return context.pods.filter((pod) => {
      const uid = pod.metadata.uid ?? '';
      if (!hasTrackingFinalizer(pod) || uncounted.has(uid) || context.expectedRemovals.has(uid)) return false;
      if (isIndexed(context.job)) {
        const index = completionIndexOf(pod);
        if (index < 0 || index >= completions) return false;
      }
      return filter(pod);
    });
  }

  private failJobMessage(job: KubeObject, pods: KubeObject[]): string | undefined {
    const policy = specOf(job).podFailurePolicy;
    if (!isRecord(policy)) return undefined;
    for (const pod of pods) {
      if (!isPodFailed(pod, job)) continue;
      const match = matchPodFailurePolicy(policy, pod);
      if (match.failJobMessage) return match.failJobMessage;
    }
    return undefined;
  }

  private ownedPods(job: KubeObject): KubeObject[] {
    const uid = job.metadata.uid;
    return this.pods.listByNamespace(job.metadata.namespace ?? '').filter((pod) => controllerOf(pod)?.uid === uid);
  }

  /** upstream getPodsForJob / PodControllerRefManager.ClaimPods: owned pods, plus matching orphans adopted. */
  private async claimPods(job: KubeObject): Promise<KubeObject[]> {
    const selector = specOf(job).selector;
    const claimed: KubeObject[] = [];
    for (const pod of this.pods.listByNamespace(job.metadata.namespace ?? '')) {
      const ref = controllerOf(pod);
      if (ref) {
        if (ref.uid !== job.metadata.uid) continue;
        if (!selectorMatches(selector, pod.metadata.labels) && !pod.metadata.deletionTimestamp && !job.metadata.deletionTimestamp) {
          await this.releasePod(pod, job);
          continue;
        }
        claimed.push(pod);
        continue;
      }
      if (pod.metadata.deletionTimestamp || job.metadata.deletionTimestamp || !selectorMatches(selector, pod.metadata.labels)) continue;
      const adopted = await this.adoptPod(pod, job);
      if (adopted) claimed.push(adopted);
    }
    return claimed;
  }

  private async adoptPod(pod: KubeObject, job: KubeObject): Promise<KubeObject | undefined> {
    const finalizers = [...(pod.metadata.finalizers ?? [])];
    if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER);
    try {
      return await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', {
        metadata: { resourceVersion: pod.metadata.resourceVersion, ownerReferences: [...(pod.metadata.ownerReferences ?? []), controllerRef(job)], finalizers },
      }, 'merge');
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return undefined;
      throw error;
    }
  }

  private async releasePod(pod: KubeObject, job: KubeObject): Promise<void> {
    const ownerReferences = (pod.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== job.metadata.uid);
    const finalizers = (pod.metadata.finalizers ?? []).filter((finalizer) => finalizer !== JOB_TRACKING_FINALIZER);
    try {
      await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', {
        metadata: { resourceVersion: pod.metadata.resourceVersion, ownerReferences: ownerReferences.length > 0 ? ownerReferences : null, finalizers: finalizers.length > 0 ? finalizers : null },
      }, 'merge');
    } catch (error) {
      if (!isNotFound(error) && !isConflict(error)) throw error;
    }
  }

  /** The Job is gone: pods it controlled must not keep the tracking finalizer (upstream syncOrphanPod). */
  private async releaseOrphanedPods(namespace: string, name: string): Promise<void> {
    const pods = this.pods.listByNamespace(namespace).filter((pod) => {
      const ref = controllerOf(pod);
      return ref?.kind === 'Job' && ref.name === name && hasTrackingFinalizer(pod) && this.jobs.get(namespace, name)?.metadata.uid !== ref.uid;
    });
    await this.removeFinalizers(undefined, pods);
  }

  /** upstream manageJob: returns the number of active pods afterwards. */
  private async manageJob(context: SyncContext): Promise<number> {
    const { job, key } = context;
    const spec = specOf(job);
    let active = context.activePods.length;
    const parallelism = numberField(spec.parallelism) ?? 1;
    const completions = numberField(spec.completions);
    if (isSuspended(job)) {
      const { deleted, deletedReady, error } = await this.deletePods(job, [...context.activePods].sort(removalOrder), true);
      context.terminating += deleted;
      context.ready -= deletedReady;
      if (error) throw error;
      return active - deleted;
    }
    let wantActive: number;
    if (completions === undefined) wantActive = context.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(completions - context.succeeded, parallelism));

    const toDelete = this.activePodsForRemoval(job, context.activePods, Math.max(0, active - wantActive)).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (toDelete.length > 0) {
      const { deleted, deletedReady, error } = await this.deletePods(job, toDelete, true);
      context.terminating += deleted;
      context.ready -= deletedReady;
      if (error) throw error;
      return active - deleted;
    }
    const terminating = onlyReplaceFailedPods(job) ? context.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return active;
    const remaining = backoffRemainingMs(context.backoff, this.clock.now());
    if (remaining > 0) {
      this.queue.addAfter(key, Math.max(remaining, 1000));
      return active;
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] = [];
    if (isIndexed(job)) {
      indexes = this.firstPendingIndexes(context, diff, completions ?? 0);
      diff = indexes.length;
    }
    if (diff <= 0) return active;
    const template = isRecord(spec.template) ? structuredClone(spec.template) : {};
    const templateMeta = isRecord(template.metadata) ? template.metadata : (template.metadata = {});
    const finalizers = Array.isArray(templateMeta.finalizers) ? templateMeta.finalizers.map(String) : [];
    if (!finalizers.includes(JOB_TRACKING_FINALIZER)) finalizers.push(JOB_TRACKING_FINALIZER);
    templateMeta.finalizers = finalizers;
    if (isIndexed(job) && isRecord(template.spec)) addCompletionIndexEnv(template.spec);

    this.expectations.raiseExpectations(key, diff, []);
    // Slow start: one failure stops the rest of the burst.
    const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, (index) => this.createPod(job, template, isIndexed(job) ? indexes[index] : undefined));
    // Pods that failed or were never attempted will not be observed.
    for (let missing = diff - successes; missing > 0; missing--) this.expectations.creationObserved(key);
    active += successes;
    if (error !== undefined) throw error;
    return active;
  }

  private async createPod(job: KubeObject, template: Record<string, unknown>, index: number | undefined): Promise<void> {
    const jobName = job.metadata.name ?? '';
    let source = template;
    let prefix = jobName;
    if (index !== undefined) {
      source = structuredClone(template);
      const meta = isRecord(source.metadata) ? source.metadata : (source.metadata = {});
      meta.annotations = { ...(isRecord(meta.annotations) ? meta.annotations : {}), [JOB_COMPLETION_INDEX_ANNOTATION]: String(index) };
      meta.labels = { ...(isRecord(meta.labels) ? meta.labels : {}), [JOB_COMPLETION_INDEX_ANNOTATION]: String(index) };
      if (isRecord(source.spec)) source.spec.hostname = `${jobName}-${index}`;
      prefix = `${jobName}-${index}`;
    }
    const pod = podFromTemplate(source, job, { generateNamePrefix: prefix });
    try {
      const created = await this.client.resource(resources.pods).create(pod);
      this.recorder.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // A terminating namespace refuses every create; that is not worth an event per pod.
      if (!/because it is being terminated/.test(message)) this.recorder.event(job, 'Warning', 'FailedCreate', `Error creating: ${message}`);
      throw error;
    }
  }

  /** upstream firstPendingIndexes: the lowest indexes neither succeeded nor running. */
  private firstPendingIndexes(context: SyncContext, count: number, completions: number): number[] {
    const taken = new Set(context.succeededIndexes);
    for (const pod of context.activePods) taken.add(completionIndexOf(pod));
    const result: number[] = [];
    for (let index = 0; index < completions && result.length < count; index++) if (!taken.has(index)) result.push(index);
    return result;
  }

  /** upstream activePodsForRemoval: for Indexed Jobs duplicate and out-of-range indexes go first. */
  private activePodsForRemoval(job: KubeObject, pods: KubeObject[], atLeast: number): KubeObject[] {
    const remove: KubeObject[] = [];
    let left = pods;
    if (isIndexed(job)) {
      const completions = numberField(specOf(job).completions) ?? 0;
      const seen = new Set<number>();
      left = [];
      const byIndex = [...pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b) || removalOrder(b, a));
      for (const pod of byIndex) {
        const index = completionIndexOf(pod);
        if (index < 0 || index >= completions || seen.has(index)) remove.push(pod);
        else {
          seen.add(index);
          left.push(pod);
        }
      }
    }
    if (remove.length < atLeast) remove.push(...[...left].sort(removalOrder).slice(0, atLeast - remove.length));
    return remove;
  }

  /**
   * Deletes pods. `dropFinalizer` (upstream deleteJobPods) removes the tracking finalizer first, for
   * pods the Job no longer needs; otherwise (deleteActivePods) it stays until they are counted.
   */
  private async deletePods(job: KubeObject, pods: KubeObject[], dropFinalizer: boolean): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    const key = objectKey(job);
    let deleted = 0;
    let deletedReady = 0;
    let firstError: unknown;
    if (pods.length === 0) return { deleted, deletedReady };
    this.expectations.raiseExpectations(key, 0, pods.map(objectKey));
    await Promise.all(
      pods.map(async (pod) => {
        try {
          if (dropFinalizer && hasTrackingFinalizer(pod)) await this.patchOutFinalizer(pod);
          await this.client.resource(resources.pods).delete(pod.metadata.namespace, pod.metadata.name ?? '');
          this.recorder.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
          deleted++;
          if (isPodReady(pod)) deletedReady++;
        } catch (error) {
          this.expectations.deletionObserved(key, objectKey(pod));
          if (isNotFound(error)) {
            deleted++;
            return;
          }
          this.recorder.event(job, 'Warning', 'FailedDelete', `Error deleting: ${error instanceof Error ? error.message : String(error)}`);
          firstError ??= error;
        }
      }),
    );
    return { deleted, deletedReady, error: firstError };
  }

  private async patchOutFinalizer(pod: KubeObject): Promise<void> {
    const finalizers = pod.metadata.finalizers ?? [];
    // `test` makes the removal safe against a concurrent change of the list.
    await this.client.resource(resources.pods).patch(pod.metadata.namespace, pod.metadata.name ?? '', [
      { op: 'test', path: '/metadata/finalizers', value: finalizers },
      { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((finalizer) => finalizer !== JOB_TRACKING_FINALIZER) },
    ], 'json');
  }

  /** Removes tracking finalizers; returns the UIDs done (a pod already gone counts as done). */
  private async removeFinalizers(key: string | undefined, pods: KubeObject[]): Promise<{ done: Set<string>; error?: unknown }> {
    const done = new Set<string>();
    let firstError: unknown;
    const expected = key ? this.expectedRemovals(key) : undefined;
    await Promise.all(
      pods.map(async (pod) => {
        const uid = pod.metadata.uid ?? '';
        if (expected?.has(uid)) return;
        expected?.add(uid);
        try {
          await this.patchOutFinalizer(pod);
          done.add(uid);
        } catch (error) {
          expected?.delete(uid);
          if (isNotFound(error)) {
            done.add(uid);
            return;
          }
          // The cached pod was stale; the informer will bring the fresh one and another sync.
          if (isInvalid(error) || isConflict(error)) return;
          firstError ??= error;
        }
      }),
    );
    return { done, error: firstError };
  }

  /** upstream trackJobStatusAndRemoveFinalizers + flushUncountedAndRemoveFinalizers + enactJobFinished. */
  private async trackStatusAndRemoveFinalizers(context: SyncContext): Promise<void> {
    const { job, key } = context;
    const spec = specOf(job);
    const status = statusOf(job);
    const completions = numberField(spec.completions) ?? 0;
    const indexed = isIndexed(job);
    const cachedJob = this.jobs.getByKey(key);
    const original = cachedJob ? canonical(normalizeStatus(statusOf(cachedJob), indexed)) : '';
    const uncountedSucceeded = [...context.uncountedSucceeded];
    const uncountedFailed = [...context.uncountedFailed];
    const withFinalizer = new Set(context.pods.filter((pod) => hasTrackingFinalizer(pod) && !context.expectedRemovals.has(pod.metadata.uid ?? '')).map((pod) => pod.metadata.uid ?? ''));
    let succeeded = numberField(status.succeeded) ?? 0;
    let failed = numberField(status.failed) ?? 0;
    const moveCounted = (): void => {
      const stillSucceeded = uncountedSucceeded.filter((uid) => withFinalizer.has(uid));
      succeeded += uncountedSucceeded.length - stillSucceeded.length;
      uncountedSucceeded.splice(0, uncountedSucceeded.length, ...stillSucceeded);
      const stillFailed = uncountedFailed.filter((uid) => withFinalizer.has(uid));
      failed += uncountedFailed.length - stillFailed.length;
      uncountedFailed.splice(0, uncountedFailed.length, ...stillFailed);
    };
    moveCounted();

    const toRemove: KubeObject[] = [];
    const newIndexes: number[] = [];
    const pods = indexed ? [...context.pods].sort((a, b) => completionIndexOf(a) - completionIndexOf(b)) : context.pods;
    let reachedMax = false;
    const previousIndexes = new Set(context.previousSucceededIndexes);
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? '';
      if (!hasTrackingFinalizer(pod) || context.expectedRemovals.has(uid)) continue;
      const failedPod = isPodFailed(pod, job);
      const canRemove = job.metadata.deletionTimestamp !== undefined || context.finishedCondition !== undefined || podPhase(pod) === 'Succeeded' || failedPod;
      if (!canRemove) continue;
      toRemove.push(pod);
      if (podPhase(pod) === 'Succeeded' && !context.uncountedFailed.has(uid)) {
        if (indexed) {
          const index = completionIndexOf(pod);
          if (index >= 0 && index < completions && !previousIndexes.has(index)) newIndexes.push(index);
        } else if (!context.uncountedSucceeded.has(uid)) {
          uncountedSucceeded.push(uid);
        }
      } else if (failedPod || (context.finishedCondition && context.finishedCondition.type !== 'SuccessCriteriaMet')) {
        // Once the Job is finishing, every pod that did not succeed counts as failed.
        const index = completionIndexOf(pod);
        if (!context.uncountedFailed.has(uid) && (!indexed || (index >= 0 && index < completions))) {
          if (matchPodFailurePolicy(spec.podFailurePolicy, pod).countFailed) uncountedFailed.push(uid);
        }
      }
      if (newIndexes.length + uncountedSucceeded.length + uncountedFailed.length >= MAX_UNCOUNTED_PODS) {
        reachedMax = true;
        break;
      }
    }
    if (indexed) {
      const all = [...new Set([...context.succeededIndexes, ...newIndexes])];
      status.completedIndexes = formatIndexes(all);
      succeeded = all.length;
    }
    const conditions = conditionsOf(job);
    let finished = context.finishedCondition;
    if (finished?.type === 'FailureTarget') {
      if (!findCondition(conditions, 'FailureTarget')) conditions.push(finished);
      finished = newCondition('Failed', 'True', finished.reason ?? '', finished.message ?? '', this.clock.now());
    }
    if (finished?.type === 'SuccessCriteriaMet') {
      if (!findCondition(conditions, 'SuccessCriteriaMet')) conditions.push(finished);
      finished = newCondition('Complete', 'True', finished.reason ?? '', finished.message ?? '', this.clock.now());
    }
    const writeStatus = (): void => {
      status.conditions = conditions;
      status.succeeded = succeeded;
      status.failed = failed;
      status.uncountedTerminatedPods = { ...(uncountedSucceeded.length > 0 ? { succeeded: [...uncountedSucceeded] } : {}), ...(uncountedFailed.length > 0 ? { failed: [...uncountedFailed] } : {}) };
      job.status = normalizeStatus(status, indexed);
    };
    writeStatus();
    // First persist which pods are about to be counted, so removing their finalizers cannot lose them.
    let current = job;
    if (canonical(job.status) !== original) {
      current = await this.client.resource(resources.jobs).updateStatus(job);
      this.backoffRecords.set(key, context.backoff);
    }
    const { done, error } = await this.removeFinalizers(key, toRemove);
    for (const uid of done) withFinalizer.delete(uid);
    moveCounted();
    let finishedNow = false;
    if (!reachedMax && finished && uncountedSucceeded.length === 0 && uncountedFailed.length === 0 && context.terminating <= 0) {
      ensureCondition(conditions, finished.type, finished.status, finished.reason ?? '', finished.message ?? '', this.clock.now());
      if (finished.type === 'Complete') status.completionTime = findCondition(conditions, 'Complete')?.lastTransitionTime;
      finishedNow = true;
    }
    const before = canonical(normalizeStatus(statusOf(current), indexed));
    writeStatus();
    if (canonical(job.status) !== before) {
      job.metadata.resourceVersion = current.metadata.resourceVersion;
      await this.client.resource(resources.jobs).updateStatus(job);
    }
    if (finishedNow && finished) this.recordFinished(job, finished);
    if (error) throw error;
  }

  private recordFinished(job: KubeObject, condition: Condition): void {
    if (condition.type === 'Complete') {
      const completions = numberField(specOf(job).completions);
      if (completions !== undefined && (numberField(statusOf(job).succeeded) ?? 0) > completions) {
        this.recorder.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      this.recorder.event(job, 'Normal', 'Completed', 'Job completed');
    } else {
      this.recorder.event(job, 'Warning', condition.reason ?? 'Failed', condition.message ?? '');
    }
    this.queue.add(objectKey(job));
  }

  /** pkg/controller/ttlafterfinished: delete a finished Job once its TTL has passed. */
  private async handleTtl(key: string, job: KubeObject): Promise<void> {
    const ttl = numberField(specOf(job).ttlSecondsAfterFinished);
    if (ttl === undefined || job.metadata.deletionTimestamp) return;
    const conditions = conditionsOf(job);
    const finishedAt = conditions.filter((condition) => (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True').map((condition) => Date.parse(condition.lastTransitionTime ?? '')).find(Number.isFinite);
    if (finishedAt === undefined) return;
    const remaining = finishedAt + ttl * 1000 - this.clock.now();
    if (remaining > 0) {
      this.queue.addAfter(key, remaining);
      return;
    }
    const { namespace, name } = splitKey(key);
    try {
      // Background, not the upstream Foreground: nothing would clear the foregroundDeletion finalizer
      // without a garbage collector, so the pods are deleted here as well.
      await this.client.resource(resources.jobs).delete(namespace, name, { propagationPolicy: 'Background', preconditions: { uid: job.metadata.uid } });
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
    for (const pod of this.ownedPods(job)) {
      try {
        await this.client.resource(resources.pods).delete(pod.metadata.namespace, pod.metadata.name ?? '', { propagationPolicy: 'Background' });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
}

/** Field order and omissions as the Go type serialises JobStatus (omitempty counters, pointer ready/terminating). */
function normalizeStatus(status: Record<string, unknown>, indexed: boolean): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  if (conditions.length > 0) result.conditions = conditions;
  if (status.startTime) result.startTime = status.startTime;
  if (status.completionTime) result.completionTime = status.completionTime;
  if (typeof status.active === 'number' && status.active > 0) result.active = status.active;
  if (typeof status.succeeded === 'number' && status.succeeded > 0) result.succeeded = status.succeeded;
  if (typeof status.failed === 'number' && status.failed > 0) result.failed = status.failed;
  if (typeof status.terminating === 'number') result.terminating = status.terminating;
  if (indexed && typeof status.completedIndexes === 'string' && status.completedIndexes !== '') result.completedIndexes = status.completedIndexes;
  if (status.failedIndexes !== undefined) result.failedIndexes = status.failedIndexes;
  result.uncountedTerminatedPods = isRecord(status.uncountedTerminatedPods) ? status.uncountedTerminatedPods : {};
  if (typeof status.ready === 'number') result.ready = status.ready;
  return result;
}

/** JSON with sorted keys, to compare statuses whatever order the server kept. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (!isRecord(inner) || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.keys(inner).sort().map((name) => [name, inner[name]]));
  });
}
