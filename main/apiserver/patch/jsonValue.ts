// Helpers over parsed JSON values shared by the three patch kinds: a depth-limited deep clone
// (patches must never mutate their inputs) and Go's `%v` / reflect type
// formatting, which upstream's error messages embed (e.g. `map: map[image:x] does not contain …`).
import { isRecord } from '../../../shared/kubernetes/types';
import { PatchError } from './patchError';

export type JsonObject = Record<string, unknown>;

/**
 * Deeper documents are refused rather than risking a stack overflow in the recursive walkers.
 * Upstream's decoder stops at 10000 levels; real objects are a few dozen deep.
 */
export const maxJsonDepth = 1000;

/** A deep copy of a JSON value; throws PatchError (400) past maxJsonDepth. */
export function cloneJson(value: unknown, depth = 0): unknown {
  if (depth > maxJsonDepth) throw PatchError.malformed(`json: exceeded max depth of ${maxJsonDepth}`);
  if (Array.isArray(value)) return value.map((item) => cloneJson(item, depth + 1));
  if (isRecord(value)) {
    const copy: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(copy, key, cloneJson(value[key], depth + 1));
    return copy;
  }
  return value === undefined ? null : value;
}

export function hasOwn(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Assigns even keys like `__proto__`, which plain assignment would treat as the prototype. */
export function setOwn(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Go's fmt `%v` of a decoded JSON value: `map[a:1 b:[x y]]`, `<nil>`. */
export function formatGoValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return formatGoNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(formatGoValue).join(' ')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `map[${keys.map((key) => `${key}:${formatGoValue(value[key])}`).join(' ')}]`;
  }
  return String(value);
}

function formatGoNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  // Go prints exponents with at least two digits: 1e-07, 1e+21.
  return String(value).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** Go's reflect.TypeOf(x).String() for a decoded JSON value, as `%s` prints it. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'string') return 'string';
  // The apiserver decodes patches preserving integers (int64); everything else is float64.
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The JSON type word Go's encoding/json uses in `cannot unmarshal X into …`. */
export function jsonTypeWord(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isRecord(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  if (value === null || value === undefined) return 'null';
  return typeof value;
}
