// Configuration and storage kinds: ConfigMaps, Secrets (values never shown in lists), volumes.
import { configMapTable, persistentVolumeClaimTable, persistentVolumeTable, secretTable } from '../../shared/printers/core';
import { storageClassTable } from '../../shared/printers/storage';
import type { KindConfig } from './kindConfig';
import { stringField } from './tones';

export const configMaps: KindConfig = {
  key: 'configmaps',
  kind: 'ConfigMap',
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespaced: true,
  title: 'ConfigMaps',
  section: 'Config',
  table: configMapTable,
  shortNames: ['cm'],
};

export const secrets: KindConfig = {
  key: 'secrets',
  kind: 'Secret',
  group: '',
  version: 'v1',
  plural: 'secrets',
  namespaced: true,
  title: 'Secrets',
  section: 'Config',
  table: secretTable,
  summary: (object) => [{ label: 'Type', value: stringField(object, 'type') || 'Opaque' }],
};

const phaseTone = (phase: string) => (phase === 'Bound' || phase === 'Available' ? 'ok' : phase === 'Pending' || phase === 'Released' ? 'warn' : phase ? 'error' : undefined);

export const persistentVolumeClaims: KindConfig = {
  key: 'persistentvolumeclaims',
  kind: 'PersistentVolumeClaim',
  group: '',
  version: 'v1',
  plural: 'persistentvolumeclaims',
  namespaced: true,
  title: 'PersistentVolumeClaims',
  section: 'Storage',
  table: persistentVolumeClaimTable,
  statusColumn: 'Status',
  shortNames: ['pvc'],
  tone: (object) => phaseTone(stringField(object, 'status', 'phase')),
  summary: (object) => [
    { label: 'Phase', value: stringField(object, 'status', 'phase') || 'Pending' },
    { label: 'Volume', value: stringField(object, 'spec', 'volumeName') || '<none>', link: stringField(object, 'spec', 'volumeName') ? { kindKey: 'persistentvolumes', name: stringField(object, 'spec', 'volumeName') } : undefined },
    { label: 'Storage class', value: stringField(object, 'spec', 'storageClassName') || '<default>' },
  ],
};

export const persistentVolumes: KindConfig = {
  key: 'persistentvolumes',
  kind: 'PersistentVolume',
  group: '',
  version: 'v1',
  plural: 'persistentvolumes',
  namespaced: false,
  title: 'PersistentVolumes',
  section: 'Storage',
  table: persistentVolumeTable,
  statusColumn: 'Status',
  shortNames: ['pv'],
  tone: (object) => phaseTone(stringField(object, 'status', 'phase')),
};

export const storageClasses: KindConfig = {
  key: 'storageclasses.storage.k8s.io',
  kind: 'StorageClass',
  group: 'storage.k8s.io',
  version: 'v1',
  plural: 'storageclasses',
  namespaced: false,
  title: 'StorageClasses',
  section: 'Storage',
  table: storageClassTable,
  shortNames: ['sc'],
};
