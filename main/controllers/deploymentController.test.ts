import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { ApiClient } from '../client/apiClient';
import { FakeClock } from '../../test/doubles/fakeClock';
import { FakeTransport } from '../../test/doubles/fakeTransport';
import { SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { DeploymentController } from './deploymentController';
import { REVISION_ANNOTATION } from './deploymentUtil';

const START = Date.parse('2026-01-01T00:00:00Z');

function deploymentObject(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'v1' }] } },
      ...spec,
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function setup(...deployments: KubeObject[]) {
  const transport = new FakeTransport();
  for (const deployment of deployments) transport.seed(resources.deployments, deployment);
  const client = new ApiClient(transport);
  const factory = new SharedInformerFactory(client);
  const clock = new FakeClock(START);
  const controller = new DeploymentController(client, factory, { clock });
  factory.start();
  await factory.waitForCacheSync();
  const replicaSets = () => transport.objectsOf(resources.replicasets).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const deployment = (name = 'web') => transport.objectsOf(resources.deployments).find((d) => d.metadata.name === name) as KubeObject;
  const sizes = (): Record<string, number> => Object.fromEntries(replicaSets().map((rs) => [rs.metadata.name ?? '', (rs.spec as { replicas: number }).replicas]));
  /** What the ReplicaSet controller and kubelets would do: every replica exists and (unless stuck) is available. */
  const runReplicaSets = async (stuck: (rs: KubeObject) => boolean = () => false) => {
    for (const rs of replicaSets()) {
      const replicas = (rs.spec as { replicas: number }).replicas;
      const ready = stuck(rs) ? 0 : replicas;
      const status = { replicas, readyReplicas: ready, availableReplicas: ready, observedGeneration: rs.metadata.generation };
      if (JSON.stringify(rs.status) !== JSON.stringify(status)) await client.resource(resources.replicasets).updateStatus({ ...rs, status });
    }
    await settle();
  };
  const reconcile = async (name = 'web') => {
    await controller.reconcile(`default/${name}`);
    await settle();
  };
  /** Alternates the controller and the simulated ReplicaSets until nothing changes. */
  const rollout = async (name = 'web', stuck?: (rs: KubeObject) => boolean) => {
    for (let i = 0; i < 30; i++) {
      const before = transport.currentResourceVersion();
      await reconcile(name);
      await runReplicaSets(stuck);
      if (transport.currentResourceVersion() === before) return;
    }
    throw new Error('rollout did not settle');
  };
  const events = async () => {
    await controller.flushEvents();
    return transport.objectsOf(resources.events).map((event) => `${String(event.reason)}: ${String(event.message)}`);
  };
  const dispose = async () => {
    await controller.dispose();
    factory.dispose();
  };
  return { transport, client, clock, controller, replicaSets, deployment, sizes, runReplicaSets, reconcile, rollout, events, dispose };
}

function condition(deployment: KubeObject, type: string): Record<string, unknown> | undefined {
  const status = deployment.status as { conditions?: Record<string, unknown>[] } | undefined;
  return status?.conditions?.find((c) => c.type === type);
}

async function changeTemplate(client: ApiClient, name: string, image: string): Promise<void> {
  await client.resource(resources.deployments).patch('default', name, { spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }, 'merge');
}

describe('DeploymentController', () => {
  it('creates a ReplicaSet named after the template hash, with the hash in labels, selector and template', async () => {
    const t = await setup(deploymentObject('web'));
    await t.reconcile();
    const [rs] = t.replicaSets();
    const hash = rs.metadata.labels?.['pod-template-hash'] ?? '';
    expect(hash).toMatch(/^[4-9bcdf]+$/);
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(rs.spec).toMatchObject({ replicas: 4, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': hash } } } });
    expect(rs.metadata.annotations).toEqual({ [REVISION_ANNOTATION]: '1', 'deployment.kubernetes.io/desired-replicas': '4', 'deployment.kubernetes.io/max-replicas': '5' });
    expect(rs.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', name: 'web', controller: true, blockOwnerDeletion: true })]);
    expect(t.deployment().metadata.annotations?.[REVISION_ANNOTATION]).toBe('1');
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetCreated', message: `Created new replica set "web-${hash}"` });
    expect(await t.events()).toContain(`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 4`);
    await t.dispose();
  });

  it('completes a rollout with the status kubectl rollout status waits for', async () => {
    const t = await setup(deploymentObject('web'));
    await t.rollout();
    const status = t.deployment().status as Record<string, unknown>;
    expect(status).toMatchObject({ observedGeneration: 1, replicas: 4, updatedReplicas: 4, readyReplicas: 4, availableReplicas: 4 });
    expect(status.unavailableReplicas).toBeUndefined();
    expect(condition(t.deployment(), 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: expect.stringMatching(/^ReplicaSet "web-\w+" has successfully progressed\.$/) });
    await t.dispose();
  });

  it('rolls a new template out within maxSurge and maxUnavailable, leaving the old ReplicaSet at 0', async () => {
    const t = await setup(deploymentObject('web'));
    await t.rollout();
    const [first] = t.replicaSets();
    await changeTemplate(t.client, 'web', 'v2');
    await settle();
    // One step: the new ReplicaSet starts at the surge limit (4 + 1 - 4 = 1); the old one shrinks to
    // minAvailable (3), as the new replica is not available yet.
    await t.reconcile();
    const second = t.replicaSets().find((rs) => rs.metadata.name !== first.metadata.name) as KubeObject;
    expect(t.sizes()).toEqual({ [first.metadata.name ?? '']: 3, [second.metadata.name ?? '']: 1 });
    expect(second.metadata.annotations?.[REVISION_ANNOTATION]).toBe('2');
    let maxTotal = 0;
    for (let i = 0; i < 30; i++) {
      await t.runReplicaSets();
      await t.reconcile();
      maxTotal = Math.max(maxTotal, Object.values(t.sizes()).reduce((a, b) => a + b, 0));
    }
    expect(maxTotal).toBeLessThanOrEqual(5);
    expect(t.sizes()).toEqual({ [first.metadata.name ?? '']: 0, [second.metadata.name ?? '']: 4 });
    expect(t.deployment().metadata.annotations?.[REVISION_ANNOTATION]).toBe('2');
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ reason: 'NewReplicaSetAvailable' });
    expect(await t.events()).toEqual(expect.arrayContaining([`ScalingReplicaSet: Scaled down replica set ${first.metadata.name ?? ''} from 4 to 3`]));
    await t.dispose();
  });

  it('returns to an old ReplicaSet on undo, raising its revision and remembering the old one', async () => {
    const t = await setup(deploymentObject('web'));
    await t.rollout();
    const [first] = t.replicaSets();
    await changeTemplate(t.client, 'web', 'v2');
    await settle();
    await t.rollout();
    await changeTemplate(t.client, 'web', 'v1');
    await settle();
    await t.rollout();
    expect(t.replicaSets()).toHaveLength(2);
    const restored = t.replicaSets().find((rs) => rs.metadata.name === first.metadata.name) as KubeObject;
    expect((restored.spec as { replicas: number }).replicas).toBe(4);
    expect(restored.metadata.annotations).toMatchObject({ [REVISION_ANNOTATION]: '3', 'deployment.kubernetes.io/revision-history': '1' });
    expect(t.deployment().metadata.annotations?.[REVISION_ANNOTATION]).toBe('3');
    await t.dispose();
  });

  it('scales an idle Deployment through its only ReplicaSet', async () => {
    const t = await setup(deploymentObject('web'));
    await t.rollout();
    await t.client.resource(resources.deployments).patch('default', 'web', { spec: { replicas: 7 } }, 'merge');
    await settle();
    await t.rollout();
    const [rs] = t.replicaSets();
    expect((rs.spec as { replicas: number }).replicas).toBe(7);
    expect(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']).toBe('7');
    expect(await t.events()).toContain(`ScalingReplicaSet: Scaled up replica set ${rs.metadata.name ?? ''} from 4 to 7`);
    await t.dispose();
  });

  it('with Recreate, scales old ReplicaSets to 0 and creates the new one only when their pods are gone', async () => {
    const t = await setup(deploymentObject('web', { replicas: 2, strategy: { type: 'Recreate' } }));
    await t.rollout();
    const [first] = t.replicaSets();
    const pod = t.transport.seed(resources.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-old', namespace: 'default', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: first.metadata.name ?? '', uid: first.metadata.uid ?? '', controller: true }] }, status: { phase: 'Running' } });
    await changeTemplate(t.client, 'web', 'v2');
    await settle();
    await t.reconcile();
    expect(t.sizes()).toEqual({ [first.metadata.name ?? '']: 0 });
    await t.runReplicaSets();
    await t.reconcile();
    expect(t.replicaSets()).toHaveLength(1);
    await t.client.resource(resources.pods).delete('default', pod.metadata.name ?? '');
    await settle();
    await t.rollout();
    expect(t.replicaSets()).toHaveLength(2);
    expect(Object.values(t.sizes()).sort()).toEqual([0, 2]);
    await t.dispose();
  });

  it('reports ProgressDeadlineExceeded when the new pods never become available', async () => {
    const t = await setup(deploymentObject('web', { replicas: 2, progressDeadlineSeconds: 10 }));
    await t.rollout();
    const [first] = t.replicaSets();
    await changeTemplate(t.client, 'web', 'broken');
    await settle();
    const stuck = (rs: KubeObject) => rs.metadata.name !== first.metadata.name;
    await t.rollout('web', stuck);
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ status: 'True', reason: 'ReplicaSetUpdated' });
    t.clock.advance(11_000);
    await t.rollout('web', stuck);
    const progressing = condition(t.deployment(), 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded', message: expect.stringMatching(/^ReplicaSet "web-\w+" has timed out progressing\.$/) });
    await t.dispose();
  });

  it('while paused, only scales and reports DeploymentPaused, then rolls out after resume', async () => {
    const t = await setup(deploymentObject('web'));
    await t.rollout();
    await t.client.resource(resources.deployments).patch('default', 'web', { spec: { paused: true } }, 'merge');
    await changeTemplate(t.client, 'web', 'v2');
    await settle();
    await t.rollout();
    expect(t.replicaSets()).toHaveLength(1);
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ status: 'Unknown', reason: 'DeploymentPaused', message: 'Deployment is paused' });
    await t.client.resource(resources.deployments).patch('default', 'web', { spec: { paused: false } }, 'merge');
    await settle();
    await t.rollout();
    expect(t.replicaSets()).toHaveLength(2);
    expect(condition(t.deployment(), 'Progressing')).toMatchObject({ reason: 'NewReplicaSetAvailable' });
    await t.dispose();
  });

  it('adopts an orphan ReplicaSet with the same template instead of creating one', async () => {
    const t = await setup();
    const template = (deploymentObject('web').spec as { template: Record<string, unknown> }).template;
    t.transport.seed(resources.replicasets, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'legacy', namespace: 'default', labels: { app: 'web' } }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template } });
    t.transport.seed(resources.deployments, deploymentObject('web'));
    await settle();
    await t.rollout();
    const [rs] = t.replicaSets();
    expect(t.replicaSets()).toHaveLength(1);
    expect(rs.metadata.name).toBe('legacy');
    expect(rs.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', uid: t.deployment().metadata.uid });
    await t.dispose();
  });

  it('lets two Deployments with overlapping selectors each manage only their own ReplicaSets', async () => {
    const shared = { selector: { matchLabels: { tier: 'x' } } };
    const t = await setup(
      deploymentObject('alpha', { ...shared, replicas: 2, template: { metadata: { labels: { tier: 'x' } }, spec: { containers: [{ name: 'c', image: 'alpha' }] } } }),
      deploymentObject('beta', { ...shared, replicas: 3, template: { metadata: { labels: { tier: 'x' } }, spec: { containers: [{ name: 'c', image: 'beta' }] } } }),
    );
    for (let i = 0; i < 5; i++) {
      await t.rollout('alpha');
      await t.rollout('beta');
    }
    const owners = t.replicaSets().map((rs) => `${rs.metadata.ownerReferences?.[0]?.name ?? ''}:${(rs.spec as { replicas: number }).replicas}`).sort();
    expect(owners).toEqual(['alpha:2', 'beta:3']);
    await t.dispose();
  });

  it('deletes old ReplicaSets beyond revisionHistoryLimit once they have no replicas', async () => {
    const t = await setup(deploymentObject('web', { revisionHistoryLimit: 1 }));
    for (const image of ['v1', 'v2', 'v3', 'v4']) {
      await changeTemplate(t.client, 'web', image);
      await settle();
      await t.rollout();
    }
    expect(t.replicaSets()).toHaveLength(2);
    expect(t.replicaSets().map((rs) => rs.metadata.annotations?.[REVISION_ANNOTATION]).sort()).toEqual(['3', '4']);
    await t.dispose();
  });

  it('leaves a Deployment whose selector selects everything alone, with a warning', async () => {
    const t = await setup(deploymentObject('web', { selector: {} }));
    await t.reconcile();
    expect(t.replicaSets()).toEqual([]);
    expect(await t.events()).toContain('SelectingAll: This deployment is selecting all pods. A non-empty selector is required.');
    await t.dispose();
  });
});
