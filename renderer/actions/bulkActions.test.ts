import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { KubeApiError, type KubeClient } from '../api/kubeClient';
import { cronJobs, deployments, nodes, pods } from '../kinds';
import { createAppStore } from '../store/store';
import { WatchManager } from '../store/watchManager';
import { actionsFor, type ActionContext } from './actions';
import type { Can } from '../views/permissions/permissionsModel';
import { bulkActionsFor, bulkSummary, countLabel, namesList, runBulkAction } from './bulkActions';

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

function fakeContext(options: { answer?: string; confirm?: boolean; failDelete?: string } = {}) {
  const calls: Call[] = [];
  const questions: string[] = [];
  const unexpected = async (): Promise<never> => {
    throw new Error('unexpected call');
  };
  const client: KubeClient = {
    get: unexpected,
    list: unexpected,
    create: unexpected,
    replace: unexpected,
    patch: async <T,>(path: string, body: unknown) => {
      calls.push({ method: 'PATCH', path, body });
      return {} as T;
    },
    delete: async <T,>(path: string) => {
      calls.push({ method: 'DELETE', path });
      if (options.failDelete && path.endsWith(`/${options.failDelete}`)) throw new KubeApiError(403, 'Forbidden', `deployments.apps "${options.failDelete}" is forbidden`);
      return {} as T;
    },
    text: unexpected,
    watch: () => ({ close: () => undefined }),
    openSocket: () => {
      throw new Error('unexpected socket');
    },
  };
  const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
  const context: ActionContext = {
    store,
    client,
    watches: new WatchManager(client, store),
    confirm: async (message) => {
      questions.push(message);
      return options.confirm ?? true;
    },
    prompt: async (message) => {
      questions.push(message);
      return options.answer;
    },
  };
  return { calls, questions, context, store };
}

function deployment(name: string, replicas = 1): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec: { replicas } };
}

describe('bulk actions', () => {
  it('offers the actions every selected object has, and none for an empty selection', () => {
    expect(bulkActionsFor(deployments, [deployment('a'), deployment('b')]).map((action) => action.id)).toEqual(['restart', 'scale', 'delete']);
    expect(bulkActionsFor(pods, [{ metadata: { name: 'p', namespace: 'default' } }]).map((action) => action.id)).toEqual(['delete']);
    const cordoned: KubeObject = { metadata: { name: 'n1' }, spec: { unschedulable: true } };
    const schedulable: KubeObject = { metadata: { name: 'n2' }, spec: {} };
    expect(bulkActionsFor(nodes, [cordoned, schedulable]).map((action) => action.id)).toEqual(['delete']);
    expect(bulkActionsFor(nodes, [schedulable]).map((action) => action.id)).toEqual(['cordon', 'delete']);
    expect(bulkActionsFor(cronJobs, [{ metadata: { name: 'c', namespace: 'default' }, spec: { suspend: false } }]).map((action) => action.id)).toEqual(['suspend', 'delete']);
    expect(bulkActionsFor(deployments, [])).toEqual([]);
  });

  it('asks once, deletes each object as kubectl does and sums up in one notice', async () => {
    const { calls, questions, context, store } = fakeContext();
    await runBulkAction(context, deployments, [deployment('a'), deployment('b'), deployment('c')], 'delete');
    expect(questions).toEqual(['Delete 3 Deployments?']);
    expect(calls.map((call) => `${call.method} ${call.path}`).sort()).toEqual(['DELETE /apis/apps/v1/namespaces/default/deployments/a', 'DELETE /apis/apps/v1/namespaces/default/deployments/b', 'DELETE /apis/apps/v1/namespaces/default/deployments/c']);
    expect(store.getState().notices.map((notice) => [notice.tone, notice.text])).toEqual([['ok', 'Delete: done for 3 Deployments']]);
    expect(store.getState().tasks).toEqual([]);
  });

  it('does nothing when the confirmation is declined', async () => {
    const { calls, context } = fakeContext({ confirm: false });
    await runBulkAction(context, deployments, [deployment('a')], 'restart');
    expect(calls).toEqual([]);
  });

  it('scales every object to one replica count through the scale subresource', async () => {
    const { calls, questions, context } = fakeContext({ answer: '4' });
    await runBulkAction(context, deployments, [deployment('a', 2), deployment('b', 2)], 'scale');
    expect(questions).toEqual(['Replicas of 2 Deployments']);
    expect(calls.map((call) => [call.path, call.body]).sort()).toEqual([
      ['/apis/apps/v1/namespaces/default/deployments/a/scale', { spec: { replicas: 4 } }],
      ['/apis/apps/v1/namespaces/default/deployments/b/scale', { spec: { replicas: 4 } }],
    ]);
  });

  it('refuses a replica count that is not a whole number without writing anything', async () => {
    const { calls, context, store } = fakeContext({ answer: 'many' });
    await runBulkAction(context, deployments, [deployment('a')], 'scale');
    expect(calls).toEqual([]);
    expect(store.getState().notices[0].tone).toBe('error');
  });

  it('reports each failure and how many succeeded', async () => {
    const { context, store } = fakeContext({ failDelete: 'b' });
    await runBulkAction(context, deployments, [deployment('a'), deployment('b')], 'delete');
    const [notice] = store.getState().notices;
    expect(notice.tone).toBe('error');
    // a refusal (403) says so, then the server's message
    expect(notice.text).toBe('Delete: 1 of 2 done; failed:\n  Refused: you may not do this. The server said: deployments.apps "b" is forbidden');
  });

  it('names the objects and counts them for people', () => {
    expect(countLabel(deployments, 1)).toBe('1 Deployment');
    expect(countLabel(pods, 12)).toBe('12 Pods');
    expect(namesList([deployment('a'), deployment('b'), deployment('c')], 2)).toBe('default/a, default/b and 1 more');
    expect(bulkSummary('Restart', '2 Deployments', [{ tone: 'ok', text: 'x' }, { tone: 'ok', text: 'y' }])).toEqual({ tone: 'ok', text: 'Restart: done for 2 Deployments' });
  });

  it('disables what the user may not do with the reason, and skips the objects refused among allowed ones', async () => {
    // a user who may scale and restart in "default" but delete nothing, and nothing at all in "shop"
    const can: Can = (check) =>
      check.namespace === 'default' && check.verb === 'patch' ? { state: 'allowed' } : { state: 'denied', reason: `You (viewer) may not ${check.verb} ${check.resource}${check.subresource ? `/${check.subresource}` : ''} in "${check.namespace ?? ''}"` };
    const objects = [deployment('a'), deployment('b')];
    const offered = bulkActionsFor(deployments, objects, can);
    expect(offered.find((action) => action.id === 'delete')?.disabled).toBe('You (viewer) may not delete deployments in "default"');
    expect(offered.find((action) => action.id === 'restart')?.disabled).toBeUndefined();
    expect(actionsFor(deployments, deployment('a'), can).find((action) => action.id === 'scale')?.disabled).toBeUndefined();
    const elsewhere = { ...deployment('c'), metadata: { name: 'c', namespace: 'shop' } };
    expect(actionsFor(deployments, elsewhere, can).find((action) => action.id === 'scale')?.disabled).toBe('You (viewer) may not patch deployments/scale in "shop"');
    const { calls, context, store } = fakeContext();
    await runBulkAction({ ...context, can }, deployments, [deployment('a'), elsewhere], 'restart');
    expect(calls.map((call) => call.path)).toEqual(['/apis/apps/v1/namespaces/default/deployments/a']);
    expect(store.getState().notices[0].text).toBe('Restart: 1 of 2 done; failed:\n  Deployment shop/c: You (viewer) may not patch deployments in "shop"');
  });
});
