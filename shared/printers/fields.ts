// Narrowing readers for the untyped JSON of stored objects. Printers read many optional fields;
// these return Go's zero values (``, 0, false, [], {}) for absent or mistyped fields, which is
// what upstream printers see after decoding into typed structs.
import { isRecord } from '../kubernetes/types';

export type PathSegment = string | number;

/** The value at `path` under `root`, or undefined when any step is missing. */
export function valueAt(root: unknown, ...path: PathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment];
    } else {
      if (!isRecord(current)) return undefined;
      current = current[segment];
    }
  }
  return current;
}

export function hasValue(root: unknown, ...path: PathSegment[]): boolean {
  const value = valueAt(root, ...path);
  return value !== undefined && value !== null;
}

export function stringAt(root: unknown, ...path: PathSegment[]): string {
  const value = valueAt(root, ...path);
  return typeof value === 'string' ? value : '';
}

export function numberAt(root: unknown, ...path: PathSegment[]): number {
  const value = valueAt(root, ...path);
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function booleanAt(root: unknown, ...path: PathSegment[]): boolean {
  return valueAt(root, ...path) === true;
}

export function arrayAt(root: unknown, ...path: PathSegment[]): unknown[] {
  const value = valueAt(root, ...path);
  return Array.isArray(value) ? value : [];
}

export function recordAt(root: unknown, ...path: PathSegment[]): Record<string, unknown> {
  const value = valueAt(root, ...path);
  return isRecord(value) ? value : {};
}

/** A map of strings (labels, nodeSelector, selector); non-string values are skipped. */
export function stringMapAt(root: unknown, ...path: PathSegment[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(recordAt(root, ...path))) {
    if (typeof value === 'string') result[key] = value;
  }
  return result;
}

/**
 * A resource.Quantity or IntOrString as its string form. Stored quantities are already
 * canonical strings; a missing quantity prints as Go's zero Quantity, `0`.
 */
export function quantityAt(root: unknown, ...path: PathSegment[]): string {
  const value = valueAt(root, ...path);
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '0';
}
