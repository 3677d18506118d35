import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient, type ListPage } from '../api/kubeClient';
import { cronJobs, deployments, nodes, pods, replicaSets } from '../kinds';
import { createAppStore } from '../store/store';
import { WatchManager } from '../store/watchManager';
import { actionIdsFor, actionsFor, errorText, type ActionContext } from './actions';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  type?: string;
  query?: Record<string, string | undefined>;
}

function fakeContext(options: { answer?: string; confirm?: boolean; lists?: Record<string, KubeObject[]>; objects?: Record<string, KubeObject>; failCreate?: (path: string) => unknown } = {}) {
  const calls: Call[] = [];
  const client: KubeClient = {
    get: async <T,>(path: string) => {
      calls.push({ method: 'GET', path });
      const found = options.objects?.[path];
      if (!found) throw new KubeApiError(404, 'NotFound', 'not found');
      return found as T;
    },
    list: async <T extends KubeObject>(path: string, listOptions?: { fieldSelector?: string }): Promise<ListPage<T>> => {
      calls.push({ method: 'LIST', path, query: { fieldSelector: listOptions?.fieldSelector } });
      return { items: (options.lists?.[path] ?? []) as T[], resourceVersion: '1' };
    },
    create: async <T,>(path: string, body: unknown) => {
      calls.push({ method: 'POST', path, body });
      const failure = options.failCreate?.(path);
      if (failure) throw failure;
      return body as T;
    },
    replace: async <T,>(path: string, body: unknown) => {
      calls.push({ method: 'PUT', path, body });
      return body as T;
    },
    patch: async <T,>(path: string, body: unknown, type: string) => {
      calls.push({ method: 'PATCH', path, body, type });
      return {} as T;
    },
    delete: async <T,>(path: string, body?: unknown) => {
      calls.push({ method: 'DELETE', path, body });
      return {} as T;
    },
    text: async () => '',
    watch: () => ({ close() {} }),
    openSocket: () => {
      throw new Error('no sockets in tests');
    },
  };
  const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
  const context: ActionContext = { store, client, watches: new WatchManager(client, store), confirm: async () => options.confirm ?? true, prompt: async () => options.answer };
  return { calls, context, store };
}

const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'dep' }, spec: { replicas: 2 } };
const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: {} };
const cronJob: KubeObject = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly', namespace: 'ops', uid: 'cj' }, spec: { suspend: true, jobTemplate: { spec: { template: { spec: { containers: [] } } } } } };

function find(id: string, list: ReturnType<typeof actionsFor>) {
  const action = list.find((candidate) => candidate.id === id);
  if (!action) throw new Error(`no action ${id}`);
  return action;
}

describe('the object actions', () => {
  it.each([
    ['a pod', pods, { metadata: { name: 'p' } }, ['shell', 'logs', 'delete']],
    ['a deployment', deployments, deployment, ['scale', 'restart', 'rollback', 'delete']],
    ['a replica set', replicaSets, { metadata: { name: 'r' } }, ['scale', 'delete']],
    ['a schedulable node', nodes, node, ['cordon', 'drain', 'delete']],
    ['a cordoned node', nodes, { ...node, spec: { unschedulable: true } }, ['uncordon', 'drain', 'delete']],
    ['a suspended cron job', cronJobs, cronJob, ['resume', 'trigger', 'delete']],
  ])('offers the right actions for %s', (_name, config, object, ids) => {
    expect(actionIdsFor(config, object as KubeObject)).toEqual(ids);
  });

  it('scales through the scale subresource with the typed count', async () => {
    const { calls, context, store } = fakeContext({ answer: '5' });
    await find('scale', actionsFor(deployments, deployment)).run(context);
    expect(calls).toEqual([{ method: 'PATCH', path: '/apis/apps/v1/namespaces/default/deployments/web/scale', body: { spec: { replicas: 5 } }, type: 'merge' }]);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'ok' });
  });

  it('does nothing when scaling is cancelled, and refuses a bad count', async () => {
    const cancelled = fakeContext({ answer: undefined });
    await find('scale', actionsFor(deployments, deployment)).run(cancelled.context);
    expect(cancelled.calls).toEqual([]);
    const bad = fakeContext({ answer: 'lots' });
    await find('scale', actionsFor(deployments, deployment)).run(bad.context);
    expect(bad.calls).toEqual([]);
    expect(bad.store.getState().notices.at(-1)).toMatchObject({ tone: 'error' });
  });

  it.each([
    ['cordon', nodes, node, '/api/v1/nodes/node-1', { spec: { unschedulable: true } }, 'node/node-1 cordoned'],
    ['uncordon', nodes, { ...node, spec: { unschedulable: true } }, '/api/v1/nodes/node-1', { spec: { unschedulable: null } }, 'node/node-1 uncordoned'],
    ['resume', cronJobs, cronJob, '/apis/batch/v1/namespaces/ops/cronjobs/nightly', { spec: { suspend: false } }, 'CronJob ops/nightly resumed'],
    ['suspend', cronJobs, { ...cronJob, spec: { suspend: false } }, '/apis/batch/v1/namespaces/ops/cronjobs/nightly', { spec: { suspend: true } }, 'CronJob ops/nightly suspended'],
  ])('%s sends one merge patch and says so', async (id, config, object, path, body, notice) => {
    const { calls, context, store } = fakeContext();
    await find(id, actionsFor(config, object)).run(context);
    expect(calls).toEqual([{ method: 'PATCH', path, body, type: 'merge' }]);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'ok', text: notice });
  });

  it('deletes in the background only after confirmation', async () => {
    const refused = fakeContext({ confirm: false });
    await find('delete', actionsFor(deployments, deployment)).run(refused.context);
    expect(refused.calls).toEqual([]);
    const accepted = fakeContext();
    await find('delete', actionsFor(deployments, deployment)).run(accepted.context);
    expect(accepted.calls).toEqual([{ method: 'DELETE', path: '/apis/apps/v1/namespaces/default/deployments/web', body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' } }]);
  });

  it('creates a manual Job owned by the cron job', async () => {
    const { calls, context } = fakeContext();
    await find('trigger', actionsFor(cronJobs, cronJob)).run(context);
    expect(calls).toHaveLength(1);
    expect(calls[0].path).toBe('/apis/batch/v1/namespaces/ops/jobs');
    expect(calls[0].body).toMatchObject({ kind: 'Job', metadata: { name: expect.stringMatching(/^nightly-manual-[a-z0-9]{5}$/), annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' } } });
  });

  it('rolls a deployment back with a JSON patch built from the previous ReplicaSet', async () => {
    const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } });
    const current = { ...deployment, metadata: { ...deployment.metadata, annotations: { 'deployment.kubernetes.io/revision': '2' } }, spec: { template: template('v2') } };
    const owner = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep', controller: true }];
    const replicaSetList = [1, 2].map((revision) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: `web-${revision}`, namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': String(revision) }, ownerReferences: owner }, spec: { template: template(`v${revision}`) } }));
    const { calls, context, store } = fakeContext({ objects: { '/apis/apps/v1/namespaces/default/deployments/web': current }, lists: { '/apis/apps/v1/namespaces/default/replicasets': replicaSetList } });
    await find('rollback', actionsFor(deployments, current)).run(context);
    expect(calls.at(-1)).toMatchObject({ method: 'PATCH', type: 'json', body: [{ op: 'replace', path: '/spec/template', value: template('v1') }, { op: 'replace', path: '/metadata/annotations' }] });
    expect(store.getState().notices.at(-1)?.text).toMatch(/rolled back to revision 1/);
  });

  it('drains: cordons, then evicts each non-DaemonSet pod with progress, reporting failures', async () => {
    const podList = [
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'default' }, spec: { nodeName: 'node-1' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ds', namespace: 'kube-system', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'd', controller: true }] }, spec: { nodeName: 'node-1' } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'guarded', namespace: 'default' }, spec: { nodeName: 'node-1' } },
    ];
    const { calls, context, store } = fakeContext({
      lists: { '/api/v1/pods': podList },
      failCreate: (path) => (path.includes('guarded') ? new KubeApiError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.') : undefined),
    });
    await find('drain', actionsFor(nodes, node)).run(context);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['PATCH /api/v1/nodes/node-1', 'LIST /api/v1/pods', 'POST /api/v1/namespaces/default/pods/a/eviction', 'POST /api/v1/namespaces/default/pods/guarded/eviction']);
    expect(calls[1].query).toEqual({ fieldSelector: 'spec.nodeName=node-1' });
    expect(store.getState().tasks).toEqual([]);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: expect.stringContaining('1 of 2 evictions failed') });
  });

  it('opens shell and log tabs in the dock for a pod', async () => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    const { context, store } = fakeContext();
    await find('shell', actionsFor(pods, pod)).run(context);
    await find('logs', actionsFor(pods, pod)).run(context);
    expect(store.getState().dockTabs.map((tab) => [tab.type, tab.container])).toEqual([
      ['shell', 'web'],
      ['logs', 'web'],
    ]);
  });

  it('writes errors with their field causes', () => {
    expect(errorText(new KubeApiError(422, 'Invalid', 'bad', [{ field: 'spec.replicas', message: 'must be ≥ 0' }]))).toBe('bad\n  spec.replicas: must be ≥ 0');
  });
});
