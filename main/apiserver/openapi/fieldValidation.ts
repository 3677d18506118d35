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

/** A schema as the walk uses it: `$ref` and single `allOf` followed once, the Go type worded once. */
interface SchemaNode {
  /** the schema that has the shape */
  schema: OpenApiSchema;
  /** component name when the schema came through a `$ref` */
  name?: string;
  /** how the value decodes: a type with its own UnmarshalJSON, or by the schema's shape */
  decoder: 'quantity' | 'intOrString' | 'time' | 'shape';
  /** Go struct name for errors inside it (the component's short name) */
  structName?: string;
  goType?: string;
  preserveUnknown: boolean;
}

/** Follow `$ref` and upstream's single-element `allOf` wrapping down to the schema that has the shape. */
function resolve(schema: OpenApiSchema, components: Components): { schema: OpenApiSchema; name?: string } {
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

// The built-in schemas are read-only and shared, so what the walk derives from each schema object
// is kept beside it for the life of the process.
const nodes = new WeakMap<OpenApiSchema, SchemaNode>();

function nodeOf(fieldSchema: OpenApiSchema, components: Components): SchemaNode {
  let node = nodes.get(fieldSchema);
  if (node) return node;
  const { schema, name } = resolve(fieldSchema, components);
  node = {
    schema,
    name,
    decoder: name === QUANTITY ? 'quantity' : name === INT_OR_STRING ? 'intOrString' : name === TIME || name === MICRO_TIME ? 'time' : 'shape',
    structName: name ? shortName(name) : undefined,
    preserveUnknown: schema['x-kubernetes-preserve-unknown-fields'] === true,
  };
  nodes.set(fieldSchema, node);
  return node;
}

function goTypeOf(fieldSchema: OpenApiSchema, node: SchemaNode, components: Components): string {
  node.goType ??= goType(fieldSchema, components);
  return node.goType;
}

function kindSchema(apiVersion: string, kind: string): OpenApiSchema | undefined {
  const { group, version } = parseApiVersion(apiVersion);
  const name = builtinSchemaName(group, version, kind);
  return name ? builtinSchemas[name] : undefined;
}

function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

// ---------------------------------------------------------------------------------------------
// One walk: wrong JSON types, unknown fields, pruning

/** What a walk looks for; a request's body needs all three in one pass. */
interface WalkOptions {
  /** 'first' stops at the first type error (what upstream reports), 'all' collects them */
  typeErrors: 'none' | 'first' | 'all';
  unknownFields: boolean;
  prune: boolean;
}

/**
 * A walk over a value and its schema. Paths are kept as a stack of segments and spelled only for a
 * message: `unknown field "a.b[0].c"` (list indices and map keys included) or Go's
 * `Struct.a.b.c` (field names only).
 */
class SchemaWalk {
  readonly typeErrors: string[] = [];
  readonly unknown = new Set<string>();
  /** set at the first type error when only the first is wanted: the walk ends there */
  stopped = false;
  /** field names, list indices (numbers) and map keys */
  private readonly segments: (string | number)[] = [];
  /** whether each segment is a struct field (Go's error context has only those) */
  private readonly fieldSegments: boolean[] = [];

  constructor(
    private readonly options: WalkOptions,
    private readonly components: Components,
  ) {}

  /** The kind's top-level struct: type checks start here. */
  struct(value: Record<string, unknown>, node: SchemaNode, structName: string): void {
    this.properties(value, node.schema, node.preserveUnknown, this.options.typeErrors !== 'none', structName);
  }

  private push(segment: string | number, field: boolean): void {
    this.segments.push(segment);
    this.fieldSegments.push(field);
  }

  private pop(): void {
    this.segments.pop();
    this.fieldSegments.pop();
  }

  private unknownPath(key: string): string {
    let path = '';
    for (const segment of this.segments) path = typeof segment === 'number' ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`;
    return path === '' ? key : `${path}.${key}`;
  }

  private goPath(): string {
    let path = '';
    for (let index = 0; index < this.segments.length; index++) {
      if (this.fieldSegments[index]) path = path === '' ? String(this.segments[index]) : `${path}.${String(this.segments[index])}`;
    }
    return path;
  }

  private typeError(message: string): void {
    this.typeErrors.push(message);
    if (this.options.typeErrors === 'first') this.stopped = true;
  }

  private unmarshal(valueDescription: string, structName: string, goType: string): void {
    this.typeError(`json: cannot unmarshal ${valueDescription} into Go struct field ${structName}.${this.goPath()} of type ${goType}`);
  }

  /** The keys of a struct: known ones are walked, unknown ones reported and/or pruned. */
  private properties(value: Record<string, unknown>, schema: OpenApiSchema, preserve: boolean, typed: boolean, structName: string): void {
    const properties = schema.properties ?? {};
    for (const key of Object.keys(value)) {
      const property = hasOwn(properties, key) ? properties[key] : undefined;
      if (property) {
        this.push(key, true);
        this.value(value[key], property, typed, structName);
        this.pop();
        if (this.stopped) return;
      } else if (!preserve) {
        if (this.options.unknownFields && this.unknown.size < MAX_STRICT_ERRORS) this.unknown.add(`unknown field "${this.unknownPath(key)}"`);
        if (this.options.prune) delete value[key];
      }
    }
  }

  private mapValues(value: Record<string, unknown>, valueSchema: OpenApiSchema, typed: boolean, structName: string): void {
    for (const key of Object.keys(value)) {
      this.push(key, false);
      this.value(value[key], valueSchema, typed, structName);
      this.pop();
      if (this.stopped) return;
    }
  }

  private items(value: unknown[], itemSchema: OpenApiSchema, typed: boolean, structName: string): void {
    for (let index = 0; index < value.length; index++) {
      this.push(index, false);
      this.value(value[index], itemSchema, typed, structName);
      this.pop();
      if (this.stopped) return;
    }
  }

  /**
   * A value against its field's schema. `typed` while the Go decoder would still be checking
   * types here (it stops at free-form values); unknown fields are looked for further down, as far
   * as the schema has properties.
   */
  private value(value: unknown, fieldSchema: OpenApiSchema, typed: boolean, structName: string): void {
    if (value === null || value === undefined) return;
    const node = nodeOf(fieldSchema, this.components);
    if (typed && (!this.typeCheck(value, fieldSchema, node, structName) || this.stopped)) return;
    // Only objects and arrays have fields to look into.
    if (typeof value !== 'object') return;
    const { schema } = node;
    if (schema.oneOf) return;
    // The Go decoder type-checks through structs, lists and maps it knows, not free-form values.
    const stillTyped = typed && !(node.preserveUnknown && !schema.properties) && schema.type !== undefined;
    if (Array.isArray(value)) {
      if (schema.items) this.items(value, schema.items, stillTyped, structName);
      return;
    }
    if (!isRecord(value)) return;
    const innerStruct = node.structName ?? structName;
    if (schema.properties) {
      this.properties(value, schema, node.preserveUnknown, stillTyped && schema.type === 'object', innerStruct);
      return;
    }
    if (typeof schema.additionalProperties === 'object') this.mapValues(value, schema.additionalProperties, stillTyped && schema.type === 'object', structName);
    // No properties and no additionalProperties: free-form (RawExtension, FieldsV1, JSON) — anything goes.
  }

  /**
   * Checks the value's JSON type as Go's decoder does; false when nothing below it needs checking
   * (a scalar, a type with its own decoder, a mismatch already reported).
   */
  private typeCheck(value: unknown, fieldSchema: OpenApiSchema, node: SchemaNode, structName: string): boolean {
    const { schema } = node;
    switch (node.decoder) {
      case 'quantity': {
        if (typeof value === 'number') return false;
        const problem = typeof value === 'string' ? quantityError(value) : QUANTITY_FORMAT_WRONG;
        if (problem) this.typeError(problem);
        return false;
      }
      case 'intOrString':
        // IntOrString decodes anything that is not a JSON string into its int32.
        if (typeof value === 'number') {
          if (!fitsInteger(value, 'int32')) this.unmarshal(`number ${goNumber(value)}`, structName, 'int32');
        } else if (typeof value !== 'string') {
          this.unmarshal(jsonKind(value), structName, 'int32');
        }
        return false;
      case 'time':
        if (typeof value !== 'string') this.unmarshal(jsonKind(value), structName, 'string');
        return false;
      case 'shape':
        break;
    }
    if (schema.oneOf || (node.preserveUnknown && !schema.properties)) return true;
    switch (schema.type) {
      case 'string':
        if (schema.format === 'byte') {
          if (typeof value === 'string') {
            const problem = base64Error(value);
            if (problem) this.typeError(problem);
          } else if (!Array.isArray(value)) {
            this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
          }
          return false;
        }
        if (typeof value !== 'string') this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
        return false;
      case 'integer':
        if (typeof value !== 'number') this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
        else if (!fitsInteger(value, schema.format === 'int64' ? 'int64' : 'int32')) this.unmarshal(`number ${goNumber(value)}`, structName, goTypeOf(fieldSchema, node, this.components));
        return false;
      case 'number':
        if (typeof value !== 'number') this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
        return false;
      case 'boolean':
        if (typeof value !== 'boolean') this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
        return false;
      case 'array':
        if (!Array.isArray(value)) {
          this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
          return false;
        }
        return true;
      case 'object':
        if (!isRecord(value)) {
          if (schema.properties || typeof schema.additionalProperties === 'object') {
            this.unmarshal(jsonKind(value), structName, goTypeOf(fieldSchema, node, this.components));
            return false;
          }
        }
        return true;
      default:
        return true;
    }
  }
}

function walk(obj: unknown, apiVersion: string, kind: string, options: WalkOptions): SchemaWalk | undefined {
  const schema = kindSchema(apiVersion, kind);
  if (!schema || !isRecord(obj)) return undefined;
  const state = new SchemaWalk(options, builtinSchemas);
  state.struct(obj, nodeOf(schema, builtinSchemas), kind);
  return state;
}

/** What decoding a body against its kind's schema found (see `decodeAgainstSchema`). */
export interface SchemaDecoding {
  /** the first value of the wrong JSON type, worded as the Go decoder does; it wins over the rest */
  typeError?: string;
  /** `unknown field "…"` messages (at most 100), when asked for */
  unknownFields: string[];
}

/**
 * The decoding of a request body into the kind's Go type, in one walk: the first wrong JSON type
 * (reported alone, as upstream stops there), the unknown fields when `reportUnknown` (for
 * fieldValidation Strict or Warn), and the unknown fields dropped in place, as decoding into Go
 * structs leaves them out of the stored object. Kinds without a built-in schema find nothing.
 */
export function decodeAgainstSchema(obj: unknown, apiVersion: string, kind: string, reportUnknown: boolean): SchemaDecoding {
  const state = walk(obj, apiVersion, kind, { typeErrors: 'first', unknownFields: reportUnknown, prune: true });
  if (!state) return { unknownFields: [] };
  if (state.typeErrors.length > 0) return { typeError: state.typeErrors[0], unknownFields: [] };
  return { unknownFields: [...state.unknown] };
}

/**
 * Upstream-style messages for fields the kind's schema does not know, e.g. `unknown field "spec.foo"`.
 * Empty when the apiVersion/kind has no built-in schema.
 */
export function findUnknownFields(obj: unknown, apiVersion: string, kind: string): string[] {
  const state = walk(obj, apiVersion, kind, { typeErrors: 'none', unknownFields: true, prune: false });
  return state ? [...state.unknown] : [];
}

/**
 * Drops unknown fields in place, as decoding into Go structs does when field validation is not
 * Strict (the object is stored without them).
 */
export function pruneUnknownFields(obj: unknown, apiVersion: string, kind: string): void {
  walk(obj, apiVersion, kind, { typeErrors: 'none', unknownFields: false, prune: true });
}

/**
 * Messages for values whose JSON type does not fit the schema, worded as the Go decoder does, in
 * document order. Upstream reports only the first (as a 400 BadRequest, see `decodeErrorMessage`).
 */
export function findTypeErrors(obj: unknown, apiVersion: string, kind: string): string[] {
  return walk(obj, apiVersion, kind, { typeErrors: 'all', unknownFields: false, prune: false })?.typeErrors ?? [];
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // 'string' | 'number' | 'object'
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
