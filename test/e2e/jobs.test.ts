// Batch workloads on Docker, driven by the real kubectl 1.35 against one real `kubedesk serve`:
// Jobs and CronJobs — a Job completes (`kubectl wait
// --for=condition=complete`), a failing Job stops after backoffLimit (`condition=failed`,
// BackoffLimitExceeded), an Indexed Job runs its completion indexes in parallel with
// JOB_COMPLETION_INDEX and `<job>-<index>` hostnames, a `* * * * *` CronJob fires within 70 s of
// its minute, and `kubectl create job --from=cronjob/x` (client-side in kubectl) runs the template.
// CronJob history limits need several minutes of real time, so a fake clock covers them in
// main/controllers/cronJobController.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../support/cluster';
import { busyboxImage } from '../support/images';
import { kubectlOk, until } from '../support/wait';

let cluster: TestCluster;
let cronJobCreatedAt = 0;

const ok = (...args: string[]) => kubectlOk(cluster, args);

/** `kubectl wait`, with the Job's description attached when it does not return in time. */
async function waitFor(condition: string, job: string, timeoutSeconds: number): Promise<string> {
  const result = await cluster.kubectl(['wait', `--for=condition=${condition}`, `job/${job}`, `--timeout=${timeoutSeconds}s`]);
  if (result.code !== 0) {
    const described = await cluster.kubectl(['describe', 'job', job]);
    const pods = await cluster.kubectl(['get', 'pods', '-l', `batch.kubernetes.io/job-name=${job}`, '-o', 'wide']);
    throw new Error(`kubectl wait --for=condition=${condition} job/${job} failed (${result.code}): ${result.stderr}${result.stdout}\n${described.stdout}\n${pods.stdout}`);
  }
  return result.stdout;
}

function job(name: string, spec: Record<string, unknown>, command: string, restartPolicy = 'Never'): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      ...spec,
      template: { spec: { restartPolicy, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command] }] } },
    },
  };
}

const cronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'tick' },
  spec: {
    schedule: '* * * * *',
    successfulJobsHistoryLimit: 1,
    jobTemplate: {
      metadata: { labels: { from: 'tick' } },
      spec: { template: { spec: { restartPolicy: 'Never', terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'echo tick'] }] } } },
    },
  },
};

beforeAll(async () => {
  cluster = await startCluster();
  await until('the default service account', async () => ((await cluster.kubectl(['get', 'serviceaccount', 'default'])).code === 0 ? true : undefined), 30_000);
  // Everything starts at once so the waits (back-off, the next cron minute) overlap.
  const manifests = [
    job('fails', { backoffLimit: 1 }, 'echo failing; exit 1'),
    job('indexed', { completions: 3, parallelism: 3, completionMode: 'Indexed' }, 'echo "index=$JOB_COMPLETION_INDEX host=$(hostname)"'),
    cronJob,
  ];
  const created = await cluster.kubectl(['create', '-f', '-'], { input: manifests.map((manifest) => JSON.stringify(manifest)).join('\n---\n') });
  if (created.code !== 0) throw new Error(`creating the jobs failed: ${created.stderr}${created.stdout}`);
  cronJobCreatedAt = Date.now();
  await ok('create', 'job', 'hello', `--image=${busyboxImage}`, '--', 'sh', '-c', 'echo hello from a job');
}, 180_000);

afterAll(async () => {
  // Sync errors are retried, so they do not fail a test; shown here they explain a slow one.
  const retried = (cluster?.logs() ?? '').split('\n').filter((line) => /\[(job|cronjob)\] error syncing/.test(line));
  if (retried.length > 0) console.log(`job/cronjob sync errors (retried):\n${retried.join('\n')}`);
  await cluster?.destroy();
}, 180_000);

describe('Jobs', () => {
  it('runs a Job to completion so that kubectl wait --for=condition=complete returns', async () => {
    expect(await waitFor('complete', 'hello', 60)).toBe('job.batch/hello condition met\n');
    expect(await ok('logs', 'job/hello')).toBe('hello from a job\n');
    const status = JSON.parse(await ok('get', 'job', 'hello', '-o', 'json')).status as Record<string, unknown>;
    expect(status).toMatchObject({ succeeded: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect((status.conditions as { type: string; reason: string }[]).map((condition) => [condition.type, condition.reason])).toEqual([
      ['SuccessCriteriaMet', 'CompletionsReached'],
      ['Complete', 'CompletionsReached'],
    ]);
    expect(await ok('get', 'job', 'hello')).toMatch(/^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nhello\s+Complete\s+1\/1\s+/);
    const pods = JSON.parse(await ok('get', 'pods', '-l', 'batch.kubernetes.io/job-name=hello', '-o', 'json')).items as { metadata: { finalizers?: string[] } }[];
    expect(pods).toHaveLength(1);
    expect(pods[0].metadata.finalizers ?? []).toEqual([]);
    const events = await ok('get', 'events', '--field-selector', 'involvedObject.kind=Job,involvedObject.name=hello', '-o', 'jsonpath={range .items[*]}{.reason}{"\\n"}{end}');
    expect(events.split('\n')).toEqual(expect.arrayContaining(['SuccessfulCreate', 'Completed']));
  });

  it('fails a Job whose pods exit 1 after backoffLimit, with reason BackoffLimitExceeded', async () => {
    expect(await waitFor('failed', 'fails', 90)).toBe('job.batch/fails condition met\n');
    expect(await ok('get', 'job', 'fails', '-o', 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}')).toBe('BackoffLimitExceeded');
    expect(await ok('get', 'job', 'fails', '-o', 'jsonpath={.status.failed}')).toBe('2');
    const described = await ok('describe', 'job', 'fails');
    expect(described).toMatch(/Warning\s+BackoffLimitExceeded\s+.*job-controller\s+Job has reached the specified backoff limit/);
  });

  it('runs an Indexed Job with completion indexes 0..2 in parallel', async () => {
    await waitFor('complete', 'indexed', 60);
    expect(await ok('get', 'job', 'indexed', '-o', 'jsonpath={.status.completedIndexes}')).toBe('0-2');
    const names = (await ok('get', 'pods', '-l', 'batch.kubernetes.io/job-name=indexed', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ');
    expect(names.sort().map((name) => name.replace(/-[a-z0-9]{5}$/, ''))).toEqual(['indexed-0', 'indexed-1', 'indexed-2']);
    const lines = await Promise.all(names.map(async (name) => (await ok('logs', name)).trim()));
    expect(lines.sort()).toEqual(['index=0 host=indexed-0', 'index=1 host=indexed-1', 'index=2 host=indexed-2']);
  });
});

describe('CronJobs', () => {
  it('starts a job for a "* * * * *" CronJob within 70 s of its minute', async () => {
    const jobName = await until(
      'the first scheduled job',
      async () => (await ok('get', 'jobs', '-l', 'from=tick', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').find((name) => /^tick-\d+$/.test(name)),
      135_000,
      1000,
    );
    const created = JSON.parse(await ok('get', 'job', jobName, '-o', 'json')) as { metadata: { creationTimestamp: string; annotations: Record<string, string>; ownerReferences: { kind: string; name: string }[] } };
    const scheduled = Date.parse(created.metadata.annotations['batch.kubernetes.io/cronjob-scheduled-timestamp']);
    expect(Number(jobName.slice('tick-'.length)) * 60_000).toBe(scheduled);
    expect(scheduled).toBeGreaterThan(cronJobCreatedAt - 60_000);
    expect(Date.parse(created.metadata.creationTimestamp) - scheduled).toBeLessThan(70_000);
    expect(created.metadata.ownerReferences[0]).toMatchObject({ kind: 'CronJob', name: 'tick' });
    await waitFor('complete', jobName, 60);
    const status = await until('the CronJob to record the run', async () => {
      const current = JSON.parse(await ok('get', 'cronjob', 'tick', '-o', 'json')).status as { lastScheduleTime?: string; lastSuccessfulTime?: string };
      return current.lastSuccessfulTime ? current : undefined;
    }, 30_000);
    expect(Date.parse(status.lastScheduleTime ?? '')).toBe(scheduled);
    const events = await ok('get', 'events', '--field-selector', 'involvedObject.kind=CronJob,involvedObject.name=tick', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}');
    expect(events).toContain(`SuccessfulCreate: Created job ${jobName}`);
    expect(events).toContain(`SawCompletedJob: Saw completed job: ${jobName}, condition: Complete`);
  });

  it('runs a Job created with kubectl create job --from=cronjob', async () => {
    // The CronJob owns the manual job too, so a scheduled run finishing after it (one may have
    // started just before the suspend) would trim it away with a history limit of 1: no scheduled
    // runs, and room in the history, while this test reads it.
    await ok('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":true,"successfulJobsHistoryLimit":10}}');
    expect(await ok('create', 'job', 'manual', '--from=cronjob/tick')).toBe('job.batch/manual created\n');
    await waitFor('complete', 'manual', 60);
    const manual = JSON.parse(await ok('get', 'job', 'manual', '-o', 'json')) as { metadata: { annotations: Record<string, string>; ownerReferences: { kind: string; name: string }[]; labels: Record<string, string> } };
    expect(manual.metadata.annotations['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(manual.metadata.ownerReferences[0]).toMatchObject({ kind: 'CronJob', name: 'tick' });
    expect(await ok('logs', 'job/manual')).toBe('tick\n');
    const active = await ok('get', 'cronjob', 'tick', '-o', 'jsonpath={.status.active[*].name}');
    expect(active.split(' ')).not.toContain('manual');
    await ok('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":false,"successfulJobsHistoryLimit":1}}');
  });

  it('keeps only successfulJobsHistoryLimit finished jobs after the next run', async () => {
    const scheduledNames = async () => (await ok('get', 'jobs', '-l', 'from=tick', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').filter((name) => /^tick-\d+$/.test(name));
    // Earlier runs (and the manual job, which the CronJob owns too) may already have been trimmed:
    // wait for a run scheduled after this test started, then for the history to shrink to it.
    await ok('patch', 'cronjob', 'tick', '--type=merge', '-p', '{"spec":{"suspend":false}}');
    const startedMinute = Math.floor(Date.now() / 60_000);
    const newest = await until('a later scheduled job', async () => (await scheduledNames()).find((name) => Number(name.slice('tick-'.length)) > startedMinute), 135_000, 1000);
    await waitFor('complete', newest, 60);
    const kept = await until('the history trimmed to one job', async () => {
      const names = (await ok('get', 'jobs', '-l', 'from=tick', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').filter(Boolean);
      return names.length === 1 ? names : undefined;
    }, 30_000);
    expect(kept).toEqual([newest]);
  }, 200_000);
});
