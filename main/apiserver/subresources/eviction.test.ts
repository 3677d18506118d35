import { beforeEach, describe, expect, it } from 'vitest';
import { inMemoryApiServerPerTest, parseReply as parse } from '../../../test/fixtures/inMemoryApiServer';
import { evictionHandler } from './eviction';

const server = inMemoryApiServerPerTest({ namespaces: ['default'] });
const { request } = server;

const podsPath = '/api/v1/namespaces/default/pods';
const budgetsPath = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

/** A bound pod in the given phase, Ready or not. */
async function runningPod(name: string, options: { phase?: string; ready?: boolean; labels?: Record<string, string> } = {}): Promise<void> {
  await request('POST', podsPath, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: options.labels ?? { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await request('POST', `${podsPath}/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: 'node-1' } });
  const pod = parse(await request('GET', `${podsPath}/${name}`));
  pod.status.phase = options.phase ?? 'Running';
  pod.status.conditions = [...pod.status.conditions, { type: 'Ready', status: options.ready === false ? 'False' : 'True' }];
  const reply = await request('PUT', `${podsPath}/${name}/status`, pod);
  expect(reply.status).toBe(200);
}

async function budget(name: string, status: Record<string, unknown>, selector: unknown = { matchLabels: { app: 'web' } }): Promise<void> {
  expect((await request('POST', budgetsPath, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector } })).status).toBe(201);
  const created = parse(await request('GET', `${budgetsPath}/${name}`));
  const reply = await request('PUT', `${budgetsPath}/${name}/status`, { ...created, status: { observedGeneration: created.metadata.generation, ...status } });
  expect(reply.status).toBe(200);
}

const evict = (name: string, deleteOptions?: unknown) =>
  request('POST', `${podsPath}/${name}/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...(deleteOptions ? { deleteOptions } : {}) });

beforeEach(() => server.api.provideSubresource('eviction', evictionHandler(server.api, () => new Date('2026-03-01T10:00:00Z'))));

describe('pods/eviction', () => {
  it('evicts a pod no budget covers, marking it DisruptionTarget first', async () => {
    await runningPod('free', { labels: { app: 'other' } });
    const reply = await evict('free');
    expect(reply.status).toBe(201);
    expect(parse(reply)).toMatchObject({ kind: 'Status', status: 'Success' });
    const pod = parse(await request('GET', `${podsPath}/free`));
    expect(pod.metadata.deletionTimestamp).toBeDefined();
    expect(pod.status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }));
  });

  it('decrements the budget and records the pod in disruptedPods', async () => {
    await runningPod('a');
    await budget('pdb', { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    expect((await evict('a', { gracePeriodSeconds: 0 })).status).toBe(201);
    expect((await request('GET', `${podsPath}/a`)).status).toBe(404);
    const status = parse(await request('GET', `${budgetsPath}/pdb`)).status;
    expect(status.disruptionsAllowed).toBe(0);
    expect(status.disruptedPods).toEqual({ a: '2026-03-01T10:00:00Z' });
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }));
  });

  it('refuses with 429 and a DisruptionBudget cause when no disruption is allowed', async () => {
    await runningPod('a');
    await budget('pdb', { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const reply = await evict('a');
    expect(reply.status).toBe(429);
    expect(parse(reply)).toMatchObject({
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb needs 1 healthy pods and has 1 currently' }] },
    });
    expect(parse(await request('GET', `${podsPath}/a`)).metadata.deletionTimestamp).toBeUndefined();
  });

  it('asks to retry while the budget controller has not seen the latest generation', async () => {
    await runningPod('a');
    await budget('pdb', { observedGeneration: 0, disruptionsAllowed: 5 });
    const reply = await evict('a');
    expect(reply.status).toBe(429);
    expect(parse(reply).details).toMatchObject({ retryAfterSeconds: 10, causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget pdb is still being processed by the server.' }] });
  });

  it.each([
    ['a Pending pod', { phase: 'Pending' }],
    ['a Succeeded pod', { phase: 'Succeeded' }],
    ['an unready pod when the budget is otherwise met', { ready: false }],
  ])('evicts %s without spending the budget', async (_name, options) => {
    await runningPod('a', options);
    await budget('pdb', { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    expect((await evict('a', { gracePeriodSeconds: 0 })).status).toBe(201);
    expect(parse(await request('GET', `${budgetsPath}/pdb`)).status.disruptionsAllowed).toBe(0);
  });

  it('refuses a pod covered by two budgets with a 500, as upstream', async () => {
    await runningPod('a');
    await budget('one', { disruptionsAllowed: 1 });
    await budget('two', { disruptionsAllowed: 1 });
    const reply = await evict('a');
    expect(reply.status).toBe(500);
    expect(parse(reply).message).toBe('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  });

  it('ignores a budget with an empty selector', async () => {
    await runningPod('a');
    await budget('all', { disruptionsAllowed: 0 }, {});
    expect((await evict('a')).status).toBe(201);
  });

  it('does not delete on dry run, and rejects a mismatched name', async () => {
    await runningPod('a');
    await budget('pdb', { disruptionsAllowed: 1 });
    expect((await request('POST', `${podsPath}/a/eviction?dryRun=All`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a' } })).status).toBe(201);
    expect(parse(await request('GET', `${podsPath}/a`)).metadata.deletionTimestamp).toBeUndefined();
    expect(parse(await request('GET', `${budgetsPath}/pdb`)).status.disruptionsAllowed).toBe(1);
    const mismatch = await request('POST', `${podsPath}/a/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'b' } });
    expect(mismatch.status).toBe(400);
    expect(parse(mismatch).message).toBe('name in URL does not match name in Eviction object');
  });

  it('answers NotFound for a missing pod', async () => {
    const reply = await evict('ghost');
    expect(reply.status).toBe(404);
    expect(parse(reply).message).toBe('pods "ghost" not found');
  });
});
