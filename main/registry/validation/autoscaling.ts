// Validation for autoscaling/v2 HorizontalPodAutoscalers (pkg/apis/autoscaling/validation/
// validation.go): replica bounds, the scale target reference, each metric's source and target,
// and the scaling behavior rules, with upstream's field paths and messages.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { parseQuantity, quantityFormatError } from '../../../shared/kubernetes/quantity';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { integerAt, invalid, objectAt, objectsAt, optionalStringAt, recordOf, stringAt, type FieldRecord } from './fields';
import { nameIsDNSSubdomain } from './names';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

const maxPeriodSeconds = 1800;
const maxStabilizationWindowSeconds = 3600;
const metricSourceTypes = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const sourceFields: Record<string, string> = { ContainerResource: 'containerResource', External: 'external', Object: 'object', Pods: 'pods', Resource: 'resource' };

/** apimachinery path.IsValidPathSegmentName */
function pathSegmentErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errors: string[] = [];
  if (name.includes('/')) errors.push("may not contain '/'");
  if (name.includes('%')) errors.push("may not contain '%'");
  return errors;
}

function validateCrossVersionObjectReference(value: unknown, field: string, errors: FieldError[]): void {
  const ref = objectAt(value, field, errors) ?? {};
  for (const key of ['kind', 'name']) {
    const text = stringAt(ref[key], `${field}.${key}`, errors);
    if (text === '') errors.push(fieldErrors.required(`${field}.${key}`));
    else for (const message of pathSegmentErrors(text)) errors.push(invalid(`${field}.${key}`, text, message));
  }
}

/** A quantity field that must be positive when set; returns whether it is set. */
function positiveQuantity(value: unknown, field: string, errors: FieldError[]): boolean {
  if (value === undefined || value === null) return false;
  const parsed = parseQuantity(value)?.nanos;
  if (parsed === undefined) errors.push(invalid(field, value, quantityFormatError));
  else if (parsed <= 0n) errors.push(invalid(field, value, 'must be positive'));
  return true;
}

function validateMetricTarget(target: FieldRecord, field: string, errors: FieldError[]): { value: boolean; averageValue: boolean; averageUtilization: boolean } {
  const type = stringAt(target.type, `${field}.type`, errors);
  if (type === '') errors.push(fieldErrors.required(`${field}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') errors.push(invalid(`${field}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  const value = positiveQuantity(target.value, `${field}.value`, errors);
  const averageValue = positiveQuantity(target.averageValue, `${field}.averageValue`, errors);
  const utilization = integerAt(target.averageUtilization, `${field}.averageUtilization`, errors);
  if (utilization !== undefined && utilization < 1) errors.push(invalid(`${field}.averageUtilization`, utilization, 'must be greater than 0'));
  return { value, averageValue, averageUtilization: target.averageUtilization !== undefined && target.averageUtilization !== null };
}

function validateMetricIdentifier(value: unknown, field: string, errors: FieldError[]): void {
  const metric = objectAt(value, field, errors) ?? {};
  if (stringAt(metric.name, `${field}.name`, errors) === '') errors.push(fieldErrors.required(`${field}.name`, 'must specify a metric name'));
}

function validateSource(kind: string, source: FieldRecord, field: string, errors: FieldError[]): void {
  if (kind === 'Object') validateCrossVersionObjectReference(source.describedObject, `${field}.describedObject`, errors);
  if (kind === 'Object' || kind === 'Pods' || kind === 'External') validateMetricIdentifier(source.metric, `${field}.metric`, errors);
  if (kind === 'Resource' || kind === 'ContainerResource') {
    if (stringAt(source.name, `${field}.name`, errors) === '') errors.push(fieldErrors.required(`${field}.name`, 'must specify a resource name'));
  }
  if (kind === 'ContainerResource' && stringAt(source.container, `${field}.container`, errors) === '') {
    errors.push(fieldErrors.required(`${field}.container`, 'must specify a container'));
  }
  const set = validateMetricTarget(objectAt(source.target, `${field}.target`, errors) ?? {}, `${field}.target`, errors);
  switch (kind) {
    case 'Resource':
    case 'ContainerResource':
      if (!set.averageUtilization && !set.averageValue) errors.push(fieldErrors.required(`${field}.target.averageUtilization`, 'must set either a target raw value or a target utilization'));
      if (set.averageUtilization && set.averageValue) errors.push(fieldErrors.forbidden(`${field}.target.averageValue`, 'may not set both a target raw value and a target utilization'));
      break;
    case 'Pods':
      if (!set.averageValue) errors.push(fieldErrors.required(`${field}.target.averageValue`, 'must specify a positive target averageValue'));
      break;
    case 'Object':
      if (!set.value && !set.averageValue) errors.push(fieldErrors.required(`${field}.target.averageValue`, 'must set either a target value or averageValue'));
      break;
    case 'External':
      if (!set.value && !set.averageValue) errors.push(fieldErrors.required(`${field}.target.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (set.value && set.averageValue) errors.push(fieldErrors.forbidden(`${field}.target.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
  }
}

function validateMetricSpec(spec: FieldRecord, field: string, errors: FieldError[]): void {
  const type = stringAt(spec.type, `${field}.type`, errors);
  if (type === '') errors.push(fieldErrors.required(`${field}.type`, 'must specify a metric source type'));
  if (!metricSourceTypes.includes(type)) errors.push(fieldErrors.notSupported(`${field}.type`, type, metricSourceTypes));
  const present = Object.entries(sourceFields).filter(([, key]) => spec[key] !== undefined && spec[key] !== null);
  // upstream validates only the first source it finds and forbids the others
  if (present.length > 0) {
    const [kind, key] = present[0];
    const source = objectAt(spec[key], `${field}.${key}`, errors);
    if (source) validateSource(kind, source, `${field}.${key}`, errors);
  }
  const expected = sourceFields[type];
  if (expected && !present.some(([, key]) => key === expected)) errors.push(fieldErrors.required(`${field}.${expected}`, 'must populate information for the given metric source'));
  if (present.length > 1) {
    for (const [, key] of present) if (key !== expected) errors.push(fieldErrors.forbidden(`${field}.${key}`, 'must populate the given metric source only'));
  }
}

function validateScalingRules(value: unknown, field: string, errors: FieldError[]): void {
  const rules = objectAt(value, field, errors);
  if (!rules) return;
  const window = integerAt(rules.stabilizationWindowSeconds, `${field}.stabilizationWindowSeconds`, errors);
  if (window !== undefined && window < 0) errors.push(invalid(`${field}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (window !== undefined && window > maxStabilizationWindowSeconds) errors.push(invalid(`${field}.stabilizationWindowSeconds`, window, `must be less than or equal to ${maxStabilizationWindowSeconds}`));
  const selectPolicy = optionalStringAt(rules.selectPolicy, `${field}.selectPolicy`, errors);
  if (selectPolicy !== undefined && !['Disabled', 'Max', 'Min'].includes(selectPolicy)) errors.push(fieldErrors.notSupported(`${field}.selectPolicy`, selectPolicy, ['Disabled', 'Max', 'Min']));
  const policies = objectsAt(rules.policies, `${field}.policies`, errors);
  if (policies.length === 0) errors.push(fieldErrors.required(`${field}.policies`, 'must specify at least one Policy'));
  for (const { item, path } of policies) {
    const type = stringAt(item.type, `${path}.type`, errors);
    if (type !== 'Pods' && type !== 'Percent') errors.push(fieldErrors.notSupported(`${path}.type`, type, ['Percent', 'Pods']));
    const amount = integerAt(item.value, `${path}.value`, errors) ?? 0;
    if (amount <= 0) errors.push(invalid(`${path}.value`, amount, 'must be greater than zero'));
    const period = integerAt(item.periodSeconds, `${path}.periodSeconds`, errors) ?? 0;
    if (period <= 0) errors.push(invalid(`${path}.periodSeconds`, period, 'must be greater than zero'));
    if (period > maxPeriodSeconds) errors.push(invalid(`${path}.periodSeconds`, period, `must be less than or equal to ${maxPeriodSeconds}`));
  }
}

function validateSpec(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const spec = objectAt(value, 'spec', errors) ?? {};
  const minReplicas = integerAt(spec.minReplicas, 'spec.minReplicas', errors);
  const maxReplicas = integerAt(spec.maxReplicas, 'spec.maxReplicas', errors) ?? 0;
  if (minReplicas !== undefined && minReplicas < 1) errors.push(invalid('spec.minReplicas', minReplicas, 'must be greater than or equal to 1'));
  if (maxReplicas < 1) errors.push(invalid('spec.maxReplicas', maxReplicas, 'must be greater than 0'));
  if (minReplicas !== undefined && maxReplicas < minReplicas) errors.push(invalid('spec.maxReplicas', maxReplicas, 'must be greater than or equal to `minReplicas`'));
  validateCrossVersionObjectReference(spec.scaleTargetRef, 'spec.scaleTargetRef', errors);
  for (const { item, path } of objectsAt(spec.metrics, 'spec.metrics', errors)) validateMetricSpec(item, path, errors);
  const behavior = objectAt(spec.behavior, 'spec.behavior', errors);
  if (behavior) {
    validateScalingRules(behavior.scaleUp, 'spec.behavior.scaleUp', errors);
    validateScalingRules(behavior.scaleDown, 'spec.behavior.scaleDown', errors);
  }
  return errors;
}

function validateStatus(value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const status = recordOf(value);
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const count = integerAt(status[key], `status.${key}`, errors);
    if (count !== undefined && count < 0) errors.push(invalid(`status.${key}`, count, 'must be greater than or equal to 0'));
  }
  return errors;
}

export function validateHorizontalPodAutoscaler(obj: KubeObject): FieldError[] {
  return [...validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: nameIsDNSSubdomain }), ...validateSpec(obj.spec), ...validateStatus(obj.status)];
}

export function validateHorizontalPodAutoscalerUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateSpec(obj.spec), ...validateStatus(obj.status)];
}
