// Equality of JSON values, the one copy for the API server (no-op update detection, JSON patch
// `test`, enum and uniqueItems checks, immutability rules as apiequality.Semantic.DeepEqual) and
// the UI: object member order does not matter, list order does, and a member whose value is
// `undefined` counts as absent (it does not serialize). Only own members are compared, so a
// member named `__proto__` is a member like any other.
import { isRecord } from './types';

function definedKeys(record: Record<string, unknown>): string[] {
  return Object.keys(record).filter((key) => record[key] !== undefined);
}

/** Structural equality of two JSON values. */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  }
  if (!isRecord(left) || !isRecord(right)) return false;
  const keys = definedKeys(left);
  return keys.length === definedKeys(right).length && keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && jsonEqual(left[key], right[key]));
}
