// Validation for scheduling.k8s.io/v1 PriorityClasses (pkg/apis/scheduling/validation): names with
// the `system-` prefix are reserved for the two built-in classes, user classes stay at or below
// one billion, and value and preemptionPolicy never change.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { booleanAt, immutable, integerAt, optionalStringAt, recordOf } from './fields';
import { nameIsDNSSubdomain } from './names';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

/** scheduling.HighestUserDefinablePriority */
export const highestUserDefinablePriority = 1_000_000_000;
/** scheduling.SystemCriticalPriority */
export const systemCriticalPriority = 2 * highestUserDefinablePriority;
export const systemPriorityClassPrefix = 'system-';

export interface SystemPriorityClass {
  name: string;
  value: number;
  description: string;
}

/** scheduling.SystemPriorityClasses: created at bootstrap, as the upstream scheduling REST's PostStartHook does. */
export const systemPriorityClasses: readonly SystemPriorityClass[] = [
  { name: 'system-node-critical', value: systemCriticalPriority + 1000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: systemCriticalPriority, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
];

const preemptionPolicies = ['Never', 'PreemptLowerPriority'];

/** scheduling.IsKnownSystemPriorityClass: the reason a reserved name does not qualify, or undefined. */
function systemClassProblem(name: string, value: number | undefined, globalDefault: boolean): string | undefined {
  const known = systemPriorityClasses.find((candidate) => candidate.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const name = typeof recordOf(obj.metadata).name === 'string' ? String(recordOf(obj.metadata).name) : '';
  const value = integerAt(obj.value, 'value', errors);
  const globalDefault = booleanAt(obj.globalDefault, 'globalDefault', errors) ?? false;
  optionalStringAt(obj.description, 'description', errors);
  if (name.startsWith(systemPriorityClassPrefix)) {
    const problem = systemClassProblem(name, value ?? 0, globalDefault);
    if (problem) errors.push(fieldErrors.forbidden('metadata.name', `priority class names with '${systemPriorityClassPrefix}' prefix are reserved for system use only. error: ${problem}`));
  } else if ((value ?? 0) > highestUserDefinablePriority) {
    errors.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${highestUserDefinablePriority}`));
  }
  const preemptionPolicy = optionalStringAt(obj.preemptionPolicy, 'preemptionPolicy', errors);
  if (preemptionPolicy !== undefined) {
    if (preemptionPolicy === '') errors.push(fieldErrors.required('preemptionPolicy', ''));
    else if (!preemptionPolicies.includes(preemptionPolicy)) errors.push(fieldErrors.notSupported('preemptionPolicy', preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  return errors;
}

export function validatePriorityClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
  if ((obj.value ?? 0) !== (old.value ?? 0)) errors.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if ((obj.preemptionPolicy ?? null) !== (old.preemptionPolicy ?? null)) errors.push(immutable('preemptionPolicy', obj.preemptionPolicy ?? null));
  return errors;
}
