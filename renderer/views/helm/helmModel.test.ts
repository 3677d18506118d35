import { describe, expect, it } from 'vitest';
import type { DiscoveredResource } from '../../kinds/discovery';
import { releaseResources, releaseTone, valuesYaml } from './helmModel';

const discovered: DiscoveredResource[] = [
  { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: [], shortNames: [] },
  { group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false, verbs: [], shortNames: [] },
];

describe('the Helm pages model', () => {
  it('colours release statuses', () => {
    expect(['deployed', 'failed', 'pending-upgrade', 'uninstalling', 'superseded'].map(releaseTone)).toEqual(['ok', 'error', 'warn', 'warn', 'muted']);
  });

  it('lists the manifest objects with the route keys of their pages', () => {
    const manifest = '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n';
    expect(releaseResources({ manifest, namespace: 'web' }, discovered)).toEqual([
      { kind: 'ConfigMap', apiVersion: 'v1', name: 'a', namespace: 'web', kindKey: 'configmaps', path: '/api/v1/namespaces/web/configmaps/a' },
      { kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1', name: 'r', namespace: '', kindKey: 'clusterroles.rbac.authorization.k8s.io', path: '/apis/rbac.authorization.k8s.io/v1/clusterroles/r' },
      { kind: 'Widget', apiVersion: 'example.com/v1', name: 'w', namespace: 'web', kindKey: undefined },
    ]);
  });

  it('prints values as YAML, and none as helm get values prints them', () => {
    expect(valuesYaml({})).toBe('null\n');
    expect(valuesYaml({ message: 'hi', image: { tag: '1' } })).toBe('message: hi\nimage:\n  tag: "1"\n');
  });
});
