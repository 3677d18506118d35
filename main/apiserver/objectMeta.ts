// Small pure helpers for object metadata on the write path (upstream
// staging/src/k8s.io/apiserver/pkg/registry/rest/create.go and meta/v1 helpers).
import { randomUUID, randomInt } from 'node:crypto';
import { formatTime } from '../../shared/kubernetes/time';

/** metav1.Now() as it marshals: RFC 3339 with second precision. */
export function nowTimestamp(now: Date = new Date()): string {
  return formatTime(now);
}

const suffixAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** upstream names.SimpleNameGenerator: base (cut to 58 chars) + 5 random characters. */
export function generateName(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += suffixAlphabet[randomInt(suffixAlphabet.length)];
  return prefix + suffix;
}

export function newUid(): string {
  return randomUUID();
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const objectA = a as Record<string, unknown>;
  const objectB = b as Record<string, unknown>;
  const keysA = Object.keys(objectA).filter((key) => objectA[key] !== undefined);
  const keysB = Object.keys(objectB).filter((key) => objectB[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  for (const key of keysA) if (!jsonEqual(objectA[key], objectB[key])) return false;
  return true;
}
