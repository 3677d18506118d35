// Request-body decoding and response-format negotiation, as the apiserver's serializer negotiation
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation): JSON, YAML and protobuf bodies
// in; JSON out, or a meta.k8s.io Table / PartialObjectMetadata when the Accept header asks for one.
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { ApiError } from './apiError';
import { decodeKubernetesProtobuf } from './protobuf/decode';
import { isRecord } from '../../shared/kubernetes/types';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export type BodyFormat = 'json' | 'yaml' | 'protobuf';

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** Decodes a request body into a plain JSON value. Throws ApiError 400/415 on bad input. */
export function decodeBody(body: Buffer, contentType: string | undefined, allowed: readonly string[] = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']): unknown {
  const type = mediaType(contentType) || 'application/json';
  if (!allowed.includes(type)) throw ApiError.unsupportedMediaType(type);
  if (type === 'application/vnd.kubernetes.protobuf') {
    try {
      return decodeKubernetesProtobuf(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
    } catch (error) {
      throw ApiError.badRequest(`failed to decode protobuf body: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const text = body.toString('utf8');
  if (type === 'application/yaml' || type === 'application/apply-patch+yaml') return decodeYaml(text);
  return decodeJson(text);
}

/** Deeper documents are refused before anything walks them recursively (upstream's decoder stops at 10,000). */
export const MAX_DOCUMENT_DEPTH = 1000;

export function decodeJson(text: string): unknown {
  if (text.trim() === '') throw ApiError.badRequest('the request body is empty');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw ApiError.badRequest(`error decoding JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  // every level of nesting takes at least one `{` or `[`: a shorter text cannot be too deep
  if (text.length > MAX_DOCUMENT_DEPTH) checkDepth(value);
  return value;
}

/** Iterative depth check, so that hostile nesting cannot overflow the stack. */
export function checkDepth(value: unknown, max = MAX_DOCUMENT_DEPTH): void {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) throw ApiError.badRequest(`error decoding request body: exceeded max depth of ${max}`);
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
}

export function decodeYaml(text: string): unknown {
  if (text.trim() === '') throw ApiError.badRequest('the request body is empty');
  // JSON is YAML: most YAML bodies (apply patches) are JSON, and JSON.parse is faster and safe.
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    let parsed = false;
    try {
      json = JSON.parse(text);
      parsed = true;
    } catch {
      // not JSON after all; the YAML parser decides
    }
    if (parsed) {
      checkDepth(json);
      return json;
    }
  }
  // The YAML parser itself can exhaust memory on hostile nesting (V8 aborts the process), so deep
  // documents are refused before it sees them.
  if (yamlNestingTooDeep(text)) throw ApiError.badRequest(`error converting YAML to JSON: exceeded max depth of ${MAX_DOCUMENT_DEPTH}`);
  try {
    const documents = parseAllDocuments(text);
    if (Array.isArray(documents) && documents.length > 1) throw ApiError.badRequest('error decoding YAML: expected a single document');
    const value: unknown = parseYaml(text, { maxAliasCount: 100, intAsBigInt: false, schema: 'core' });
    checkDepth(value);
    return value;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw ApiError.badRequest(`error converting YAML to JSON: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

/** What the client asked to receive, from the Accept header (first supported alternative wins). */
export type ResponseShape = 'object' | 'table' | 'partialMetadata' | 'partialMetadataList';

export interface Negotiated {
  shape: ResponseShape;
  tableVersion?: 'v1' | 'v1beta1';
}

export function negotiate(accept: string | undefined): Negotiated {
  // what nearly every client sends
  if (!accept || accept === 'application/json') return { shape: 'object' };
  for (const alternative of accept.split(',')) {
    const [type, ...parameterParts] = alternative.split(';').map((part) => part.trim());
    const parameters = new Map<string, string>();
    for (const part of parameterParts) {
      const index = part.indexOf('=');
      if (index > 0) parameters.set(part.slice(0, index).trim(), part.slice(index + 1).trim());
    }
    const as = parameters.get('as');
    if (as && parameters.get('g') === 'meta.k8s.io' && (type === 'application/json' || type === '*/*')) {
      const version = parameters.get('v');
      if (as === 'Table' && (version === 'v1' || version === 'v1beta1')) return { shape: 'table', tableVersion: version };
      if (as === 'PartialObjectMetadata' && (version === 'v1' || version === 'v1beta1')) return { shape: 'partialMetadata' };
      if (as === 'PartialObjectMetadataList' && (version === 'v1' || version === 'v1beta1')) return { shape: 'partialMetadataList' };
      continue;
    }
    if (as) continue;
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === 'application/vnd.kubernetes.protobuf' || type === 'application/yaml') {
      return { shape: 'object' };
    }
  }
  return { shape: 'object' };
}

/** Narrows a decoded body to an object, or 400 as upstream does for non-object JSON. */
export function requireObjectBody(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) {
    const what = Array.isArray(value) ? `[…${value.length} items]` : value === null ? 'null' : truncate(String(value), 200);
    throw ApiError.badRequest(`Object 'Kind' is missing in '${what}'`);
  }
  return value;
}

function truncate(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

/** Flow-collection nesting ({ and [ outside quotes) or indentation beyond the document depth limit. */
export function yamlNestingTooDeep(text: string, maxDepth = MAX_DOCUMENT_DEPTH): boolean {
  let depth = 0;
  let quote: '"' | "'" | undefined;
  let lineStart = true;
  let indent = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (lineStart) {
      if (char === ' ') {
        indent++;
        if (indent > maxDepth * 2) return true;
        continue;
      }
      lineStart = false;
    }
    if (char === '\n') {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (quote) {
      if (char === '\\' && quote === '"') index++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === '{' || char === '[') {
      if (++depth > maxDepth) return true;
    } else if (char === '}' || char === ']') depth = Math.max(0, depth - 1);
    else if (char === '#') {
      const newline = text.indexOf('\n', index);
      index = newline < 0 ? text.length : newline - 1;
    }
  }
  return false;
}
