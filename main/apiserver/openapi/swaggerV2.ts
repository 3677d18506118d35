// The /openapi/v2 (Swagger 2.0) document in JSON, derived from the per-group-version OpenAPI v3
// documents kubedesk serves, as kube-openapi derives both from one set of definitions: every
// component schema becomes a definition (`#/components/schemas/X` → `#/definitions/X`), every
// operation keeps its operationId, tags, x-kubernetes-action and group-version-kind, with the
// request body turned into an `in: body` parameter and each response's schema lifted out of its
// media types. v3-only keywords Swagger 2.0 lacks (nullable, oneOf/anyOf) are dropped, as upstream's
// v2 output does. Code generators and JSON clients read this; kubectl asks for the protobuf form,
// which stays minimal (openapiV2.ts explains why).
import type { OpenApiDocument } from './openapiDocuments';

type Json = unknown;

const V3_ONLY = new Set(['nullable', 'oneOf', 'anyOf', 'not', 'writeOnly', 'deprecated']);

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema with v3 references and keywords rewritten for Swagger 2.0. */
export function toV2Schema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toV2Schema);
  if (!isObject(schema)) return schema;
  const result: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (V3_ONLY.has(key)) continue;
    if (key === '$ref' && typeof value === 'string') {
      result.$ref = value.replace('#/components/schemas/', '#/definitions/');
      continue;
    }
    // `allOf: [{$ref}]` is how v3 documents attach a description to a reference; Swagger 2.0
    // clients expect the plain reference
    if (key === 'allOf' && Array.isArray(value) && value.length === 1 && isObject(value[0]) && typeof value[0].$ref === 'string') {
      result.$ref = value[0].$ref.replace('#/components/schemas/', '#/definitions/');
      continue;
    }
    // `default` and `example` are values, not schemas: copy them unchanged
    result[key] = key === 'default' || key === 'example' || key === 'enum' ? value : toV2Schema(value);
  }
  return result;
}

function firstContentSchema(content: Json): Json {
  if (!isObject(content)) return undefined;
  const json = content['application/json'] ?? content['*/*'] ?? Object.values(content)[0];
  return isObject(json) ? json.schema : undefined;
}

function convertParameter(parameter: Json): Json {
  if (!isObject(parameter)) return parameter;
  const { schema, ...rest } = parameter;
  const converted: Record<string, Json> = { ...rest };
  if (isObject(schema)) {
    for (const [key, value] of Object.entries(schema)) if (!V3_ONLY.has(key)) converted[key] = value;
  }
  return converted;
}

function convertOperation(operation: Json): Json {
  if (!isObject(operation)) return operation;
  const { requestBody, responses, parameters, ...rest } = operation;
  const result: Record<string, Json> = { ...rest };
  const v2Parameters = Array.isArray(parameters) ? parameters.map(convertParameter) : [];
  if (isObject(requestBody)) {
    const content = isObject(requestBody.content) ? requestBody.content : {};
    result.consumes = Object.keys(content);
    v2Parameters.push({ name: 'body', in: 'body', required: requestBody.required === true, schema: toV2Schema(firstContentSchema(content)) });
  }
  if (v2Parameters.length > 0) result.parameters = v2Parameters;
  if (isObject(responses)) {
    const produces = new Set<string>();
    const v2Responses: Record<string, Json> = {};
    for (const [code, response] of Object.entries(responses)) {
      if (!isObject(response)) continue;
      const content = isObject(response.content) ? response.content : {};
      for (const type of Object.keys(content)) produces.add(type);
      const schema = firstContentSchema(content);
      v2Responses[code] = { description: typeof response.description === 'string' ? response.description : code, ...(schema === undefined ? {} : { schema: toV2Schema(schema) }) };
    }
    if (produces.size > 0) result.produces = [...produces];
    result.responses = v2Responses;
  }
  result.schemes = ['https'];
  return result;
}

/** One Swagger 2.0 document from the served group-version documents. */
export function buildSwaggerV2(documents: Iterable<OpenApiDocument>, version: string): Record<string, Json> {
  const definitions: Record<string, Json> = {};
  const paths: Record<string, Json> = {};
  for (const document of documents) {
    for (const [name, schema] of Object.entries(document.components.schemas)) definitions[name] ??= toV2Schema(schema);
    for (const [path, item] of Object.entries(document.paths)) {
      const converted: Record<string, Json> = {};
      for (const [method, operation] of Object.entries(item)) converted[method] = method === 'parameters' && Array.isArray(operation) ? operation.map(convertParameter) : convertOperation(operation);
      paths[path] = converted;
    }
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([left], [right]) => left.localeCompare(right)));
  const sortedDefinitions = Object.fromEntries(Object.entries(definitions).sort(([left], [right]) => left.localeCompare(right)));
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version },
    paths: sortedPaths,
    definitions: sortedDefinitions,
    securityDefinitions: { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
