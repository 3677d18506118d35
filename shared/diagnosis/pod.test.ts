import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { podHealth } from '../printers/podHealth';
import { NOW, ago, makeDiagnosisNode, makeDiagnosisPod, makeEvent, makeObject, unschedulableConditions } from '../../test/fixtures/diagnosisObjects';
import { logKey, type DiagnosisContext } from './diagnosis';
import { diagnosePod, schedulerPredicates } from './pod';

function context(extra: Partial<DiagnosisContext> = {}): DiagnosisContext {
  return { now: NOW, ...extra };
}

const NODE_SELECTOR_MESSAGE = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";

describe('diagnosePod', () => {
  it('calls a running pod with every container ready healthy', () => {
    const diagnosis = diagnosePod(makeDiagnosisPod('web'), context());
    expect(diagnosis).toMatchObject({ healthy: true, severity: 'ok', code: 'Healthy', reason: 'healthy: running, 1/1 containers ready' });
  });

  it('calls a completed pod healthy', () => {
    const pod = makeDiagnosisPod('once', { phase: 'Succeeded', restartPolicy: 'Never', containers: [{ terminated: { exitCode: 0, reason: 'Completed' } }] });
    expect(diagnosePod(pod, context())).toMatchObject({ healthy: true, code: 'Completed' });
  });

  it('names the predicate and the node a nodeSelector misses', () => {
    const pod = makeDiagnosisPod('picky', { nodeName: null, nodeSelector: { disktype: 'ssd' }, conditions: unschedulableConditions(NODE_SELECTOR_MESSAGE) });
    const diagnosis = diagnosePod(pod, context({ nodes: [makeDiagnosisNode('kubedesk')] }));
    expect(diagnosis).toMatchObject({ healthy: false, severity: 'error', code: 'Unschedulable' });
    expect(diagnosis.reason).toBe("cannot be scheduled: 1 node(s) didn't match Pod's node affinity/selector (nodeSelector disktype=ssd)");
    expect(diagnosis.details).toContain('Node kubedesk: it has no label disktype (nodeSelector wants disktype=ssd)');
    expect(diagnosis.hints[0]).toContain('kubectl label node kubedesk disktype=ssd');
  });

  it('names an untolerated taint and a node short of memory', () => {
    const message = '0/2 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';
    const pod = makeDiagnosisPod('big', { nodeName: null, requests: { memory: '6Gi' }, conditions: unschedulableConditions(message) });
    const resident = makeDiagnosisPod('resident', { nodeName: 'small', requests: { memory: '3Gi' } });
    const nodes = [makeDiagnosisNode('small', { memory: '8Gi' }), makeDiagnosisNode('gpu', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] })];
    const diagnosis = diagnosePod(pod, context({ nodes, pods: [pod, resident] }));
    expect(diagnosis.reason).toBe('cannot be scheduled: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}');
    expect(diagnosis.details).toContain('Node small: not enough memory: the pod requests 6 GiB, 5 GiB of 8 GiB is free');
    expect(diagnosis.details).toContain('Node gpu: it has the taint dedicated=gpu:NoSchedule, which the pod does not tolerate');
  });

  it('uses the FailedScheduling event when the condition is not written yet', () => {
    const pod = makeDiagnosisPod('early', { nodeName: null, conditions: [] });
    const diagnosis = diagnosePod(pod, context({ events: [makeEvent(pod, 'FailedScheduling', '0/1 nodes are available: 1 node(s) were unschedulable.')] }));
    expect(diagnosis).toMatchObject({ code: 'Unschedulable', reason: 'cannot be scheduled: 1 node(s) were unschedulable' });
  });

  it('waits on scheduling gates and on the scheduler', () => {
    const gated = makeDiagnosisPod('gated', { nodeName: null, schedulingGates: ['example.com/quota'], conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] });
    expect(diagnosePod(gated, context())).toMatchObject({ severity: 'warning', code: 'SchedulingGated', reason: 'waiting for its scheduling gates to be removed: example.com/quota' });
    const fresh = makeDiagnosisPod('fresh', { nodeName: null, conditions: [] });
    expect(diagnosePod(fresh, context())).toMatchObject({ severity: 'warning', code: 'Scheduling' });
  });

  it('says a missing image is not local and no registry is reachable, with the docker build hint', () => {
    const pod = makeDiagnosisPod('noimage', { containers: [{ image: 'example/app:1', waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "example/app:1"' } }] });
    const events = [
      makeEvent(pod, 'Failed', 'Failed to pull image "example/app:1": Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host', { fieldPath: 'spec.containers{app}', secondsAgo: 5 }),
      makeEvent(pod, 'BackOff', 'Back-off pulling image "example/app:1"', { type: 'Normal', fieldPath: 'spec.containers{app}' }),
    ];
    const diagnosis = diagnosePod(pod, context({ events }));
    expect(diagnosis).toMatchObject({ code: 'ImageMissing', reason: 'image "example/app:1" is not in the local Docker image store and no registry is reachable to pull it' });
    expect(diagnosis.hints[0]).toContain('docker build -t example/app:1 .');
    expect(diagnosis.details).toContain('Pull error: Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host');
  });

  it('tells an image the registry does not have from an unreachable registry', () => {
    const pod = makeDiagnosisPod('typo', { containers: [{ image: 'example/aap:1', waiting: { reason: 'ErrImagePull', message: 'Failed to pull image "example/aap:1": pull access denied for example/aap, repository does not exist or may require \'docker login\'' } }] });
    expect(diagnosePod(pod, context())).toMatchObject({ code: 'ImageNotFound', reason: 'image "example/aap:1" is not in the local Docker image store, and its registry does not have it or refuses access' });
    const never = makeDiagnosisPod('never', { containers: [{ image: 'mine:dev', imagePullPolicy: 'Never', waiting: { reason: 'ErrImageNeverPull', message: 'Container image "mine:dev" is not present with pull policy of Never' } }] });
    const diagnosis = diagnosePod(never, context());
    expect(diagnosis).toMatchObject({ code: 'ImageMissing', reason: 'image "mine:dev" is not in the local Docker image store and imagePullPolicy is Never' });
    expect(diagnosis.hints[0]).toContain('docker build -t mine:dev .');
  });

  it.each([
    [127, 'Error', 'command not found', 'the executable must exist in the image'],
    [126, 'Error', 'command not runnable', 'chmod +x'],
    [1, 'Error', 'general error', undefined],
    [143, 'Error', 'terminated (SIGTERM)', 'asked to stop'],
    [137, 'Error', 'killed (SIGKILL)', 'SIGKILL'],
  ])('explains a crash loop with exit code %i', (exitCode, reason, meaning, hint) => {
    const pod = makeDiagnosisPod('crash', {
      phase: 'Running',
      containers: [{ command: ['sh', '-c', 'exit 1'], waiting: { reason: 'CrashLoopBackOff', message: 'back-off 20s restarting failed container=app' }, lastTerminated: { exitCode, reason }, restartCount: 4 }],
    });
    const diagnosis = diagnosePod(pod, context());
    expect(diagnosis).toMatchObject({ healthy: false, severity: 'error', code: 'CrashLoop', reason: `container "app" keeps crashing: exit code ${exitCode} (${meaning}), restarted 4 times` });
    expect(diagnosis.logRequest).toEqual({ namespace: 'default', pod: 'crash', container: 'app', previous: true });
    if (hint) expect(diagnosis.hints.join('\n')).toContain(hint);
    expect(diagnosis.details).toContain('Command: sh -c "exit 1"');
  });

  it('adds the last log lines the caller fetched', () => {
    const pod = makeDiagnosisPod('crash', { phase: 'Running', containers: [{ waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 127, reason: 'Error' }, restartCount: 2 }] });
    const logs = new Map([[logKey('default', 'crash', 'app'), ['sh: no-such-command: not found']]]);
    expect(diagnosePod(pod, context({ logs })).logLines).toEqual(['sh: no-such-command: not found']);
  });

  it('says a container ran out of memory at its limit', () => {
    const pod = makeDiagnosisPod('hog', { phase: 'Running', containers: [{ name: 'hog', memoryLimit: '20Mi', waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 137, reason: 'OOMKilled' }, restartCount: 3 }] });
    const diagnosis = diagnosePod(pod, context());
    expect(diagnosis).toMatchObject({ code: 'OOMKilled', reason: 'container "hog" keeps running out of memory: killed at its 20Mi memory limit (OOMKilled, exit code 137), restarted 3 times' });
    expect(diagnosis.details).toContain('Memory limit: 20Mi (20 MiB)');
    expect(diagnosis.hints[0]).toContain('resources.limits.memory');
  });

  it('blames a failing liveness probe for restarts, with the probe output', () => {
    const pod = makeDiagnosisPod('alive', { phase: 'Running', containers: [{ livenessProbe: { tcpSocket: { port: 8080 } }, running: {}, ready: false, lastTerminated: { exitCode: 137, reason: 'Error' }, restartCount: 2 }] });
    const events = [makeEvent(pod, 'Unhealthy', 'Liveness probe failed: dial tcp 10.1.0.5:8080: connect: connection refused', { fieldPath: 'spec.containers{app}', count: 3, secondsAgo: 20 })];
    // running again after the restart: the readiness side says nothing, the restarts say liveness
    const crashing = makeDiagnosisPod('alive', { phase: 'Running', containers: [{ livenessProbe: { tcpSocket: { port: 8080 } }, waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 137, reason: 'Error' }, restartCount: 2 }] });
    crashing.metadata.uid = pod.metadata.uid;
    const diagnosis = diagnosePod(crashing, context({ events }));
    expect(diagnosis).toMatchObject({ code: 'LivenessProbeFailing', reason: 'liveness probe failing on container "app": dial tcp 10.1.0.5:8080: connect: connection refused, restarted 2 times' });
  });

  it('gives a failing readiness probe with its own last output, ignoring failures of an earlier run', () => {
    const pod = makeDiagnosisPod('probe', { phase: 'Running', containers: [{ readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 2 }, running: { startedAt: ago(60) }, ready: false }] });
    const events = [
      makeEvent(pod, 'Unhealthy', 'Readiness probe failed: dial tcp 10.1.0.7:8080: connect: connection refused', { fieldPath: 'spec.containers{app}', count: 12, secondsAgo: 2 }),
      makeEvent(pod, 'Unhealthy', 'Readiness probe failed: an older run', { fieldPath: 'spec.containers{app}', secondsAgo: 600 }),
    ];
    const diagnosis = diagnosePod(pod, context({ events }));
    expect(diagnosis).toMatchObject({ code: 'ReadinessProbeFailing', reason: 'readiness probe failing on container "app": dial tcp 10.1.0.7:8080: connect: connection refused' });
    expect(diagnosis.details).toEqual(['Readiness probe failed 12 times', 'Readiness probe: tcp-socket :8080 every 2s, failure threshold 3']);
    expect(diagnosePod(pod, context())).toMatchObject({ severity: 'warning', code: 'NotReady', reason: 'container "app" is not ready yet (its readiness probe has not succeeded)' });
  });

  it('says when a failing probe printed nothing', () => {
    const pod = makeDiagnosisPod('quiet', { phase: 'Running', containers: [{ readinessProbe: { exec: { command: ['false'] } }, running: {}, ready: false }] });
    const events = [makeEvent(pod, 'Unhealthy', 'Readiness probe failed: ', { fieldPath: 'spec.containers{app}' })];
    expect(diagnosePod(pod, context({ events })).reason).toBe('readiness probe failing on container "app" (the probe printed nothing)');
  });

  it('reports a startup probe that has not succeeded', () => {
    const pod = makeDiagnosisPod('slow', { phase: 'Running', containers: [{ startupProbe: { exec: { command: ['cat', '/ready'] } }, running: {}, ready: false, started: false }] });
    const events = [makeEvent(pod, 'Unhealthy', 'Startup probe failed: cat: /ready: No such file or directory', { fieldPath: 'spec.containers{app}' })];
    expect(diagnosePod(pod, context({ events }))).toMatchObject({ code: 'StartupProbeFailing', reason: 'startup probe failing on container "app": cat: /ready: No such file or directory' });
  });

  it('names a missing ConfigMap, Secret or key', () => {
    const missing = makeDiagnosisPod('nocm', { containers: [{ waiting: { reason: 'CreateContainerConfigError', message: 'configmap "settings" not found' } }] });
    const diagnosis = diagnosePod(missing, context());
    expect(diagnosis).toMatchObject({ code: 'ConfigMissing', reason: 'ConfigMap "settings" does not exist (container "app" needs it)' });
    expect(diagnosis.hints[0]).toBe('create it: kubectl create configmap settings -n default --from-literal=KEY=VALUE');
    const secret = makeDiagnosisPod('nosecret', { containers: [{ waiting: { reason: 'CreateContainerConfigError', message: 'secret "credentials" not found' } }] });
    expect(diagnosePod(secret, context())).toMatchObject({ code: 'ConfigMissing', reason: 'Secret "credentials" does not exist (container "app" needs it)' });
    const key = makeDiagnosisPod('nokey', { containers: [{ waiting: { reason: 'CreateContainerConfigError', message: "couldn't find key color in ConfigMap default/settings" } }] });
    const settings = makeObject('v1', 'ConfigMap', 'settings', { data: { size: 'L', shape: 'round' } });
    const keyDiagnosis = diagnosePod(key, context({ configMaps: [settings] }));
    expect(keyDiagnosis).toMatchObject({ code: 'ConfigKeyMissing', reason: 'ConfigMap "settings" has no key "color" (container "app" needs it)' });
    expect(keyDiagnosis.details).toContain('ConfigMap "settings" has the keys: shape, size');
  });

  it('names a ConfigMap volume that cannot be mounted', () => {
    const pod = makeDiagnosisPod('nocmvol', { containers: [{ waiting: { reason: 'ContainerCreating' } }], volumes: [{ name: 'cfg', configMap: { name: 'files' } }] });
    const events = [makeEvent(pod, 'FailedMount', 'MountVolume.SetUp failed for volume "cfg" : configmap "files" not found')];
    expect(diagnosePod(pod, context({ events }))).toMatchObject({ code: 'ConfigMissing', reason: 'volume "cfg": ConfigMap "files" does not exist' });
  });

  it('names a volume whose claim is not bound, with the claim’s own reason', () => {
    const pod = makeDiagnosisPod('usesclaim', { containers: [{ waiting: { reason: 'ContainerCreating' } }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] });
    const claim = makeObject('v1', 'PersistentVolumeClaim', 'data', { spec: { storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } });
    const classes = [makeObject('storage.k8s.io/v1', 'StorageClass', 'standard', { provisioner: 'kubedesk.io/local-path', volumeBindingMode: 'Immediate' }, undefined)];
    const diagnosis = diagnosePod(pod, context({ persistentVolumeClaims: [claim], storageClasses: classes }));
    expect(diagnosis).toMatchObject({ code: 'VolumeNotReady', severity: 'error', reason: 'volume "data": PersistentVolumeClaim "data" is not bound: StorageClass "fast" does not exist, so nothing provisions a volume for it' });
    // without the claims, the kubelet's FailedMount text says as much
    const events = [makeEvent(pod, 'FailedMount', 'MountVolume.SetUp failed for volume "data" : error processing PVC default/data: PVC default/data has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")')];
    expect(diagnosePod(pod, context({ events }))).toMatchObject({ code: 'VolumeNotReady', reason: 'volume "data": PersistentVolumeClaim "data" is not bound' });
  });

  it('diagnoses the first init container that does not complete', () => {
    const pod = makeDiagnosisPod('init', {
      phase: 'Pending',
      initContainers: [{ name: 'migrate', waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 1, reason: 'Error' }, restartCount: 5 }],
      containers: [{ waiting: { reason: 'PodInitializing' } }],
    });
    const diagnosis = diagnosePod(pod, context());
    expect(diagnosis).toMatchObject({ code: 'CrashLoop', reason: 'init container "migrate" keeps crashing: exit code 1 (general error), restarted 5 times' });
    expect(diagnosis.logRequest?.container).toBe('migrate');
  });

  it('reports a container that failed without restarting, and a pod that failed as a whole', () => {
    const failed = makeDiagnosisPod('job-pod', { phase: 'Failed', restartPolicy: 'Never', containers: [{ terminated: { exitCode: 2, reason: 'Error' } }] });
    const diagnosis = diagnosePod(failed, context());
    expect(diagnosis).toMatchObject({ code: 'ContainerFailed', reason: 'container "app" failed: exit code 2 (invalid usage)' });
    expect(diagnosis.logRequest?.previous).toBe(false);
    const evicted = makeDiagnosisPod('evicted', { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.', containers: [{ terminated: { exitCode: 137, reason: 'Error' } }] });
    expect(diagnosePod(evicted, context())).toMatchObject({ code: 'PodFailed', reason: 'failed: Evicted: The node was low on resource: memory.' });
  });

  it('reports a pod being deleted', () => {
    const pod = makeDiagnosisPod('going', { deletionTimestamp: ago(3) });
    expect(diagnosePod(pod, context())).toMatchObject({ healthy: false, severity: 'warning', code: 'Terminating', reason: 'being deleted (grace period 30s)' });
  });

  it('agrees with the pod health kubectl’s columns give', () => {
    const pods: KubeObject[] = [
      makeDiagnosisPod('ok'),
      makeDiagnosisPod('done', { phase: 'Succeeded', containers: [{ terminated: { exitCode: 0, reason: 'Completed' } }] }),
      makeDiagnosisPod('crash', { phase: 'Running', containers: [{ waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 1 } }] }),
      makeDiagnosisPod('unready', { phase: 'Running', containers: [{ running: {}, ready: false }] }),
      makeDiagnosisPod('creating', { containers: [{ waiting: { reason: 'ContainerCreating' } }] }),
      makeDiagnosisPod('pending', { nodeName: null, conditions: [] }),
      makeDiagnosisPod('going', { deletionTimestamp: ago(1) }),
    ];
    for (const pod of pods) {
      const health = podHealth(pod, NOW);
      expect(diagnosePod(pod, context()).healthy, pod.metadata.name).toBe(health === 'healthy' || health === 'completed');
    }
  });
});

describe('schedulerPredicates', () => {
  it('keeps the predicates of the scheduler’s message and drops the preemption part', () => {
    expect(schedulerPredicates(NODE_SELECTOR_MESSAGE)).toBe("1 node(s) didn't match Pod's node affinity/selector");
    expect(schedulerPredicates('0/3 nodes are available: 3 Insufficient cpu.')).toBe('3 Insufficient cpu');
  });
});
