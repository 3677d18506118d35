import { describe, expect, it } from 'vitest';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { startOnFakeApi, type ComponentOnFakeApi } from '../../test/doubles/fakeApi';
import { runPods } from '../../test/doubles/kubeletStandIn';
import { resources } from '../client/resources';
import type { TransportRequest, TransportResponse } from '../client/transport';
import type { KubeObject } from '../../shared/kubernetes/types';
import { POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL, STATEFULSET_REVISION_LABEL, StatefulSetController, claimsFor, parentAndOrdinal, retentionOwnerReferences } from './statefulSetController';

/** Logs successful pod creates and deletes, in order. */
class RecordingTransport extends FakeTransport {
  readonly podLog: string[] = [];

  override async request(req: TransportRequest): Promise<TransportResponse> {
    const response = await super.request(req);
    if (response.status < 300 && req.path.includes('/pods') && (req.method === 'POST' || req.method === 'DELETE')) {
      const name = req.method === 'POST' && typeof req.body === 'object' && req.body !== null ? String((req.body as KubeObject).metadata.name) : req.path.split('/').pop();
      this.podLog.push(`${req.method === 'POST' ? 'create' : 'delete'} ${name ?? ''}`);
    }
    return response;
  }
}

async function until(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Harness extends ComponentOnFakeApi<StatefulSetController, RecordingTransport> {
  pods(): KubeObject[];
  podNames(): string[];
  claimNames(): string[];
  set(): KubeObject;
  /** What the kubelet would do: every pod not yet Running becomes Running and Ready. */
  runPods(): Promise<void>;
}

function statefulSet(overrides: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 3,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'web' } },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1', volumeMounts: [{ name: 'www', mountPath: '/data' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...overrides,
    },
  };
}

async function start(set: KubeObject): Promise<Harness> {
  const transport = new RecordingTransport();
  transport.seed(resources.statefulsets, set);
  const started = await startOnFakeApi(transport, (client, factory) => new StatefulSetController(client, factory));
  const pods = () => transport.objectsOf(resources.pods);
  const harness: Harness = {
    ...started,
    pods,
    podNames: () => pods().map((pod) => pod.metadata.name ?? '').sort(),
    claimNames: () => transport.objectsOf(resources.persistentvolumeclaims).map((claim) => claim.metadata.name ?? '').sort(),
    set: () => transport.objectsOf(resources.statefulsets)[0],
    runPods: () => runPods(started.client, pods()),
  };
  return harness;
}

function statusOf(set: KubeObject): Record<string, unknown> {
  return (set.status ?? {}) as Record<string, unknown>;
}

async function runUntil(harness: Harness, what: string, check: () => boolean): Promise<void> {
  await until(what, () => {
    void harness.runPods();
    return check();
  });
}

describe('StatefulSetController', () => {
  it('creates pods one at a time in ordinal order, each after its claim, waiting for the previous to be Ready', async () => {
    const harness = await start(statefulSet());
    await until('web-0', () => harness.podNames().length === 1);
    expect(harness.podNames()).toEqual(['web-0']);
    expect(harness.claimNames()).toEqual(['www-web-0']);
    // Not Ready yet, so nothing else is created.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(harness.podNames()).toEqual(['web-0']);
    await runUntil(harness, 'three ready pods', () => statusOf(harness.set()).readyReplicas === 3);
    expect(harness.transport.podLog).toEqual(['create web-0', 'create web-1', 'create web-2']);
    expect(harness.claimNames()).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
    const pod = harness.pods().find((candidate) => candidate.metadata.name === 'web-1') as KubeObject;
    const revision = statusOf(harness.set()).updateRevision as string;
    expect(pod.metadata.labels).toEqual({ app: 'web', [STATEFULSET_POD_NAME_LABEL]: 'web-1', [POD_INDEX_LABEL]: '1', [STATEFULSET_REVISION_LABEL]: revision });
    expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'StatefulSet', name: 'web', controller: true });
    expect(pod.spec).toMatchObject({ hostname: 'web-1', subdomain: 'nginx', volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1' } }] });
    const claim = harness.transport.objectsOf(resources.persistentvolumeclaims).find((candidate) => candidate.metadata.name === 'www-web-1') as KubeObject;
    expect(claim.metadata.labels).toEqual({ app: 'web' });
    expect(claim.metadata.ownerReferences).toBeUndefined();
    expect(statusOf(harness.set())).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, currentRevision: revision, observedGeneration: 1 });
    const events = harness.transport.objectsOf(resources.events).map((event) => `${String(event.reason)}: ${String(event.message)}`);
    expect(events).toContain('SuccessfulCreate: create Pod web-0 in StatefulSet web successful');
    expect(events).toContain('SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success');
    expect(harness.transport.objectsOf(resources.controllerrevisions).map((found) => found.metadata.name)).toEqual([revision]);
  });

  it('creates every pod at once with the Parallel policy', async () => {
    const harness = await start(statefulSet({ podManagementPolicy: 'Parallel' }));
    await until('three pods', () => harness.podNames().length === 3);
    expect(harness.podNames()).toEqual(['web-0', 'web-1', 'web-2']);
  });

  it('scales down from the highest ordinal, one at a time, keeping the claims by default', async () => {
    const harness = await start(statefulSet());
    await runUntil(harness, 'three ready pods', () => statusOf(harness.set()).readyReplicas === 3);
    await harness.client.resource(resources.statefulsets).patch('default', 'web', { spec: { replicas: 1 } }, 'merge');
    await runUntil(harness, 'one pod', () => harness.podNames().length === 1 && statusOf(harness.set()).replicas === 1);
    expect(harness.podNames()).toEqual(['web-0']);
    expect(harness.transport.podLog.filter((entry) => entry.startsWith('delete'))).toEqual(['delete web-2', 'delete web-1']);
    expect(harness.claimNames()).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
  });

  it('recreates a deleted or failed pod under the same name', async () => {
    const harness = await start(statefulSet({ replicas: 2 }));
    await runUntil(harness, 'two ready pods', () => statusOf(harness.set()).readyReplicas === 2);
    await harness.client.resource(resources.pods).patchStatus('default', 'web-1', { status: { phase: 'Failed' } }, 'merge');
    await until('web-1 deleted', () => harness.transport.podLog.includes('delete web-1'));
    await runUntil(harness, 'web-1 back', () => harness.transport.podLog.filter((entry) => entry === 'create web-1').length === 2 && statusOf(harness.set()).readyReplicas === 2);
  });

  it('rolls out a new template from the highest ordinal down to the partition, then completes', async () => {
    const harness = await start(statefulSet());
    await runUntil(harness, 'three ready pods', () => statusOf(harness.set()).readyReplicas === 3);
    const first = statusOf(harness.set()).currentRevision as string;
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:2' }] } };
    await harness.client.resource(resources.statefulsets).patch('default', 'web', { spec: { template, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } } }, 'merge');
    const revisionOf = (name: string) => harness.pods().find((pod) => pod.metadata.name === name)?.metadata.labels?.[STATEFULSET_REVISION_LABEL];
    await runUntil(harness, 'web-2 updated', () => statusOf(harness.set()).updatedReplicas === 1 && statusOf(harness.set()).readyReplicas === 3);
    const second = statusOf(harness.set()).updateRevision as string;
    expect(second).not.toBe(first);
    expect([revisionOf('web-0'), revisionOf('web-1'), revisionOf('web-2')]).toEqual([first, first, second]);
    expect(statusOf(harness.set()).currentRevision).toBe(first);
    await harness.client.resource(resources.statefulsets).patch('default', 'web', { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } } }, 'merge');
    await runUntil(harness, 'rollout complete', () => statusOf(harness.set()).currentRevision === second && statusOf(harness.set()).updatedReplicas === 3 && statusOf(harness.set()).readyReplicas === 3);
    expect(harness.transport.podLog.filter((entry) => entry.startsWith('delete'))).toEqual(['delete web-2', 'delete web-1', 'delete web-0']);
    expect((harness.pods()[0].spec as { containers: { image: string }[] }).containers[0].image).toBe('nginx:2');
  });

  it('leaves pods of an old revision alone with OnDelete, and recreates deleted ones at the new revision', async () => {
    const harness = await start(statefulSet({ replicas: 2, updateStrategy: { type: 'OnDelete' } }));
    await runUntil(harness, 'two ready pods', () => statusOf(harness.set()).readyReplicas === 2);
    await harness.client.resource(resources.statefulsets).patch('default', 'web', { spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:2' }] } } } }, 'merge');
    await until('new update revision', () => statusOf(harness.set()).updateRevision !== statusOf(harness.set()).currentRevision && statusOf(harness.set()).observedGeneration === 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(harness.transport.podLog.some((entry) => entry.startsWith('delete'))).toBe(false);
    await harness.client.resource(resources.pods).delete('default', 'web-1');
    await runUntil(harness, 'web-1 updated', () => statusOf(harness.set()).updatedReplicas === 1 && statusOf(harness.set()).readyReplicas === 2);
  });

  it('puts owner references on claims as the retention policy says', async () => {
    const harness = await start(statefulSet({ replicas: 2, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Delete' } }));
    await runUntil(harness, 'two ready pods', () => statusOf(harness.set()).readyReplicas === 2);
    const setUid = harness.set().metadata.uid;
    const claim = (name: string) => harness.transport.objectsOf(resources.persistentvolumeclaims).find((candidate) => candidate.metadata.name === name) as KubeObject;
    expect(claim('www-web-1').metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: setUid }]);
    const podUid = harness.pods().find((pod) => pod.metadata.name === 'web-1')?.metadata.uid;
    await harness.client.resource(resources.statefulsets).patch('default', 'web', { spec: { replicas: 1 } }, 'merge');
    await until('web-1 gone', () => harness.podNames().length === 1);
    // The scaled-down pod owns its claim, so the garbage collector removes the claim after the pod.
    expect(claim('www-web-1').metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: podUid }]);
    expect(claim('www-web-0').metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: setUid }]);
  });

  it('adopts an orphan pod that has its name and matches the selector', async () => {
    const harness = await start(statefulSet({ replicas: 1, volumeClaimTemplates: [] }));
    await until('web-0', () => harness.podNames().length === 1);
    harness.transport.seed(resources.pods, { metadata: { name: 'web-3', namespace: 'default', labels: { app: 'web' } }, spec: {} });
    // Adopted, then deleted as an ordinal beyond the replica count.
    await runUntil(harness, 'web-3 deleted', () => harness.transport.podLog.includes('delete web-3'));
  });
});

describe('statefulset helpers', () => {
  it.each([
    ['web-0', 'web', 0],
    ['my-db-12', 'my-db', 12],
    ['web', '', -1],
  ])('splits %s into parent and ordinal', (name, parent, ordinal) => {
    expect(parentAndOrdinal(name)).toEqual({ parent, ordinal });
  });

  const set = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default', uid: 'set' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, volumeClaimTemplates: [{ metadata: { name: 'www', labels: { tier: 'db' } }, spec: {} }] } };
  const pod = (name: string) => ({ metadata: { name, uid: `uid-${name}` } });
  const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'set' };

  it('names claims after template, set and ordinal, with the selector labels', () => {
    const claim = claimsFor(set, 4).get('www') as KubeObject;
    expect(claim.metadata).toEqual({ name: 'www-web-4', namespace: 'default', labels: { tier: 'db', app: 'web' } });
  });

  it.each([
    ['Retain/Retain removes both', { whenDeleted: 'Retain', whenScaled: 'Retain' }, 'web-1', [setRef], []],
    ['whenDeleted Delete owns by the set', { whenDeleted: 'Delete', whenScaled: 'Retain' }, 'web-1', [], [setRef]],
    ['whenScaled Delete leaves a pod in range alone', { whenDeleted: 'Retain', whenScaled: 'Retain' }, 'web-0', [], undefined],
    ['whenScaled Delete owns a scaled-down claim by its pod', { whenDeleted: 'Delete', whenScaled: 'Delete' }, 'web-5', [setRef], [{ apiVersion: 'v1', kind: 'Pod', name: 'web-5', uid: 'uid-web-5' }]],
  ])('retention: %s', (_what, policy, podName, before, after) => {
    const claim = { metadata: { name: 'c', ownerReferences: before } };
    expect(retentionOwnerReferences(claim, { ...set, spec: { ...set.spec, persistentVolumeClaimRetentionPolicy: policy } }, pod(podName))).toEqual(after);
  });
});
