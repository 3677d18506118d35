// `kubectl get storageclasses` table: upstream pkg/printers/internalversion/printers.go printStorageClass.
import type { TableDef } from './table';
import { ageColumn, column, nameColumn } from './columns';
import { booleanAt, stringAt } from './fields';
import { age, annotation, name } from './format';

/** storageutil.IsDefaultAnnotation: the GA or the beta default-class annotation set to "true". */
function isDefaultClass(object: unknown): boolean {
  return (
    annotation(object, 'storageclass.kubernetes.io/is-default-class') === 'true' ||
    annotation(object, 'storageclass.beta.kubernetes.io/is-default-class') === 'true'
  );
}

export const storageClassTable: TableDef = {
  columns: [
    nameColumn(),
    column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.'),
    column('VolumeBindingMode', 'string', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
    column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    ageColumn(),
  ],
  row(object, now) {
    return [
      isDefaultClass(object) ? `${name(object)} (default)` : name(object),
      stringAt(object, 'provisioner'),
      stringAt(object, 'reclaimPolicy') || 'Delete',
      stringAt(object, 'volumeBindingMode') || 'Immediate',
      booleanAt(object, 'allowVolumeExpansion'),
      age(object, now),
    ];
  },
};
