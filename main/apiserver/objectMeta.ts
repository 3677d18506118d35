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
