// Conversion of objects to meta.k8s.io Table and PartialObjectMetadata replies, as the apiserver's
// TableConvertor (staging/src/k8s.io/apiserver/pkg/registry/rest/table.go) and handlers/response.go.
import type { KubeObject, ListMeta } from '../../shared/kubernetes/types';
import type { KindStrategy } from '../registry/strategy';
import { ApiError } from './apiError';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  throw ApiError.badRequest(`includeObject: Unsupported value: "${value}": supported values: "Metadata", "None", "Object"`);
}

export function partialObjectMetadata(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function toTable(def: KindStrategy, objects: KubeObject[], options: { includeObject: IncludeObject; listMeta: ListMeta; now?: Date; tableVersion?: string; noHeaders?: boolean }): Record<string, unknown> {
  const now = options.now ?? new Date();
  const rows = objects.map((obj) => {
    let cells: unknown[];
    try {
      cells = def.printer.row(obj, now);
    } catch {
      // A stored object of an odd shape must still print; upstream would show <unknown> cells.
      cells = def.printer.columns.map((column, index) => (index === 0 ? obj.metadata.name ?? '' : '<unknown>'));
    }
    const row: Record<string, unknown> = { cells };
    if (options.includeObject === 'Object') row.object = obj;
    else if (options.includeObject === 'Metadata') row.object = partialObjectMetadata(obj);
    return row;
  });
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.tableVersion ?? 'v1'}`,
    metadata: options.listMeta,
    columnDefinitions: options.noHeaders ? null : def.printer.columns,
    rows,
  };
  return table;
}
