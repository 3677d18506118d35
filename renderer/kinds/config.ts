// Configuration and storage kinds: ConfigMaps (each key's content viewable), Secrets (values never
// shown in lists; on the detail page hidden until revealed or copied, key by key), and volumes:
// claims and PersistentVolumes linked to each other with their capacity and access modes.
import { humanQuantity } from '../../shared/kubernetes/quantity';
import type { KubeObject } from '../../shared/kubernetes/types';
import { configMapTable, persistentVolumeClaimTable, persistentVolumeTable, secretTable } from '../../shared/printers/core';
import { storageClassTable } from '../../shared/printers/storage';
import type { KindConfig, SummaryField } from './kindConfig';
import { configMapEntries, secretEntries } from './objectData';
import { recordField, stringField } from './tones';

function storageField(label: string, raw: unknown): SummaryField {
  return typeof raw === 'string' && raw ? { label, value: humanQuantity('storage', raw), hint: raw } : { label, value: '<unset>' };
}

function accessModes(object: KubeObject, ...path: string[]): string {
  const modes = recordField(object, ...path)?.accessModes;
  return Array.isArray(modes) && modes.length ? modes.map(String).join(', ') : '<unset>';
}

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
  summary: (object) => [{ label: 'Keys', value: String(configMapEntries(object).length) }, { label: 'Immutable', value: object.immutable === true ? 'yes' : 'no' }],
  sections: (object) => [{ type: 'data', id: 'configmap-data', title: 'Data', entries: configMapEntries(object), secret: false }],
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
  summary: (object) => [
    { label: 'Type', value: stringField(object, 'type') || 'Opaque' },
    { label: 'Keys', value: String(secretEntries(object).length) },
    { label: 'Immutable', value: object.immutable === true ? 'yes' : 'no' },
  ],
  sections: (object) => [{ type: 'data', id: 'secret-data', title: 'Data', entries: secretEntries(object), secret: true }],
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
    { label: 'Phase', value: stringField(object, 'status', 'phase') || 'Pending', tone: phaseTone(stringField(object, 'status', 'phase') || 'Pending') },
    { label: 'Volume', value: stringField(object, 'spec', 'volumeName') || '<none>', link: stringField(object, 'spec', 'volumeName') ? { kindKey: 'persistentvolumes', name: stringField(object, 'spec', 'volumeName') } : undefined },
    { label: 'Storage class', value: stringField(object, 'spec', 'storageClassName') || '<default>' },
    storageField('Requested', recordField(object, 'spec', 'resources', 'requests')?.storage),
    storageField('Capacity', recordField(object, 'status', 'capacity')?.storage),
    { label: 'Access modes', value: accessModes(object, 'spec') },
    { label: 'Volume mode', value: stringField(object, 'spec', 'volumeMode') || 'Filesystem' },
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
  summary: (object) => {
    const claimName = stringField(object, 'spec', 'claimRef', 'name');
    const claimNamespace = stringField(object, 'spec', 'claimRef', 'namespace');
    return [
      { label: 'Phase', value: stringField(object, 'status', 'phase') || 'Pending', tone: phaseTone(stringField(object, 'status', 'phase')) },
      { label: 'Claim', value: claimName ? `${claimNamespace}/${claimName}` : '<unbound>', link: claimName ? { kindKey: 'persistentvolumeclaims', namespace: claimNamespace, name: claimName } : undefined },
      storageField('Capacity', recordField(object, 'spec', 'capacity')?.storage),
      { label: 'Access modes', value: accessModes(object, 'spec') },
      { label: 'Reclaim policy', value: stringField(object, 'spec', 'persistentVolumeReclaimPolicy') || 'Retain' },
      { label: 'Storage class', value: stringField(object, 'spec', 'storageClassName') || '<none>' },
      { label: 'Source', value: stringField(object, 'spec', 'hostPath', 'path') ? `hostPath ${stringField(object, 'spec', 'hostPath', 'path')}` : stringField(object, 'spec', 'local', 'path') ? `local ${stringField(object, 'spec', 'local', 'path')}` : stringField(object, 'spec', 'csi', 'driver') ? `CSI ${stringField(object, 'spec', 'csi', 'driver')}` : '<other>' },
    ];
  },
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
