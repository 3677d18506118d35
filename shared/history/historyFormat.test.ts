// Tests for the history helpers the CLI and the UI share: which restore a choice makes and what it
// refuses, the CHANGES of a list of revisions, and who wrote a revision.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { RestoreRefusal, planRestore, revisionChanges, writtenBy, type Revision } from './historyFormat';

const target = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespace: 'shop', name: 'web' };

function revision(number: number, replicas: number, overrides: Partial<Revision> = {}): Revision {
  const object: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', uid: 'u1', resourceVersion: String(number) }, spec: { replicas }, status: { replicas } };
  return { target, revision: number, time: '2026-01-01T00:00:00Z', operation: number === 1 ? 'CREATE' : 'PATCH', removed: false, object, ...overrides };
}

describe('shared history helpers', () => {
  it('plans an update of a live object and an undelete of a deleted one', () => {
    const live = [revision(1, 1), revision(2, 3)];
    expect(planRestore(live, live[0])).toMatchObject({ kind: 'update', path: '/apis/apps/v1/namespaces/shop/deployments/web', display: 'deployment.apps/web', revision: { revision: 1 } });
    const deleted = [...live, revision(3, 3, { operation: 'DELETE', removed: true })];
    const undelete = planRestore(deleted, undefined);
    expect(undelete).toMatchObject({ kind: 'undelete', path: '/apis/apps/v1/namespaces/shop/deployments', revision: { revision: 3 } });
    if (undelete.kind !== 'undelete') throw new Error('expected an undelete');
    expect(undelete.body.metadata).toEqual({ name: 'web', namespace: 'shop' });
    expect(undelete.body.status).toBeUndefined();
  });

  it('refuses a restore without a revision of a live object, and of the deletion itself', () => {
    const live = [revision(1, 1), revision(2, 3)];
    expect(() => planRestore(live, undefined)).toThrow(new RestoreRefusal('deployment.apps/web exists: name the revision to restore with --revision N'));
    expect(() => planRestore(live, revision(2, 3, { removed: true }))).toThrow(/is the deletion of deployment\.apps\/web/);
  });

  it('summarises each revision against the one before, and marks pruned starts', () => {
    expect(revisionChanges([revision(1, 1), revision(2, 3)])).toEqual(['created', 'spec.replicas: 1→3, status.replicas: 1→3']);
    expect(revisionChanges([revision(5, 1), revision(6, 2)])[0]).toBe('(earlier revisions pruned)');
    expect(revisionChanges([revision(1, 1, { redacted: true, changedKeys: ['token'] })])).toEqual(['data keys changed: token']);
  });

  it('names who wrote: the user, the impersonator and the manager', () => {
    expect(writtenBy({ user: 'alice', impersonator: 'admin', fieldManager: 'kubectl' })).toBe('admin as alice (kubectl)');
    expect(writtenBy({})).toBe('(kubedesk)');
  });
});
