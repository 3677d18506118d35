// Cell formatting helpers shared by the printers, following upstream
// labels.FormatLabels, metav1.FormatLabelSelector / LabelSelectorAsSelector().String() and
// printers.go layoutContainerCells.
import { isRecord, type KubeObject } from '../kubernetes/types';
import { translateTimestampSince } from './duration';
import { arrayAt, recordAt, stringAt, valueAt } from './fields';

export { formatLabelSelector, labelSelectorString } from '../kubernetes/labelSelector';
export { joinHostPort } from '../net/hostPort';

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

/** layoutContainerCells: container names and images, each joined by `,`. */
export function layoutContainerCells(podSpec: unknown): { names: string; images: string } {
  const containers = arrayAt(podSpec, 'containers');
  return {
    names: containers.map((container) => stringAt(container, 'name')).join(','),
    images: containers.map((container) => stringAt(container, 'image')).join(','),
  };
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
