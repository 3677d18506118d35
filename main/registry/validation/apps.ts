// Validation for apps/v1 kinds as upstream pkg/apis/apps/validation/validation.go plus the
// selector immutability the apps/v1 registry strategies add on update
// (pkg/registry/apps/<kind>/strategy.go): Deployments, ReplicaSets, StatefulSets, DaemonSets
// and ControllerRevisions.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { selectorIsEmpty, selectorMatches } from '../../../shared/kubernetes/labelSelector';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { goValue, immutable, integerAt, intOrStringAt, invalid, invalidStringMap, nonNegative, objectAt, recordOf, stringAt, type FieldRecord } from './fields';
import { isValidPercent, nameIsDNSLabel, nameIsDNSSubdomain } from './names';
import { labelsOf, validateAnnotations, validateLabels, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate, type LabelSelector } from './objectMeta';
import { validatePodTemplateSpec } from './podSpec';
import { validatePersistentVolumeClaimSpec } from './core';

function specOf(obj: KubeObject, errors: FieldError[]): FieldRecord {
  return objectAt(obj.spec, 'spec', errors) ?? {};
}

function templateOf(spec: FieldRecord): FieldRecord {
  return recordOf(spec.template);
}

function restartPolicyOf(template: FieldRecord): string {
  const policy = recordOf(template.spec).restartPolicy;
  return typeof policy === 'string' ? policy : '';
}

/** The selector checks shared by Deployments, ReplicaSets and StatefulSets. */
function validateRequiredSelector(spec: FieldRecord, kind: string, errors: FieldError[]): LabelSelector | undefined {
  if (spec.selector === undefined || spec.selector === null) {
    errors.push(fieldErrors.required('spec.selector', ''));
    return undefined;
  }
  const selector = validateLabelSelector(spec.selector, 'spec.selector', errors);
  if (selector && selectorIsEmpty(selector)) errors.push(invalid('spec.selector', spec.selector, `empty selector is invalid for ${kind}`));
  return selector;
}

function templateMatchError(template: FieldRecord): FieldError {
  return invalidStringMap('spec.template.metadata.labels', labelsOfTemplate(template), '`selector` does not match template `labels`');
}

function labelsOfTemplate(template: FieldRecord): Record<string, string> | null {
  const metadata = recordOf(template.metadata);
  return metadata.labels === undefined || metadata.labels === null ? null : labelsOf(metadata);
}

/** ValidatePodTemplateSpecForReplicaSet */
function validateTemplateForReplicaSet(spec: FieldRecord, selector: LabelSelector | undefined, kind: string, errors: FieldError[]): void {
  const template = templateOf(spec);
  if (selector && !selectorIsEmpty(selector) && !selectorMatches(selector, labelsOf(template.metadata))) errors.push(templateMatchError(template));
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const restartPolicy = restartPolicyOf(template);
  if (restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (recordOf(template.spec).activeDeadlineSeconds !== undefined && recordOf(template.spec).activeDeadlineSeconds !== null) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`));
  }
}

function percentValue(value: number | string | undefined): number | undefined {
  if (typeof value !== 'string' || isValidPercent(value).length > 0) return undefined;
  return Number(value.slice(0, -1));
}

function intOrPercentValue(value: number | string | undefined): number {
  const percent = percentValue(value);
  if (percent !== undefined) return percent;
  return typeof value === 'number' ? value : 0;
}

/** ValidatePositiveIntOrPercent */
function validatePositiveIntOrPercent(value: number | string | undefined, field: string, errors: FieldError[]): void {
  if (typeof value === 'string') for (const message of isValidPercent(value)) errors.push(fieldErrors.invalid(field, value, message));
  else if (typeof value === 'number') nonNegative(value, field, errors);
}

function notMoreThan100Percent(value: number | string | undefined, field: string, errors: FieldError[]): void {
  const percent = percentValue(value);
  if (percent !== undefined && percent > 100) errors.push(fieldErrors.invalid(field, value, 'must not be greater than 100%'));
}

// ---------------------------------------------------------------- deployments

function validateDeploymentStrategy(value: unknown, errors: FieldError[]): void {
  const strategy = objectAt(value, 'spec.strategy', errors) ?? {};
  const type = stringAt(strategy.type, 'spec.strategy.type', errors);
  const rollingUpdate = objectAt(strategy.rollingUpdate, 'spec.strategy.rollingUpdate', errors);
  switch (type) {
    case 'Recreate':
      if (rollingUpdate) errors.push(fieldErrors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"));
      break;
    case 'RollingUpdate': {
      if (!rollingUpdate) {
        errors.push(fieldErrors.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil'));
        break;
      }
      const path = 'spec.strategy.rollingUpdate';
      const maxUnavailable = intOrStringAt(rollingUpdate.maxUnavailable, `${path}.maxUnavailable`, errors);
      const maxSurge = intOrStringAt(rollingUpdate.maxSurge, `${path}.maxSurge`, errors);
      validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`, errors);
      validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`, errors);
      if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
        errors.push(fieldErrors.invalid(`${path}.maxUnavailable`, maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
      notMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`, errors);
      break;
    }
    default:
      errors.push(fieldErrors.notSupported('spec.strategy', goValue(strategy), ['Recreate', 'RollingUpdate']));
  }
}

export function validateDeployment(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = specOf(obj, errors);
  nonNegative(integerAt(spec.replicas, 'spec.replicas', errors), 'spec.replicas', errors);
  const selector = validateRequiredSelector(spec, 'deployment', errors);
  validateTemplateForReplicaSet(spec, selector, 'Deployment', errors);
  validateDeploymentStrategy(spec.strategy, errors);
  const minReadySeconds = integerAt(spec.minReadySeconds, 'spec.minReadySeconds', errors) ?? 0;
  nonNegative(minReadySeconds, 'spec.minReadySeconds', errors);
  nonNegative(integerAt(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', errors), 'spec.revisionHistoryLimit', errors);
  const progressDeadline = integerAt(spec.progressDeadlineSeconds, 'spec.progressDeadlineSeconds', errors);
  if (progressDeadline !== undefined) {
    nonNegative(progressDeadline, 'spec.progressDeadlineSeconds', errors);
    if (progressDeadline <= minReadySeconds) errors.push(fieldErrors.invalid('spec.progressDeadlineSeconds', progressDeadline, 'must be greater than minReadySeconds'));
  }
  return errors;
}

function selectorImmutable(obj: KubeObject, old: KubeObject): FieldError[] {
  const selector = recordOf(obj.spec).selector ?? null;
  const oldSelector = recordOf(old.spec).selector ?? null;
  return jsonEqual(selector, oldSelector) ? [] : [immutable('spec.selector', selector)];
}

function withoutMetadataErrors(errors: FieldError[]): FieldError[] {
  return errors.filter((error) => !error.field.startsWith('metadata.'));
}

export function validateDeploymentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...withoutMetadataErrors(validateDeployment(obj)), ...selectorImmutable(obj, old)];
}

// ---------------------------------------------------------------- replicasets

export function validateReplicaSet(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  const spec = specOf(obj, errors);
  nonNegative(integerAt(spec.replicas, 'spec.replicas', errors), 'spec.replicas', errors);
  nonNegative(integerAt(spec.minReadySeconds, 'spec.minReadySeconds', errors), 'spec.minReadySeconds', errors);
  // Upstream reuses the deployment wording here.
  const selector = validateRequiredSelector(spec, 'deployment', errors);
  validateTemplateForReplicaSet(spec, selector, 'ReplicaSet', errors);
  return errors;
}

export function validateReplicaSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...withoutMetadataErrors(validateReplicaSet(obj)), ...selectorImmutable(obj, old)];
}

// ---------------------------------------------------------------- statefulsets

function validateStatefulSetSpec(spec: FieldRecord, errors: FieldError[]): void {
  const policy = stringAt(spec.podManagementPolicy, 'spec.podManagementPolicy', errors);
  if (policy.length === 0) errors.push(fieldErrors.required('spec.podManagementPolicy', ''));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') errors.push(fieldErrors.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = objectAt(spec.updateStrategy, 'spec.updateStrategy', errors) ?? {};
  const type = stringAt(strategy.type, 'spec.updateStrategy.type', errors);
  const rollingUpdate = objectAt(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate', errors);
  switch (type) {
    case '':
      errors.push(fieldErrors.required('spec.updateStrategy', ''));
      break;
    case 'OnDelete':
      if (rollingUpdate) errors.push(invalid('spec.updateStrategy.rollingUpdate', rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case 'RollingUpdate':
      if (rollingUpdate) {
        const path = 'spec.updateStrategy.rollingUpdate';
        nonNegative(integerAt(rollingUpdate.partition, `${path}.partition`, errors), `${path}.partition`, errors);
        const maxUnavailable = intOrStringAt(rollingUpdate.maxUnavailable, `${path}.maxUnavailable`, errors);
        if (maxUnavailable !== undefined) {
          validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`, errors);
          if (intOrPercentValue(maxUnavailable) === 0) errors.push(fieldErrors.invalid(`${path}.maxUnavailable`, maxUnavailable, 'cannot be 0'));
          notMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`, errors);
        }
      }
      break;
    default:
      errors.push(invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = objectAt(spec.persistentVolumeClaimRetentionPolicy, 'spec.persistentVolumeClaimRetentionPolicy', errors);
  if (retention) {
    for (const key of ['whenDeleted', 'whenScaled']) {
      const value = stringAt(retention[key], `spec.persistentVolumeClaimRetentionPolicy.${key}`, errors);
      if (value !== 'Retain' && value !== 'Delete') errors.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, value, ['Retain', 'Delete']));
    }
  }
  nonNegative(integerAt(spec.replicas, 'spec.replicas', errors), 'spec.replicas', errors);
  nonNegative(integerAt(spec.minReadySeconds, 'spec.minReadySeconds', errors), 'spec.minReadySeconds', errors);
  const ordinals = objectAt(spec.ordinals, 'spec.ordinals', errors);
  if (ordinals) nonNegative(integerAt(ordinals.start, 'spec.ordinals.start', errors), 'spec.ordinals.start', errors);
  const selector = validateRequiredSelector(spec, 'statefulset', errors);
  // ValidatePodTemplateSpecForStatefulSet checks labels and annotations only (upstream TODO).
  const template = templateOf(spec);
  if (selector && !selectorIsEmpty(selector) && !selectorMatches(selector, labelsOf(template.metadata))) errors.push(templateMatchError(template));
  const metadata = recordOf(template.metadata);
  errors.push(...validateLabels(metadata.labels, 'spec.template.labels'));
  errors.push(...validateAnnotations(metadata.annotations, 'spec.template.annotations'));
  const restartPolicy = restartPolicyOf(template);
  if (restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (recordOf(template.spec).activeDeadlineSeconds !== undefined && recordOf(template.spec).activeDeadlineSeconds !== null) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  const claimTemplates = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  claimTemplates.forEach((claim, index) => {
    const path = `spec.volumeClaimTemplates[${index}]`;
    errors.push(...validatePersistentVolumeClaimSpec(recordOf(claim).spec, `${path}.spec`));
  });
}

export function validateStatefulSet(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSLabel });
  validateStatefulSetSpec(specOf(obj, errors), errors);
  return errors;
}

export function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  // The name is not re-validated on update: older servers allowed DNS subdomains.
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validateStatefulSetSpec(recordOf(obj.spec), errors);
  const mutable = ['replicas', 'template', 'updateStrategy', 'minReadySeconds', 'ordinals', 'persistentVolumeClaimRetentionPolicy'];
  const strip = (spec: unknown): FieldRecord => {
    const copy: FieldRecord = { ...recordOf(spec) };
    for (const key of mutable) delete copy[key];
    return copy;
  };
  if (!jsonEqual(strip(obj.spec), strip(old.spec))) {
    errors.push(fieldErrors.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
  }
  return errors;
}

// ---------------------------------------------------------------- daemonsets

function validateDaemonSetSpec(spec: FieldRecord, errors: FieldError[]): void {
  const selector = validateLabelSelector(spec.selector, 'spec.selector', errors);
  const template = templateOf(spec);
  if (selector && !selectorMatches(selector, labelsOf(template.metadata))) errors.push(templateMatchError(template));
  if (selector && selectorIsEmpty(selector)) errors.push(invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'));
  errors.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  const restartPolicy = restartPolicyOf(template);
  if (restartPolicy !== 'Always') errors.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (recordOf(template.spec).activeDeadlineSeconds !== undefined && recordOf(template.spec).activeDeadlineSeconds !== null) {
    errors.push(fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  nonNegative(integerAt(spec.minReadySeconds, 'spec.minReadySeconds', errors), 'spec.minReadySeconds', errors);
  nonNegative(integerAt(spec.templateGeneration, 'spec.templateGeneration', errors), 'spec.templateGeneration', errors);
  const strategy = objectAt(spec.updateStrategy, 'spec.updateStrategy', errors) ?? {};
  const type = stringAt(strategy.type, 'spec.updateStrategy.type', errors);
  if (type === 'RollingUpdate') {
    const rollingUpdate = objectAt(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate', errors);
    if (!rollingUpdate) {
      errors.push(fieldErrors.required('spec.updateStrategy.rollingUpdate', ''));
    } else {
      const path = 'spec.updateStrategy.rollingUpdate';
      const maxUnavailable = intOrStringAt(rollingUpdate.maxUnavailable, `${path}.maxUnavailable`, errors);
      const maxSurge = intOrStringAt(rollingUpdate.maxSurge, `${path}.maxSurge`, errors);
      validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`, errors);
      validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`, errors);
      notMoreThan100Percent(maxUnavailable, `${path}.maxUnavailable`, errors);
      notMoreThan100Percent(maxSurge, `${path}.maxSurge`, errors);
      const hasUnavailable = intOrPercentValue(maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errors.push(fieldErrors.invalid(`${path}.maxSurge`, maxSurge ?? 0, 'may not be set when maxUnavailable is non-zero'));
      if (!hasUnavailable && !hasSurge) errors.push(fieldErrors.required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
    }
  } else if (type !== 'OnDelete') {
    errors.push(fieldErrors.notSupported('spec.updateStrategy', goValue(strategy), ['RollingUpdate', 'OnDelete']));
  }
  nonNegative(integerAt(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit', errors), 'spec.revisionHistoryLimit', errors);
}

export function validateDaemonSet(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  validateDaemonSetSpec(specOf(obj, errors), errors);
  return errors;
}

export function validateDaemonSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  validateDaemonSetSpec(recordOf(obj.spec), errors);
  errors.push(...selectorImmutable(obj, old));
  return errors;
}

// ---------------------------------------------------------------- controllerrevisions

export function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain });
  if (obj.data === undefined || obj.data === null) errors.push(fieldErrors.required('data', 'data is mandatory'));
  nonNegative(integerAt(obj.revision, 'revision', errors), 'revision', errors);
  return errors;
}

export function validateControllerRevisionUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...withoutMetadataErrors(validateControllerRevision(obj))];
  if (!jsonEqual(obj.data ?? null, old.data ?? null)) errors.push(immutable('data', obj.data ?? null));
  return errors;
}
