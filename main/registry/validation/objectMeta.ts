// ObjectMeta validation as apimachinery pkg/api/validation/objectmeta.go plus the core additions
// (validateKubeFinalizerName): name / generateName rules per kind, namespace required or
// forbidden, labels, annotations (256 KiB in total), ownerReferences, finalizers, and the
// immutable metadata on update. Also label selectors (meta/v1/validation).
import { jsonEqual } from '../../../shared/kubernetes/json';
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { arrayAt, booleanAt, immutable, integerAt, invalid, objectAt, objectsAt, stringAt, stringMapAt, type FieldRecord } from './fields';
import { byteLength, isQualifiedName, isValidLabelValue, nameIsDNSLabel, type NameValidator } from './names';

export const totalAnnotationSizeLimit = 256 * 1024;

export interface ObjectMetaOptions {
  /** true for namespaced kinds (namespace required), false for cluster-scoped ones (namespace forbidden). */
  namespaced: boolean;
  nameValidator: NameValidator;
}

export function validateLabels(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const labels = stringMapAt(value, field, errors);
  for (const key of Object.keys(labels).sort()) {
    errors.push(...validateLabelName(key, field));
    for (const message of isValidLabelValue(labels[key])) errors.push(fieldErrors.invalid(field, labels[key], message));
  }
  return errors;
}

export function validateLabelName(key: string, field: string): FieldError[] {
  return isQualifiedName(key).map((message) => fieldErrors.invalid(field, key, message));
}

export function validateQualifiedName(value: string, field: string): FieldError[] {
  return isQualifiedName(value).map((message) => fieldErrors.invalid(field, value, message));
}

export function validateAnnotations(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const annotations = stringMapAt(value, field, errors);
  let totalSize = 0;
  for (const key of Object.keys(annotations).sort()) {
    // The rule is a qualified name except that case does not matter.
    for (const message of isQualifiedName(key.toLowerCase())) errors.push(fieldErrors.invalid(field, key, message));
    totalSize += byteLength(key) + byteLength(annotations[key]);
  }
  if (totalSize > totalAnnotationSizeLimit) errors.push(fieldErrors.tooLong(field, totalAnnotationSizeLimit));
  return errors;
}

const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/** validateFinalizerName + validateKubeFinalizerName */
export function validateFinalizerName(value: string, field: string): FieldError[] {
  const errors = validateQualifiedName(value, field);
  if (!value.includes('/') && !standardFinalizers.has(value)) {
    errors.push(fieldErrors.invalid(field, value, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
  return errors;
}

function validateFinalizers(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const finalizers = arrayAt(value, field, errors).map((item, index) => stringAt(item, `${field}[${index}]`, errors));
  for (const finalizer of finalizers) errors.push(...validateQualifiedName(finalizer, field));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errors.push(invalid(field, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  finalizers.forEach((finalizer, index) => {
    if (!finalizer.includes('/') && !standardFinalizers.has(finalizer)) {
      errors.push(fieldErrors.invalid(`${field}[${index}]`, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errors;
}

function validateOwnerReferences(value: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  let firstController = '';
  for (const { item } of objectsAt(value, field, errors)) {
    const apiVersion = stringAt(item.apiVersion, `${field}.apiVersion`, errors);
    const kind = stringAt(item.kind, `${field}.kind`, errors);
    const name = stringAt(item.name, `${field}.name`, errors);
    const uid = stringAt(item.uid, `${field}.uid`, errors);
    const version = apiVersion.includes('/') ? apiVersion.split('/').slice(1).join('/') : apiVersion;
    const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
    if (version.length === 0) errors.push(fieldErrors.invalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind.length === 0) errors.push(fieldErrors.invalid(`${field}.kind`, kind, 'must not be empty'));
    if (name.length === 0) errors.push(fieldErrors.invalid(`${field}.name`, name, 'must not be empty'));
    if (uid.length === 0) errors.push(fieldErrors.invalid(`${field}.uid`, uid, 'must not be empty'));
    if (group === '' && version === 'v1' && kind === 'Event') {
      errors.push(invalid(field, item, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (booleanAt(item.controller, `${field}.controller`, errors) === true) {
      const current = `${kind}/${name}`;
      if (firstController !== '') {
        errors.push(invalid(field, value, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      } else {
        firstController = current;
      }
    }
  }
  return errors;
}

function metadataOf(value: unknown, errors: FieldError[]): FieldRecord {
  if (value === undefined || value === null) return {};
  if (isRecord(value)) return value;
  errors.push(invalid('metadata', value, 'must be an object'));
  return {};
}

/** The checks shared by create and update (validateObjectMetaAccessorWithOptsCommon minus name). */
function validateCommon(meta: FieldRecord, field: string, errors: FieldError[]): void {
  const generation = integerAt(meta.generation, `${field}.generation`, errors);
  if (generation !== undefined && generation < 0) errors.push(fieldErrors.invalid(`${field}.generation`, generation, 'must be greater than or equal to 0'));
  errors.push(...validateLabels(meta.labels, `${field}.labels`));
  errors.push(...validateAnnotations(meta.annotations, `${field}.annotations`));
  errors.push(...validateOwnerReferences(meta.ownerReferences, `${field}.ownerReferences`));
  errors.push(...validateFinalizers(meta.finalizers, `${field}.finalizers`));
}

/** ValidateObjectMeta for create; name generation has already happened. */
export function validateObjectMeta(metadata: unknown, options: ObjectMetaOptions, field = 'metadata'): FieldError[] {
  const errors: FieldError[] = [];
  const meta = metadataOf(metadata, errors);
  const name = stringAt(meta.name, `${field}.name`, errors);
  const generateName = stringAt(meta.generateName, `${field}.generateName`, errors);
  const namespace = stringAt(meta.namespace, `${field}.namespace`, errors);
  if (generateName.length > 0) {
    for (const message of options.nameValidator(generateName, true)) errors.push(fieldErrors.invalid(`${field}.generateName`, generateName, message));
  }
  if (name.length === 0) {
    errors.push(fieldErrors.required(`${field}.name`, 'name or generateName is required'));
  } else {
    for (const message of options.nameValidator(name, false)) errors.push(fieldErrors.invalid(`${field}.name`, name, message));
  }
  if (options.namespaced) {
    if (namespace.length === 0) errors.push(fieldErrors.required(`${field}.namespace`, ''));
    else for (const message of nameIsDNSLabel(namespace, false)) errors.push(fieldErrors.invalid(`${field}.namespace`, namespace, message));
  } else if (namespace.length > 0) {
    errors.push(fieldErrors.forbidden(`${field}.namespace`, 'not allowed on this type'));
  }
  validateCommon(meta, field, errors);
  return errors;
}

/** ValidateObjectMetaUpdate: identity and timestamps are immutable; finalizers cannot be added while deleting. */
export function validateObjectMetaUpdate(metadata: unknown, oldMetadata: unknown, field = 'metadata'): FieldError[] {
  const errors: FieldError[] = [];
  const meta = metadataOf(metadata, errors);
  const old = isRecord(oldMetadata) ? oldMetadata : {};
  if (old.deletionTimestamp) {
    const oldFinalizers = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).filter((item) => !oldFinalizers.has(item)).map(String).sort();
    if (added.length > 0) {
      errors.push(fieldErrors.forbidden(`${field}.finalizers`, `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((item) => JSON.stringify(item)).join(', ')}}`));
    }
  }
  const resourceVersion = meta.resourceVersion;
  if (resourceVersion === undefined || resourceVersion === null || resourceVersion === '') {
    errors.push(fieldErrors.invalid(`${field}.resourceVersion`, '', 'must be specified for an update'));
  }
  const generation = typeof meta.generation === 'number' ? meta.generation : 0;
  const oldGeneration = typeof old.generation === 'number' ? old.generation : 0;
  if (generation < oldGeneration) errors.push(fieldErrors.invalid(`${field}.generation`, generation, 'must not be decremented'));
  // rest.BeforeUpdate copies uid (when omitted), creationTimestamp and an existing deletion
  // timestamp/grace period from the stored object before validation; mirror that here so a
  // `kubectl replace` of a manifest without them passes as it does upstream.
  for (const key of ['name', 'namespace']) {
    const current = meta[key] ?? '';
    const previous = old[key] ?? '';
    if (!jsonEqual(current, previous)) errors.push(immutable(`${field}.${key}`, current));
  }
  if (meta.uid !== undefined && meta.uid !== null && meta.uid !== '' && !jsonEqual(meta.uid, old.uid ?? '')) {
    errors.push(immutable(`${field}.uid`, meta.uid));
  }
  for (const key of ['deletionTimestamp', 'deletionGracePeriodSeconds']) {
    const previous = old[key] ?? null;
    const current = meta[key] ?? null;
    if (previous === null && current !== null) errors.push(immutable(`${field}.${key}`, current));
  }
  errors.push(...validateLabels(meta.labels, `${field}.labels`));
  errors.push(...validateAnnotations(meta.annotations, `${field}.annotations`));
  errors.push(...validateOwnerReferences(meta.ownerReferences, `${field}.ownerReferences`));
  const finalizers = arrayAt(meta.finalizers, `${field}.finalizers`, errors);
  finalizers.forEach((item, index) => {
    if (typeof item === 'string' && !item.includes('/') && !standardFinalizers.has(item)) {
      errors.push(fieldErrors.invalid(`${field}.finalizers[${index}]`, item, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return errors;
}

/** A parsed metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels: Record<string, string>;
  matchExpressions: Array<{ key: string; operator: string; values: string[] }>;
}

/** ValidateLabelSelector (strict: unknown operators and bad values are errors). Returns the parsed selector too. */
export function validateLabelSelector(value: unknown, field: string, errors: FieldError[]): LabelSelector | undefined {
  const record = objectAt(value, field, errors);
  if (!record) return undefined;
  const matchLabels = stringMapAt(record.matchLabels, `${field}.matchLabels`, errors);
  errors.push(...validateLabels(matchLabels, `${field}.matchLabels`));
  const matchExpressions: LabelSelector['matchExpressions'] = [];
  for (const { item, path } of objectsAt(record.matchExpressions, `${field}.matchExpressions`, errors)) {
    const key = stringAt(item.key, `${path}.key`, errors);
    const operator = stringAt(item.operator, `${path}.operator`, errors);
    const values = arrayAt(item.values, `${path}.values`, errors).map((entry, index) => stringAt(entry, `${path}.values[${index}]`, errors));
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errors.push(fieldErrors.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errors.push(fieldErrors.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errors.push(fieldErrors.invalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    errors.push(...validateLabelName(key, `${path}.key`));
    values.forEach((entry, index) => {
      for (const message of isValidLabelValue(entry)) errors.push(fieldErrors.invalid(`${path}.values[${index}]`, entry, message));
    });
    matchExpressions.push({ key, operator, values });
  }
  return { matchLabels, matchExpressions };
}

/** Labels of a (pod) template's metadata as a plain map, ignoring shape errors reported elsewhere. */
export function labelsOf(metadata: unknown): Record<string, string> {
  const labels = isRecord(metadata) && isRecord(metadata.labels) ? metadata.labels : {};
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) if (typeof value === 'string') result[key] = value;
  return result;
}
