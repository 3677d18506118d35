// Read access to a CustomResourceDefinition version's openAPIV3Schema (apiextensions JSONSchemaProps)
// as parsed JSON: every accessor narrows `unknown`, so a malformed schema never throws. Follows the
// field names of staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types_jsonschema.go.
import { isRecord } from '../../../shared/kubernetes/types';

/** A JSONSchemaProps object as stored in the CRD. */
export type JsonSchema = Record<string, unknown>;

export function schemaType(schema: JsonSchema): string {
  return typeof schema.type === 'string' ? schema.type : '';
}

export function schemaProperties(schema: JsonSchema): Record<string, JsonSchema> | undefined {
  if (!isRecord(schema.properties)) return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const [key, value] of Object.entries(schema.properties)) if (isRecord(value)) properties[key] = value;
  return properties;
}

export function schemaItems(schema: JsonSchema): JsonSchema | undefined {
  return isRecord(schema.items) ? schema.items : undefined;
}

/** additionalProperties as a schema; `true` counts as an empty schema, `false`/absent as none. */
export function schemaAdditionalProperties(schema: JsonSchema): JsonSchema | undefined {
  if (isRecord(schema.additionalProperties)) return schema.additionalProperties;
  if (schema.additionalProperties === true) return {};
  return undefined;
}

export function flag(schema: JsonSchema, name: string): boolean {
  return schema[name] === true;
}

export function numberField(schema: JsonSchema, name: string): number | undefined {
  const value = schema[name];
  return typeof value === 'number' ? value : undefined;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function schemaList(value: unknown): JsonSchema[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Preserve unknown fields here: the flag itself, or an object without properties/additionalProperties that also has no type. */
export function preservesUnknownFields(schema: JsonSchema): boolean {
  return flag(schema, 'x-kubernetes-preserve-unknown-fields');
}

/** Go %v of a JSON value in messages (numbers plain, strings bare). */
export function goFormat(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The JSON type name kube-openapi reports for a value (`must be of type integer: "string"`). */
export function jsonTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}
