// Kinds added at run time by CustomResourceDefinitions: one KindConfig per established CRD, with the
// storage-version's additionalPrinterColumns as columns (the same table the API server prints).
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { customResourceTableDef, type CustomResourceColumnDefinition } from '../../shared/printers/defaultTable';
import type { KindConfig } from './kindConfig';

function printerColumns(value: unknown): CustomResourceColumnDefinition[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).flatMap((column) =>
    typeof column.name === 'string' && typeof column.jsonPath === 'string'
      ? [{ name: column.name, type: typeof column.type === 'string' ? column.type : 'string', format: typeof column.format === 'string' ? column.format : undefined, description: typeof column.description === 'string' ? column.description : undefined, priority: typeof column.priority === 'number' ? column.priority : undefined, jsonPath: column.jsonPath }]
      : [],
  );
}

/** The KindConfig of a CRD's served storage version, or undefined for a malformed CRD. */
export function customKindOf(crd: KubeObject): KindConfig | undefined {
  const spec = isRecord(crd.spec) ? crd.spec : undefined;
  const names = spec && isRecord(spec.names) ? spec.names : undefined;
  if (!spec || !names || typeof spec.group !== 'string' || typeof names.plural !== 'string' || typeof names.kind !== 'string') return undefined;
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const version = versions.find((candidate) => candidate.storage === true && candidate.served !== false) ?? versions.find((candidate) => candidate.served !== false);
  if (!version || typeof version.name !== 'string') return undefined;
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames.filter((name): name is string => typeof name === 'string') : [];
  return {
    key: `${names.plural}.${spec.group}`,
    kind: names.kind,
    group: spec.group,
    version: version.name,
    plural: names.plural,
    namespaced: spec.scope !== 'Cluster',
    title: names.kind,
    section: 'Custom resources',
    table: customResourceTableDef(printerColumns(version.additionalPrinterColumns)),
    shortNames,
  };
}
