// Tests for the restore plan: what a restore deletes, creates, replaces and updates, in which
// order, and what it leaves alone.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import { planRestore, podImages, type RestorePolicy, type StoredObject } from './snapshot';

function stored(resource: string, namespace: string, name: string, fields: Record<string, unknown> = {}, uid = `${name}-uid`, resourceVersion = '1'): StoredObject {
  return { resource, namespace, name, value: JSON.stringify({ metadata: { name, namespace, uid, resourceVersion }, ...fields }) };
}

const policy: RestorePolicy = {
  keepLive: (resource) => resource === 'nodes',
  rank: (resource) => (resource === 'namespaces' ? 0 : resource === 'pods' ? 9 : 5),
  prepare: (_resource, object) => object,
};

describe('planRestore', () => {
  it('deletes what was created since, creates what was deleted since and leaves equal objects alone', () => {
    const plan = planRestore(
      [stored('configmaps', 'a', 'same', { data: { x: '1' } }, 'same-uid', '40'), stored('configmaps', 'a', 'new')],
      [stored('configmaps', 'a', 'same', { data: { x: '1' } }, 'same-uid', '7'), stored('configmaps', 'a', 'gone')],
      policy,
    );
    expect(plan.writes.map((write) => `${write.type} ${write.key.name}`)).toEqual(['delete new', 'create gone']);
    expect(plan).toMatchObject({ created: 1, deleted: 1, updated: 0, replaced: 0 });
    const create = plan.writes[1];
    expect(create.type === 'create' && create.object.metadata.uid).toBe('gone-uid');
  });

  it('updates an object of the same uid that differs, and replaces one whose uid changed', () => {
    const plan = planRestore(
      [stored('configmaps', 'a', 'changed', { data: { x: '2' } }), stored('configmaps', 'a', 'recreated', {}, 'other-uid')],
      [stored('configmaps', 'a', 'changed', { data: { x: '1' } }), stored('configmaps', 'a', 'recreated', {}, 'first-uid')],
      policy,
    );
    expect(plan.writes.map((write) => `${write.type} ${write.key.name}`)).toEqual(['delete recreated', 'update changed', 'create recreated']);
    expect(plan).toMatchObject({ created: 0, updated: 1, replaced: 1, deleted: 0 });
  });

  it('leaves resources the policy keeps live untouched on both sides', () => {
    const plan = planRestore([stored('nodes', '', 'node-now')], [stored('nodes', '', 'node-then')], policy);
    expect(plan.writes).toEqual([]);
  });

  it('orders creates by rank so namespaces come before pods, whatever the key order', () => {
    const plan = planRestore([], [stored('pods', 'a', 'p'), stored('configmaps', 'a', 'c'), stored('namespaces', '', 'a')], policy);
    expect(plan.writes.map((write) => write.key.resource)).toEqual(['namespaces', 'configmaps', 'pods']);
  });

  it('hands prepare the live object only when it is the same object (same uid)', () => {
    const seen: (string | undefined)[] = [];
    const recording: RestorePolicy = {
      ...policy,
      prepare: (_resource, object, live) => {
        seen.push(live?.metadata.resourceVersion);
        return { ...object, status: live?.status ?? { phase: 'Pending' } };
      },
    };
    const plan = planRestore(
      [stored('pods', 'a', 'kept', { status: { phase: 'Running' } }, 'kept-uid', '50'), stored('pods', 'a', 'other', { status: { phase: 'Running' } }, 'new-uid', '51')],
      [stored('pods', 'a', 'kept', { status: { phase: 'Running' } }, 'kept-uid', '5'), stored('pods', 'a', 'other', { status: { phase: 'Running' } }, 'old-uid', '6')],
      recording,
    );
    expect(seen).toEqual(['50', undefined]);
    // the kept pod equals its live self once its live status is kept: nothing to write
    expect(plan.writes.map((write) => `${write.type} ${write.key.name}`)).toEqual(['delete other', 'create other']);
    const create = plan.writes[1];
    expect(create.type === 'create' && create.object.status).toEqual({ phase: 'Pending' });
  });

  it('refuses a snapshot value that is not a Kubernetes object', () => {
    expect(() => planRestore([], [{ resource: 'configmaps', namespace: 'a', name: 'x', value: '[1]' }], policy)).toThrow(/not a Kubernetes object/);
  });
});

describe('podImages', () => {
  it('lists init, app and ephemeral containers\' images in spec order', () => {
    const pod: KubeObject = {
      metadata: { name: 'p' },
      spec: { initContainers: [{ name: 'i', image: 'init:1' }], containers: [{ name: 'a', image: 'app:2' }, { name: 'b' }], ephemeralContainers: [{ name: 'd', image: 'debug:3' }] },
    };
    expect(podImages(pod)).toEqual(['init:1', 'app:2', 'debug:3']);
  });
});
