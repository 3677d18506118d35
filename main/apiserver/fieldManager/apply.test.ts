import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { applyConfiguration, lastAppliedAnnotation, type ApplyContext } from './apply';
import { recordUpdate } from './managedFields';

const deploymentContext = (manager: string, force = false): ApplyContext => ({ manager, force, apiVersion: 'apps/v1', kind: 'Deployment', hasStatus: true, now: '2025-01-01T00:00:00Z' });

function deployment(spec: Record<string, unknown>, labels?: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...(labels ? { labels } : {}) }, spec };
}

const nginx = { name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] };
const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [nginx] } };

function conflictOf(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a conflict');
}

describe('applyConfiguration', () => {
  it('creates an object owned by the applier, with associative list items keyed as upstream keys them', () => {
    const created = applyConfiguration(undefined, deployment({ replicas: 2, template }, { app: 'web' }), deploymentContext('a'));
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'a',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                  },
                },
              },
            },
          },
        },
      },
    ]);
  });

  it('answers a conflict with another applier as upstream does, and takes the field over with force', () => {
    const live = applyConfiguration(undefined, deployment({ replicas: 2, template }), deploymentContext('a'));
    const error = conflictOf(() => applyConfiguration(live, deployment({ replicas: 3 }), deploymentContext('b')));
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "a": .spec.replicas',
      reason: 'Conflict',
      details: { causes: [{ type: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.replicas' }] },
      code: 409,
    });
    const forced = applyConfiguration(live, deployment({ replicas: 3 }), deploymentContext('b', true));
    expect((forced.spec as Record<string, unknown>).replicas).toBe(3);
    const owners = forced.metadata.managedFields?.map((entry) => [entry.manager, JSON.stringify(entry.fieldsV1)]);
    expect(owners).toEqual([
      ['a', expect.not.stringContaining('f:replicas')],
      ['b', '{"f:spec":{"f:replicas":{}}}'],
    ]);
  });

  it('lets two appliers share a field they set to the same value', () => {
    const live = applyConfiguration(undefined, deployment({ replicas: 2, template }), deploymentContext('a'));
    const shared = applyConfiguration(live, deployment({ replicas: 2 }), deploymentContext('b'));
    // Nothing changed, so the new entry carries no time (upstream only stamps changes) and sorts first.
    expect(shared.metadata.managedFields?.map((entry) => [entry.manager, entry.time])).toEqual([
      ['b', undefined],
      ['a', '2025-01-01T00:00:00Z'],
    ]);
  });

  it('lists conflicts with several managers grouped by manager, and names Update managers with their version', () => {
    let live = applyConfiguration(undefined, deployment({ replicas: 2, paused: false, template }), deploymentContext('a'));
    const updated = structuredClone(live);
    (updated.spec as Record<string, unknown>).minReadySeconds = 5;
    recordUpdate(live, updated, { manager: 'kubectl-edit', apiVersion: 'apps/v1', kind: 'Deployment', hasStatus: true, now: '2025-01-01T00:00:01Z' });
    live = updated;
    const error = conflictOf(() => applyConfiguration(live, deployment({ replicas: 5, paused: true, minReadySeconds: 9 }), deploymentContext('b')));
    expect(error.message).toBe('Apply failed with 3 conflicts: conflicts with "a":\n- .spec.paused\n- .spec.replicas\nconflicts with "kubectl-edit" using apps/v1:\n- .spec.minReadySeconds');
  });

  it('removes a field the applier dropped when no one else owns it, and keeps it when someone does', () => {
    const live = applyConfiguration(undefined, deployment({ replicas: 2, paused: true, template }, { app: 'web', tier: 'front' }), deploymentContext('a'));
    const dropped = applyConfiguration(live, deployment({ replicas: 2, template }, { app: 'web' }), deploymentContext('a'));
    expect((dropped.spec as Record<string, unknown>).paused).toBeUndefined();
    expect(dropped.metadata.labels).toEqual({ app: 'web' });

    const shared = applyConfiguration(live, deployment({ paused: true }), deploymentContext('b'));
    const kept = applyConfiguration(shared, deployment({ replicas: 2, template }, { app: 'web' }), deploymentContext('a'));
    expect((kept.spec as Record<string, unknown>).paused).toBe(true);
    expect(kept.metadata.labels).toEqual({ app: 'web' });
  });

  it('merges associative lists by key and owns each item separately', () => {
    const live = applyConfiguration(undefined, deployment({ template }), deploymentContext('a'));
    const sidecar = { name: 'sidecar', image: 'busybox' };
    const withSidecar = applyConfiguration(live, deployment({ template: { spec: { containers: [sidecar] } } }), deploymentContext('b'));
    const containers = ((withSidecar.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers).map((container) => container.name);
    expect(containers).toEqual(['nginx', 'sidecar']);
    // b drops its container: only b's item goes.
    const withoutSidecar = applyConfiguration(withSidecar, deployment({ replicas: 1 }), deploymentContext('b'));
    expect(((withoutSidecar.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers).map((container) => container.name)).toEqual(['nginx']);
  });

  it('replaces atomic fields whole (a label selector) rather than merging them', () => {
    const live = applyConfiguration(undefined, deployment({ selector: { matchLabels: { app: 'web', tier: 'x' } }, template }), deploymentContext('a'));
    const next = applyConfiguration(live, deployment({ selector: { matchLabels: { app: 'web' } }, template }), deploymentContext('a'));
    expect((next.spec as Record<string, unknown>).selector).toEqual({ matchLabels: { app: 'web' } });
    expect(JSON.stringify(next.metadata.managedFields?.[0].fieldsV1)).toContain('"f:selector":{}');
  });

  it('refuses a configuration that carries managedFields', () => {
    const config = deployment({ replicas: 1 });
    (config.metadata as Record<string, unknown>).managedFields = [];
    expect(() => applyConfiguration(undefined, config, deploymentContext('a'))).toThrow('metadata.managedFields must be nil');
  });

  it('keys a container without a name by the name field\'s OpenAPI default "", as upstream (validation refuses it later)', () => {
    const created = applyConfiguration(undefined, deployment({ template: { spec: { containers: [{ image: 'x' }] } } }), deploymentContext('a'));
    expect(JSON.stringify(created.metadata.managedFields?.[0]?.fieldsV1)).toContain('"k:{\\"name\\":\\"\\"}"');
  });

  it('lets kubectl take over fields recorded by client-side apply, and keeps the annotation in step', () => {
    const config = deployment({ replicas: 2, template });
    const lastApplied = JSON.stringify(config);
    const created: KubeObject = { ...(structuredClone(config) as unknown as KubeObject) };
    created.metadata.annotations = { [lastAppliedAnnotation]: lastApplied };
    const live = structuredClone(created);
    recordUpdate(undefined, live, { manager: 'kubectl-client-side-apply', apiVersion: 'apps/v1', kind: 'Deployment', hasStatus: true, now: '2025-01-01T00:00:00Z' });
    const next = applyConfiguration(live, deployment({ replicas: 4, template }), deploymentContext('kubectl'));
    expect((next.spec as Record<string, unknown>).replicas).toBe(4);
    expect(JSON.parse(next.metadata.annotations?.[lastAppliedAnnotation] ?? '{}').spec.replicas).toBe(4);
    // Another manager name gets the conflict.
    expect(conflictOf(() => applyConfiguration(live, deployment({ replicas: 4 }), deploymentContext('other'))).message).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
  });
});

describe('recordUpdate', () => {
  const context = { apiVersion: 'v1', kind: 'ConfigMap', hasStatus: false };

  it('owns every field of a created object, with `.` for new maps', () => {
    const created: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: '1' } }, data: { x: '1' } };
    recordUpdate(undefined, created, { ...context, manager: 'kubectl-create', now: '2025-01-01T00:00:00Z' });
    expect(created.metadata.managedFields).toEqual([
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } } },
    ]);
  });

  it('moves changed fields to the writer, drops removed ones, and leaves time alone when nothing changed', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { x: '1', y: '2' } };
    recordUpdate(undefined, live, { ...context, manager: 'a', now: '2025-01-01T00:00:00Z' });
    const next = structuredClone(live);
    next.data = { x: 'changed' };
    recordUpdate(live, next, { ...context, manager: 'b', now: '2025-01-01T00:00:05Z' });
    expect(next.metadata.managedFields?.map((entry) => [entry.manager, entry.fieldsV1])).toEqual([
      ['a', { 'f:data': {} }],
      ['b', { 'f:data': { 'f:x': {} } }],
    ]);
    const same = structuredClone(next);
    recordUpdate(next, same, { ...context, manager: 'c', now: '2025-01-01T00:00:09Z' });
    expect(same.metadata.managedFields).toEqual(next.metadata.managedFields);
  });

  it('resets managedFields when a client sends an empty list', () => {
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { x: '1' } };
    recordUpdate(undefined, live, { ...context, manager: 'a', now: '2025-01-01T00:00:00Z' });
    const next = structuredClone(live);
    next.metadata.managedFields = [];
    recordUpdate(live, next, { ...context, manager: 'b', now: '2025-01-01T00:00:05Z' });
    expect(next.metadata.managedFields).toBeUndefined();
  });
});

describe('applyConfiguration refuses what does not fit its type, with upstream text', () => {
  function badRequest(config: Record<string, unknown>, context: ApplyContext = deploymentContext('a')): string {
    const error = conflictOf(() => applyConfiguration(undefined, config, context));
    expect(error.code).toBe(400);
    expect(error.reason).toBe('BadRequest');
    return error.message;
  }

  it('names the first duplicate key of an applied keyed list', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'dup', namespace: 'team' }, spec: { containers: [{ name: 'app', image: 'a' }, { name: 'app', image: 'b' }] } };
    expect(badRequest(pod, { ...deploymentContext('a'), apiVersion: 'v1', kind: 'Pod' })).toBe('failed to create typed patch object (team/dup; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="app"]');
  });

  it('lists several as structured-merge-diff does, keys sorted and quoted as its path elements', () => {
    const container = { name: 'app', image: 'a', env: [{ name: 'FOO', value: 'x' }, { name: 'FOO', value: 'y' }], ports: [{ containerPort: 93 }, { containerPort: 93, protocol: 'TCP' }] };
    const config = deployment({ selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } } });
    expect(badRequest(config)).toBe(
      [
        'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:',
        '  .spec.template.spec.containers[name="app"].env: duplicate entries for key [name="FOO"]',
        '  .spec.template.spec.containers[name="app"].ports: duplicate entries for key [containerPort=93,protocol="TCP"]',
      ].join('\n'),
    );
  });

  it('refuses duplicate values of a set list', () => {
    const config = { ...deployment({ replicas: 1 }), metadata: { name: 'web', namespace: 'default', finalizers: ['example.com/a', 'example.com/a'] } };
    expect(badRequest(config)).toBe('failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .metadata.finalizers: duplicate entries for key [="example.com/a"]');
  });

  it('refuses a keyed-list item without a key field that has no default; a defaulted key is filled', () => {
    const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'team' }, secrets: [{ namespace: 'team' }] };
    expect(badRequest(account, { ...deploymentContext('a'), apiVersion: 'v1', kind: 'ServiceAccount', hasStatus: false })).toBe(
      'failed to create typed patch object (team/sa; /v1, Kind=ServiceAccount): .secrets: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    );
    // containerPort defaults to 0 and whenUnsatisfiable to "": such items are keyed, not refused
    const defaulted = deployment({ template: { spec: { containers: [{ name: 'app', image: 'a', ports: [{ protocol: 'UDP' }] }], topologySpreadConstraints: [{ topologyKey: 'zone', maxSkew: 1 }] } } });
    const created = applyConfiguration(undefined, defaulted, deploymentContext('a'));
    const fields = JSON.stringify(created.metadata.managedFields?.[0]?.fieldsV1);
    expect(fields).toContain('"k:{\\"containerPort\\":0,\\"protocol\\":\\"UDP\\"}"');
    expect(fields).toContain('"k:{\\"topologyKey\\":\\"zone\\",\\"whenUnsatisfiable\\":\\"\\"}"');
  });

  it('still accepts duplicates the live object already has (only the applied configuration is checked)', () => {
    const live = applyConfiguration(undefined, deployment({ replicas: 1, template }), deploymentContext('a'));
    const withDuplicates = structuredClone(live);
    ((withDuplicates.spec as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0].env = [{ name: 'X', value: '1' }, { name: 'X', value: '2' }]);
    const applied = applyConfiguration(withDuplicates, deployment({ replicas: 3 }), deploymentContext('a'));
    expect((applied.spec as { replicas: number }).replicas).toBe(3);
  });
});

