import { describe, expect, it } from 'vitest';
import { NOW, makeDiagnosisPod, makeEvent, makeWorkload, unschedulableConditions } from '../../test/fixtures/diagnosisObjects';
import type { DiagnosisContext } from './diagnosis';
import { createFailureText, diagnoseCronJob, diagnoseDaemonSet, diagnoseDeployment, diagnoseJob, diagnoseReplicaSet, diagnoseStatefulSet } from './workloads';

function context(extra: Partial<DiagnosisContext> = {}): DiagnosisContext {
  return { now: NOW, ...extra };
}

const QUOTA_MESSAGE = 'Error creating: pods "web-7c597-cws6s" is forbidden: exceeded quota: tiny, requested: pods=1, used: pods=1, limited: pods=1';

function crashingPod(name: string, owner: ReturnType<typeof makeWorkload>) {
  return makeDiagnosisPod(name, { owner, labels: { app: 'web' }, phase: 'Running', containers: [{ waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 127, reason: 'Error' }, restartCount: 3 }] });
}

describe('diagnoseDeployment', () => {
  it('calls a Deployment with every replica ready and updated healthy', () => {
    const deployment = makeWorkload('Deployment', 'web', { replicas: 2, status: { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } });
    expect(diagnoseDeployment(deployment, context())).toMatchObject({ healthy: true, code: 'Healthy', reason: 'healthy: 2/2 replicas ready and up to date' });
  });

  it('gives the worst pod’s reason with how many pods share it', () => {
    const deployment = makeWorkload('Deployment', 'web', { replicas: 2, status: { replicas: 2, updatedReplicas: 2, readyReplicas: 0 } });
    const replicaSet = makeWorkload('ReplicaSet', 'web-7c597', { owner: deployment, replicas: 2, labels: { app: 'web' } });
    const pods = [crashingPod('web-7c597-a', replicaSet), crashingPod('web-7c597-b', replicaSet), makeDiagnosisPod('unrelated', { labels: { app: 'web' }, phase: 'Running', containers: [{ waiting: { reason: 'ImagePullBackOff' } }] })];
    const diagnosis = diagnoseDeployment(deployment, context({ replicaSets: [replicaSet], pods }));
    expect(diagnosis).toMatchObject({ healthy: false, severity: 'error', code: 'CrashLoop' });
    expect(diagnosis.reason).toBe('0/2 ready: container "app" keeps crashing: exit code 127 (command not found), restarted 3 times (2 pods, e.g. web-7c597-a)');
    expect(diagnosis.logRequest).toEqual({ namespace: 'default', pod: 'web-7c597-a', container: 'app', previous: true });
  });

  it('falls back to the selector when ReplicaSets are not known', () => {
    const deployment = makeWorkload('Deployment', 'web', { replicas: 1, labels: { app: 'web' }, status: { replicas: 1, updatedReplicas: 1 } });
    const pod = makeDiagnosisPod('web-x', { labels: { app: 'web' }, nodeName: null, conditions: unschedulableConditions('0/1 nodes are available: 1 node(s) were unschedulable.') });
    expect(diagnoseDeployment(deployment, context({ pods: [pod] })).reason).toBe('0/1 ready: cannot be scheduled: 1 node(s) were unschedulable (pod web-x)');
  });

  it('says a quota refuses the pods, from the ReplicaSet’s FailedCreate events', () => {
    const deployment = makeWorkload('Deployment', 'many', { namespace: 'quota', replicas: 3, status: { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 } });
    const replicaSet = makeWorkload('ReplicaSet', 'many-7c597', { namespace: 'quota', owner: deployment, replicas: 3 });
    const events = [makeEvent(replicaSet, 'SuccessfulCreate', 'Created pod: many-7c597-a', { type: 'Normal', secondsAgo: 30 }), makeEvent(replicaSet, 'FailedCreate', QUOTA_MESSAGE, { secondsAgo: 5, count: 4 })];
    const diagnosis = diagnoseDeployment(deployment, context({ replicaSets: [replicaSet], pods: [], events }));
    expect(diagnosis).toMatchObject({ code: 'FailedCreate', reason: '1/3 ready: cannot create pods: ResourceQuota "tiny" is exhausted (requested: pods=1, used: pods=1, limited: pods=1)' });
    expect(diagnosis.hints[0]).toBe('see what the quota allows: kubectl describe resourcequota tiny -n quota');
  });

  it('reads the ReplicaFailure condition when events are gone', () => {
    const deployment = makeWorkload('Deployment', 'many', { replicas: 2, status: { replicas: 0, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "many-x" is forbidden: maximum memory usage per Container is 100Mi, but limit is 200Mi' }] } });
    expect(diagnoseDeployment(deployment, context({ replicaSets: [], pods: [] })).reason).toBe('0/2 ready: cannot create pods: a LimitRange refuses them: maximum memory usage per Container is 100Mi, but limit is 200Mi');
  });

  it('says a rollout is past its progress deadline, and why its pods are not ready', () => {
    const deployment = makeWorkload('Deployment', 'stuck', {
      replicas: 1,
      spec: { progressDeadlineSeconds: 10 },
      status: { replicas: 1, updatedReplicas: 1, conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "stuck-1" has timed out progressing.' }] },
    });
    const replicaSet = makeWorkload('ReplicaSet', 'stuck-1', { owner: deployment, replicas: 1 });
    const pod = makeDiagnosisPod('stuck-1-a', { owner: replicaSet, phase: 'Running', containers: [{ readinessProbe: { exec: { command: ['false'] } }, running: {}, ready: false }] });
    const events = [makeEvent(pod, 'Unhealthy', 'Readiness probe failed: not ready yet', { fieldPath: 'spec.containers{app}' })];
    const diagnosis = diagnoseDeployment(deployment, context({ replicaSets: [replicaSet], pods: [pod], events }));
    expect(diagnosis).toMatchObject({ code: 'ProgressDeadlineExceeded', severity: 'error', reason: 'rollout stuck past its progress deadline (10s): readiness probe failing on container "app": not ready yet (pod stuck-1-a)' });
    expect(diagnosis.details).toContain('Progressing: ReplicaSet "stuck-1" has timed out progressing.');
  });

  it('reports a paused rollout and one in progress', () => {
    const paused = makeWorkload('Deployment', 'paused', { replicas: 2, spec: { paused: true }, status: { replicas: 2, updatedReplicas: 1, readyReplicas: 2, availableReplicas: 2 } });
    expect(diagnoseDeployment(paused, context({ replicaSets: [], pods: [] }))).toMatchObject({ severity: 'warning', code: 'Paused', reason: 'rollout paused at 1/2 updated' });
    const rolling = makeWorkload('Deployment', 'rolling', { replicas: 2, generation: 2, status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } });
    expect(diagnoseDeployment(rolling, context({ replicaSets: [], pods: [] }))).toMatchObject({ severity: 'warning', code: 'RollingOut' });
  });
});

describe('diagnoseReplicaSet and diagnoseStatefulSet', () => {
  it('reports a ReplicaSet whose pods are refused', () => {
    const replicaSet = makeWorkload('ReplicaSet', 'rs', { replicas: 2, status: { replicas: 0 } });
    const events = [makeEvent(replicaSet, 'FailedCreate', QUOTA_MESSAGE)];
    expect(diagnoseReplicaSet(replicaSet, context({ events, pods: [] }))).toMatchObject({ code: 'FailedCreate', reason: '0/2 ready: cannot create pods: ResourceQuota "tiny" is exhausted (requested: pods=1, used: pods=1, limited: pods=1)' });
    const ready = makeWorkload('ReplicaSet', 'ok', { replicas: 2, status: { replicas: 2, readyReplicas: 2 } });
    expect(diagnoseReplicaSet(ready, context())).toMatchObject({ healthy: true, reason: 'healthy: 2/2 replicas ready' });
  });

  it('reports a StatefulSet waiting on its first pod', () => {
    const set = makeWorkload('StatefulSet', 'db', { replicas: 3, status: { replicas: 1, readyReplicas: 0 } });
    const pod = makeDiagnosisPod('db-0', { owner: set, containers: [{ waiting: { reason: 'CreateContainerConfigError', message: 'secret "db-password" not found' } }] });
    const diagnosis = diagnoseStatefulSet(set, context({ pods: [pod] }));
    expect(diagnosis.reason).toBe('0/3 ready: Secret "db-password" does not exist (container "app" needs it) (pod db-0)');
    expect(diagnosis.details).toContain('Pods start one at a time (OrderedReady): the next one waits for db-0 to be ready');
  });
});

describe('diagnoseDaemonSet', () => {
  it('calls a DaemonSet that no node should run healthy, and names failing pods', () => {
    const nowhere = makeWorkload('DaemonSet', 'agent', { status: { desiredNumberScheduled: 0 } });
    expect(diagnoseDaemonSet(nowhere, context()).healthy).toBe(true);
    const agent = makeWorkload('DaemonSet', 'agent', { status: { desiredNumberScheduled: 1, numberReady: 0, updatedNumberScheduled: 1 } });
    const pod = makeDiagnosisPod('agent-x', { owner: agent, containers: [{ waiting: { reason: 'ErrImageNeverPull', message: 'Container image "agent:dev" is not present with pull policy of Never' }, image: 'agent:dev' }] });
    expect(diagnoseDaemonSet(agent, context({ pods: [pod] })).reason).toBe('0/1 ready: image "agent:dev" is not in the local Docker image store and imagePullPolicy is Never (pod agent-x)');
  });
});

describe('diagnoseJob and diagnoseCronJob', () => {
  it('explains a failed Job with its last failed pod', () => {
    const job = makeWorkload('Job', 'migrate', { status: { failed: 2, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] }, spec: { backoffLimit: 1 } });
    const pod = makeDiagnosisPod('migrate-a', { owner: job, phase: 'Failed', restartPolicy: 'Never', containers: [{ terminated: { exitCode: 1, reason: 'Error' } }] });
    const diagnosis = diagnoseJob(job, context({ pods: [pod] }));
    expect(diagnosis).toMatchObject({ code: 'JobFailed', reason: 'failed: BackoffLimitExceeded (Job has reached the specified backoff limit); last failure: container "app" failed: exit code 1 (general error) (pod migrate-a)' });
    expect(diagnosis.logRequest).toEqual({ namespace: 'default', pod: 'migrate-a', container: 'app', previous: false });
  });

  it('reports retries before the backoff limit, a refused pod, completion and suspension', () => {
    const job = makeWorkload('Job', 'retry', { status: { failed: 1, active: 1 } });
    const failed = makeDiagnosisPod('retry-a', { owner: job, phase: 'Failed', restartPolicy: 'Never', containers: [{ terminated: { exitCode: 3, reason: 'Error' } }] });
    const running = makeDiagnosisPod('retry-b', { owner: job });
    expect(diagnoseJob(job, context({ pods: [failed, running] }))).toMatchObject({ code: 'PodsFailing', reason: '1 pod failed, retrying (backoff limit 6): container "app" failed: exit code 3 (error) (pod retry-a)' });
    const refused = makeWorkload('Job', 'refused', { status: {} });
    expect(diagnoseJob(refused, context({ pods: [], events: [makeEvent(refused, 'FailedCreate', QUOTA_MESSAGE)] }))).toMatchObject({ code: 'FailedCreate' });
    const done = makeWorkload('Job', 'done', { status: { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] } });
    expect(diagnoseJob(done, context())).toMatchObject({ healthy: true, code: 'Completed', reason: 'healthy: completed (1/1 succeeded)' });
    const suspended = makeWorkload('Job', 'later', { spec: { suspend: true }, status: {} });
    expect(diagnoseJob(suspended, context())).toMatchObject({ healthy: true, code: 'Suspended' });
  });

  it('diagnoses a CronJob through its last Job', () => {
    const cronJob = makeWorkload('CronJob', 'nightly', { spec: { schedule: '0 3 * * *' }, status: {} });
    expect(diagnoseCronJob(cronJob, context({ jobs: [] }))).toMatchObject({ healthy: true, reason: 'healthy: no Job has run yet (schedule "0 3 * * *")' });
    const job = makeWorkload('Job', 'nightly-1', { owner: cronJob, status: { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] } });
    const diagnosis = diagnoseCronJob(cronJob, context({ jobs: [job], pods: [] }));
    expect(diagnosis).toMatchObject({ healthy: false, code: 'JobFailed', reason: 'last Job nightly-1: failed: BackoffLimitExceeded (Job has reached the specified backoff limit)' });
    const suspended = makeWorkload('CronJob', 'off', { spec: { schedule: '* * * * *', suspend: true } });
    expect(diagnoseCronJob(suspended, context()).code).toBe('Suspended');
  });
});

describe('createFailureText', () => {
  it.each([
    [QUOTA_MESSAGE, 'ResourceQuota "tiny" is exhausted (requested: pods=1, used: pods=1, limited: pods=1)'],
    ['Error creating: pods "x" is forbidden: failed quota: compute: must specify limits.memory for: app', 'ResourceQuota "compute" refuses them: must specify limits.memory for: app'],
    ['Error creating: pods "x" is forbidden: minimum cpu usage per Container is 100m, but request is 50m', 'a LimitRange refuses them: minimum cpu usage per Container is 100m, but request is 50m'],
    ['Error creating: pods "x" is forbidden: violates PodSecurity "restricted:latest": privileged', 'violates PodSecurity "restricted:latest": privileged'],
  ])('turns %j into plain words', (message, expected) => {
    expect(createFailureText(message)).toBe(expected);
  });
});
