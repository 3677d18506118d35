import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi } from '../../test/doubles/fakeApi';
import { resources } from '../client/resources';
import { backoffRemainingMs, formatIndexes, JOB_COMPLETION_INDEX_ANNOTATION, JOB_TRACKING_FINALIZER, JobController, matchPodFailurePolicy, parseIndexes } from './jobController';
import { until } from '../../test/fixtures/until';

const START = Date.parse('2026-03-01T10:00:00Z');

function jobObject(name: string, spec: Record<string, unknown> = {}, podSpec: Record<string, unknown> = {}): KubeObject {
  const labels = { 'batch.kubernetes.io/job-name': name };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default', labels },
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      suspend: false,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1' }], ...podSpec } },
      ...spec,
    },
  };
}

async function harness(job: KubeObject) {
  const transport = new FakeTransport();
  const clock = new FakeClock(START);
  transport.seed(resources.jobs, job);
  const { client, controller } = await startOnFakeApi(transport, (client, factory) => new JobController(client, factory, { clock, workers: 2 }));
  const name = job.metadata.name ?? '';
  const pods = () => transport.objectsOf(resources.pods).filter((pod) => pod.metadata.labels?.['batch.kubernetes.io/job-name'] === name);
  const livePods = () => pods().filter((pod) => !pod.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(String(isRecord(pod.status) ? pod.status.phase : '')));
  const current = () => transport.objectsOf(resources.jobs).find((object) => object.metadata.name === name);
  const status = () => (isRecord(current()?.status) ? (current()?.status as Record<string, unknown>) : {});
  const condition = (type: string) => (Array.isArray(status().conditions) ? (status().conditions as Record<string, unknown>[]) : []).find((entry) => entry.type === type);
  const finish = async (pod: KubeObject, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1) => {
    const finishedAt = new Date(clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    await client.resource(resources.pods).patchStatus('default', pod.metadata.name ?? '', {
      status: { phase, containerStatuses: [{ name: 'main', restartCount: 0, state: { terminated: { exitCode, finishedAt, reason: phase === 'Succeeded' ? 'Completed' : 'Error' } } }] },
    }, 'merge');
  };
  const events = async (reason: string) => {
    await controller.flushEvents();
    return transport.objectsOf(resources.events).filter((event) => event.reason === reason).map((event) => String(event.message));
  };
  return { transport, clock, client, controller, pods, livePods, current, status, condition, finish, events };
}

describe('JobController', () => {
  it('runs pods until the completions succeed, then sets SuccessCriteriaMet and Complete', async () => {
    const h = await harness(jobObject('batch', { completions: 3, parallelism: 2 }));
    await until(() => h.livePods().length === 2, 'two pods');
    for (const pod of h.livePods()) {
      expect(pod.metadata.name).toMatch(/^batch-/);
      expect(pod.metadata.finalizers).toEqual([JOB_TRACKING_FINALIZER]);
      expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Job', name: 'batch', controller: true });
    }
    await until(() => h.status().active === 2 && h.status().ready === 0, 'active 2');
    for (const pod of h.livePods()) await h.finish(pod, 'Succeeded');
    await until(() => h.livePods().length === 1 && h.status().succeeded === 2, 'the third pod');
    await h.finish(h.livePods()[0], 'Succeeded');
    await until(() => h.condition('Complete')?.status === 'True', 'Complete');
    const status = h.status();
    expect(status).toMatchObject({ succeeded: 3, uncountedTerminatedPods: {}, terminating: 0, ready: 0 });
    expect(status.active).toBeUndefined();
    expect(status.completionTime).toBeDefined();
    expect((status.conditions as { type: string }[]).map((condition) => condition.type)).toEqual(['SuccessCriteriaMet', 'Complete']);
    expect(h.condition('Complete')).toMatchObject({ reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
    await until(() => h.pods().every((pod) => (pod.metadata.finalizers ?? []).length === 0), 'finalizers removed');
    expect(await h.events('SuccessfulCreate')).toHaveLength(3);
    expect(await h.events('Completed')).toEqual(['Job completed']);
  });

  it('waits the pod failure back-off before a replacement and fails once backoffLimit is exceeded', async () => {
    const h = await harness(jobObject('flaky', { backoffLimit: 1 }));
    await until(() => h.livePods().length === 1, 'first pod');
    await h.finish(h.livePods()[0], 'Failed');
    await until(() => h.status().failed === 1, 'one failure counted');
    expect(h.livePods()).toHaveLength(0);
    h.clock.advance(9_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(h.livePods()).toHaveLength(0);
    h.clock.advance(1_500);
    await until(() => h.livePods().length === 1, 'replacement after 10 s');
    await h.finish(h.livePods()[0], 'Failed');
    await until(() => h.condition('Failed')?.status === 'True', 'Failed');
    expect(h.status()).toMatchObject({ failed: 2 });
    expect(h.condition('FailureTarget')).toMatchObject({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(h.condition('Failed')).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(await h.events('BackoffLimitExceeded')).toEqual(['Job has reached the specified backoff limit']);
  });

  it('runs an Indexed job with one pod per completion index', async () => {
    const h = await harness(jobObject('indexed', { completions: 3, parallelism: 3, completionMode: 'Indexed' }));
    await until(() => h.livePods().length === 3, 'three pods');
    const byIndex = new Map(h.livePods().map((pod) => [pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION], pod]));
    expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
    for (const [index, pod] of byIndex) {
      expect(pod.metadata.name).toMatch(new RegExp(`^indexed-${index}-`));
      expect(pod.metadata.labels?.[JOB_COMPLETION_INDEX_ANNOTATION]).toBe(index);
      const spec = pod.spec as { hostname?: string; containers: { env?: unknown[] }[] };
      expect(spec.hostname).toBe(`indexed-${index}`);
      expect(spec.containers[0].env).toEqual([{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } }]);
    }
    await h.finish(byIndex.get('1') as KubeObject, 'Succeeded');
    await until(() => h.status().completedIndexes === '1', 'index 1 completed');
    await h.finish(byIndex.get('0') as KubeObject, 'Failed');
    await until(() => h.livePods().some((pod) => pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === '0') || h.status().failed === 1, 'failure counted');
    h.clock.advance(11_000);
    await until(() => h.livePods().filter((pod) => pod.metadata.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === '0').length === 1, 'index 0 recreated');
    for (const pod of h.livePods()) await h.finish(pod, 'Succeeded');
    await until(() => h.condition('Complete')?.status === 'True', 'Complete');
    expect(h.status()).toMatchObject({ completedIndexes: '0-2', succeeded: 3, failed: 1 });
  });

  it.each([
    {
      name: 'fails the job at once when a FailJob rule matches the exit code',
      rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }],
      exitCode: 42,
      expectFailed: { reason: 'PodFailurePolicy', message: /^Container main for pod default\/policy-\S+ failed with exit code 42 matching FailJob rule at index 0$/ },
    },
    {
      name: 'does not count a failure that an Ignore rule matches',
      rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }],
      exitCode: 3,
      expectFailed: undefined,
    },
  ])('$name', async ({ rules, exitCode, expectFailed }) => {
    const h = await harness(jobObject('policy', { backoffLimit: 0, podFailurePolicy: { rules }, podReplacementPolicy: 'Failed' }));
    await until(() => h.livePods().length === 1, 'first pod');
    await h.finish(h.livePods()[0], 'Failed', exitCode);
    if (expectFailed) {
      await until(() => h.condition('Failed')?.status === 'True', 'Failed');
      expect(h.condition('Failed')?.reason).toBe(expectFailed.reason);
      expect(String(h.condition('Failed')?.message)).toMatch(expectFailed.message);
      return;
    }
    await until(() => h.pods().every((pod) => (pod.metadata.finalizers ?? []).length === 0), 'finalizer removed');
    h.clock.advance(11_000);
    await until(() => h.livePods().length === 1, 'replacement');
    expect(h.status().failed).toBeUndefined();
    expect(h.condition('Failed')).toBeUndefined();
  });

  it('fails a job that runs past activeDeadlineSeconds and deletes its active pods', async () => {
    const h = await harness(jobObject('slow', { activeDeadlineSeconds: 30 }));
    await until(() => h.livePods().length === 1, 'first pod');
    await until(() => h.status().startTime !== undefined, 'startTime');
    h.clock.advance(30_000);
    await until(() => h.condition('Failed')?.status === 'True', 'Failed');
    expect(h.condition('Failed')).toMatchObject({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    expect(h.pods()).toHaveLength(0);
    expect(h.status()).toMatchObject({ failed: 1 });
    expect(await h.events('DeadlineExceeded')).toEqual(['Job was active longer than specified deadline']);
  });

  it('fails a restartPolicy OnFailure job whose container restarts reach backoffLimit', async () => {
    const h = await harness(jobObject('restarts', { backoffLimit: 2 }, { restartPolicy: 'OnFailure' }));
    await until(() => h.livePods().length === 1, 'first pod');
    await h.client.resource(resources.pods).patchStatus('default', h.livePods()[0].metadata.name ?? '', { status: { phase: 'Running', containerStatuses: [{ name: 'main', restartCount: 2, state: { running: {} } }] } }, 'merge');
    await until(() => h.condition('Failed')?.status === 'True', 'Failed');
    expect(h.condition('Failed')?.reason).toBe('BackoffLimitExceeded');
  });

  it('deletes the pods of a suspended job and recreates them on resume', async () => {
    const h = await harness(jobObject('paused', { parallelism: 2, completions: 2 }));
    await until(() => h.livePods().length === 2, 'two pods');
    await h.client.resource(resources.jobs).patch('default', 'paused', { spec: { suspend: true } }, 'merge');
    await until(() => h.pods().length === 0 && h.condition('Suspended')?.status === 'True', 'suspended');
    expect(h.condition('Suspended')).toMatchObject({ reason: 'JobSuspended', message: 'Job suspended' });
    expect(h.status().failed).toBeUndefined();
    await h.client.resource(resources.jobs).patch('default', 'paused', { spec: { suspend: false } }, 'merge');
    await until(() => h.livePods().length === 2 && h.condition('Suspended')?.status === 'False', 'resumed');
    expect(h.condition('Suspended')).toMatchObject({ reason: 'JobResumed' });
    expect(await h.events('Suspended')).toEqual(['Job suspended']);
    expect(await h.events('Resumed')).toEqual(['Job resumed']);
  });

  it('deletes a finished job and its pods once ttlSecondsAfterFinished has passed', async () => {
    const h = await harness(jobObject('shortlived', { ttlSecondsAfterFinished: 60 }));
    await until(() => h.livePods().length === 1, 'first pod');
    await h.finish(h.livePods()[0], 'Succeeded');
    await until(() => h.condition('Complete')?.status === 'True', 'Complete');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(h.current()).toBeDefined();
    h.clock.advance(61_000);
    await until(() => h.current() === undefined && h.pods().length === 0, 'job and pods deleted');
  });

  it('adopts a matching orphan pod and counts it', async () => {
    const transportJob = jobObject('adopter');
    const h = await harness({ ...transportJob, spec: { ...(transportJob.spec as Record<string, unknown>), suspend: true } });
    h.transport.seed(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', namespace: 'default', labels: { 'batch.kubernetes.io/job-name': 'adopter' } }, spec: { containers: [{ name: 'main', image: 'busybox:1' }] }, status: { phase: 'Succeeded' } });
    await until(() => h.status().succeeded === 1, 'orphan counted');
    const stray = h.pods().find((pod) => pod.metadata.name === 'stray');
    expect(stray?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Job', name: 'adopter' });
    expect(stray?.metadata.finalizers ?? []).toEqual([]);
  });
});

describe('job helpers', () => {
  it.each([
    { failures: 0, sinceMs: 0, remaining: 0 },
    { failures: 1, sinceMs: 0, remaining: 10_000 },
    { failures: 1, sinceMs: 4_000, remaining: 6_000 },
    { failures: 2, sinceMs: 0, remaining: 20_000 },
    { failures: 4, sinceMs: 0, remaining: 80_000 },
    { failures: 10, sinceMs: 0, remaining: 360_000 },
    { failures: 3, sinceMs: 50_000, remaining: 0 },
  ])('backs off $remaining ms after $failures failures $sinceMs ms ago', ({ failures, sinceMs, remaining }) => {
    expect(backoffRemainingMs({ failuresAfterLastSuccess: failures, lastFailureTime: START }, START + sinceMs)).toBe(remaining);
  });

  it.each([
    { text: '', completions: 5, indexes: [] },
    { text: '0', completions: 5, indexes: [0] },
    { text: '0-2,4', completions: 5, indexes: [0, 1, 2, 4] },
    { text: '1,3-7', completions: 5, indexes: [1, 3, 4] },
  ])('parses completed indexes "$text"', ({ text, completions, indexes }) => {
    expect(parseIndexes(text, completions)).toEqual(indexes);
  });

  it.each([
    { indexes: [], text: '' },
    { indexes: [2], text: '2' },
    { indexes: [0, 1, 2, 4], text: '0-2,4' },
    { indexes: [5, 1, 2], text: '1-2,5' },
  ])('formats completed indexes $indexes', ({ indexes, text }) => {
    expect(formatIndexes(indexes)).toBe(text);
  });

  const failedPod = (exitCode: number, conditions: unknown[] = []): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns' },
    status: { phase: 'Failed', conditions, containerStatuses: [{ name: 'main', state: { terminated: { exitCode } } }] },
  });
  it.each([
    { rules: [], pod: failedPod(1), expected: { countFailed: true } },
    { rules: [{ action: 'Count', onExitCodes: { operator: 'NotIn', values: [1] } }, { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } }], pod: failedPod(1), expected: { countFailed: false, action: 'Ignore' } },
    { rules: [{ action: 'FailJob', onExitCodes: { operator: 'NotIn', values: [0] } }], pod: failedPod(0), expected: { countFailed: true } },
    { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'other', operator: 'In', values: [1] } }], pod: failedPod(1), expected: { countFailed: true } },
    {
      rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
      pod: failedPod(137, [{ type: 'DisruptionTarget', status: 'True' }]),
      expected: { countFailed: false, action: 'Ignore' },
    },
    {
      rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget' }] }],
      pod: failedPod(137, [{ type: 'DisruptionTarget', status: 'True' }]),
      expected: { countFailed: true, action: 'FailJob', failJobMessage: 'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0' },
    },
  ])('matches pod failure policy rules in order (%#)', ({ rules, pod, expected }) => {
    expect(matchPodFailurePolicy({ rules }, pod)).toEqual(expected);
  });
});
