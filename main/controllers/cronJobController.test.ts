import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION, CronJobController, jobNameFor, mostRecentScheduleTime } from './cronJobController';
import { parseCronSchedule } from '../../shared/kubernetes/cronSchedule';
import { until } from '../../test/fixtures/until';

const at = (iso: string) => Date.parse(iso);

const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

function cronJobObject(name: string, spec: Record<string, unknown>, lastScheduleTime: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule: '* * * * *',
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      jobTemplate: { metadata: { labels: { team: 'a' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1' }] } } } },
      ...spec,
    },
    status: { lastScheduleTime },
  };
}

async function harness(cronJob: KubeObject, now: string) {
  const transport = new FakeTransport();
  const clock = new FakeClock(at(now));
  transport.seed(resources.cronjobs, cronJob);
  const { client, controller } = await startOnFakeApi(transport, (client, factory) => new CronJobController(client, factory, { clock, workers: 1, defaultTimeZone: 'UTC' }));
  const name = cronJob.metadata.name ?? '';
  const jobs = () => transport.objectsOf(resources.jobs).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const jobNames = () => jobs().map((job) => job.metadata.name);
  const status = () => {
    const current = transport.objectsOf(resources.cronjobs).find((object) => object.metadata.name === name);
    return isRecord(current?.status) ? current.status : {};
  };
  const activeNames = () => (Array.isArray(status().active) ? (status().active as { name: string }[]).map((ref) => ref.name) : []);
  const finishJob = async (jobName: string, type: 'Complete' | 'Failed') => {
    const time = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    await client.resource(resources.jobs).patchStatus('default', jobName, { status: { startTime: time, ...(type === 'Complete' ? { completionTime: time } : {}), conditions: [{ type, status: 'True' }] } }, 'merge');
  };
  const events = async (reason: string) => {
    await controller.flushEvents();
    return transport.objectsOf(resources.events).filter((event) => event.reason === reason).map((event) => String(event.message));
  };
  /** Moves the clock to `iso` once the controller has asked to be woken by then. */
  const advanceTo = async (iso: string) => {
    await until(() => (clock.nextTimerAt() ?? Infinity) <= at(iso), `a requeue before ${iso}`);
    clock.advance(at(iso) - clock.now());
  };
  return { transport, clock, client, jobs, jobNames, status, activeNames, finishJob, events, advanceTo };
}

describe('CronJobController', () => {
  it('creates a job at the schedule time with the scheduled-timestamp annotation and records it as active', async () => {
    const h = await harness(cronJobObject('every', {}, '2026-03-01T10:00:00Z'), '2026-03-01T10:00:30Z');
    await settle();
    expect(h.jobs()).toHaveLength(0);
    await h.advanceTo('2026-03-01T10:01:00.200Z');
    const expected = jobNameFor('every', at('2026-03-01T10:01:00Z'));
    expect(expected).toBe(`every-${at('2026-03-01T10:01:00Z') / 60_000}`);
    await until(() => h.activeNames().includes(expected), 'job active');
    const job = h.jobs()[0];
    expect(job.metadata.name).toBe(expected);
    expect(job.metadata.labels).toEqual({ team: 'a' });
    expect(job.metadata.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]).toBe('2026-03-01T10:01:00Z');
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'CronJob', name: 'every', controller: true });
    expect(h.status().lastScheduleTime).toBe('2026-03-01T10:01:00Z');
    expect(await h.events('SuccessfulCreate')).toEqual([`Created job ${expected}`]);
  });

  it('keeps only successfulJobsHistoryLimit completed jobs and records the last success', async () => {
    const h = await harness(cronJobObject('history', { successfulJobsHistoryLimit: 1 }, '2026-03-01T10:00:00Z'), '2026-03-01T10:00:30Z');
    await h.advanceTo('2026-03-01T10:01:00.200Z');
    await until(() => h.activeNames().length === 1, 'first job');
    const first = h.jobNames()[0] ?? '';
    await h.finishJob(first, 'Complete');
    await until(() => h.activeNames().length === 0, 'first job seen completed');
    expect(h.status().lastSuccessfulTime).toBeDefined();
    await h.advanceTo('2026-03-01T10:02:00.200Z');
    await until(() => h.activeNames().length === 1 && h.jobs().length === 2, 'second job');
    const second = h.activeNames()[0];
    h.clock.advance(1_000);
    await h.finishJob(second, 'Complete');
    await until(() => h.jobNames().length === 1 && h.jobNames()[0] === second, 'oldest deleted');
    expect(await h.events('SawCompletedJob')).toEqual([`Saw completed job: ${first}, condition: Complete`, `Saw completed job: ${second}, condition: Complete`]);
    expect(await h.events('SuccessfulDelete')).toEqual([`Deleted job ${first}`]);
  });

  it.each([
    { policy: 'Allow', jobsAfter: 2, activeAfter: 2, reason: undefined },
    { policy: 'Forbid', jobsAfter: 1, activeAfter: 1, reason: 'JobAlreadyActive' },
    { policy: 'Replace', jobsAfter: 1, activeAfter: 1, reason: 'SuccessfulDelete' },
  ])('applies concurrencyPolicy $policy while the previous job runs', async ({ policy, jobsAfter, activeAfter, reason }) => {
    const h = await harness(cronJobObject('overlap', { concurrencyPolicy: policy }, '2026-03-01T10:00:00Z'), '2026-03-01T10:00:30Z');
    await h.advanceTo('2026-03-01T10:01:00.200Z');
    await until(() => h.activeNames().length === 1, 'first job');
    const first = h.activeNames()[0];
    await h.advanceTo('2026-03-01T10:02:00.200Z');
    await until(() => h.jobs().length === jobsAfter && h.activeNames().length === activeAfter && (policy !== 'Replace' || !h.activeNames().includes(first)), `state after ${policy}`);
    if (policy === 'Forbid') expect(h.activeNames()).toEqual([first]);
    if (reason) expect((await h.events(reason)).length).toBeGreaterThan(0);
  });

  it('starts nothing while suspended', async () => {
    const h = await harness(cronJobObject('paused', { suspend: true }, '2026-03-01T10:00:00Z'), '2026-03-01T10:00:30Z');
    h.clock.advance(120_000);
    await settle();
    expect(h.jobs()).toHaveLength(0);
  });

  it('skips runs older than startingDeadlineSeconds and starts the next one on time', async () => {
    const h = await harness(cronJobObject('late', { startingDeadlineSeconds: 10, schedule: '*/5 * * * *' }, '2026-03-01T10:00:00Z'), '2026-03-01T10:05:30Z');
    await settle();
    expect(h.jobs()).toHaveLength(0);
    await h.advanceTo('2026-03-01T10:10:00.200Z');
    await until(() => h.jobs().length === 1, 'the 10:10 run');
    expect(h.jobs()[0].metadata.name).toBe(jobNameFor('late', at('2026-03-01T10:10:00Z')));
  });

  it('evaluates the schedule in spec.timeZone', async () => {
    const h = await harness(cronJobObject('berlin', { schedule: '0 9 * * *', timeZone: 'Europe/Berlin' }, '2026-03-01T07:00:00Z'), '2026-03-01T07:59:30Z');
    await settle();
    expect(h.jobs()).toHaveLength(0);
    await h.advanceTo('2026-03-01T08:00:00.200Z');
    await until(() => h.jobs().length === 1, 'job at 09:00 Berlin');
    expect(h.jobs()[0].metadata.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]).toBe('2026-03-01T09:00:00+01:00');
    expect(h.jobs()[0].metadata.name).toBe(jobNameFor('berlin', at('2026-03-01T08:00:00Z')));
  });

  it('leaves a job created by hand from the cronjob out of status.active', async () => {
    const h = await harness(cronJobObject('manual', { schedule: '0 0 1 1 *' }, '2026-03-01T10:00:00Z'), '2026-03-01T10:00:30Z');
    await settle();
    const cronJob = h.transport.objectsOf(resources.cronjobs)[0];
    h.transport.seed(resources.jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'manual-run', namespace: 'default', annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' }, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'manual', uid: cronJob.metadata.uid ?? '', controller: true }] },
      spec: {},
    });
    await settle();
    expect(h.activeNames()).toEqual([]);
    expect(h.jobNames()).toEqual(['manual-run']);
  });
});

describe('mostRecentScheduleTime', () => {
  const cron = (lastScheduleTime: string, startingDeadlineSeconds?: number): KubeObject => ({ metadata: { name: 'x', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { startingDeadlineSeconds }, status: { lastScheduleTime } });
  it.each([
    { schedule: '* * * * *', last: '2026-03-01T10:00:00Z', now: '2026-03-01T10:00:59Z', deadline: undefined, mostRecent: undefined, missed: 0 },
    { schedule: '* * * * *', last: '2026-03-01T10:00:00Z', now: '2026-03-01T10:01:00Z', deadline: undefined, mostRecent: '2026-03-01T10:01:00.000Z', missed: 1 },
    { schedule: '* * * * *', last: '2026-03-01T10:00:00Z', now: '2026-03-01T12:00:10Z', deadline: undefined, mostRecent: '2026-03-01T12:00:00.000Z', missed: 120 },
    { schedule: '0 3 * * 1,5', last: '2026-01-01T00:00:00Z', now: '2026-03-04T12:00:00Z', deadline: undefined, mostRecent: '2026-03-02T03:00:00.000Z', missed: 21 },
    { schedule: '* * * * *', last: '2026-03-01T10:00:00Z', now: '2026-03-01T12:00:10Z', deadline: 5, mostRecent: undefined, missed: 0 },
    { schedule: '* * * * *', last: '2026-03-01T10:00:00Z', now: '2026-03-01T12:00:10Z', deadline: 30, mostRecent: '2026-03-01T12:00:00.000Z', missed: 1 },
  ])('finds $mostRecent for "$schedule" at $now', ({ schedule, last, now, deadline, mostRecent, missed }) => {
    const result = mostRecentScheduleTime(cron(last, deadline), at(now), parseCronSchedule(schedule, 'UTC'), true);
    expect(result.mostRecent === undefined ? undefined : new Date(result.mostRecent).toISOString()).toBe(mostRecent);
    expect(result.missed).toBe(missed);
  });
});
