// Cell formatting helpers shared by the printers, following upstream
// labels.FormatLabels, metav1.FormatLabelSelector / LabelSelectorAsSelector().String() and
// printers.go layoutContainerCells.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { translateTimestampSince } from './duration';
import { arrayAt, recordAt, stringAt, stringMapAt, valueAt } from './fields';

/** The Name cell. */
export function name(object: KubeObject): string {
  return object.metadata.name ?? '';
}

/** The Age cell: translateTimestampSince(metadata.creationTimestamp). */
export function age(object: KubeObject, now: Date): string {
  return translateTimestampSince(object.metadata.creationTimestamp, now);
}

/** A string or number field as a cell; absent or empty prints as `none`, kubectl's `<none>` by default. */
export function textOrNone(value: unknown, none = '<none>'): string {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number') return String(value);
  return none;
}

/** labels.FormatLabels: sorted `key=value` pairs joined by `,`, or `<none>`. */
export function formatLabels(labels: Record<string, string>): string {
  const pairs = Object.entries(labels).map(([key, value]) => `${key}=${value}`);
  pairs.sort(compareStrings);
  return pairs.length === 0 ? '<none>' : pairs.join(',');
}

/** Byte-wise string order, as Go's sort.Strings. */
export function compareStrings(left: string, right: string): number {
  if (left < right) return -1;
  if (left > right) return 1;
  return 0;
}

interface Requirement {
  key: string;
  text: string;
}

function requirementText(key: string, operator: string, values: string[]): string | undefined {
  const sorted = [...values].sort(compareStrings);
  switch (operator) {
    case 'In':
      return values.length === 0 ? undefined : `${key} in (${sorted.join(',')})`;
    case 'NotIn':
      return values.length === 0 ? undefined : `${key} notin (${sorted.join(',')})`;
    case 'Exists':
      return values.length === 0 ? key : undefined;
    case 'DoesNotExist':
      return values.length === 0 ? `!${key}` : undefined;
    default:
      return undefined;
  }
}

/**
 * metav1.LabelSelectorAsSelector(selector).String(): requirements sorted by key and joined by
 * `,`; an absent or empty selector prints as ``. Returns undefined for an invalid selector.
 */
export function labelSelectorString(selector: unknown): string | undefined {
  if (!isRecord(selector)) return '';
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(stringMapAt(selector, 'matchLabels'))) {
    requirements.push({ key, text: `${key}=${value}` });
  }
  for (const expression of arrayAt(selector, 'matchExpressions')) {
    const key = stringAt(expression, 'key');
    const values = arrayAt(expression, 'values').filter((value): value is string => typeof value === 'string');
    const text = requirementText(key, stringAt(expression, 'operator'), values);
    if (text === undefined) return undefined;
    requirements.push({ key, text });
  }
  // Array.prototype.sort is stable, so equal keys keep matchLabels before matchExpressions.
  requirements.sort((left, right) => compareStrings(left.key, right.key));
  return requirements.map((requirement) => requirement.text).join(',');
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
export function formatLabelSelector(selector: unknown): string {
  const text = labelSelectorString(selector);
  if (text === undefined) return '<error>';
  return text === '' ? '<none>' : text;
}

/** layoutContainerCells: container names and images, each joined by `,`. */
export function layoutContainerCells(podSpec: unknown): { names: string; images: string } {
  const containers = arrayAt(podSpec, 'containers');
  return {
    names: containers.map((container) => stringAt(container, 'name')).join(','),
    images: containers.map((container) => stringAt(container, 'image')).join(','),
  };
}

/** net.JoinHostPort: IPv6 addresses are bracketed. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** metav1.GetControllerOf: the owner reference marked `controller: true`. */
export function controllerOf(metadata: unknown): Record<string, unknown> | undefined {
  for (const reference of arrayAt(metadata, 'ownerReferences')) {
    if (isRecord(reference) && reference.controller === true) return reference;
  }
  return undefined;
}

/** Whether an object has `metadata.deletionTimestamp` set. */
export function isDeleting(object: unknown): boolean {
  const value = valueAt(object, 'metadata', 'deletionTimestamp');
  return value !== undefined && value !== null && value !== '';
}

/** The annotation value or ``. */
export function annotation(object: unknown, key: string): string {
  return stringAt(recordAt(object, 'metadata', 'annotations'), key);
}
