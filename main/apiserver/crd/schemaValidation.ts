// Validation of a custom resource against its structural openAPIV3Schema, with the field paths and
// messages of kube-openapi's validator as apiextensions-apiserver converts them to field errors
// (pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors), e.g.
// `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`.
// Covered: type (with nullable, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
// x-kubernetes-embedded-resource), required, enum, minimum/maximum (exclusive too), multipleOf,
// minLength/maxLength, pattern, common formats, minItems/maxItems, x-kubernetes-list-type set/map
// uniqueness, minProperties/maxProperties, additionalProperties, allOf/anyOf/oneOf/not.
import { jsonEqual } from '../../../shared/kubernetes/json';
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../../registry/fieldErrors';
import { isDNS1123Subdomain, isIPv4, isIPv6, cidrErrors } from '../../registry/validation/names';
import { flag, jsonTypeName, numberField, schemaAdditionalProperties, schemaItems, schemaList, schemaProperties, schemaType, stringList, type JsonSchema } from '../../registry/validation/jsonSchema';

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function typeInvalid(path: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field: path, badValue: value, detail: `Invalid value: ${JSON.stringify(value)}: ${detail}` };
}

function named(path: string): string {
  return path === '' ? '.' : path;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

const formatCheckers: Record<string, (value: string) => boolean> = {
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)),
  datetime: (value) => formatCheckers['date-time'](value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
  byte: (value) => /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0,
  uuid: (value) => /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(value),
  email: (value) => /^[^@\s]+@[^@\s]+$/.test(value),
  hostname: (value) => isDNS1123Subdomain(value).length === 0,
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: (value) => cidrErrors(value).length === 0,
  mac: (value) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(value),
  uri: (value) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value),
  duration: (value) => /^(-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+|0)$/.test(value),
};

/** Validate `value` at `path` against `schema`, appending field errors. */
export function validateValue(value: unknown, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const name = named(path);
  if (value === null || value === undefined) {
    if (flag(schema, 'nullable')) return;
    const type = schemaType(schema);
    if (type !== '' || flag(schema, 'x-kubernetes-int-or-string')) {
      errors.push(typeInvalid(path, 'null', `${name} in body must be of type ${type || 'integer,string'}: "null"`));
    }
    return;
  }
  if (flag(schema, 'x-kubernetes-int-or-string')) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errors.push(typeInvalid(path, jsonTypeName(value), `${name} in body must be of type integer,string: "${jsonTypeName(value)}"`));
      return;
    }
  } else {
    const type = schemaType(schema);
    if (type !== '' && !typeMatches(type, value)) {
      errors.push(typeInvalid(path, jsonTypeName(value), `${name} in body must be of type ${type}: "${jsonTypeName(value)}"`));
      return;
    }
  }

  const enumValues = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (enumValues && !enumValues.some((candidate) => jsonEqual(candidate, value))) {
    const supported = enumValues.map((candidate) => (typeof candidate === 'string' ? candidate : JSON.stringify(candidate)));
    errors.push(fieldErrors.notSupported(path, value, supported));
  }

  if (typeof value === 'number') validateNumber(value, schema, path, errors);
  if (typeof value === 'string') validateString(value, schema, path, errors);
  if (Array.isArray(value)) validateArray(value, schema, path, errors);
  if (isRecord(value)) validateObject(value, schema, path, errors);

  for (const part of schemaList(schema.allOf)) validateValue(value, part, path, errors);
  const anyOf = schemaList(schema.anyOf);
  if (anyOf.length > 0 && !anyOf.some((part) => passes(value, part, path))) {
    errors.push(fieldErrors.invalid(path, value, `${name} in body must validate at least one schema (anyOf)`));
  }
  const oneOf = schemaList(schema.oneOf);
  if (oneOf.length > 0 && oneOf.filter((part) => passes(value, part, path)).length !== 1) {
    errors.push(fieldErrors.invalid(path, value, `${name} in body must validate one and only one schema (oneOf)`));
  }
  if (isRecord(schema.not) && passes(value, schema.not, path)) {
    errors.push(fieldErrors.invalid(path, value, `${name} in body must not validate the schema (not)`));
  }
}

function passes(value: unknown, schema: JsonSchema, path: string): boolean {
  const errors: FieldError[] = [];
  validateValue(value, schema, path, errors);
  return errors.length === 0;
}

function validateNumber(value: number, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const name = named(path);
  const maximum = numberField(schema, 'maximum');
  if (maximum !== undefined) {
    if (flag(schema, 'exclusiveMaximum') ? value >= maximum : value > maximum) {
      errors.push(fieldErrors.invalid(path, value, `${name} in body should be less than ${flag(schema, 'exclusiveMaximum') ? '' : 'or equal to '}${maximum}`));
    }
  }
  const minimum = numberField(schema, 'minimum');
  if (minimum !== undefined) {
    if (flag(schema, 'exclusiveMinimum') ? value <= minimum : value < minimum) {
      errors.push(fieldErrors.invalid(path, value, `${name} in body should be greater than ${flag(schema, 'exclusiveMinimum') ? '' : 'or equal to '}${minimum}`));
    }
  }
  const multipleOf = numberField(schema, 'multipleOf');
  if (multipleOf !== undefined && multipleOf > 0 && Math.abs(value / multipleOf - Math.round(value / multipleOf)) > 1e-9) {
    errors.push(fieldErrors.invalid(path, value, `${name} in body should be a multiple of ${multipleOf}`));
  }
  const format = typeof schema.format === 'string' ? schema.format : '';
  if (format === 'int32' && (value < -2147483648 || value > 2147483647 || !Number.isInteger(value))) {
    errors.push(typeInvalid(path, value, `${name} in body must be of type int32: "${value}"`));
  }
}

function validateString(value: string, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const name = named(path);
  const length = [...value].length;
  const maxLength = numberField(schema, 'maxLength');
  if (maxLength !== undefined && length > maxLength) {
    errors.push({ type: 'FieldValueTooLong', field: path, badValue: value, detail: `Too long: may not be more than ${maxLength} bytes` });
  }
  const minLength = numberField(schema, 'minLength');
  if (minLength !== undefined && length < minLength) {
    errors.push(fieldErrors.invalid(path, value, `${name} in body should be at least ${minLength} chars long`));
  }
  if (typeof schema.pattern === 'string') {
    let matches = true;
    try {
      matches = new RegExp(schema.pattern, 'u').test(value);
    } catch {
      // A pattern JavaScript cannot compile was accepted by the CRD; upstream (RE2) would check it.
    }
    if (!matches) errors.push(fieldErrors.invalid(path, value, `${name} in body should match '${schema.pattern}'`));
  }
  const format = typeof schema.format === 'string' ? schema.format : '';
  const checker = formatCheckers[format];
  if (checker && !checker(value)) {
    errors.push(typeInvalid(path, value, `${name} in body must be of type ${format}: ${JSON.stringify(value)}`));
  }
}

function validateArray(value: unknown[], schema: JsonSchema, path: string, errors: FieldError[]): void {
  const name = named(path);
  const maxItems = numberField(schema, 'maxItems');
  if (maxItems !== undefined && value.length > maxItems) {
    errors.push({ type: 'FieldValueTooMany', field: path, badValue: value.length, detail: `Too many: ${value.length}: must have at most ${maxItems} ${maxItems === 1 ? 'item' : 'items'}` });
  }
  const minItems = numberField(schema, 'minItems');
  if (minItems !== undefined && value.length < minItems) {
    errors.push(fieldErrors.invalid(path, value.length, `${name} in body should have at least ${minItems} items`));
  }
  const items = schemaItems(schema);
  if (items) value.forEach((item, index) => validateValue(item, items, `${path}[${index}]`, errors));
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    value.forEach((item, index) => {
      if (value.slice(0, index).some((earlier) => jsonEqual(earlier, item))) errors.push(fieldErrors.duplicate(`${path}[${index}]`, item));
    });
  } else if (listType === 'map') {
    const keys = stringList(schema['x-kubernetes-list-map-keys']);
    const seen = new Set<string>();
    value.forEach((item, index) => {
      if (!isRecord(item)) return;
      const key = JSON.stringify(keys.map((field) => item[field] ?? null));
      if (seen.has(key)) errors.push(fieldErrors.duplicate(`${path}[${index}]`, Object.fromEntries(keys.map((field) => [field, item[field]]))));
      seen.add(key);
    });
  }
}

function validateObject(value: Record<string, unknown>, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const name = named(path);
  for (const required of stringList(schema.required)) {
    if (!Object.prototype.hasOwnProperty.call(value, required)) errors.push(fieldErrors.required(joinPath(path, required)));
  }
  const count = Object.keys(value).length;
  const maxProperties = numberField(schema, 'maxProperties');
  if (maxProperties !== undefined && count > maxProperties) {
    errors.push({ type: 'FieldValueTooMany', field: path, badValue: count, detail: `Too many: ${count}: must have at most ${maxProperties} items` });
  }
  const minProperties = numberField(schema, 'minProperties');
  if (minProperties !== undefined && count < minProperties) {
    errors.push(fieldErrors.invalid(path, count, `${name} in body should have at least ${minProperties} properties`));
  }
  if (flag(schema, 'x-kubernetes-embedded-resource')) {
    // objectmeta/validation of embedded resources: apiVersion and kind must be set.
    if (typeof value.apiVersion !== 'string' || value.apiVersion === '') errors.push(fieldErrors.required(joinPath(path, 'apiVersion'), 'must not be empty'));
    if (typeof value.kind !== 'string' || value.kind === '') errors.push(fieldErrors.required(joinPath(path, 'kind'), 'must not be empty'));
  }
  const properties = schemaProperties(schema);
  const additional = schemaAdditionalProperties(schema);
  for (const [key, child] of Object.entries(value)) {
    const property = properties && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    if (property) validateValue(child, property, joinPath(path, key), errors);
    else if (additional) validateValue(child, additional, joinPath(path, key), errors);
    else if (schema.additionalProperties === false && !properties) errors.push(fieldErrors.forbidden(joinPath(path, key), `${name} in body is a forbidden property`));
  }
}
