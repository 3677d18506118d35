// x-kubernetes-validations of a custom resource: walks the object along its schema and evaluates
// each rule with `self` (and `oldSelf` for transition rules, only on updates where the old value
// exists), as apiextensions-apiserver pkg/apiserver/schema/cel/validation.go. Failures are
// `<path>: Invalid value: "<schema type>": <message | failed rule: <rule>>`; a rule outside the
// evaluator's subset (see cel.ts) is reported as such rather than skipped silently.
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../../registry/fieldErrors';
import { CelEvaluationError, CelUnsupportedError, evaluateRule, isTransitionRule } from './cel';
import { flag, schemaAdditionalProperties, schemaItems, schemaProperties, schemaType, type JsonSchema } from '../../registry/validation/jsonSchema';

interface Rule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

function rulesOf(schema: JsonSchema): Rule[] {
  const list = schema['x-kubernetes-validations'];
  if (!Array.isArray(list)) return [];
  const rules: Rule[] = [];
  for (const entry of list) {
    if (!isRecord(entry) || typeof entry.rule !== 'string') continue;
    rules.push({
      rule: entry.rule,
      message: typeof entry.message === 'string' && entry.message !== '' ? entry.message : undefined,
      messageExpression: typeof entry.messageExpression === 'string' && entry.messageExpression !== '' ? entry.messageExpression : undefined,
      fieldPath: typeof entry.fieldPath === 'string' && entry.fieldPath !== '' ? entry.fieldPath : undefined,
      reason: typeof entry.reason === 'string' ? entry.reason : undefined,
    });
  }
  return rules;
}

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function typeLabel(schema: JsonSchema): string {
  if (flag(schema, 'x-kubernetes-int-or-string')) return 'string';
  return schemaType(schema) || 'object';
}

/** Evaluates every rule of the schema tree against `value` (and `old` for transition rules). */
export function validateRules(value: unknown, schema: JsonSchema | undefined, old: unknown, hasOld: boolean, path = ''): FieldError[] {
  const errors: FieldError[] = [];
  if (schema) walk(value, schema, old, hasOld, path, errors);
  return errors;
}

function walk(value: unknown, schema: JsonSchema, old: unknown, hasOld: boolean, path: string, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  for (const rule of rulesOf(schema)) evaluateOne(rule, value, schema, old, hasOld, path, errors);
  if (Array.isArray(value)) {
    const items = schemaItems(schema);
    // Items correlate with old items only in map lists upstream; kubedesk correlates none.
    if (items) value.forEach((item, index) => walk(item, items, undefined, false, `${path}[${index}]`, errors));
    return;
  }
  if (!isRecord(value)) return;
  const properties = schemaProperties(schema);
  const additional = schemaAdditionalProperties(schema);
  const oldRecord = hasOld && isRecord(old) ? old : undefined;
  for (const [key, child] of Object.entries(value)) {
    const property = properties && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : additional;
    if (!property) continue;
    const childHasOld = oldRecord !== undefined && Object.prototype.hasOwnProperty.call(oldRecord, key);
    walk(child, property, childHasOld ? oldRecord[key] : undefined, childHasOld, joinPath(path, key), errors);
  }
}

function evaluateOne(rule: Rule, value: unknown, schema: JsonSchema, old: unknown, hasOld: boolean, path: string, errors: FieldError[]): void {
  const transition = isTransitionRule(rule.rule);
  if (transition && !hasOld) return;
  const variables: Record<string, unknown> = { self: value };
  if (transition) variables.oldSelf = old;
  const target = rule.fieldPath ? path + (rule.fieldPath.startsWith('.') || rule.fieldPath.startsWith('[') ? rule.fieldPath : `.${rule.fieldPath}`) : path;
  const field = target.startsWith('.') ? target.slice(1) : target;
  const type = typeLabel(schema);
  let result: unknown;
  try {
    result = evaluateRule(rule.rule, variables);
  } catch (error) {
    if (error instanceof CelUnsupportedError) {
      errors.push(fieldErrors.invalid(path, type, `kubedesk cannot evaluate this x-kubernetes-validations rule (unsupported CEL: ${error.message}): ${rule.rule}`));
      return;
    }
    if (error instanceof CelEvaluationError) {
      errors.push(fieldErrors.invalid(path, type, `${error.message} evaluating rule: ${rule.rule}`));
      return;
    }
    throw error;
  }
  if (result === true) return;
  if (typeof result !== 'boolean') {
    errors.push(fieldErrors.invalid(path, type, `rule did not evaluate to a bool: ${rule.rule}`));
    return;
  }
  let message = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression) {
    try {
      const computed = evaluateRule(rule.messageExpression, variables);
      if (typeof computed === 'string' && computed.trim() !== '') message = computed;
    } catch {
      // Upstream falls back to message (or the rule) when messageExpression fails.
    }
  }
  switch (rule.reason) {
    case 'FieldValueForbidden':
      errors.push(fieldErrors.forbidden(field, message));
      return;
    case 'FieldValueRequired':
      errors.push(fieldErrors.required(field, message));
      return;
    case 'FieldValueDuplicate':
      errors.push({ type: 'FieldValueDuplicate', field, badValue: type, detail: `Duplicate value: ${JSON.stringify(type)}: ${message}` });
      return;
    default:
      errors.push(fieldErrors.invalid(field, type, message));
  }
}
