// Tests for the UI's history model: the rows of the History tab and the Changes page, the feed
// request of a filter, restore and undelete through the shared plan (a conflict is reported with
// nothing overwritten), the time slider's arithmetic and the history start a 410 names.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import { applyRestore, feedRequest, feedRows, historyStartOf, previewRestore, restoreFailure, sliderPosition, sliderTime, SLIDER_STEPS, timelineRows, typeWord, type Revision } from './historyModel';
import { parseHistoryTime as parseTypedTime } from '../../../shared/history/historyFormat';

const target = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespace: 'shop', name: 'web' };

function deployment(image: string, resourceVersion: string, replicas = 1): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion }, spec: { replicas, template: { spec: { containers: [{ name: 'app', image }] } } }, status: { replicas } };
}

function revision(number: number, object: KubeObject, overrides: Partial<Revision> = {}): Revision {
  return { target, revision: number, time: '2026-01-01T00:00:00Z', operation: number === 1 ? 'CREATE' : 'PATCH', removed: false, user: 'alice', fieldManager: 'kubectl', object, ...overrides };
}

/** Records writes; answers GETs of the live object. */
function fakeClient(live: KubeObject | undefined, failWith?: Error): KubeClient & { writes: { method: string; path: string; body: unknown; query?: Record<string, string | undefined> }[] } {
  const writes: { method: string; path: string; body: unknown; query?: Record<string, string | undefined> }[] = [];
  const unused = () => Promise.reject(new Error('not used'));
  return {
    writes,
    get: <T,>() => (live ? Promise.resolve(live as T) : Promise.reject(new KubeApiError(404, 'NotFound', 'not found'))),
    list: unused,
    create: <T,>(path: string, body: unknown, options?: { query?: Record<string, string | undefined> }) => {
      writes.push({ method: 'POST', path, body, query: options?.query });
      return failWith ? Promise.reject(failWith) : Promise.resolve(body as T);
    },
    replace: <T,>(path: string, body: unknown, options?: { query?: Record<string, string | undefined> }) => {
      writes.push({ method: 'PUT', path, body, query: options?.query });
      return failWith ? Promise.reject(failWith) : Promise.resolve(body as T);
    },
    patch: unused,
    delete: unused,
    text: unused,
    watch: () => ({ close: () => undefined }),
    openSocket: () => {
      throw new Error('not used');
    },
  };
}

describe('the UI history model', () => {
  it('names a kind as the history API resolves it', () => {
    expect(typeWord({ plural: 'deployments', group: 'apps' })).toBe('deployments.apps');
    expect(typeWord({ plural: 'configmaps', group: '' })).toBe('configmaps');
  });

  it('lists revisions newest first with operation, who and what changed', () => {
    const rows = timelineRows([revision(1, deployment('a:1', '1')), revision(2, deployment('a:2', '2'), { subresource: undefined, fieldManager: 'kubectl-set' })]);
    expect(rows.map((row) => [row.revision.revision, row.operation, row.by, row.changes])).toEqual([
      [2, 'PATCH', 'alice (kubectl-set)', 'image: a:1→a:2'],
      [1, 'CREATE', 'alice (kubectl)', 'created'],
    ]);
  });

  it('summarises the feed against the previous revision when the feed holds it', () => {
    const feed = [
      revision(3, deployment('a:2', '3'), { operation: 'DELETE', removed: true }),
      revision(2, deployment('a:2', '2')),
      revision(1, deployment('a:1', '1')),
    ];
    expect(feedRows(feed).map((row) => [row.object, row.changes])).toEqual([
      ['deployment.apps/web', 'deleted'],
      ['deployment.apps/web', 'image: a:1→a:2'],
      ['deployment.apps/web', 'created'],
    ]);
  });

  it('turns a filter into the feed request: the namespace in the path, the rest as query', () => {
    expect(feedRequest({ namespace: 'shop', kind: 'deploy', user: '', since: '1h' })).toEqual({
      path: '/apis/history.kubedesk.dev/v1/namespaces/shop/revisions',
      query: { type: 'deploy', user: undefined, since: '1h', limit: '500' },
    });
    expect(feedRequest({ namespace: ' ', kind: '', user: 'alice', since: '' }).path).toBe('/apis/history.kubedesk.dev/v1/revisions');
  });

  it('restores a revision onto the live object read for the preview, keeping its resourceVersion', async () => {
    const revisions = [revision(1, deployment('a:1', '1')), revision(2, deployment('a:2', '2', 3))];
    const client = fakeClient(deployment('a:2', '7', 3));
    const preview = await previewRestore(client, revisions, revisions[0]);
    expect(preview.changes).toContain('image: a:2→a:1');
    expect(await applyRestore(client, preview)).toBe('deployment.apps/web restored to revision 1');
    expect(client.writes).toEqual([{ method: 'PUT', path: '/apis/apps/v1/namespaces/shop/deployments/web', query: { fieldManager: 'kubedesk-history' }, body: expect.objectContaining({ metadata: expect.objectContaining({ resourceVersion: '7' }), status: { replicas: 3 } }) }]);
  });

  it('undeletes a deleted object from its last state with a create', async () => {
    const revisions = [revision(1, deployment('a:1', '1')), revision(2, deployment('a:1', '2'), { operation: 'DELETE', removed: true })];
    const client = fakeClient(undefined);
    const preview = await previewRestore(client, revisions, undefined);
    expect(await applyRestore(client, preview)).toBe('deployment.apps/web undeleted from revision 2');
    expect(client.writes[0]).toMatchObject({ method: 'POST', path: '/apis/apps/v1/namespaces/shop/deployments', body: { metadata: { name: 'web', namespace: 'shop' } } });
  });

  it('reports a conflict as nothing overwritten, and an existing name on undelete', async () => {
    const conflict = new KubeApiError(409, 'Conflict', 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified');
    const revisions = [revision(1, deployment('a:1', '1')), revision(2, deployment('a:2', '2'))];
    const client = fakeClient(deployment('a:2', '2'), conflict);
    const failure = await applyRestore(client, await previewRestore(client, revisions, revisions[0])).catch((error: unknown) => error);
    expect(restoreFailure(failure)).toMatch(/^Conflict: .*Nothing was overwritten/);
    expect(restoreFailure(new KubeApiError(409, 'AlreadyExists', 'deployments.apps "web" already exists'))).toMatch(/^Not undeleted: .*exists again/);
  });

  it('maps slider positions to times within the span and back', () => {
    expect(sliderTime(0, 1_000, 2_000)).toBe(1_000);
    expect(sliderTime(SLIDER_STEPS, 1_000, 2_000)).toBe(2_000);
    expect(sliderTime(SLIDER_STEPS / 2, 1_000, 2_000)).toBe(1_500);
    expect(sliderPosition(1_500, 1_000, 2_000)).toBe(SLIDER_STEPS / 2);
    expect(sliderPosition(500, 1_000, 2_000)).toBe(0);
  });

  it('reads the history start from a 410 HistoryStart cause, and typed times as the CLI takes them', () => {
    expect(historyStartOf(new KubeApiError(410, 'Expired', 'too old', [{ reason: 'HistoryStart', field: 'time', message: '2026-01-01T00:00:00Z' }]))).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(historyStartOf(new KubeApiError(400, 'BadRequest', 'bad'))).toBeUndefined();
    expect(parseTypedTime('10m', 1_000_000)).toBe(400_000);
    expect(parseTypedTime('2026-01-01T00:00:00Z', 0)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseTypedTime('yesterday', 0)).toBeUndefined();
  });
});
