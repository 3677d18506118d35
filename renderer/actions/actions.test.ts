import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient, type ListPage, type WatchHandlers } from '../api/kubeClient';
import { cronJobs, daemonSets, deployments, nodes, pods, replicaSets, replicationControllers, statefulSets } from '../kinds';
import { createAppStore } from '../store/store';
import { WatchManager } from '../store/watchManager';
import { actionIdsFor, actionsFor, drainNode, errorText, type ActionContext } from './actions';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  type?: string;
  query?: Record<string, string | undefined>;
}

const POD_LIST = '/api/v1/pods';

/**
 * A fake API: lists and objects by path; a successful eviction deletes the pod (from the pod list
 * and as a DELETED watch event) unless `evictionsLinger` keeps it running.
 */
function fakeContext(options: { answer?: string; confirm?: boolean; lists?: Record<string, KubeObject[]>; objects?: Record<string, KubeObject>; failCreate?: (path: string) => unknown; evictionsLinger?: boolean } = {}) {
  const calls: Call[] = [];
  const watchers = new Map<string, WatchHandlers[]>();
  const evict = (path: string) => {
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/eviction$/.exec(path);
    if (!match || options.evictionsLinger) return;
    const podList = options.lists?.[POD_LIST] ?? [];
    const victim = podList.find((item) => item.metadata.namespace === match[1] && item.metadata.name === match[2]);
    if (!victim || !options.lists) return;
    options.lists[POD_LIST] = podList.filter((item) => item !== victim);
    for (const handlers of watchers.get(POD_LIST) ?? []) handlers.onEvent({ type: 'DELETED', object: victim });
  };
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
      evict(path);
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
    watch: (path, _resourceVersion, handlers) => {
      watchers.set(path, [...(watchers.get(path) ?? []), handlers]);
      return { close: () => watchers.set(path, (watchers.get(path) ?? []).filter((candidate) => candidate !== handlers)) };
    },
    openSocket: () => {
      throw new Error('no sockets in tests');
    },
  };
  const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
  const context: ActionContext = { store, client, watches: new WatchManager(client, store, { batchMs: 0, lingerMs: 0 }), confirm: async () => options.confirm ?? true, prompt: async () => options.answer };
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
    ['a stateful set', statefulSets, { metadata: { name: 's' } }, ['scale', 'restart', 'rollback', 'delete']],
    ['a daemon set', daemonSets, { metadata: { name: 'd' } }, ['restart', 'rollback', 'delete']],
    ['a replica set', replicaSets, { metadata: { name: 'r' } }, ['scale', 'delete']],
    ['a replication controller', replicationControllers, { metadata: { name: 'r' } }, ['scale', 'delete']],
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

  it.each([
    ['a stateful set', statefulSets, 'StatefulSet', 'controller.kubernetes.io/hash'],
    ['a daemon set', daemonSets, 'DaemonSet', 'controller-revision-hash'],
  ])('rolls %s back with its previous ControllerRevision as a strategic merge patch', async (_name, config, kind, hashLabel) => {
    const template = (image: string) => ({ metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image }] } });
    const current: KubeObject = { apiVersion: 'apps/v1', kind, metadata: { name: 'db', namespace: 'data', uid: 'db-uid' }, spec: { template: template('v3') } };
    const ownerReferences = [{ apiVersion: 'apps/v1', kind, name: 'db', uid: 'db-uid', controller: true, blockOwnerDeletion: true }];
    const revisions = [3, 1, 2].map((revision) => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: `db-${revision}`, namespace: 'data', labels: { app: 'db', [hashLabel]: `${revision}` }, ownerReferences }, data: { spec: { template: { ...template(`v${revision}`), $patch: 'replace' } } }, revision }));
    const objectPath = `/apis/apps/v1/namespaces/data/${config.plural}/db`;
    const { calls, context, store } = fakeContext({ objects: { [objectPath]: current }, lists: { '/apis/apps/v1/namespaces/data/controllerrevisions': revisions } });
    expect(actionIdsFor(config, current)).toContain('rollback');
    await find('rollback', actionsFor(config, current)).run(context);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual([`GET ${objectPath}`, 'LIST /apis/apps/v1/namespaces/data/controllerrevisions', `PATCH ${objectPath}`]);
    expect(calls.at(-1)).toMatchObject({ type: 'strategic', body: { spec: { template: { ...template('v2'), $patch: 'replace' } } } });
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'ok', text: `${kind} data/db rolled back to revision 2` });
  });

  it('says there is no previous revision when a daemon set has only one', async () => {
    const current: KubeObject = { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'ops', uid: 'ds' }, spec: { template: {} } };
    const only = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'agent-1', namespace: 'ops', ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds', controller: true }] }, data: { spec: { template: { $patch: 'replace' } } }, revision: 1 };
    const { calls, context, store } = fakeContext({ objects: { '/apis/apps/v1/namespaces/ops/daemonsets/agent': current }, lists: { '/apis/apps/v1/namespaces/ops/controllerrevisions': [only] } });
    await find('rollback', actionsFor(daemonSets, current)).run(context);
    expect(calls.some((call) => call.method === 'PATCH')).toBe(false);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: 'DaemonSet ops/agent: no previous revision to roll back to' });
  });

  const drainPod = (name: string, namespace = 'default', extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, uid: `uid-${name}`, ...extra }, spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 0 } });
  // grace 0 + 200 ms slack: the eviction and waiting deadlines are 200 ms away
  const quick = { retryMs: 20, slackMs: 200 };
  const requests = (calls: Call[]) => calls.filter((call) => !(call.method === 'LIST' && call.query?.fieldSelector === undefined)).map((call) => `${call.method} ${call.path}`);

  it('drains: cordons, evicts each non-DaemonSet pod, waits for them to go, and reports success', async () => {
    const podList = [drainPod('a'), drainPod('ds', 'kube-system', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: 'd', controller: true }] }), drainPod('b')];
    const { calls, context, store } = fakeContext({ lists: { [POD_LIST]: podList } });
    await drainNode(context, 'node-1', quick);
    expect(requests(calls)).toEqual(['PATCH /api/v1/nodes/node-1', 'LIST /api/v1/pods', 'POST /api/v1/namespaces/default/pods/a/eviction', 'POST /api/v1/namespaces/default/pods/b/eviction']);
    expect(calls.find((call) => call.query?.fieldSelector)?.query).toEqual({ fieldSelector: 'spec.nodeName=node-1' });
    expect(store.getState().tasks).toEqual([]);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'ok', text: 'node/node-1 drained: 2 pod(s) evicted, 1 DaemonSet pod(s) ignored' });
  });

  it('retries an eviction a PodDisruptionBudget refuses until it is allowed', async () => {
    let refusals = 2;
    const { calls, context, store } = fakeContext({
      lists: { [POD_LIST]: [drainPod('guarded')] },
      failCreate: () => (refusals-- > 0 ? new KubeApiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.") : undefined),
    });
    await drainNode(context, 'node-1', { retryMs: 1, slackMs: 5_000 });
    expect(calls.filter((call) => call.path.endsWith('/eviction'))).toHaveLength(3);
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'ok', text: 'node/node-1 drained: 1 pod(s) evicted' });
  });

  it('names in one error notice the pods a budget kept past the deadline, and the evictions that failed', async () => {
    const { calls, context, store } = fakeContext({
      lists: { [POD_LIST]: [drainPod('a'), drainPod('guarded'), drainPod('also-guarded'), drainPod('forbidden')] },
      failCreate: (path) => {
        if (path.includes('guarded')) return new KubeApiError(429, 'TooManyRequests', "Cannot evict pod as it would violate the pod's disruption budget.");
        if (path.includes('forbidden')) return new KubeApiError(403, 'Forbidden', 'no');
        return undefined;
      },
    });
    await drainNode(context, 'node-1', quick);
    expect(calls.filter((call) => call.path.endsWith('guarded/eviction')).length).toBeGreaterThan(2);
    expect(calls.filter((call) => call.path.endsWith('forbidden/eviction'))).toHaveLength(1);
    expect(store.getState().tasks).toEqual([]);
    expect(store.getState().notices.at(-1)).toEqual({
      id: expect.any(Number),
      tone: 'error',
      text: 'node/node-1: 3 of 4 pod(s) not drained\neviction refused by a PodDisruptionBudget until the deadline: default/guarded, default/also-guarded\nerror when evicting default/forbidden: Refused: you may not do this. The server said: no',
    });
  });

  it('shows how many pods it waits for, and reports the ones still running at the deadline', async () => {
    const lingering = drainPod('slow');
    const { calls, context, store } = fakeContext({ lists: { [POD_LIST]: [lingering] }, objects: { '/api/v1/namespaces/default/pods/slow': lingering }, evictionsLinger: true });
    const titles: string[] = [];
    const unsubscribe = store.subscribe((state) => titles.push(...state.tasks.map((task) => task.title)));
    await drainNode(context, 'node-1', quick);
    unsubscribe();
    expect(titles).toContain('Draining node-1: waiting for 1 pod to terminate');
    expect(calls.at(-1)).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/default/pods/slow' });
    expect(store.getState().notices.at(-1)).toMatchObject({ tone: 'error', text: 'node/node-1: 1 of 1 pod(s) not drained\nstill terminating at the deadline: default/slow' });
  });

  it('drains only after confirmation', async () => {
    const { calls, context } = fakeContext({ confirm: false });
    await find('drain', actionsFor(nodes, node)).run(context);
    expect(calls).toEqual([]);
  });

  it('opens shell and log tabs in the dock for a pod', async () => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'web', state: { running: {} } }] } };
    const { context, store } = fakeContext();
    await find('shell', actionsFor(pods, pod)).run(context);
    await find('logs', actionsFor(pods, pod)).run(context);
    expect(store.getState().dockTabs.map((tab) => [tab.type, tab.container])).toEqual([
      ['shell', 'web'],
      ['logs', 'web'],
    ]);
  });

  it('disables Shell for a crash-looping pod with the reason, and refuses to open it', async () => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }] }, status: { phase: 'Running', containerStatuses: [{ name: 'web', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } };
    const shell = find('shell', actionsFor(pods, pod));
    expect(shell.disabled).toBe('container web is not running (waiting: CrashLoopBackOff)');
    const { context, store } = fakeContext();
    await shell.run(context);
    expect(store.getState().dockTabs).toEqual([]);
    expect(store.getState().notices.map((notice) => notice.tone)).toEqual(['error']);
  });

  it('writes errors with their field causes', () => {
    expect(errorText(new KubeApiError(422, 'Invalid', 'bad', [{ field: 'spec.replicas', message: 'must be ≥ 0' }]))).toBe('bad\n  spec.replicas: must be ≥ 0');
  });
});
