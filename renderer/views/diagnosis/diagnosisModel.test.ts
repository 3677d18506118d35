import { describe, expect, it } from 'vitest';
import { NOW, makeDiagnosisPod, makeEvent, makeWorkload } from '../../../test/fixtures/diagnosisObjects';
import type { Collection } from '../../store/watchMerge';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { diagnosisContextOf, diagnosisKeys, diagnosisOf, diagnosisTone, isDiagnosed, listDiagnosisKeys, reasonBesideCount } from './diagnosisModel';

function collection(items: KubeObject[], phase: Collection['phase'] = 'ready'): Collection {
  return { items: Object.fromEntries(items.map((item) => [`${item.metadata.namespace ?? ''}/${item.metadata.name ?? ''}`, item])), resourceVersion: '1', phase };
}

describe('diagnosisModel', () => {
  it('diagnoses the built-in kinds only, not a custom resource of the same name', () => {
    expect(isDiagnosed('Deployment', 'apps')).toBe(true);
    expect(isDiagnosed('Deployment', 'example.com')).toBe(false);
    expect(isDiagnosed('ConfigMap', '')).toBe(false);
  });

  it('maps what the engine reads to the UI’s caches, Endpoints standing in for EndpointSlices', () => {
    expect(diagnosisKeys('Deployment')).toEqual(expect.arrayContaining(['pods', 'events', 'nodes', 'replicasets.apps', 'persistentvolumeclaims', 'storageclasses.storage.k8s.io', 'configmaps']));
    expect(diagnosisKeys('Service')).toContain('endpoints');
    expect(listDiagnosisKeys('Deployment')).toEqual(['pods', 'replicasets.apps']);
    expect(listDiagnosisKeys('Pod')).toEqual([]);
  });

  it('builds the context from filled caches only, and leaves out what a caller asks', () => {
    const pod = makeDiagnosisPod('web');
    const event = makeEvent(pod, 'Unhealthy', 'Readiness probe failed: x');
    const collections = { pods: collection([pod]), events: collection([event]), nodes: collection([], 'loading') };
    const context = diagnosisContextOf('Pod', collections, NOW);
    expect(context.pods).toEqual([pod]);
    expect(context.events).toEqual([event]);
    expect(context.nodes).toBeUndefined();
    expect(diagnosisContextOf('Pod', collections, NOW, ['pods']).pods).toBeUndefined();
    // the same cache version gives the same array, so the engine's indexes are reused
    expect(diagnosisContextOf('Pod', collections, NOW).events).toBe(context.events);
  });

  it('diagnoses a workload through the cached pods, once per object and context', () => {
    const deployment = makeWorkload('Deployment', 'web', { replicas: 1, status: { replicas: 1, updatedReplicas: 1 } });
    const pod = makeDiagnosisPod('web-1', { labels: { app: 'web' }, phase: 'Running', containers: [{ waiting: { reason: 'CrashLoopBackOff' }, lastTerminated: { exitCode: 127 }, restartCount: 1 }] });
    const context = diagnosisContextOf('Deployment', { pods: collection([pod]) }, NOW);
    const diagnosis = diagnosisOf('Deployment', deployment, context);
    expect(diagnosis?.reason).toBe('0/1 ready: container "app" keeps crashing: exit code 127 (command not found), restarted 1 time (pod web-1)');
    expect(diagnosisOf('Deployment', deployment, context)).toBe(diagnosis);
    expect(diagnosisTone(diagnosis!)).toBe('error');
    // beside the READY column the count is not repeated
    expect(reasonBesideCount(diagnosis!)).toBe('container "app" keeps crashing: exit code 127 (command not found), restarted 1 time (pod web-1)');
  });
});
