import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { defaultPersistentVolume, defaultStorageClass } from '../defaults/storage';
import { validatePersistentVolume, validatePersistentVolumeUpdate, validateStorageClass, validateStorageClassUpdate } from './storage';

function volume(spec: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'pv1', resourceVersion: '1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec } };
}

function storageClass(fields: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'fast', resourceVersion: '1' }, provisioner: 'example.com/disk', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...fields };
}

const messages = (errors: { field: string; detail: string }[]) => errors.map((error) => `${error.field}: ${error.detail}`);

describe('PersistentVolume validation', () => {
  it.each([
    ['a hostPath volume', {}, []],
    ['no access modes', { accessModes: [] }, ['spec.accessModes: Required value']],
    ['no capacity', { capacity: undefined }, ['spec.capacity: Required value', 'spec.capacity: Unsupported value: {}: supported values: "storage"']],
    ['no volume source', { hostPath: undefined }, ['spec: Required value: must specify a volume type']],
    ['two volume sources', { nfs: { server: 'a', path: '/b' } }, ['spec.nfs: Forbidden: may not specify more than 1 volume type']],
    ['an unknown reclaim policy', { persistentVolumeReclaimPolicy: 'Keep' }, ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
    ['a local volume without node affinity', { hostPath: undefined, local: { path: '/mnt/disk' } }, ['spec.nodeAffinity: Required value: Local volume requires node affinity']],
  ])('%s', (_what, spec, expected) => {
    const object = volume(spec);
    defaultPersistentVolume(object);
    expect(messages(validatePersistentVolume(object))).toEqual(expected);
  });

  it('defaults a volume to Retain, Filesystem and Pending', () => {
    const object = volume({});
    defaultPersistentVolume(object);
    expect(object.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data', type: '' } });
    expect(object.status).toEqual({ phase: 'Pending' });
  });

  it('keeps the volume source immutable', () => {
    const old = volume({});
    const next = volume({ hostPath: { path: '/elsewhere' } });
    expect(validatePersistentVolumeUpdate(next, old).map((error) => error.field)).toContain('spec.persistentvolumesource');
    expect(validatePersistentVolumeUpdate(volume({ claimRef: { name: 'c', namespace: 'd' } }), old)).toEqual([]);
  });
});

describe('StorageClass validation', () => {
  it.each([
    ['a complete class', {}, []],
    ['no provisioner', { provisioner: '' }, ['provisioner']],
    ['an unknown reclaim policy', { reclaimPolicy: 'Recycle' }, ['reclaimPolicy']],
    ['an unknown binding mode', { volumeBindingMode: 'Later' }, ['volumeBindingMode']],
  ])('%s', (_what, fields, fieldsWithErrors) => {
    expect(validateStorageClass(storageClass(fields)).map((error) => error.field)).toEqual(fieldsWithErrors);
  });

  it('defaults reclaim policy Delete and binding mode Immediate', () => {
    const object: KubeObject = { metadata: { name: 'fast' }, provisioner: 'example.com/disk' };
    defaultStorageClass(object);
    expect(object).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    expect(validateStorageClass(object)).toEqual([]);
  });

  it('forbids changing the provisioner, parameters and reclaim policy', () => {
    const old = storageClass({});
    expect(validateStorageClassUpdate(storageClass({ provisioner: 'other.io/x', reclaimPolicy: 'Retain', parameters: { a: 'b' } }), old).map((error) => error.detail)).toEqual([
      'Forbidden: updates to parameters are forbidden.',
      'Forbidden: updates to provisioner are forbidden.',
      'Forbidden: updates to reclaimPolicy are forbidden.',
    ]);
  });
});
