// Structural-schema operations on custom resources, after apiextensions-apiserver
// pkg/apiserver/schema/pruning (drop fields the schema does not specify, unless
// x-kubernetes-preserve-unknown-fields; apiVersion/kind/metadata are implicit at the root and in
// x-kubernetes-embedded-resource objects, metadata keeping only ObjectMeta fields) and
// pkg/apiserver/schema/defaulting (fill `default` values, deep-copied, also replacing null in
// non-nullable fields, then descending into the result). Pruning reports what it drops as
// `unknown field "spec.foo"` so the handler can warn or fail under fieldValidation.
import { isRecord } from '../../../shared/kubernetes/types';
import { flag, preservesUnknownFields, schemaAdditionalProperties, schemaItems, schemaProperties, type JsonSchema } from '../../registry/validation/jsonSchema';

const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Removes unknown fields from a custom resource in place and returns their paths as upstream's
 * strict-decoding messages (`unknown field "spec.foo"`), in document order.
 */
export function pruneCustomResource(obj: Record<string, unknown>, schema: JsonSchema | undefined): string[] {
  const unknown: string[] = [];
  pruneMetadata(obj, '', unknown);
  if (schema) pruneObject(obj, schema, '', unknown, true);
  return unknown;
}

function pruneMetadata(obj: Record<string, unknown>, path: string, unknown: string[]): void {
  const metadata = obj.metadata;
  if (!isRecord(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      unknown.push(`unknown field "${joinPath(joinPath(path, 'metadata'), key)}"`);
      delete metadata[key];
    }
  }
}

function pruneValue(value: unknown, schema: JsonSchema, path: string, unknown: string[]): void {
  if (Array.isArray(value)) {
    const items = schemaItems(schema);
    if (items) value.forEach((item, index) => pruneValue(item, items, `${path}[${index}]`, unknown));
    return;
  }
  if (isRecord(value)) pruneObject(value, schema, path, unknown, flag(schema, 'x-kubernetes-embedded-resource'));
}

function pruneObject(value: Record<string, unknown>, schema: JsonSchema, path: string, unknown: string[], typeMetaImplicit: boolean): void {
  const properties = schemaProperties(schema);
  const additional = schemaAdditionalProperties(schema);
  const preserve = preservesUnknownFields(schema);
  if (typeMetaImplicit && path !== '') pruneMetadata(value, path, unknown);
  for (const key of Object.keys(value)) {
    const property = properties && Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : undefined;
    if (property) {
      pruneValue(value[key], property, joinPath(path, key), unknown);
      continue;
    }
    if (typeMetaImplicit && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    if (additional) {
      pruneValue(value[key], additional, joinPath(path, key), unknown);
      continue;
    }
    if (preserve) continue;
    unknown.push(`unknown field "${joinPath(path, key)}"`);
    delete value[key];
  }
}

/** Applies schema defaults to a custom resource in place. */
export function applyDefaults(value: unknown, schema: JsonSchema | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    const items = schemaItems(schema);
    if (items) for (const item of value) applyDefaults(item, items);
    return;
  }
  if (!isRecord(value)) return;
  const properties = schemaProperties(schema);
  if (properties) {
    for (const [key, property] of Object.entries(properties)) {
      if (property.default === undefined) continue;
      const current = value[key];
      if (current === undefined || (current === null && !flag(property, 'nullable'))) value[key] = structuredClone(property.default);
    }
    for (const [key, child] of Object.entries(value)) {
      if (Object.prototype.hasOwnProperty.call(properties, key)) applyDefaults(child, properties[key]);
    }
  }
  const additional = schemaAdditionalProperties(schema);
  if (additional) {
    for (const [key, child] of Object.entries(value)) {
      if (!properties || !Object.prototype.hasOwnProperty.call(properties, key)) applyDefaults(child, additional);
    }
  }
}
