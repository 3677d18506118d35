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

/** jsonEqual where a member whose value is null counts as absent, as it does once stored. */
function equalIgnoringNulls(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, index) => equalIgnoringNulls(item, right[index]));
  }
  if (!isRecord(left) || !isRecord(right)) return false;
  const present = (record: Record<string, unknown>) => Object.keys(record).filter((key) => record[key] !== undefined && record[key] !== null);
  const keys = present(left);
  return keys.length === present(right).length && keys.every((key) => Object.prototype.hasOwnProperty.call(right, key) && equalIgnoringNulls(left[key], right[key]));
}

/**
 * Whether a JSON merge patch (RFC 7386) would leave a stored object as it is: every member of the
 * patch is already there with an equal value, or is null (delete) and already absent; a list in
 * the patch replaces the stored one, so it must equal it, a null member of an item counting as
 * absent (the API server does not keep nulls: a condition's `lastProbeTime: null` is stored as no
 * lastProbeTime). A writer that compared the whole patch for equality would write forever.
 */
export function mergePatchIsNoop(target: unknown, patch: unknown): boolean {
  if (!isRecord(patch) || Array.isArray(patch)) return equalIgnoringNulls(target, patch);
  if (!isRecord(target) || Array.isArray(target)) return false;
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) {
      if (target[key] !== undefined && target[key] !== null && Object.prototype.hasOwnProperty.call(target, key)) return false;
      continue;
    }
    if (!Object.prototype.hasOwnProperty.call(target, key) || !mergePatchIsNoop(target[key], value)) return false;
  }
  return true;
}
