// Tests for `kubedesk history`: argument parsing, the CHANGES summary, the revisions table, the
// unified diff, and the objects restore and undelete write.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { HistoryUsageError, parseHistoryArgs, revisionTable, type Revision } from './history';
import { changeSummary, diffObject, restoreUpdate, toYaml, undeleteObject, unifiedDiff } from './historyFormat';

function deployment(replicas: number, image: string, resourceVersion = '1'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion, generation: 2, labels: { app: 'web' }, managedFields: [] },
    spec: { replicas, template: { spec: { containers: [{ name: 'web', image }] } } },
    status: { replicas },
  };
}

const target = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespace: 'default', name: 'web' };

describe('kubedesk history', () => {
  it('parses each form of the command line', () => {
    expect(parseHistoryArgs(['deploy/web', '-n', 'shop'])).toMatchObject({ mode: 'list', type: 'deploy', name: 'web', flags: { namespace: 'shop' } });
    expect(parseHistoryArgs(['deployment', 'web', '--revision=2', '-o', 'json'])).toMatchObject({ mode: 'revision', revision: 2, output: 'json' });
    expect(parseHistoryArgs(['cm/settings', '--diff', '1..3'])).toMatchObject({ mode: 'diff', diff: [1, 3] });
    expect(parseHistoryArgs(['restore', 'deploy/web', '--revision', '1', '--context', 'kind'])).toMatchObject({ mode: 'restore', revision: 1, flags: { context: 'kind' } });
    expect(parseHistoryArgs(['--deleted', '-A'])).toMatchObject({ mode: 'deleted', allNamespaces: true });
    expect(parseHistoryArgs(['--since', '1h', '--user', 'alice', '--kind', 'deploy'], 'changes')).toMatchObject({ mode: 'changes', since: '1h', user: 'alice', kind: 'deploy' });
    expect(parseHistoryArgs(['--help'])).toBeUndefined();
  });

  it('refuses malformed command lines with the reason', () => {
    expect(() => parseHistoryArgs([])).toThrow(new HistoryUsageError('you must name an object: TYPE/NAME or TYPE NAME'));
    expect(() => parseHistoryArgs(['deploy/web', '--diff', '1-3'])).toThrow(new HistoryUsageError('invalid --diff "1-3": two revisions as A..B'));
    expect(() => parseHistoryArgs(['deploy/web', '--revision', '0'])).toThrow(new HistoryUsageError('invalid --revision "0": a revision number from the history table'));
    expect(() => parseHistoryArgs(['deploy/web', '-o', 'wide', '--revision', '1'])).toThrow(/allowed formats are: json,yaml/);
    expect(() => parseHistoryArgs(['--deleted', 'deploy/web'])).toThrow(new HistoryUsageError('--deleted lists every deleted object: name no object'));
    expect(() => parseHistoryArgs(['deploy/web', '--bogus'])).toThrow(new HistoryUsageError('unknown flag: --bogus'));
  });

  it('summarises a revision by the fields it changed, images by name, ignoring server-set metadata', () => {
    expect(changeSummary(undefined, deployment(1, 'nginx:1'), false)).toBe('created');
    expect(changeSummary(deployment(1, 'nginx:1'), deployment(3, 'nginx:1', '7'), false)).toBe('spec.replicas: 1→3, status.replicas: 1→3');
    expect(changeSummary(deployment(3, 'nginx:1'), deployment(3, 'nginx:2'), false)).toBe('image: nginx:1→nginx:2');
    expect(changeSummary(deployment(3, 'nginx:1'), deployment(3, 'nginx:1', '9'), false)).toBe('(no change)');
    expect(changeSummary(deployment(3, 'nginx:1'), deployment(3, 'nginx:1'), true)).toBe('deleted');
    const many = { ...deployment(1, 'a'), data: Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`key${index}`, 'value'])) };
    expect(changeSummary(deployment(1, 'a'), many, false, 40)).toBe('data: ∅→{"key0":"value","key1":"value","key2":"…');
    const spread = { ...deployment(2, 'b'), metadata: { ...deployment(2, 'b').metadata, labels: { app: 'web', tier: 'front' } } };
    expect(changeSummary(deployment(1, 'a'), spread, false, 30)).toBe('spec.replicas: 1→2, image: a→b, +2 more');
  });

  it('prints the revisions table with who wrote each revision and what changed', () => {
    const revision = (number: number, object: KubeObject, extra: Partial<Revision>): Revision => ({ target, revision: number, time: '2026-01-01T00:00:00Z', operation: 'PATCH', removed: false, object, ...extra });
    const table = revisionTable(
      [
        revision(1, deployment(1, 'nginx:1'), { operation: 'CREATE', user: 'admin', fieldManager: 'kubectl-client-side-apply' }),
        revision(2, deployment(3, 'nginx:1'), { user: 'admin', fieldManager: 'kubectl', subresource: 'scale' }),
        revision(3, deployment(3, 'nginx:2'), { user: 'bob', impersonator: 'admin', fieldManager: 'kubectl-set' }),
      ],
      new Date('2026-01-01T00:05:00Z'),
    );
    expect(table.split('\n')).toEqual([
      'REVISION   AGE   OPERATION       BY                                  CHANGES',
      '1          5m    CREATE          admin (kubectl-client-side-apply)   created',
      '2          5m    PATCH (scale)   admin (kubectl)                     spec.replicas: 1→3, status.replicas: 1→3',
      '3          5m    PATCH           admin as bob (kubectl-set)          image: nginx:1→nginx:2',
      '',
    ]);
  });

  it('diffs two revisions as a unified diff of their YAML', () => {
    const diff = unifiedDiff(toYaml(deployment(3, 'nginx:1')), toYaml(deployment(3, 'nginx:2')), 'deploy/web revision 1', 'deploy/web revision 2');
    expect(diff).toContain('--- deploy/web revision 1\n+++ deploy/web revision 2\n@@ ');
    expect(diff.split('\n').filter((line) => line.startsWith('-') || line.startsWith('+'))).toEqual(['--- deploy/web revision 1', '+++ deploy/web revision 2', '-          image: nginx:1', '+          image: nginx:2']);
    expect(unifiedDiff('a\n', 'a\n', 'x', 'y')).toBe('');
    expect(unifiedDiff(toYaml(diffObject(deployment(3, 'nginx:1', '1'))), toYaml(diffObject(deployment(3, 'nginx:1', '2'))), 'x', 'y')).toBe('');
  });

  it('restores a revision onto the live object, keeping its resourceVersion and status', () => {
    const live = deployment(5, 'nginx:3', '42');
    live.metadata.annotations = { 'deployment.kubernetes.io/revision': '3' };
    const body = restoreUpdate(live, deployment(1, 'nginx:1', '7'));
    expect(body.metadata.resourceVersion).toBe('42');
    expect(body.metadata.annotations).toBeUndefined();
    expect(body.metadata.managedFields).toBeUndefined();
    expect(body.spec).toEqual(deployment(1, 'nginx:1').spec);
    expect(body.status).toEqual({ replicas: 5 });
  });

  it('undeletes from the last state without the fields the server owns or the deletion added', () => {
    const last = deployment(2, 'nginx:1', '50');
    last.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    last.metadata.finalizers = ['foregroundDeletion', 'example.com/keep'];
    const body = undeleteObject(last);
    expect(body.metadata).toEqual({ name: 'web', namespace: 'default', labels: { app: 'web' }, finalizers: ['example.com/keep'] });
    expect(body.status).toBeUndefined();
    expect(body.spec).toEqual(last.spec);
  });
});
