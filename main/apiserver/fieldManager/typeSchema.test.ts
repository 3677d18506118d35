import { describe, expect, it } from 'vitest';
import { elementTypeOf, fieldType, typeFor, type TypeNode } from './typeSchema';

/** The type at a path of field names ('[]' steps into list items). */
function at(type: TypeNode, path: string): TypeNode {
  return path.split('.').reduce((current, step) => (step === '[]' ? elementTypeOf(current) : fieldType(current, step)), type);
}

describe('typeFor built-in kinds, from the OpenAPI x-kubernetes-* tags', () => {
  const pod = typeFor('v1', 'Pod');

  it.each([
    ['spec.containers', 'map', ['name']],
    ['spec.containers.[].ports', 'map', ['containerPort', 'protocol']],
    ['spec.containers.[].env', 'map', ['name']],
    ['spec.containers.[].volumeMounts', 'map', ['mountPath']],
    ['spec.hostAliases', 'map', ['ip']],
    ['spec.topologySpreadConstraints', 'map', ['topologyKey', 'whenUnsatisfiable']],
    ['metadata.ownerReferences', 'map', ['uid']],
    ['metadata.finalizers', 'set', undefined],
    ['spec.tolerations', undefined, undefined],
    ['spec.containers.[].args', undefined, undefined],
  ])('makes Pod %s a %s list', (path, list, keys) => {
    const type = at(pod, path);
    expect(type.list).toBe(list);
    expect(type.keys?.map((key) => key.name)).toEqual(keys);
  });

  it('fills a missing key field from its OpenAPI default (a port without protocol is TCP)', () => {
    expect(at(pod, 'spec.containers.[].ports').keys).toEqual([{ name: 'containerPort', default: 0 }, { name: 'protocol', default: 'TCP' }]);
  });

  it.each([
    ['spec.nodeSelector', true],
    ['spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution', true],
    ['spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution.[].labelSelector', true],
    ['spec.containers.[].env.[].valueFrom.secretKeyRef', true],
    ['spec.imagePullSecrets.[]', true],
    ['metadata.labels', false],
    ['spec.affinity.nodeAffinity', false],
    ['spec.volumes.[].configMap', false],
  ])('owns Pod %s whole: %s', (path, atomic) => {
    expect(at(pod, path).atomic === true).toBe(atomic);
  });

  it('keeps a field granular where upstream overrides an atomic struct (PersistentVolume claimRef)', () => {
    expect(at(typeFor('v1', 'PersistentVolume'), 'spec.claimRef').atomic === true).toBe(false);
    expect(at(typeFor('v1', 'Pod'), 'spec.volumes.[].persistentVolumeClaim').atomic === true).toBe(false);
  });

  it('knows every kind kubedesk serves a schema for, and deduces the rest', () => {
    expect(at(typeFor('apps/v1', 'Deployment'), 'spec.template.spec.containers').list).toBe('map');
    expect(at(typeFor('apps/v1', 'Deployment'), 'spec.selector').atomic).toBe(true);
    expect(at(typeFor('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration'), 'webhooks').keys).toEqual([{ name: 'name', default: '' }]);
    expect(typeFor('example.com/v1', 'Widget')).toEqual({});
  });
});
