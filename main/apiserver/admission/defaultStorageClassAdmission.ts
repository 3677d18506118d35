// The DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/setdefault/admission.go):
// a PersistentVolumeClaim created without spec.storageClassName gets the cluster's default class,
// the StorageClass annotated storageclass.kubernetes.io/is-default-class=true (or the beta
// annotation). With several defaults the newest wins, then the first by name, as upstream's
// GetDefaultClass. An explicit "" (no class) is left alone.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';

const defaultClassAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/** storageutil.IsDefaultAnnotation */
export function isDefaultStorageClass(storageClass: KubeObject): boolean {
  const annotations = storageClass.metadata.annotations ?? {};
  return defaultClassAnnotations.some((key) => annotations[key] === 'true');
}

/** The default StorageClass among `classes`, or undefined when none is marked default. */
export function defaultStorageClass(classes: KubeObject[]): KubeObject | undefined {
  const defaults = classes.filter(isDefaultStorageClass);
  defaults.sort((left, right) => {
    const byAge = (right.metadata.creationTimestamp ?? '').localeCompare(left.metadata.creationTimestamp ?? '');
    return byAge !== 0 ? byAge : (left.metadata.name ?? '').localeCompare(right.metadata.name ?? '');
  });
  return defaults[0];
}

export function admitPersistentVolumeClaimStorageClass(claim: KubeObject, listStorageClasses: () => KubeObject[]): void {
  if (!isRecord(claim.spec)) return;
  const current = claim.spec.storageClassName;
  if (current !== undefined && current !== null) return;
  const chosen = defaultStorageClass(listStorageClasses());
  if (chosen?.metadata.name) claim.spec.storageClassName = chosen.metadata.name;
}
