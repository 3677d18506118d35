// Validation for node.k8s.io/v1 RuntimeClasses (pkg/apis/node/validation): the handler is a DNS
// label and immutable, overhead is a list of non-negative resources, scheduling holds a node
// selector and tolerations.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { immutable, integerAt, objectAt, objectsAt, optionalStringAt, stringAt, stringMapAt } from './fields';
import { isQualifiedName, nameIsDNSLabel, nameIsDNSSubdomain } from './names';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';
import { resourceListAt, validateResourceName, validateResourceQuantity } from './podSpec';

const tolerationOperators = ['Equal', 'Exists'];
const taintEffects = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

export function validateRuntimeClass(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const handler = stringAt(obj.handler, 'handler', errors);
  for (const message of nameIsDNSLabel(handler, false)) errors.push(fieldErrors.invalid('handler', handler, message));
  const overhead = objectAt(obj.overhead, 'overhead', errors);
  if (overhead) {
    for (const [name, { quantity, text }] of resourceListAt(overhead.podFixed, 'overhead.podFixed', errors)) {
      const path = `overhead.podFixed[${name}]`;
      errors.push(...validateResourceName(name, path));
      validateResourceQuantity(name, quantity, text, path, errors);
    }
  }
  const scheduling = objectAt(obj.scheduling, 'scheduling', errors);
  if (scheduling) {
    errors.push(...validateLabels(stringMapAt(scheduling.nodeSelector, 'scheduling.nodeSelector', errors), 'scheduling.nodeSelector'));
    validateTolerations(scheduling.tolerations, 'scheduling.tolerations', errors);
  }
  return errors;
}

/** ValidateTolerations plus the RuntimeClass rule that tolerations are unique. */
function validateTolerations(value: unknown, field: string, errors: FieldError[]): void {
  const seen = new Set<string>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const key = optionalStringAt(item.key, `${path}.key`, errors) ?? '';
    const operator = optionalStringAt(item.operator, `${path}.operator`, errors) ?? 'Equal';
    const tolerationValue = optionalStringAt(item.value, `${path}.value`, errors) ?? '';
    const effect = optionalStringAt(item.effect, `${path}.effect`, errors) ?? '';
    const seconds = integerAt(item.tolerationSeconds, `${path}.tolerationSeconds`, errors);
    if (key !== '') for (const message of isQualifiedName(key)) errors.push(fieldErrors.invalid(`${path}.key`, key, message));
    if (key === '' && operator !== 'Exists') errors.push(fieldErrors.invalid(`${path}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (seconds !== undefined && effect !== 'NoExecute') errors.push(fieldErrors.invalid(`${path}.effect`, effect, 'effect must be \'NoExecute\' when `tolerationSeconds` is set'));
    if (!tolerationOperators.includes(operator)) errors.push(fieldErrors.notSupported(`${path}.operator`, operator, tolerationOperators));
    else if (operator === 'Exists' && tolerationValue !== '') errors.push(fieldErrors.invalid(`${path}.operator`, tolerationValue, 'value must be empty when `operator` is \'Exists\''));
    if (effect !== '' && !taintEffects.includes(effect)) errors.push(fieldErrors.notSupported(`${path}.effect`, effect, taintEffects));
    const identity = JSON.stringify([key, operator, tolerationValue, effect, seconds ?? null]);
    if (seen.has(identity)) errors.push(fieldErrors.duplicate(path, item));
    seen.add(identity);
  }
}

export function validateRuntimeClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateRuntimeClass(obj).filter((error) => !error.field.startsWith('metadata.'))];
  if ((obj.handler ?? '') !== (old.handler ?? '')) errors.push(immutable('handler', obj.handler ?? ''));
  return errors;
}
