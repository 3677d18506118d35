// Small helpers for defaulting objects of unknown shape in place: set a value only when it is
// absent, and walk into nested objects/lists without ever throwing on a wrong type (validation
// reports those afterwards).
import { isRecord } from '../../../shared/kubernetes/types';

export type FieldRecord = Record<string, unknown>;

export function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/** Sets `record[key]` when it is absent (undefined or null). */
export function setDefault(record: FieldRecord, key: string, value: unknown): void {
  if (isAbsent(record[key])) record[key] = value;
}

/** Sets a string field when it is absent or empty, as Go's `if x == ""` defaulting does. */
export function setDefaultString(record: FieldRecord, key: string, value: string): void {
  if (isAbsent(record[key]) || record[key] === '') record[key] = value;
}

/** The nested object at `key`, created when absent; undefined when something else is there. */
export function child(record: FieldRecord, key: string): FieldRecord | undefined {
  if (isAbsent(record[key])) record[key] = {};
  const value = record[key];
  return isRecord(value) ? value : undefined;
}

/** The nested object at `key` only if it already exists. */
export function existing(record: FieldRecord, key: string): FieldRecord | undefined {
  const value = record[key];
  return isRecord(value) ? value : undefined;
}

/** The object entries of a list field; other entries are skipped. */
export function entries(record: FieldRecord, key: string): FieldRecord[] {
  const value = record[key];
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export { isRecord };
