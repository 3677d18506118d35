import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { admitPersistentVolumeClaimStorageClass, defaultStorageClass } from './defaultStorageClassAdmission';

function storageClass(name: string, created: string, annotation?: string): KubeObject {
  return { metadata: { name, creationTimestamp: created, annotations: annotation ? { [annotation]: 'true' } : {} }, provisioner: 'example.com/p' };
}

const claim = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], ...spec } });

describe('admitPersistentVolumeClaimStorageClass', () => {
  it.each([
    ['a claim without a class gets the default', {}, [storageClass('standard', '2024-01-01T00:00:00Z', 'storageclass.kubernetes.io/is-default-class')], 'standard'],
    ['the beta annotation marks a default too', {}, [storageClass('old', '2024-01-01T00:00:00Z', 'storageclass.beta.kubernetes.io/is-default-class')], 'old'],
    ['an explicit empty class stays empty', { storageClassName: '' }, [storageClass('standard', '2024-01-01T00:00:00Z', 'storageclass.kubernetes.io/is-default-class')], ''],
    ['an explicit class is kept', { storageClassName: 'fast' }, [storageClass('standard', '2024-01-01T00:00:00Z', 'storageclass.kubernetes.io/is-default-class')], 'fast'],
    ['without a default class nothing is set', {}, [storageClass('plain', '2024-01-01T00:00:00Z')], undefined],
  ])('%s', (_what, spec, classes, expected) => {
    const admitted = claim(spec);
    admitPersistentVolumeClaimStorageClass(admitted, () => classes);
    expect((admitted.spec as { storageClassName?: string }).storageClassName).toBe(expected);
  });

  it('picks the newest default, then the first by name', () => {
    const annotation = 'storageclass.kubernetes.io/is-default-class';
    expect(defaultStorageClass([storageClass('a', '2024-01-01T00:00:00Z', annotation), storageClass('b', '2024-02-01T00:00:00Z', annotation)])?.metadata.name).toBe('b');
    expect(defaultStorageClass([storageClass('d', '2024-01-01T00:00:00Z', annotation), storageClass('c', '2024-01-01T00:00:00Z', annotation)])?.metadata.name).toBe('c');
  });
});
