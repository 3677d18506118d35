// Column definitions (metav1.TableColumnDefinition) used across printers. Descriptions follow
// upstream printers.go; where upstream reads them from the API's swagger docs the common ones are
// given in full and the rest are the first sentence of that documentation.
import type { ColumnDefinition } from './table';

export const nameDescription =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const creationTimestampDescription =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const containersDescription = 'Names of each container in the template.';
export const imagesDescription = 'Images referenced by each container in the template.';
export const selectorDescription =
  'A label query over pods that should match the replica count. It must match the pod template\'s labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors';

export interface ColumnOptions {
  priority?: number;
  format?: string;
}

export function column(
  name: string,
  type: ColumnDefinition['type'],
  description: string,
  options: ColumnOptions = {},
): ColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** The `Name` column every printer starts with (format `name` lets kubectl add `kind/` prefixes). */
export function nameColumn(options: ColumnOptions = {}): ColumnDefinition {
  return column('Name', 'string', nameDescription, { format: 'name', ...options });
}

/** The `Age` column: a string cell computed by translateTimestampSince. */
export function ageColumn(): ColumnDefinition {
  return column('Age', 'string', creationTimestampDescription);
}

/** The `-o wide` Containers / Images columns of workload printers. */
export function containerColumns(): ColumnDefinition[] {
  return [
    column('Containers', 'string', containersDescription, { priority: 1 }),
    column('Images', 'string', imagesDescription, { priority: 1 }),
  ];
}

/** A cell from an untyped field: strings as they are, numbers printed, anything else empty. */
export function cellText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}
