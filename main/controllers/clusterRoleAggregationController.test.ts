import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { aggregatedRules } from './clusterRoleAggregationController';

function role(name: string, labels: Record<string, string>, rules: unknown[], aggregateLabel?: string): KubeObject {
  const object: KubeObject = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules };
  if (aggregateLabel) object.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateLabel]: 'true' } }] };
  return object;
}

describe('aggregatedRules', () => {
  const readPods = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const readWidgets = { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] };

  it('collects the rules of the selected roles in name order, each rule once, never its own', () => {
    const view = role('view', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, [{ verbs: ['stale'] }], 'rbac.authorization.k8s.io/aggregate-to-view');
    const all = [
      view,
      role('z-widgets', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [readWidgets, readPods]),
      role('a-pods', { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' }, [readPods]),
      role('unrelated', {}, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]),
    ];
    expect(aggregatedRules(view, all)).toEqual([readPods, readWidgets]);
  });

  it('gives an empty rule list when nothing is selected', () => {
    const admin = role('admin', {}, [], 'rbac.authorization.k8s.io/aggregate-to-admin');
    expect(aggregatedRules(admin, [admin])).toEqual([]);
  });

  it('chains aggregation: edit includes view once view has been aggregated', () => {
    const view = role('view', { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, [readPods], 'rbac.authorization.k8s.io/aggregate-to-view');
    const edit = role('edit', {}, [], 'rbac.authorization.k8s.io/aggregate-to-edit');
    expect(aggregatedRules(edit, [view, edit])).toEqual([readPods]);
  });
});
