// Shape helpers and extra field-error constructors shared by the validators. Bodies arrive as
// parsed JSON of any shape, so every read narrows `unknown` and reports (never throws) when a
// value has the wrong kind. Error texts follow apimachinery pkg/util/validation/field/errors.go.
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';

export type FieldRecord = Record<string, unknown>;

/** field.NotFound */
export function notFound(field: string, value: unknown): FieldError {
  return fieldErrors.notFound(field, value);
}

/** field.TooMany */
export function tooMany(field: string, actual: number, maximum: number): FieldError {
  return { type: 'FieldValueTooMany', field, badValue: actual, detail: `Too many: ${actual}: must have at most ${maximum} ${maximum === 1 ? 'item' : 'items'}` };
}

/** ValidateImmutableField */
export function immutable(field: string, value: unknown): FieldError {
  return fieldErrors.invalid(field, goValue(value), 'field is immutable');
}

/** Go's json.Marshal sorts map keys; rebuild objects with sorted keys so bad values print the same. */
export function goValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(goValue);
  if (isRecord(value)) {
    const sorted: FieldRecord = {};
    for (const key of Object.keys(value).sort()) sorted[key] = goValue(value[key]);
    return sorted;
  }
  return value === undefined ? null : value;
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return fieldErrors.invalid(field, goValue(value), detail);
}

export function nonNegative(value: number | undefined, field: string, errors: FieldError[]): void {
  if (value !== undefined && value < 0) errors.push(fieldErrors.invalid(field, value, 'must be greater than or equal to 0'));
}

/** An optional object: absent or null gives undefined; any other non-object is reported. */
export function objectAt(value: unknown, field: string, errors: FieldError[]): FieldRecord | undefined {
  if (value === undefined || value === null) return undefined;
  if (isRecord(value)) return value;
  errors.push(invalid(field, value, 'must be an object'));
  return undefined;
}

export function arrayAt(value: unknown, field: string, errors: FieldError[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  errors.push(invalid(field, value, 'must be an array'));
  return [];
}

export function stringAt(value: unknown, field: string, errors: FieldError[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  errors.push(invalid(field, value, 'must be a string'));
  return '';
}

export function optionalStringAt(value: unknown, field: string, errors: FieldError[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  errors.push(invalid(field, value, 'must be a string'));
  return undefined;
}

export function integerAt(value: unknown, field: string, errors: FieldError[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  errors.push(invalid(field, value, 'must be an integer'));
  return undefined;
}

export function booleanAt(value: unknown, field: string, errors: FieldError[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  errors.push(invalid(field, value, 'must be a boolean'));
  return undefined;
}

/** A map[string]string such as labels, selectors and configmap data. */
export function stringMapAt(value: unknown, field: string, errors: FieldError[]): Record<string, string> {
  const record = objectAt(value, field, errors);
  const result: Record<string, string> = {};
  if (!record) return result;
  for (const [key, item] of Object.entries(record)) {
    if (typeof item === 'string') result[key] = item;
    else errors.push(invalid(`${field}[${key}]`, item, 'must be a string'));
  }
  return result;
}

/** Objects in a list; non-object entries are reported and skipped. */
export function objectsAt(value: unknown, field: string, errors: FieldError[]): Array<{ item: FieldRecord; index: number; path: string }> {
  const result: Array<{ item: FieldRecord; index: number; path: string }> = [];
  arrayAt(value, field, errors).forEach((entry, index) => {
    const path = `${field}[${index}]`;
    const item = objectAt(entry, path, errors);
    if (item) result.push({ item, index, path });
    else if (entry === null || entry === undefined) errors.push(invalid(path, null, 'must be an object'));
  });
  return result;
}

/** A string-valued IntOrString as its two cases. */
export function intOrStringAt(value: unknown, field: string, errors: FieldError[]): number | string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))) return value;
  errors.push(invalid(field, value, 'must be an integer or a string'));
  return undefined;
}

export function recordOf(value: unknown): FieldRecord {
  return isRecord(value) ? value : {};
}

/**
 * field.Invalid with a map[string]string bad value (template labels, selectors), which upstream
 * prints with Go's %#v: `map[string]string{"app":"web", "tier":"front"}`, keys sorted, or
 * `map[string]string(nil)` when absent.
 */
export function invalidStringMap(field: string, value: Record<string, string> | null, detail: string): FieldError {
  const text = value === null ? 'map[string]string(nil)' : `map[string]string{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${JSON.stringify(value[key])}`).join(', ')}}`;
  return { type: 'FieldValueInvalid', field, badValue: value, detail: `Invalid value: ${text}: ${detail}` };
}
