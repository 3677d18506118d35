import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { defaultTableDef, tableDefFor, tableDefs } from './index';

const now = new Date('2025-01-01T12:00:00Z');

describe('tableDefs', () => {
  it('covers the resources kubectl prints with server-side columns', () => {
    for (const key of [
      'pods', 'podtemplates', 'services', 'endpoints', 'configmaps', 'secrets', 'serviceaccounts', 'events', 'nodes', 'namespaces',
      'limitranges', 'resourcequotas', 'persistentvolumeclaims', 'deployments.apps', 'replicasets.apps', 'statefulsets.apps',
      'daemonsets.apps', 'controllerrevisions.apps', 'jobs.batch', 'cronjobs.batch', 'events.events.k8s.io',
      'leases.coordination.k8s.io', 'endpointslices.discovery.k8s.io',
    ]) {
      expect(tableDefs[key], key).toBeDefined();
    }
  });

  it.each(Object.entries(tableDefs))('%s prints one cell per column, even for an empty object', (_key, table) => {
    const empty: KubeObject = { metadata: { name: 'empty' } };
    expect(table.row(empty, now)).toHaveLength(table.columns.length);
    expect(table.columns.filter((column) => column.format === 'name')).toHaveLength(1);
  });

  it('falls back to the default table for unknown and prototype names', () => {
    expect(tableDefFor('', 'pods')).toBe(tableDefs.pods);
    expect(tableDefFor('apps', 'deployments')).toBe(tableDefs['deployments.apps']);
    expect(tableDefFor('rbac.authorization.k8s.io', 'roles')).toBe(defaultTableDef);
    expect(tableDefFor('', 'constructor')).toBe(defaultTableDef);
  });
});
