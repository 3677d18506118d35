// Server-side field validation of request bodies against the built-in OpenAPI schemas, reproducing
// what the upstream apiserver's typed JSON decoding reports (sigs.k8s.io/json as used by
// apimachinery/pkg/runtime/serializer/json):
// - unknown fields (case-sensitive), as `unknown field "spec.template.spec.containers[0].foo"`: the
//   path joins field names with dots, list items as `[i]`, map keys as `.key`; at most 100, deduplicated.
//   The handler reports them as `strict decoding error: <e1>, <e2>` (fieldValidation=Strict) or as one
//   warning each (Warn).
// - values of the wrong JSON type, as Go's encoding/json words them:
//   `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`
//   (innermost struct, then the field path WITHOUT list indices, then the Go type), plus the custom
//   decoders' messages for resource.Quantity and base64 `[]byte` fields. Upstream stops at the first
//   such error, and a decode error wins over strict (unknown-field) errors.
// Kinds without a built-in schema (custom resources) yield no errors here.
import { isRecord } from '../../../shared/kubernetes/types';
import { builtinSchemaName, builtinSchemas, parseApiVersion, referencedName, type OpenApiSchema } from './schemas';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

/** sigs.k8s.io/json keeps at most this many strict errors. */
const MAX_STRICT_ERRORS = 100;

type Components = Readonly<Record<string, OpenApiSchema>>;

interface Resolved {
  schema: OpenApiSchema;
  /** component name when the schema came through a `$ref` */
  name?: string;
}

/** Follow `$ref` and upstream's single-element `allOf` wrapping down to the schema that has the shape. */
function resolve(schema: OpenApiSchema, components: Components): Resolved {
  let current = schema;
  let name: string | undefined;
  for (let depth = 0; depth < 16; depth++) {
    if (typeof current.$ref === 'string') {
      const target = referencedName(current);
      const found = target ? components[target] : undefined;
      if (!found || !target) return { schema: {}, name: target };
      name = target;
      current = found;
      continue;
    }
    if (current.allOf && current.allOf.length > 0 && !current.type && !current.properties && !current.items && !current.additionalProperties) {
      current = current.allOf[0];
      continue;
    }
    break;
  }
  return { schema: current, name };
}

function kindSchema(apiVersion: string, kind: string): OpenApiSchema | undefined {
  const { group, version } = parseApiVersion(apiVersion);
  const name = builtinSchemaName(group, version, kind);
  return name ? builtinSchemas[name] : undefined;
}

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

// ---------------------------------------------------------------------------------------------
// Unknown fields

/**
 * Upstream-style messages for fields the kind's schema does not know, e.g. `unknown field "spec.foo"`.
 * Empty when the apiVersion/kind has no built-in schema.
 */
export function findUnknownFields(obj: unknown, apiVersion: string, kind: string): string[] {
  const schema = kindSchema(apiVersion, kind);
  if (!schema) return [];
  const found = new Set<string>();
  collectUnknownFields(obj, schema, '', builtinSchemas, found);
  return [...found];
}

/**
 * Drops unknown fields in place, as decoding into Go structs does when field validation is not
 * Strict (the object is stored without them).
 */
export function pruneUnknownFields(obj: unknown, apiVersion: string, kind: string): void {
  const schema = kindSchema(apiVersion, kind);
  if (!schema) return;
  collectUnknownFields(obj, schema, '', builtinSchemas, new Set<string>(), true);
}

function collectUnknownFields(value: unknown, fieldSchema: OpenApiSchema, path: string, components: Components, found: Set<string>, prune = false): void {
  if (value === null || typeof value !== 'object' || (!prune && found.size >= MAX_STRICT_ERRORS)) return;
  const { schema } = resolve(fieldSchema, components);
  if (schema.oneOf) return;
  if (Array.isArray(value)) {
    if (!schema.items) return;
    value.forEach((item, index) => collectUnknownFields(item, schema.items as OpenApiSchema, `${path}[${index}]`, components, found, prune));
    return;
  }
  if (!isRecord(value)) return;
  if (schema.properties) {
    const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
    for (const [key, child] of Object.entries(value)) {
      const property = hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      if (property) collectUnknownFields(child, property, joinPath(path, key), components, found, prune);
      else if (!preserve && prune) delete value[key];
      else if (!preserve && found.size < MAX_STRICT_ERRORS) found.add(`unknown field "${joinPath(path, key)}"`);
    }
    return;
  }
  if (typeof schema.additionalProperties === 'object') {
    for (const [key, child] of Object.entries(value)) collectUnknownFields(child, schema.additionalProperties, joinPath(path, key), components, found, prune);
  }
  // No properties and no additionalProperties: free-form (RawExtension, FieldsV1, JSON) — anything goes.
}

// ---------------------------------------------------------------------------------------------
// Wrong JSON types

/**
 * Messages for values whose JSON type does not fit the schema, worded as the Go decoder does, in
 * document order. Upstream reports only the first (as a 400 BadRequest, see `decodeErrorMessage`).
 */
export function findTypeErrors(obj: unknown, apiVersion: string, kind: string): string[] {
  const schema = kindSchema(apiVersion, kind);
  if (!schema || !isRecord(obj)) return [];
  const errors: string[] = [];
  checkStruct(obj, schema, kind, [], builtinSchemas, errors);
  return errors;
}

function checkStruct(value: Record<string, unknown>, schema: OpenApiSchema, structName: string, goPath: string[], components: Components, errors: string[]): void {
  for (const [key, child] of Object.entries(value)) {
    const property = schema.properties && hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (property) checkValue(child, property, structName, [...goPath, key], components, errors);
  }
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // 'string' | 'number' | 'object'
}

function unmarshalError(valueDescription: string, structName: string, goPath: string[], goType: string): string {
  return `json: cannot unmarshal ${valueDescription} into Go struct field ${structName}.${goPath.join('.')} of type ${goType}`;
}

function shortName(componentName: string): string {
  return componentName.slice(componentName.lastIndexOf('.') + 1);
}

/** The Go type a field's schema stands for, as reflect prints it (`int32`, `[]v1.Container`, `v1.PodSpec`). */
function goType(fieldSchema: OpenApiSchema, components: Components): string {
  const name = referencedName(fieldSchema);
  if (name) {
    const segments = name.split('.');
    return `${segments[segments.length - 2]}.${segments[segments.length - 1]}`;
  }
  const schema = fieldSchema;
  switch (schema.type) {
    case 'array':
      return `[]${schema.items ? goType(schema.items, components) : 'interface {}'}`;
    case 'object':
      if (typeof schema.additionalProperties === 'object') {
        if (referencedName(schema.additionalProperties) === QUANTITY) return 'v1.ResourceList';
        return `map[string]${goType(schema.additionalProperties, components)}`;
      }
      return 'map[string]interface {}';
    case 'integer':
      return schema.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return schema.format === 'byte' ? '[]uint8' : 'string';
    default:
      return 'interface {}';
  }
}

function checkValue(value: unknown, fieldSchema: OpenApiSchema, structName: string, goPath: string[], components: Components, errors: string[]): void {
  if (value === null || value === undefined) return;
  const { schema, name } = resolve(fieldSchema, components);
  const fail = (description: string, type: string): void => {
    errors.push(unmarshalError(description, structName, goPath, type));
  };

  // Types with their own UnmarshalJSON.
  if (name === QUANTITY) {
    if (typeof value === 'number') return;
    const problem = typeof value === 'string' ? quantityError(value) : QUANTITY_FORMAT_WRONG;
    if (problem) errors.push(problem);
    return;
  }
  if (name === INT_OR_STRING) {
    if (typeof value === 'string') return;
    // IntOrString decodes anything that is not a JSON string into its int32.
    if (typeof value === 'number') {
      if (!fitsInteger(value, 'int32')) fail(`number ${goNumber(value)}`, 'int32');
      return;
    }
    fail(jsonKind(value), 'int32');
    return;
  }
  if (name === TIME || name === MICRO_TIME) {
    if (typeof value !== 'string') fail(jsonKind(value), 'string');
    return;
  }
  if (schema.oneOf || (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties)) return;

  const type = goType(fieldSchema, components);
  switch (schema.type) {
    case 'string':
      if (schema.format === 'byte') {
        if (typeof value === 'string') {
          const problem = base64Error(value);
          if (problem) errors.push(problem);
        } else if (!Array.isArray(value)) {
          fail(jsonKind(value), type);
        }
        return;
      }
      if (typeof value !== 'string') fail(jsonKind(value), type);
      return;
    case 'integer':
      if (typeof value !== 'number') fail(jsonKind(value), type);
      else if (!fitsInteger(value, schema.format === 'int64' ? 'int64' : 'int32')) fail(`number ${goNumber(value)}`, type);
      return;
    case 'number':
      if (typeof value !== 'number') fail(jsonKind(value), type);
      return;
    case 'boolean':
      if (typeof value !== 'boolean') fail(jsonKind(value), type);
      return;
    case 'array':
      if (!Array.isArray(value)) {
        fail(jsonKind(value), type);
        return;
      }
      // Go's error context has no list indices: items report the field path of the list itself.
      if (schema.items) for (const item of value) checkValue(item, schema.items, structName, goPath, components, errors);
      return;
    case 'object':
      if (!isRecord(value)) {
        if (schema.properties || typeof schema.additionalProperties === 'object') fail(jsonKind(value), type);
        return;
      }
      if (schema.properties) {
        checkStruct(value, schema, name ? shortName(name) : structName, goPath, components, errors);
      } else if (typeof schema.additionalProperties === 'object') {
        // Map keys do not enter Go's error context either.
        for (const child of Object.values(value)) checkValue(child, schema.additionalProperties, structName, goPath, components, errors);
      }
      return;
    default:
      return;
  }
}

function fitsInteger(value: number, format: 'int32' | 'int64'): boolean {
  if (!Number.isInteger(value)) return false;
  if (format === 'int32') return value >= -2147483648 && value <= 2147483647;
  return Math.abs(value) < 2 ** 63;
}

/** A number as Go's decoder echoes the literal; JSON.parse has lost the original spelling, so this is close, not exact. */
function goNumber(value: number): string {
  return String(value).replace('e+', 'e');
}

// ---------------------------------------------------------------------------------------------
// Custom decoders

/** apimachinery/pkg/api/resource: ErrFormatWrong */
export const QUANTITY_FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_PATTERN = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_SUFFIXES = new Set(['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);

/** Why resource.ParseQuantity would reject `text`, or undefined when it parses. */
export function quantityError(text: string): string | undefined {
  const trimmed = text.trim();
  const match = QUANTITY_PATTERN.exec(trimmed);
  if (!match) return QUANTITY_FORMAT_WRONG;
  const [, numeric, suffix] = match;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(numeric)) return 'unable to parse numeric part of quantity';
  if (!QUANTITY_SUFFIXES.has(suffix) && !/^[eE][-+]?\d+$/.test(suffix)) return "unable to parse quantity's suffix";
  return undefined;
}

function isBase64Character(byte: number): boolean {
  return (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte === 43 || byte === 47;
}

/**
 * Why Go's base64.StdEncoding would reject `text` (`illegal base64 data at input byte N`), or undefined.
 * Newlines are skipped; padding must complete the last quantum; nothing may follow the padding.
 */
export function base64Error(text: string): string | undefined {
  const source = Buffer.from(text, 'utf8');
  const corrupt = (offset: number): string => `illegal base64 data at input byte ${offset}`;
  const isNewline = (byte: number): boolean => byte === 10 || byte === 13;
  let index = 0;
  for (;;) {
    for (let filled = 0; filled < 4; filled++) {
      if (index === source.length) {
        return filled === 0 ? undefined : corrupt(index - filled);
      }
      const byte = source[index];
      index++;
      if (isBase64Character(byte)) continue;
      if (isNewline(byte)) {
        filled--;
        continue;
      }
      if (byte !== 61 /* '=' */ || filled < 2) return corrupt(index - 1);
      if (filled === 2) {
        while (index < source.length && isNewline(source[index])) index++;
        if (index === source.length) return corrupt(source.length);
        if (source[index] !== 61) return corrupt(index - 1);
        index++;
      }
      while (index < source.length && isNewline(source[index])) index++;
      return index < source.length ? corrupt(index) : undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Status messages

/** The BadRequest message for fieldValidation=Strict: `strict decoding error: unknown field "a", unknown field "b"`. */
export function strictDecodingMessage(unknownFields: readonly string[]): string {
  return `strict decoding error: ${unknownFields.join(', ')}`;
}

/**
 * The BadRequest message create/update handlers wrap decode failures in (handlers/rest.go
 * transformDecodeError): `Deployment in version "v1" cannot be handled as a Deployment: <cause>`.
 * `apiVersion` and `kind` are the body's own; `targetKind` the resource's.
 */
export function decodeErrorMessage(apiVersion: string, kind: string, targetKind: string, cause: string): string {
  return `${kind} in version "${parseApiVersion(apiVersion).version}" cannot be handled as a ${targetKind}: ${cause}`;
}
