// CronJobController: creates a Job for each scheduled time of a CronJob, after upstream
// pkg/controller/cronjob/cronjob_controllerv2.go and utils.go:
// - status.active tracks the Jobs it started; a finished one leaves it (SawCompletedJob) and a
//   Complete one moves status.lastSuccessfulTime; a vanished one is reported (MissingJob);
// - the most recent missed schedule time (since lastScheduleTime, or creation, bounded by
//   startingDeadlineSeconds) starts a Job named `<cronjob>-<minutes since the epoch>` annotated with
//   batch.kubernetes.io/cronjob-scheduled-timestamp, unless it is too late (MissSchedule), suspended,
//   or concurrencyPolicy Forbid with a Job still active; Replace deletes the active Jobs first;
// - schedules are evaluated in spec.timeZone (default: the controller's local zone);
// - finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, oldest first;
// - the key is requeued for the next schedule time (on the injected clock).
// `kubectl create job --from=cronjob/x` is client-side: such a Job is owned by the CronJob but never
// enters status.active, as upstream.
import type { KubeObject, OwnerReference } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { formatRfc3339InZone, isKnownTimeZone, localTimeZone, parseCronSchedule, type CronSchedule } from '../../shared/kubernetes/cronSchedule';
import type { ApiClient } from '../client/apiClient';
import { type ControllerOptions, QueueController } from '../client/controllerLoop';
import { isAlreadyExists, isNotFound } from '../client/errors';
import { splitKey, type SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { controllerOf, controllerRef, numberOr, specOf, statusOf } from './controllerUtils';

export const CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** upstream nextScheduleDelta: wake a little after the schedule time, never just before it. */
const NEXT_SCHEDULE_DELTA_MS = 100;
const MINUTE_MS = 60_000;

export interface CronJobControllerOptions extends ControllerOptions {
  /** The zone of schedules without spec.timeZone; default the process's local zone (as kube-controller-manager). */
  defaultTimeZone?: string;
}

interface ScheduleTimes {
  earliest: number;
  mostRecent?: number;
  missed: number;
}

/** upstream getJobName: `<cronjob>-<scheduled time in minutes since the epoch>`. */
export function jobNameFor(cronJobName: string, scheduledTimeMs: number): string {
  return `${cronJobName}-${Math.floor(scheduledTimeMs / MINUTE_MS)}`;
}

function finishedCondition(job: KubeObject): string | undefined {
  const conditions = statusOf(job).conditions;
  if (!Array.isArray(conditions)) return undefined;
  for (const condition of conditions) {
    if (isRecord(condition) && (condition.type === 'Complete' || condition.type === 'Failed') && condition.status === 'True') return condition.type;
  }
  return undefined;
}

/** upstream getJobScheduledTime: the annotation, else the minutes suffix of the name. */
function scheduledTimeOf(job: KubeObject): number | undefined {
  const annotation = job.metadata.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION];
  if (annotation) {
    const parsed = Date.parse(annotation);
    if (Number.isFinite(parsed)) return parsed;
  }
  const name = job.metadata.name ?? '';
  const suffix = name.slice(name.lastIndexOf('-') + 1);
  if (!/^\d+$/.test(suffix)) return undefined;
  return Number(suffix) * MINUTE_MS;
}

function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * upstream mostRecentScheduleTime: the latest schedule time in (earliest, now], where earliest is
 * lastScheduleTime (or the creation time), moved up to now - startingDeadlineSeconds if later.
 */
export function mostRecentScheduleTime(cronJob: KubeObject, now: number, schedule: CronSchedule, includeStartingDeadline: boolean): ScheduleTimes {
  let earliest = parseTime(statusOf(cronJob).lastScheduleTime) ?? parseTime(cronJob.metadata.creationTimestamp) ?? now;
  const deadline = specOf(cronJob).startingDeadlineSeconds;
  if (includeStartingDeadline && typeof deadline === 'number') earliest = Math.max(earliest, now - deadline * 1000);
  const first = schedule.next(earliest);
  if (first === undefined || first > now) return { earliest, missed: 0 };
  const second = schedule.next(first);
  if (second === undefined || second > now) return { earliest, mostRecent: first, missed: 1 };
  const interval = Math.max(1000, second - first);
  const missed = Math.floor((now - first) / interval) + 1;
  // Find a start close below now without walking every missed time: widen a window until it holds one.
  let window = 2 * interval;
  let start = Math.max(earliest, now - window);
  for (;;) {
    const candidate = schedule.next(start);
    if ((candidate !== undefined && candidate <= now) || start <= earliest) break;
    window *= 2;
    start = Math.max(earliest, now - window);
  }
  let mostRecent = first;
  for (let time = schedule.next(start); time !== undefined && time <= now; time = schedule.next(time)) mostRecent = time;
  return { earliest, mostRecent, missed };
}

export class CronJobController extends QueueController {
  private readonly cronJobs = this.factory.informerFor(resources.cronjobs);
  private readonly jobs = this.factory.informerFor(resources.jobs);
  private defaultTimeZone: string | undefined;

  constructor(client: ApiClient, factory: SharedInformerFactory, options: CronJobControllerOptions = {}) {
    super(client, factory, { name: 'cronjob', component: 'cronjob-controller', workers: 5 }, options);
    // the local zone is read when a CronJob without spec.timeZone needs it: reading it loads ICU's
    // time zone data, megabytes of memory a cluster without CronJobs never needs
    this.defaultTimeZone = options.defaultTimeZone;
    this.enqueueChanges(this.cronJobs);
    this.enqueueRelated(this.jobs, (job) => {
      const ref = controllerOf(job);
      return ref?.kind === 'CronJob' && ref.apiVersion === 'batch/v1' && job.metadata.namespace ? [`${job.metadata.namespace}/${ref.name}`] : [];
    });
  }

  async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    if (!namespace) return;
    const cached = this.cronJobs.get(namespace, name);
    if (!cached) return;
    const cronJob = structuredClone(cached);
    const status = statusOf(cronJob);
    cronJob.status = status;
    const jobs = this.jobs.listByNamespace(namespace).filter((job) => controllerOf(job)?.uid === cronJob.metadata.uid);
    const { requeueAfter, updateStatus } = await this.syncCronJob(cronJob, jobs);
    const cleaned = await this.cleanupFinishedJobs(cronJob, jobs);
    if (updateStatus || cleaned) {
      cronJob.status = normalizeStatus(status);
      await this.client.resource(resources.cronjobs).updateStatus(cronJob);
    }
    if (requeueAfter !== undefined) this.queue.addAfter(key, requeueAfter);
  }

  private activeRefs(cronJob: KubeObject): OwnerReference[] {
    const active = statusOf(cronJob).active;
    return Array.isArray(active) ? active.filter(isRecord).map((ref) => ref as unknown as OwnerReference) : [];
  }

  private setActive(cronJob: KubeObject, refs: OwnerReference[]): void {
    statusOf(cronJob).active = refs;
  }

  /** upstream syncCronJob: returns when to look again and whether status changed. */
  private async syncCronJob(cronJob: KubeObject, jobs: KubeObject[]): Promise<{ requeueAfter?: number; updateStatus: boolean }> {
    const now = this.clock.now();
    const status = statusOf(cronJob);
    let updateStatus = false;
    const children = new Set<string>();
    for (const job of jobs) {
      const uid = job.metadata.uid ?? '';
      children.add(uid);
      const found = this.activeRefs(cronJob).some((ref) => ref.uid === uid);
      const finished = finishedCondition(job);
      if (!found && !finished) {
        const scheduled = scheduledTimeOf(job);
        const last = parseTime(status.lastScheduleTime);
        if (scheduled !== undefined && (last === undefined || last < scheduled)) {
          this.recorder.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name ?? ''}`);
        }
      } else if (found && finished) {
        this.setActive(cronJob, this.activeRefs(cronJob).filter((ref) => ref.uid !== uid));
        this.recorder.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name ?? ''}, condition: ${finished}`);
        updateStatus = true;
      }
      if (finished === 'Complete') {
        const completion = parseTime(statusOf(job).completionTime);
        const lastSuccessful = parseTime(status.lastSuccessfulTime);
        if (completion !== undefined && (lastSuccessful === undefined || lastSuccessful < completion)) {
          status.lastSuccessfulTime = statusOf(job).completionTime;
          updateStatus = true;
        }
      }
    }
    // Active Jobs not in the cache may be new (cache lag) or gone: ask the server.
    for (const ref of this.activeRefs(cronJob)) {
      if (children.has(ref.uid)) continue;
      let gone = false;
      try {
        const job = await this.client.resource(resources.jobs).get(cronJob.metadata.namespace, ref.name);
        gone = job.metadata.uid !== ref.uid;
      } catch (error) {
        if (!isNotFound(error)) throw error;
        gone = true;
      }
      if (gone) {
        this.recorder.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        this.setActive(cronJob, this.activeRefs(cronJob).filter((other) => other.uid !== ref.uid));
        updateStatus = true;
      }
    }
    const spec = specOf(cronJob);
    if (cronJob.metadata.deletionTimestamp) return { updateStatus };
    const timeZone = typeof spec.timeZone === 'string' ? spec.timeZone : undefined;
    if (timeZone !== undefined && !isKnownTimeZone(timeZone)) {
      this.recorder.event(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${timeZone}": unknown time zone ${timeZone}`);
      return { updateStatus };
    }
    if (spec.suspend === true) return { updateStatus };
    let schedule: CronSchedule;
    const scheduleText = typeof spec.schedule === 'string' ? spec.schedule : '';
    try {
      schedule = parseCronSchedule(scheduleText, timeZone ?? (this.defaultTimeZone ??= localTimeZone()));
    } catch (error) {
      this.recorder.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: "${scheduleText}" : ${error instanceof Error ? error.message : String(error)}`);
      return { updateStatus };
    }
    const times = mostRecentScheduleTime(cronJob, now, schedule, true);
    if (times.missed > 100) {
      this.recorder.event(cronJob, 'Warning', 'TooManyMissedTimes', `too many missed start times: ${times.missed}. Set or decrease .spec.startingDeadlineSeconds or check clock skew`);
    }
    const nextDelay = this.nextScheduleDelay(cronJob, now, schedule);
    const scheduledTime = times.mostRecent;
    if (scheduledTime === undefined) return { requeueAfter: nextDelay, updateStatus };
    const deadline = spec.startingDeadlineSeconds;
    if (typeof deadline === 'number' && scheduledTime + deadline * 1000 < now) {
      this.recorder.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${formatRfc1123z(scheduledTime)}`);
      return { requeueAfter: nextDelay, updateStatus };
    }
    const jobName = jobNameFor(cronJob.metadata.name ?? '', scheduledTime);
    if (this.activeRefs(cronJob).some((ref) => ref.name === jobName) || parseTime(status.lastScheduleTime) === scheduledTime) {
      return { requeueAfter: nextDelay, updateStatus };
    }
    const policy = spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && this.activeRefs(cronJob).length > 0) {
      this.recorder.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return { requeueAfter: nextDelay, updateStatus };
    }
    if (policy === 'Replace') {
      for (const ref of this.activeRefs(cronJob)) {
        const job = this.jobs.get(cronJob.metadata.namespace, ref.name);
        if (!job || job.metadata.uid !== ref.uid) continue;
        if (!(await this.deleteJob(cronJob, job))) return { updateStatus };
        updateStatus = true;
      }
    }
    const template = isRecord(spec.jobTemplate) ? spec.jobTemplate : {};
    const templateMeta = isRecord(template.metadata) ? template.metadata : {};
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: jobName,
        namespace: cronJob.metadata.namespace,
        labels: { ...(isRecord(templateMeta.labels) ? (templateMeta.labels as Record<string, string>) : {}) },
        annotations: {
          ...(isRecord(templateMeta.annotations) ? (templateMeta.annotations as Record<string, string>) : {}),
          [CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]: formatRfc3339InZone(scheduledTime, timeZone),
        },
        ownerReferences: [controllerRef(cronJob)],
      },
      spec: structuredClone(isRecord(template.spec) ? template.spec : {}),
    };
    let created: KubeObject;
    try {
      created = await this.client.resource(resources.jobs).create(job);
    } catch (error) {
      if (isAlreadyExists(error)) {
        // Created in an earlier sync whose status update was lost: adopt that run as this schedule's.
        const existing = this.jobs.get(cronJob.metadata.namespace, jobName);
        if (existing && controllerOf(existing)?.uid === cronJob.metadata.uid) {
          status.lastScheduleTime = formatTime(scheduledTime);
          if (!finishedCondition(existing)) this.setActive(cronJob, [...this.activeRefs(cronJob), this.jobReference(existing)]);
          return { requeueAfter: nextDelay, updateStatus: true };
        }
        throw error;
      }
      this.recorder.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    this.recorder.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name ?? ''}`);
    this.setActive(cronJob, [...this.activeRefs(cronJob), this.jobReference(created)]);
    status.lastScheduleTime = formatTime(scheduledTime);
    return { requeueAfter: nextDelay, updateStatus: true };
  }

  private jobReference(job: KubeObject): OwnerReference {
    // An ObjectReference, which shares these fields with OwnerReference.
    return { kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name ?? '', uid: job.metadata.uid ?? '', apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion } as unknown as OwnerReference;
  }

  /** upstream nextScheduleTimeDuration */
  private nextScheduleDelay(cronJob: KubeObject, now: number, schedule: CronSchedule): number | undefined {
    const times = mostRecentScheduleTime(cronJob, now, schedule, false);
    let from = times.mostRecent;
    if (from === undefined) {
      if (times.missed !== 0) return undefined;
      from = times.earliest;
    }
    const next = schedule.next(from);
    return next === undefined ? undefined : next + NEXT_SCHEDULE_DELTA_MS - now;
  }

  /** upstream deleteJob: Background propagation, out of status.active, SuccessfulDelete. */
  private async deleteJob(cronJob: KubeObject, job: KubeObject): Promise<boolean> {
    try {
      await this.client.resource(resources.jobs).delete(job.metadata.namespace, job.metadata.name ?? '', { propagationPolicy: 'Background' });
    } catch (error) {
      if (!isNotFound(error)) {
        this.recorder.event(cronJob, 'Warning', 'FailedDelete', `Deleted job: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    }
    this.setActive(cronJob, this.activeRefs(cronJob).filter((ref) => ref.uid !== job.metadata.uid));
    this.recorder.event(cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name ?? ''}`);
    return true;
  }

  /** upstream cleanupFinishedJobs + removeOldestJobs (sorted by start time, oldest first). */
  private async cleanupFinishedJobs(cronJob: KubeObject, jobs: KubeObject[]): Promise<boolean> {
    const spec = specOf(cronJob);
    const successfulLimit = typeof spec.successfulJobsHistoryLimit === 'number' ? spec.successfulJobsHistoryLimit : undefined;
    const failedLimit = typeof spec.failedJobsHistoryLimit === 'number' ? spec.failedJobsHistoryLimit : undefined;
    if (successfulLimit === undefined && failedLimit === undefined) return false;
    const live = jobs.filter((job) => !job.metadata.deletionTimestamp);
    let updated = false;
    const removeOldest = async (finished: KubeObject[], limit: number): Promise<void> => {
      const excess = finished.length - limit;
      if (excess <= 0) return;
      const startOf = (job: KubeObject) => parseTime(statusOf(job).startTime);
      const sorted = [...finished].sort((a, b) => {
        const left = startOf(a);
        const right = startOf(b);
        if (left === undefined && right === undefined) return (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
        if (left === undefined) return 1;
        if (right === undefined) return -1;
        return left - right || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
      });
      for (const job of sorted.slice(0, excess)) if (await this.deleteJob(cronJob, job)) updated = true;
    };
    if (successfulLimit !== undefined) await removeOldest(live.filter((job) => finishedCondition(job) === 'Complete'), numberOr(successfulLimit, 3));
    if (failedLimit !== undefined) await removeOldest(live.filter((job) => finishedCondition(job) === 'Failed'), numberOr(failedLimit, 1));
    return updated;
  }
}

/** Go's time.RFC1123Z, as upstream formats the missed time. */
function formatRfc1123z(ms: number): string {
  const date = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (value: number) => String(value).padStart(2, '0');
  return `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${monthNames[date.getUTCMonth()]} ${date.getUTCFullYear()} ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** CronJobStatus as the Go type serialises it: empty `active` and unset times omitted. */
function normalizeStatus(status: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (Array.isArray(status.active) && status.active.length > 0) result.active = status.active;
  if (status.lastScheduleTime) result.lastScheduleTime = status.lastScheduleTime;
  if (status.lastSuccessfulTime) result.lastSuccessfulTime = status.lastSuccessfulTime;
  return result;
}
