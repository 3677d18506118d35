import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import type { FieldError } from '../../fieldErrors';
import { subresourceOf, type ScaleSubresource, type UpdateSubresource } from '../../strategy';
import { replicationControllerStrategy as strategy } from './replicationController';

function rc(spec: Record<string, unknown>, metadata: KubeObject['metadata'] = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'default', ...metadata }, spec };
}

const template = (labels: Record<string, string> | undefined, spec: Record<string, unknown> = {}) => ({
  metadata: labels ? { labels } : {},
  spec: { containers: [{ name: 'web', image: 'busybox' }], ...spec },
});

/** As the API server runs a create: defaults, PrepareForCreate, validation. */
function created(obj: KubeObject): { obj: KubeObject; errors: string[] } {
  const copy = structuredClone(obj);
  strategy.defaults(copy);
  strategy.prepareForCreate(copy);
  return { obj: copy, errors: strategy.validateCreate(copy).map(render) };
}

function render(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}

describe('ReplicationController defaults (SetDefaults_ReplicationController)', () => {
  it('takes the selector and the object labels from the template labels and defaults one replica', () => {
    const { obj, errors } = created(rc({ template: template({ app: 'web', tier: 'front' }) }));
    expect(errors).toEqual([]);
    expect(obj.spec).toMatchObject({ replicas: 1, selector: { app: 'web', tier: 'front' } });
    expect(obj.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(obj.status).toEqual({ replicas: 0 });
  });

  it('keeps a given selector, labels and replicas', () => {
    const { obj } = created(rc({ replicas: 0, selector: { app: 'web' }, template: template({ app: 'web', tier: 'front' }) }, { labels: { team: 'a' } }));
    expect(obj.spec).toMatchObject({ replicas: 0, selector: { app: 'web' } });
    expect(obj.metadata.labels).toEqual({ team: 'a' });
  });

  it('defaults the template pod spec as a pod template', () => {
    const { obj } = created(rc({ template: template({ app: 'web' }) }));
    expect(obj.spec).toMatchObject({ template: { spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 } } });
  });

  it('leaves an absent template absent', () => {
    const { obj } = created(rc({ selector: { app: 'web' } }));
    expect(obj.spec).not.toHaveProperty('template');
  });
});

describe('ReplicationController validation (ValidateReplicationController)', () => {
  const cases: Array<{ name: string; spec: Record<string, unknown>; expected: string[] }> = [
    { name: 'a template without labels and no selector', spec: { template: template(undefined) }, expected: ['spec.selector: Required value'] },
    { name: 'no template', spec: { selector: { app: 'web' } }, expected: ['spec.template: Required value'] },
    {
      name: 'a selector that does not match the template',
      spec: { selector: { app: 'api' }, template: template({ app: 'web' }) },
      expected: ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`'],
    },
    { name: 'negative replicas', spec: { replicas: -1, template: template({ app: 'web' }) }, expected: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'] },
    { name: 'negative minReadySeconds', spec: { minReadySeconds: -5, template: template({ app: 'web' }) }, expected: ['spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0'] },
    {
      name: 'a template whose pods do not restart Always',
      spec: { template: template({ app: 'web' }, { restartPolicy: 'OnFailure' }) },
      expected: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
    },
    {
      name: 'activeDeadlineSeconds in the template',
      spec: { template: template({ app: 'web' }, { activeDeadlineSeconds: 30 }) },
      expected: ['spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported'],
    },
    { name: 'a container without an image', spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web' }] } } }, expected: ['spec.template.spec.containers[0].image: Required value'] },
  ];

  it.each(cases)('refuses $name', ({ spec, expected }) => {
    expect(created(rc(spec)).errors).toEqual(expected);
  });

  it('lets an update change the selector, unlike a ReplicaSet', () => {
    const { obj: old } = created(rc({ template: template({ app: 'web', tier: 'front' }) }, { resourceVersion: '7' }));
    const next = structuredClone(old);
    next.spec = { ...(next.spec as Record<string, unknown>), selector: { app: 'web' } };
    strategy.prepareForUpdate(next, old);
    expect(strategy.validateUpdate(next, old)).toEqual([]);
  });

  it('keeps the stored status on a main-resource update', () => {
    const { obj: old } = created(rc({ template: template({ app: 'web' }) }));
    old.status = { replicas: 3, readyReplicas: 3 };
    const next = { ...structuredClone(old), status: { replicas: 9 } };
    strategy.prepareForUpdate(next, old);
    expect(next.status).toEqual({ replicas: 3, readyReplicas: 3 });
  });
});

describe('ReplicationController status (ValidateReplicationControllerStatus)', () => {
  const status = subresourceOf(strategy, 'status') as UpdateSubresource;

  it.each([
    {
      // upstream compares the counts with the negative replicas too
      status: { replicas: -1 },
      expected: [
        'status.replicas: Invalid value: -1: must be greater than or equal to 0',
        'status.fullyLabeledReplicas: Invalid value: 0: cannot be greater than status.replicas',
        'status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas',
        'status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas',
      ],
    },
    { status: { replicas: 1, readyReplicas: 2, availableReplicas: 2 }, expected: ['status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas', 'status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas'] },
    { status: { replicas: 2, readyReplicas: 1, availableReplicas: 2 }, expected: ['status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas'] },
    { status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 1 }, expected: [] },
  ])('judges $status', ({ status: value, expected }) => {
    const old = created(rc({ template: template({ app: 'web' }) })).obj;
    const next = { ...structuredClone(old), status: value };
    status.prepareForUpdate(next, old);
    expect((status.validateUpdate?.(next, old) ?? []).map(render)).toEqual(expected);
  });

  it('keeps the spec on a status write', () => {
    const old = created(rc({ replicas: 2, template: template({ app: 'web' }) })).obj;
    const next = { ...structuredClone(old), spec: { replicas: 7 }, status: { replicas: 2 } };
    status.prepareForUpdate(next, old);
    expect(next.spec).toEqual(old.spec);
  });
});

describe('ReplicationController scale and deletion', () => {
  it('gives the Scale the label map as a sorted selector string', () => {
    const scale = subresourceOf(strategy, 'scale') as ScaleSubresource;
    expect(scale).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', specReplicasPath: 'spec.replicas' });
    expect(scale.selector(rc({ selector: { tier: 'front', app: 'web' } }))).toBe('app=web,tier=front');
  });

  it('orphans dependents when a delete names no policy, as upstream does for core/v1', () => {
    expect(strategy.defaultGarbageCollectionPolicy).toBe('Orphan');
    expect(strategy.shortNames).toEqual(['rc']);
    expect(strategy.categories).toEqual(['all']);
  });
});
