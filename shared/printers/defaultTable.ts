// Tables for kinds without a printer. Built-in kinds without one (LimitRange, Role, ClusterRole,
// CustomResourceDefinition, …) use upstream apiserver rest.DefaultTableConvertor (Name, Created At
// as RFC 3339). Custom resources use apiextensions-apiserver's tableconvertor: Name plus the CRD
// version's additionalPrinterColumns, or an `Age` date column when it declares none.
import type { KubeObject } from '../kubernetes/types';
import type { ColumnDefinition, TableDef } from './table';
import { column, creationTimestampDescription, nameColumn } from './columns';
import { parseTimestamp, translateTimestampSince } from './duration';
import { findJsonPathResults } from './jsonPath';
import { name } from './format';
import { formatTime } from '../kubernetes/time';

/** Go's time.Format(time.RFC3339) of a UTC time: seconds precision, `Z` suffix. */
function rfc3339(value: unknown): string {
  const milliseconds = parseTimestamp(value);
  // An unset creationTimestamp formats Go's zero time.
  if (milliseconds === undefined) return '0001-01-01T00:00:00Z';
  return formatTime(milliseconds);
}

export const defaultTableDef: TableDef = {
  columns: [nameColumn(), column('Created At', 'date', creationTimestampDescription)],
  row(object) {
    return [name(object), rfc3339(object.metadata.creationTimestamp)];
  },
};

/** apiextensions CustomResourceColumnDefinition (one entry of additionalPrinterColumns). */
export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

const ageColumnDefinition: CustomResourceColumnDefinition = {
  name: 'Age',
  type: 'date',
  description: creationTimestampDescription,
  jsonPath: '.metadata.creationTimestamp',
};

function columnType(type: string): ColumnDefinition['type'] {
  switch (type) {
    case 'integer':
    case 'number':
    case 'boolean':
    case 'date':
      return type;
    default:
      return 'string';
  }
}

/** jsonpath PrintResults of one value in a `string` column. */
function printedText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  return JSON.stringify(value);
}

/** cellForJSONValue: a typed cell, or null when the value does not fit the column type. */
function typedCell(type: string, value: unknown, now: Date): unknown {
  switch (type) {
    case 'date':
      if (typeof value !== 'string') return null;
      return parseTimestamp(value) === undefined ? '<invalid>' : translateTimestampSince(value, now);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    default:
      return null;
  }
}

/** The table of a custom resource version with the given additionalPrinterColumns. */
export function customResourceTableDef(printerColumns: CustomResourceColumnDefinition[] = []): TableDef {
  const definitions = printerColumns.length > 0 ? printerColumns : [ageColumnDefinition];
  return {
    columns: [
      nameColumn(),
      ...definitions.map((definition) =>
        column(
          definition.name,
          columnType(definition.type),
          definition.description || `Custom resource definition column (in JSONPath format): ${definition.jsonPath}`,
          { format: definition.format ?? '', priority: definition.priority ?? 0 },
        ),
      ),
    ],
    row(object: KubeObject, now: Date) {
      const cells: unknown[] = [name(object)];
      for (const definition of definitions) {
        const results = findJsonPathResults(object, definition.jsonPath);
        if (results === undefined || results.length === 0) {
          cells.push(null);
          continue;
        }
        const value = results[0];
        cells.push(definition.type === 'string' ? printedText(value) : typedCell(definition.type, value, now));
      }
      return cells;
    },
  };
}
