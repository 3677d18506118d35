import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../kubernetes/types';
import { controllerCell, controllerRevisionTable, daemonSetTable, deploymentTable, replicaSetTable, statefulSetTable } from './apps';

const now = new Date('2025-01-01T12:00:00Z');

function object(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'web', creationTimestamp: '2025-01-01T09:00:00Z', ...metadata }, ...fields };
}

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'busybox' }], nodeSelector: { disk: 'ssd' } },
};

describe('deploymentTable', () => {
  it('prints ready/desired, counts and the wide columns', () => {
    const deployment = object({
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'api'] }] }, template },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    });
    expect(deploymentTable.row(deployment, now)).toEqual(['web', '2/3', 3, 2, '3h', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web,tier in (api,front)']);
  });

  it('prints zeros for a deployment without status and an empty selector as empty', () => {
    expect(deploymentTable.row(object({ spec: { replicas: 1, selector: {}, template } }), now).slice(1, 4)).toEqual(['0/1', 0, 0]);
    expect(deploymentTable.row(object({ spec: { replicas: 1, selector: {}, template } }), now)[7]).toBe('');
  });

  it('has the upstream column names with wide ones at priority 1', () => {
    expect(deploymentTable.columns.map((column) => `${column.name}:${column.priority}`)).toEqual([
      'Name:0', 'Ready:0', 'Up-to-date:0', 'Available:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1',
    ]);
  });
});

describe('other workload tables', () => {
  it('prints replica set counts as integers', () => {
    const replicaSet = object({ spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } }, template }, status: { replicas: 2, readyReplicas: 1 } });
    expect(replicaSetTable.row(replicaSet, now)).toEqual(['web', 2, 2, 1, '3h', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web,pod-template-hash=abc']);
  });

  it('prints stateful set readiness', () => {
    expect(statefulSetTable.row(object({ spec: { replicas: 3, template }, status: { readyReplicas: 3 } }), now)).toEqual(['web', '3/3', '3h', 'nginx,sidecar', 'nginx:1.27,busybox']);
  });

  it('prints daemon set counts and node selector', () => {
    const daemonSet = object({
      spec: { selector: { matchLabels: { app: 'web' } }, template },
      status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 },
    });
    expect(daemonSetTable.row(daemonSet, now)).toEqual(['web', 3, 3, 2, 3, 2, 'disk=ssd', '3h', 'nginx,sidecar', 'nginx:1.27,busybox', 'app=web']);
  });

  it('prints <none> for a daemon set without node selector', () => {
    const daemonSet = object({ spec: { selector: { matchLabels: { app: 'x' } }, template: { spec: { containers: [] } } }, status: {} });
    expect(daemonSetTable.row(daemonSet, now)[6]).toBe('<none>');
  });
});

describe('controllerRevisionTable', () => {
  it.each<[string, unknown, string]>([
    ['an apps owner', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: '1', controller: true }] }, 'statefulset.apps/db'],
    ['a core owner', { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: '1', controller: true }] }, 'pod/p'],
    ['a non-controller owner', { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'd', uid: '1' }] }, '<none>'],
    ['no owner', {}, '<none>'],
  ])('prints the controller of %s', (_description, metadata, expected) => {
    expect(controllerCell(metadata)).toBe(expected);
  });

  it('prints name, controller, revision and age', () => {
    const revision = object({ revision: 4 }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: '1', controller: true }] });
    expect(controllerRevisionTable.row(revision, now)).toEqual(['web', 'daemonset.apps/agent', 4, '3h']);
  });
});
