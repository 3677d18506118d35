import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { allKinds, builtinKinds, kindByKey, kindOf } from './index';
import { customKindOf } from './customKinds';
import { resourcePath } from './kindConfig';
import { podStatusTone } from './tones';
import { isSearchable, parseAggregatedDiscovery } from './discovery';

const now = new Date('2026-01-01T00:10:00Z');
const created = '2026-01-01T00:00:00Z';

function columnsOf(key: string): string[] {
  const config = kindByKey(builtinKinds, key);
  if (!config) throw new Error(`no kind ${key}`);
  return config.table.columns.filter((column) => column.priority === 0).map((column) => column.name);
}

describe('per-kind columns (kubectl get)', () => {
  const expected: Record<string, string[]> = {
    pods: ['Name', 'Ready', 'Status', 'Restarts', 'Age'],
    'deployments.apps': ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'],
    'statefulsets.apps': ['Name', 'Ready', 'Age'],
    'daemonsets.apps': ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age'],
    'replicasets.apps': ['Name', 'Desired', 'Current', 'Ready', 'Age'],
    'jobs.batch': ['Name', 'Status', 'Completions', 'Duration', 'Age'],
    'cronjobs.batch': ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age'],
    services: ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age'],
    endpoints: ['Name', 'Endpoints', 'Age'],
    'ingresses.networking.k8s.io': ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age'],
    configmaps: ['Name', 'Data', 'Age'],
    secrets: ['Name', 'Type', 'Data', 'Age'],
    persistentvolumeclaims: ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age'],
    nodes: ['Name', 'Status', 'Roles', 'Age', 'Version'],
    namespaces: ['Name', 'Status', 'Age'],
    events: ['Last Seen', 'Type', 'Reason', 'Object', 'Message'],
  };
  for (const [key, columns] of Object.entries(expected)) {
    it(`${key} shows kubectl's default columns`, () => {
      expect(columnsOf(key)).toEqual(columns);
    });
  }

  it('covers every kind the issue lists', () => {
    const keys = builtinKinds.map((kind) => kind.key);
    for (const key of ['pods', 'deployments.apps', 'statefulsets.apps', 'daemonsets.apps', 'replicasets.apps', 'jobs.batch', 'cronjobs.batch', 'services', 'endpoints', 'ingresses.networking.k8s.io', 'configmaps', 'secrets', 'persistentvolumeclaims', 'persistentvolumes', 'storageclasses.storage.k8s.io', 'nodes', 'namespaces', 'events', 'customresourcedefinitions.apiextensions.k8s.io']) {
      expect(keys).toContain(key);
    }
  });

  it('prints a pod row as kubectl does, with its status tone', () => {
    const pod: KubeObject = {
      metadata: { name: 'web-1', namespace: 'default', creationTimestamp: created },
      spec: { containers: [{ name: 'web', image: 'nginx' }], nodeName: 'kubedesk' },
      status: { phase: 'Running', podIP: '10.1.0.5', containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: {} } }] },
    };
    const config = kindByKey(builtinKinds, 'pods');
    expect(config?.table.row(pod, now).slice(0, 5)).toEqual(['web-1', '1/1', 'Running', '0', '10m']);
    expect(config?.tone?.(pod)).toBe('ok');
  });

  it('colours pod statuses: running ok, back-off error, pending warn', () => {
    expect(podStatusTone('Running')).toBe('ok');
    expect(podStatusTone('CrashLoopBackOff')).toBe('error');
    expect(podStatusTone('ImagePullBackOff')).toBe('error');
    expect(podStatusTone('Init:0/1')).toBe('warn');
    expect(podStatusTone('ContainerCreating')).toBe('warn');
    expect(podStatusTone('Completed')).toBe('muted');
  });

  it('colours a pod by STATUS and READY: a 0/1 Running pod is not green, a crash loop is red', () => {
    const config = kindByKey(builtinKinds, 'pods');
    const running = (ready: boolean, waiting?: string): KubeObject => ({
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'busybox' }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'app', ready, restartCount: 3, state: waiting ? { waiting: { reason: waiting } } : { running: {} } }] },
    });
    expect(config?.tone?.(running(true))).toBe('ok');
    expect(config?.tone?.(running(false))).toBe('warn');
    expect(config?.tone?.(running(false, 'CrashLoopBackOff'))).toBe('error');
    expect(config?.health?.(running(false, 'CrashLoopBackOff'))).toBe('failing');
    expect(config?.summary?.(running(false)).find((field) => field.label === 'Status')).toMatchObject({ value: 'Running', tone: 'warn' });
  });

  it('colours deployments by ready replicas', () => {
    const deployment = (ready: number, replicas: number): KubeObject => ({ metadata: { name: 'web' }, spec: { replicas }, status: { readyReplicas: ready } });
    const config = kindByKey(builtinKinds, 'deployments.apps');
    expect(config?.tone?.(deployment(3, 3))).toBe('ok');
    expect(config?.tone?.(deployment(1, 3))).toBe('warn');
    expect(config?.tone?.(deployment(0, 3))).toBe('error');
    expect(config?.podSelector?.({ metadata: {}, spec: { selector: { matchLabels: { app: 'web' } } } })).toEqual({ app: 'web' });
  });
});

describe('paths', () => {
  it('builds collection and object paths for core, grouped, namespaced and cluster kinds', () => {
    const pods = kindByKey(builtinKinds, 'pods');
    const deployments = kindByKey(builtinKinds, 'deployments.apps');
    const nodes = kindByKey(builtinKinds, 'nodes');
    if (!pods || !deployments || !nodes) throw new Error('missing kinds');
    expect(resourcePath(pods)).toBe('/api/v1/pods');
    expect(resourcePath(pods, 'default', 'web-1')).toBe('/api/v1/namespaces/default/pods/web-1');
    expect(resourcePath(deployments, 'default')).toBe('/apis/apps/v1/namespaces/default/deployments');
    expect(resourcePath(nodes, 'ignored', 'kubedesk')).toBe('/api/v1/nodes/kubedesk');
  });

  it('finds the kind of an owner reference', () => {
    expect(kindOf(builtinKinds, 'apps/v1', 'ReplicaSet')?.key).toBe('replicasets.apps');
    expect(kindOf(builtinKinds, 'v1', 'Pod')?.key).toBe('pods');
    expect(kindOf(builtinKinds, 'example.com/v1', 'Pod')).toBeUndefined();
  });
});

describe('custom resource kinds', () => {
  const crd: KubeObject = {
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] },
      versions: [
        { name: 'v1beta1', served: true, storage: false },
        { name: 'v1', served: true, storage: true, additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }, { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 }] },
      ],
    },
  };

  it('uses the storage version and its additionalPrinterColumns', () => {
    const config = customKindOf(crd);
    expect(config).toMatchObject({ key: 'widgets.example.com', kind: 'Widget', version: 'v1', namespaced: true, shortNames: ['wd'], section: 'Custom resources' });
    expect(config?.table.columns.map((column) => column.name)).toEqual(['Name', 'Size', 'Color']);
    expect(config?.table.row({ metadata: { name: 'w' }, spec: { size: 3, color: 'red' } }, now)).toEqual(['w', 3, 'red']);
  });

  it('shows Age for a CRD without printer columns, and skips malformed CRDs', () => {
    const plain = customKindOf({ metadata: {}, spec: { group: 'a.io', scope: 'Cluster', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true }] } });
    expect(plain?.table.columns.map((column) => column.name)).toEqual(['Name', 'Age']);
    expect(plain?.namespaced).toBe(false);
    expect(customKindOf({ metadata: {}, spec: { group: 'a.io' } })).toBeUndefined();
  });

  it('adds custom kinds after the built-ins, never shadowing one', () => {
    const shadow: KubeObject = { metadata: {}, spec: { group: 'apps', names: { plural: 'deployments', kind: 'Deployment' }, versions: [{ name: 'v9', served: true, storage: true }] } };
    const kinds = allKinds([crd, shadow]);
    expect(kinds.filter((kind) => kind.key === 'deployments.apps')).toHaveLength(1);
    expect(kinds[kinds.length - 1].key).toBe('widgets.example.com');
  });
});

describe('kinds from discovery', () => {
  const aggregated = {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    items: [
      {
        metadata: { name: 'rbac.authorization.k8s.io' },
        versions: [
          { version: 'v1', resources: [{ resource: 'roles', responseKind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }, scope: 'Namespaced', verbs: ['get', 'list'], shortNames: [] }] },
          { version: 'v1beta1', resources: [{ resource: 'roles', responseKind: { kind: 'Role' }, scope: 'Namespaced', verbs: ['list'] }] },
        ],
      },
      { metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [{ resource: 'deployments', responseKind: { kind: 'Deployment' }, scope: 'Namespaced', verbs: ['list'], shortNames: ['deploy'] }, { resource: 'deployments/scale', responseKind: { kind: 'Scale' } }] }] },
      { metadata: { name: 'coordination.k8s.io' }, versions: [{ version: 'v1', resources: [{ resource: 'leases', responseKind: { kind: 'Lease' }, scope: 'Namespaced', verbs: ['list'] }] }] },
      'not a group',
    ],
  };

  it('reads each group at its preferred version, without subresources', () => {
    expect(parseAggregatedDiscovery(aggregated).map((resource) => `${resource.plural}.${resource.group}/${resource.version} ${resource.kind}`)).toEqual([
      'roles.rbac.authorization.k8s.io/v1 Role',
      'deployments.apps/v1 Deployment',
      'leases.coordination.k8s.io/v1 Lease',
    ]);
    expect(parseAggregatedDiscovery({ kind: 'Status' })).toEqual([]);
  });

  it('adds the kinds the UI has no configuration for, with kubectl’s columns and no sidebar entry', () => {
    const kinds = allKinds([], parseAggregatedDiscovery(aggregated));
    expect(kinds.filter((kind) => kind.key === 'deployments.apps')).toHaveLength(1);
    const lease = kindByKey(kinds, 'leases.coordination.k8s.io');
    expect(lease).toMatchObject({ kind: 'Lease', version: 'v1', namespaced: true, inSidebar: false });
    expect(lease?.table.columns.map((column) => column.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(resourcePath(lease as NonNullable<typeof lease>, 'kube-node-lease', 'kubedesk')).toBe('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/kubedesk');
  });

  it('searches listable kinds except Events, metrics, the object history and snapshots', () => {
    expect(isSearchable({ group: '', plural: 'secrets', verbs: ['list'] })).toBe(true);
    expect(isSearchable({ group: '', plural: 'events', verbs: ['list'] })).toBe(false);
    expect(isSearchable({ group: 'events.k8s.io', plural: 'events', verbs: ['list'] })).toBe(false);
    expect(isSearchable({ group: 'metrics.k8s.io', plural: 'pods', verbs: ['list'] })).toBe(false);
    expect(isSearchable({ group: '', plural: 'bindings', verbs: ['create'] })).toBe(false);
    expect(isSearchable({ group: 'history.kubedesk.dev', plural: 'revisions', verbs: ['get', 'list'] })).toBe(false);
    expect(isSearchable({ group: 'history.kubedesk.dev', plural: 'deletedobjects', verbs: ['get', 'list'] })).toBe(false);
    expect(isSearchable({ group: 'images.kubedesk.dev', plural: 'images', verbs: ['get', 'list', 'delete'] })).toBe(false);
    expect(isSearchable({ group: 'snapshots.kubedesk.dev', plural: 'snapshots', verbs: ['get', 'list', 'create', 'delete'] })).toBe(false);
    expect(isSearchable({ group: 'usage.kubedesk.dev', plural: 'pods', verbs: ['get', 'list'] })).toBe(false);
  });
});
