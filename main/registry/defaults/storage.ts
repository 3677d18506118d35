// Defaults for core/v1 PersistentVolumes (pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolume:
// phase Pending, reclaim policy Retain, volume mode Filesystem; hostPath type "") and
// storage.k8s.io/v1 StorageClasses (pkg/apis/storage/v1/defaults.go: reclaim policy Delete,
// volume binding mode Immediate).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { child, existing, setDefault, setDefaultString } from './fields';

export function defaultPersistentVolume(obj: KubeObject): void {
  const spec = child(obj, 'spec');
  if (spec) {
    setDefaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
    const hostPath = existing(spec, 'hostPath');
    if (hostPath) setDefault(hostPath, 'type', '');
  }
  const status = child(obj, 'status');
  if (status) setDefaultString(status, 'phase', 'Pending');
}

export function defaultStorageClass(obj: KubeObject): void {
  setDefault(obj, 'reclaimPolicy', 'Delete');
  setDefault(obj, 'volumeBindingMode', 'Immediate');
}
