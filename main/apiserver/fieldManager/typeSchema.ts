// The structural type information server-side apply needs, after the schema structured-merge-diff
// builds from the OpenAPI extensions (kube-openapi schemaconv): which lists are associative
// (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`, or a strategic merge key),
// which are sets of primitives, which lists and maps are atomic (`+listType=atomic`, the default
// for untagged lists, `+structType=atomic` / `+mapType=atomic`). The list metadata comes from the
// strategic-merge table in ../patch/patchSchema.ts; the few places where upstream's list-map keys
// differ from the merge key (container ports keyed by port and protocol, …) and the atomic structs
// (label selectors, key references) are listed here. Kinds without a schema (custom resources)
// behave as upstream's deduced type: maps are granular, lists atomic.
import { hasOwn } from '../patch/jsonValue';
import { hasPatchSchema, patchSchemaFor, type PatchFieldSchema, type PatchSchema } from '../patch/patchSchema';

export interface ListKey {
  readonly name: string;
  /** upstream fills a missing key field from its OpenAPI default (ports default to TCP) */
  readonly default?: unknown;
}

export interface TypeNode {
  /** known members of an object */
  readonly fields?: Readonly<Record<string, TypeNode>>;
  /** element type of a list */
  readonly elementType?: TypeNode;
  /** how a list merges; absent means atomic */
  readonly list?: 'set' | 'map';
  readonly keys?: readonly ListKey[];
  /** an object replaced whole, owned as one field */
  readonly atomic?: boolean;
  /** a built-in type: unlisted members still follow the atomic-by-name rules */
  readonly builtin?: boolean;
}

export const deducedType: TypeNode = {};
const builtinUntyped: TypeNode = { builtin: true };
const builtinAtomic: TypeNode = { builtin: true, atomic: true };

// Built-in struct and map types marked atomic upstream, by the field names that hold them:
// LabelSelector, NodeSelector, Service selector and pod nodeSelector (+mapType=atomic), the
// key/field selectors of env and volumes, RoleRef.
const atomicFieldNames = new Set([
  'selector',
  'podSelector',
  'namespaceSelector',
  'labelSelector',
  'nodeSelector',
  'secretKeyRef',
  'configMapKeyRef',
  'fieldRef',
  'resourceFieldRef',
  'roleRef',
]);

/** Upstream list-map keys where they are more than the strategic merge key. */
function keysFor(mergeKey: string): ListKey[] {
  switch (mergeKey) {
    case 'containerPort':
      return [{ name: 'containerPort' }, { name: 'protocol', default: 'TCP' }];
    case 'port':
      return [{ name: 'port' }, { name: 'protocol', default: 'TCP' }];
    case 'topologyKey':
      return [{ name: 'topologyKey' }, { name: 'whenUnsatisfiable' }];
    default:
      return [{ name: mergeKey }];
  }
}

function fromField(name: string, field: PatchFieldSchema): TypeNode {
  if (field.strategy === 'merge' && field.mergeKey) {
    return { builtin: true, list: 'map', keys: keysFor(field.mergeKey), elementType: field.items ? fromSchema(field.items) : builtinUntyped };
  }
  if (field.strategy === 'merge') return { builtin: true, list: 'set' };
  if (field.strategy === 'replace' || atomicFieldNames.has(name)) return builtinAtomic;
  if (field.items) return { builtin: true, elementType: fromSchema(field.items) };
  if (field.schema) return fromSchema(field.schema);
  return builtinUntyped;
}

function fromSchema(schema: PatchSchema): TypeNode {
  const fields: Record<string, TypeNode> = {};
  for (const [name, field] of Object.entries(schema.fields)) fields[name] = fromField(name, field);
  return { builtin: true, fields };
}

const cache = new Map<string, TypeNode>();

/** The apply type of a kind (built-in kinds from the patch table, any other kind deduced). */
export function typeFor(apiVersion: string, kind: string): TypeNode {
  const key = `${apiVersion}/${kind}`;
  let type = cache.get(key);
  if (!type) {
    type = hasPatchSchema(apiVersion, kind) ? fromSchema(patchSchemaFor(apiVersion, kind)) : deducedType;
    cache.set(key, type);
  }
  return type;
}

/** The type of an object member. */
export function fieldType(type: TypeNode, name: string): TypeNode {
  if (type.fields && hasOwn(type.fields, name)) return type.fields[name];
  if (!type.builtin) return deducedType;
  return atomicFieldNames.has(name) ? builtinAtomic : builtinUntyped;
}

export function elementTypeOf(type: TypeNode): TypeNode {
  return type.elementType ?? (type.builtin ? builtinUntyped : deducedType);
}
