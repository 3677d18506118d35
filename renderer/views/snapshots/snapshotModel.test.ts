import { describe, expect, it } from 'vitest';
import type { Can } from '../permissions/permissionsModel';
import { SNAPSHOT_ADMIN_CHECK, changeGroups, changeLabel, planIsEmpty, restorePlan, restoreResultText, snapshotPath, snapshotRefusal, snapshotRows } from './snapshotModel';

const snapshot = (name: string, created: string) => ({ kind: 'Snapshot', metadata: { name, creationTimestamp: created }, status: { resourceVersion: '5', objects: 3, sizeBytes: 10, images: [], volumes: [] } });

describe('the Snapshots page model', () => {
  it('lists snapshots newest first, then by name, leaving out items without a name', () => {
    const rows = snapshotRows({ kind: 'SnapshotList', items: [snapshot('old', '2026-11-01T00:00:00Z'), snapshot('b', '2026-11-27T00:00:00Z'), snapshot('a', '2026-11-27T00:00:00Z'), { metadata: {} }] });
    expect(rows.map((row) => row.name)).toEqual(['a', 'b', 'old']);
    expect(snapshotRows({})).toEqual([]);
  });

  it('escapes names in request paths', () => {
    expect(snapshotPath('one')).toBe('/apis/snapshots.kubedesk.dev/v1/snapshots/one');
    expect(snapshotPath('a.b', 'restore')).toBe('/apis/snapshots.kubedesk.dev/v1/snapshots/a.b/restore');
    expect(snapshotPath('x/y', 'export')).toBe('/apis/snapshots.kubedesk.dev/v1/snapshots/x%2Fy/export');
  });

  it('reads a dry run into the groups the confirmation shows, removals first, empty ones left out', () => {
    const key = (name: string) => ({ resource: 'configmaps', namespace: 'default', name });
    const plan = restorePlan({
      kind: 'SnapshotRestore',
      status: { dryRun: true, resourceVersion: '9', created: 1, deleted: 1, updated: 0, replaced: 0, missingImages: ['busybox:1'], changes: { created: [key('kept')], deleted: [key('newer')], updated: [], replaced: [] } },
    });
    if (!plan) throw new Error('no plan');
    expect(plan.missingImages).toEqual(['busybox:1']);
    expect(changeGroups(plan).map((group) => [group.type, group.title, group.items.map((item) => item.name)])).toEqual([
      ['deleted', 'Removed', ['newer']],
      ['created', 'Brought back', ['kept']],
    ]);
    expect(planIsEmpty(plan)).toBe(false);
    expect(planIsEmpty({ resourceVersion: '1', missingImages: [], changes: { created: [], deleted: [], updated: [], replaced: [] } })).toBe(true);
  });

  it('does not take a real restore’s answer or anything else for a plan', () => {
    expect(restorePlan({ kind: 'SnapshotRestore', status: { created: 1 } })).toBeUndefined();
    expect(restorePlan({ kind: 'Status' })).toBeUndefined();
  });

  it('labels an object by its kind when the UI knows it, else by its resource', () => {
    const kindOf = (resource: string) => (resource === 'configmaps' ? 'ConfigMap' : undefined);
    expect(changeLabel({ resource: 'configmaps', namespace: 'default', name: 'a' }, kindOf)).toBe('ConfigMap default/a');
    expect(changeLabel({ resource: 'widgets.example.com', namespace: '', name: 'w' }, kindOf)).toBe('widgets.example.com w');
  });

  it('words a restore’s result with its counts and the images still to pull', () => {
    expect(restoreResultText('one', { status: { created: 2, deleted: 1, updated: 0, replaced: 0, missingImages: [] } })).toBe('Restored “one”: 2 brought back, 1 removed, 0 changed back, 0 replaced.');
    expect(restoreResultText('one', { status: { created: 1, missingImages: ['busybox:1'] } })).toBe('Restored “one”: 1 brought back, 0 removed, 0 changed back, 0 replaced; images to pull: busybox:1.');
  });
});

describe('who may save, restore and delete snapshots', () => {
  const alice = { username: 'alice', groups: [] };
  it('asks for every verb on every resource, as the API does', () => {
    expect(SNAPSHOT_ADMIN_CHECK).toEqual({ verb: '*', group: '*', resource: '*' });
  });

  it('says what snapshots need when the user is not cluster-admin, and the switch’s own reason when read-only', () => {
    const denied: Can = () => ({ state: 'denied', reason: 'You (alice) may not * *.*' });
    expect(snapshotRefusal(denied, alice, false)).toBe('You (alice) may not save, restore or delete snapshots: they hold and replace every object of the cluster, which needs cluster-admin');
    const readOnly: Can = () => ({ state: 'denied', reason: 'read-only: the cluster "kubedesk" is read-only in kubedesk (turn it off in Settings → Clusters)' });
    expect(snapshotRefusal(readOnly, alice, true)).toBe('read-only: the cluster "kubedesk" is read-only in kubedesk (turn it off in Settings → Clusters)');
  });

  it('never disables them before the answer is in, nor for an admin', () => {
    expect(snapshotRefusal(() => ({ state: 'unknown' }), undefined, false)).toBeUndefined();
    expect(snapshotRefusal(() => ({ state: 'allowed' }), alice, false)).toBeUndefined();
  });
});
