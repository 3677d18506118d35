// The structural type information server-side apply needs, built as kube-openapi's schemaconv
// builds structured-merge-diff's schema from the OpenAPI the server publishes (the generated
// built-in schemas, which carry upstream's tags, see scripts/extractUpstreamApplyTypes.mjs):
// `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` makes an associative list keyed
// by those fields (a missing key field takes its OpenAPI `default`, as ports' protocol TCP), `set`
// a set of primitives, `atomic` or no tag an atomic list; `x-kubernetes-map-type: atomic` makes a
// struct or map one field (label selectors, node selectors, key references), and on a field it
// overrides the type's own tag either way (PersistentVolume `claimRef` is granular). Values that
// preserve unknown fields (RawExtension) are atomic. Kinds without a built-in schema (custom
// resources) behave as upstream's deduced type: maps are granular, lists atomic.
import { hasOwn } from '../patch/jsonValue';
import { builtinSchemaName, builtinSchemas, parseApiVersion, referencedName, type OpenApiSchema } from '../openapi/schemas';

export interface ListKey {
  readonly name: string;
  /** upstream fills a missing key field from its OpenAPI default (ports default to TCP) */
  readonly default?: unknown;
}

export interface TypeNode {
  /** known members of an object */
  readonly fields?: Readonly<Record<string, TypeNode>>;
  /** the type of every value of a map (labels, resources.limits, CRD schema properties) */
  readonly values?: TypeNode;
  /** element type of a list */
  readonly elementType?: TypeNode;
  /** how a list merges; absent means atomic */
  readonly list?: 'set' | 'map';
  readonly keys?: readonly ListKey[];
  /** an object replaced whole, owned as one field */
  readonly atomic?: boolean;
  /** a built-in type: members it does not name are untyped granular values */
  readonly builtin?: boolean;
}

export const deducedType: TypeNode = {};
const builtinUntyped: TypeNode = { builtin: true };
const builtinAtomic: TypeNode = { builtin: true, atomic: true };

type MutableTypeNode = { -readonly [key in keyof TypeNode]: TypeNode[key] };

/** Component name → its type; filled before its members so recursive types (JSONSchemaProps) end. */
const components = new Map<string, TypeNode>();

function componentType(name: string): TypeNode {
  const known = components.get(name);
  if (known) return known;
  const node: MutableTypeNode = { builtin: true };
  components.set(name, node);
  const schema = builtinSchemas[name];
  if (schema) Object.assign(node, structureOf(schema));
  return node;
}

/** The default of a key field, read from the list item's component. */
function keyDefault(items: OpenApiSchema | undefined, key: string): unknown {
  const name = items && referencedName(items);
  const item = name ? builtinSchemas[name] : items;
  const property = item?.properties?.[key];
  return property && hasOwn(property, 'default') ? property.default : undefined;
}

/** A schema's own structure (not following a field-level override). */
function structureOf(schema: OpenApiSchema): TypeNode {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return builtinAtomic;
  if (schema.type === 'array') {
    const elementType = schema.items ? typeOfSchema(schema.items) : builtinUntyped;
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') return { builtin: true, list: 'set', elementType };
    if (listType === 'map') {
      const names = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].filter((key): key is string => typeof key === 'string') : [];
      const keys = names.map((key): ListKey => {
        const fallback = keyDefault(schema.items, key);
        return fallback === undefined ? { name: key } : { name: key, default: fallback };
      });
      return { builtin: true, list: 'map', keys, elementType };
    }
    return { builtin: true, elementType };
  }
  const atomic = schema['x-kubernetes-map-type'] === 'atomic';
  if (schema.properties) {
    const fields: Record<string, TypeNode> = {};
    for (const [name, property] of Object.entries(schema.properties)) fields[name] = typeOfSchema(property);
    return atomic ? { builtin: true, fields, atomic } : { builtin: true, fields };
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    const values = typeOfSchema(schema.additionalProperties);
    return atomic ? { builtin: true, values, atomic } : { builtin: true, values };
  }
  return atomic ? builtinAtomic : builtinUntyped;
}

/** The type of a field or item schema: a reference (with a field-level map-type override) or inline. */
function typeOfSchema(schema: OpenApiSchema): TypeNode {
  const name = referencedName(schema);
  const override = schema['x-kubernetes-map-type'];
  if (name) {
    const target = componentType(name);
    if (override === 'atomic' && !target.atomic) return { ...target, atomic: true };
    if (override === 'granular' && target.atomic) return withoutAtomic(target);
    return target;
  }
  return structureOf(schema);
}

function withoutAtomic(type: TypeNode): TypeNode {
  const copy: MutableTypeNode = { ...type };
  delete copy.atomic;
  return copy;
}

const cache = new Map<string, TypeNode>();

/** The apply type of a kind (built-in kinds from their OpenAPI schema, any other kind deduced). */
export function typeFor(apiVersion: string, kind: string): TypeNode {
  const key = `${apiVersion}/${kind}`;
  let type = cache.get(key);
  if (!type) {
    const { group, version } = parseApiVersion(apiVersion);
    const name = builtinSchemaName(group, version, kind);
    type = name ? componentType(name) : deducedType;
    cache.set(key, type);
  }
  return type;
}

/** The type of an object member. */
export function fieldType(type: TypeNode, name: string): TypeNode {
  if (type.fields && hasOwn(type.fields, name)) return type.fields[name];
  if (type.values) return type.values;
  return type.builtin ? builtinUntyped : deducedType;
}

export function elementTypeOf(type: TypeNode): TypeNode {
  return type.elementType ?? (type.builtin ? builtinUntyped : deducedType);
}
