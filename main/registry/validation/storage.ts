// Validation for core/v1 PersistentVolumes (pkg/apis/core/validation/validation.go
// ValidatePersistentVolume / ValidatePersistentVolumeUpdate, the parts a local cluster meets:
// access modes, a storage-only capacity, reclaim policy, class name, volume mode and exactly one
// volume source, with hostPath and local paths checked) and storage.k8s.io/v1 StorageClasses
// (pkg/apis/storage/validation: provisioner, reclaim policy, binding mode, immutable fields).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { arrayAt, booleanAt, goValue, immutable, objectAt, optionalStringAt, recordOf, stringAt, stringMapAt, type FieldRecord } from './fields';
import { nameIsDNSSubdomain } from './names';
import { validateObjectMeta, validateObjectMetaUpdate, validateQualifiedName } from './objectMeta';
import { resourceListAt, validateResourceQuantity } from './podSpec';

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeReclaimPolicies = ['Delete', 'Recycle', 'Retain'];
const volumeModes = ['Block', 'Filesystem'];
const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** Every volume source a PersistentVolumeSpec may carry (core.PersistentVolumeSource), in upstream's check order. */
const volumeSourceKeys = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cephfs', 'iscsi',
  'cinder', 'fc', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO',
  'local', 'storageos', 'csi',
];

function className(value: unknown, field: string, errors: FieldError[]): void {
  const name = optionalStringAt(value, field, errors);
  if (name === undefined || name.length === 0) return;
  for (const message of nameIsDNSSubdomain(name, false)) errors.push(fieldErrors.invalid(field, name, message));
}

/** validatePathNoBacksteps: no `..` element. */
function hasBacksteps(path: string): boolean {
  return path.split('/').includes('..');
}

function validateHostPath(source: FieldRecord, field: string, errors: FieldError[]): void {
  const path = stringAt(source.path, `${field}.path`, errors);
  if (path.length === 0) {
    errors.push(fieldErrors.required(`${field}.path`, ''));
    return;
  }
  if (hasBacksteps(path)) errors.push(fieldErrors.invalid(`${field}.path`, path, "must not contain '..'"));
  const type = optionalStringAt(source.type, `${field}.type`, errors);
  if (type !== undefined && !hostPathTypes.includes(type)) errors.push(fieldErrors.notSupported(`${field}.type`, type, hostPathTypes));
}

function validateLocal(source: FieldRecord, field: string, errors: FieldError[]): void {
  const path = stringAt(source.path, `${field}.path`, errors);
  if (path.length === 0) {
    errors.push(fieldErrors.required(`${field}.path`, ''));
    return;
  }
  if (!path.startsWith('/')) errors.push(fieldErrors.invalid(`${field}.path`, path, 'must be an absolute path'));
  if (hasBacksteps(path)) errors.push(fieldErrors.invalid(`${field}.path`, path, "must not contain '..'"));
}

/** ValidatePersistentVolumeSpec for a PersistentVolume object (not an inline volume). */
function validatePersistentVolumeSpec(value: unknown, errors: FieldError[]): void {
  const spec = objectAt(value, 'spec', errors) ?? {};
  const modes = arrayAt(spec.accessModes, 'spec.accessModes', errors).map((item, index) => stringAt(item, `spec.accessModes[${index}]`, errors));
  if (modes.length === 0) errors.push(fieldErrors.required('spec.accessModes', ''));
  for (const mode of modes) if (!accessModes.includes(mode)) errors.push(fieldErrors.notSupported('spec.accessModes', mode, accessModes));
  if (modes.includes('ReadWriteOncePod') && modes.some((mode) => mode !== 'ReadWriteOncePod' && accessModes.includes(mode))) {
    errors.push(fieldErrors.forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes'));
  }
  const capacity = resourceListAt(spec.capacity, 'spec.capacity', errors);
  if (capacity.size === 0) errors.push(fieldErrors.required('spec.capacity', ''));
  if (!capacity.has('storage') || capacity.size > 1) errors.push(fieldErrors.notSupported('spec.capacity', goValue(recordOf(spec.capacity)), ['storage']));
  for (const [name, { quantity, text }] of capacity) {
    validateResourceQuantity(name, quantity, text, `spec.capacity[${name}]`, errors);
    if (quantity.nanos <= 0n) errors.push(fieldErrors.invalid(`spec.capacity[${name}]`, text, 'must be greater than zero'));
  }
  const policy = optionalStringAt(spec.persistentVolumeReclaimPolicy, 'spec.persistentVolumeReclaimPolicy', errors);
  if (policy !== undefined && policy.length > 0 && !volumeReclaimPolicies.includes(policy)) {
    errors.push(fieldErrors.notSupported('spec.persistentVolumeReclaimPolicy', policy, volumeReclaimPolicies));
  }
  const nodeAffinity = objectAt(spec.nodeAffinity, 'spec.nodeAffinity', errors);
  let sources = 0;
  for (const key of volumeSourceKeys) {
    const source = spec[key];
    if (source === undefined || source === null) continue;
    if (sources > 0) {
      errors.push(fieldErrors.forbidden(`spec.${key}`, 'may not specify more than 1 volume type'));
      continue;
    }
    sources++;
    const record = objectAt(source, `spec.${key}`, errors) ?? {};
    if (key === 'hostPath') validateHostPath(record, 'spec.hostPath', errors);
    if (key === 'local') {
      validateLocal(record, 'spec.local', errors);
      if (!nodeAffinity || !objectAt(nodeAffinity.required, 'spec.nodeAffinity.required', errors)) errors.push(fieldErrors.required('spec.nodeAffinity', 'Local volume requires node affinity'));
    }
  }
  if (sources === 0) errors.push(fieldErrors.required('spec', 'must specify a volume type'));
  className(spec.storageClassName, 'spec.storageClassName', errors);
  const volumeMode = optionalStringAt(spec.volumeMode, 'spec.volumeMode', errors);
  if (volumeMode !== undefined && !volumeModes.includes(volumeMode)) errors.push(fieldErrors.notSupported('spec.volumeMode', volumeMode, volumeModes));
  const claimRef = objectAt(spec.claimRef, 'spec.claimRef', errors);
  if (claimRef) {
    optionalStringAt(claimRef.name, 'spec.claimRef.name', errors);
    optionalStringAt(claimRef.namespace, 'spec.claimRef.namespace', errors);
  }
}

export function validatePersistentVolume(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  validatePersistentVolumeSpec(obj.spec, errors);
  return errors;
}

export function validatePersistentVolumeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  errors.push(...validatePersistentVolume(obj).filter((error) => !error.field.startsWith('metadata.')));
  const spec = recordOf(obj.spec);
  const oldSpec = recordOf(old.spec);
  const source = (record: FieldRecord) => Object.fromEntries(volumeSourceKeys.filter((key) => record[key] !== undefined && record[key] !== null).map((key) => [key, record[key]]));
  if (!jsonEqual(source(spec), source(oldSpec))) {
    errors.push(fieldErrors.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  }
  if (!jsonEqual(spec.volumeMode, oldSpec.volumeMode)) errors.push(immutable('volumeMode', spec.volumeMode));
  return errors;
}

// ---------------------------------------------------------------- storageclasses

const classReclaimPolicies = ['Delete', 'Retain'];
const volumeBindingModes = ['Immediate', 'WaitForFirstConsumer'];
const maximumProvisionerParameters = 512;
const maximumProvisionerParameterSize = 256 * 1024;

export function validateStorageClass(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const provisioner = stringAt(obj.provisioner, 'provisioner', errors);
  if (provisioner.length === 0) errors.push(fieldErrors.required('provisioner', ''));
  else errors.push(...validateQualifiedName(provisioner.toLowerCase(), 'provisioner'));
  const parameters = stringMapAt(obj.parameters, 'parameters', errors);
  const names = Object.keys(parameters);
  if (names.length > maximumProvisionerParameters) errors.push(fieldErrors.invalid('parameters', names.length, `must not have more than ${maximumProvisionerParameters} parameters`));
  let size = 0;
  for (const name of names) {
    if (name.length === 0) errors.push(fieldErrors.invalid('parameters', name, 'field can not be empty.'));
    size += name.length + parameters[name].length;
  }
  if (size > maximumProvisionerParameterSize) errors.push(fieldErrors.tooLong('parameters', maximumProvisionerParameterSize));
  const policy = optionalStringAt(obj.reclaimPolicy, 'reclaimPolicy', errors);
  if (policy !== undefined && !classReclaimPolicies.includes(policy)) errors.push(fieldErrors.notSupported('reclaimPolicy', policy, classReclaimPolicies));
  booleanAt(obj.allowVolumeExpansion, 'allowVolumeExpansion', errors);
  const mode = optionalStringAt(obj.volumeBindingMode, 'volumeBindingMode', errors);
  if (mode === undefined) errors.push(fieldErrors.required('volumeBindingMode', ''));
  else if (!volumeBindingModes.includes(mode)) errors.push(fieldErrors.notSupported('volumeBindingMode', mode, volumeBindingModes));
  arrayAt(obj.mountOptions, 'mountOptions', errors).forEach((option, index) => stringAt(option, `mountOptions[${index}]`, errors));
  return errors;
}

export function validateStorageClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  errors.push(...validateStorageClass(obj).filter((error) => !error.field.startsWith('metadata.')));
  if (!jsonEqual(obj.parameters ?? {}, old.parameters ?? {})) errors.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (obj.provisioner !== old.provisioner) errors.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (obj.reclaimPolicy !== old.reclaimPolicy) errors.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (obj.volumeBindingMode !== old.volumeBindingMode) errors.push(immutable('volumeBindingMode', obj.volumeBindingMode));
  return errors;
}
