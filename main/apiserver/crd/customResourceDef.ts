// The strategy of each served version of a CustomResourceDefinition, after apiextensions-apiserver
// pkg/registry/customresource/strategy.go, status_strategy.go and etcd.go: status reset on create
// and kept on main-resource updates when the status subresource is on, generation on every change
// outside metadata/status, ObjectMeta + schema + x-kubernetes-validations validation, schema
// defaulting and pruning, Table columns from additionalPrinterColumns, selectableFields, and the
// scale subresource's paths. Conversion is None: every version reads and writes the same stored
// objects, only apiVersion differs.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { FieldError } from '../../registry/fieldErrors';
import { defineKind, keepStoredStatus, statusSubresource, StrategyError, type KindStrategy, type SubresourceDescription } from '../../registry/strategy';
import { customResourceTableDef, type CustomResourceColumnDefinition } from '../../../shared/printers';
import { findJsonPathResults } from '../../../shared/printers/jsonPath';
import { nameIsDNSSubdomain } from '../../registry/validation/names';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../registry/validation/objectMeta';
import { compareVersions } from '../../registry/validation/apiextensions';
import { stringList, type JsonSchema } from '../../registry/validation/jsonSchema';
import { validateValue } from './schemaValidation';
import { applyDefaults, pruneCustomResource } from './structural';
import { validateRules } from './validationRules';
import { readPath } from '../handlers/scale';

/** A custom resource's strategy; it also carries its schema, which the OpenAPI documents publish. */
export type CustomResourceDef = KindStrategy;

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Served versions in discovery order (kube-aware version priority). */
export function servedVersions(crd: KubeObject): Record<string, unknown>[] {
  const versions = Array.isArray(record(crd.spec).versions) ? (record(crd.spec).versions as unknown[]) : [];
  return versions.filter(isRecord).filter((version) => version.served === true).sort((left, right) => compareVersions(text(left.name), text(right.name)));
}

/** The scale subresource of a version (CustomResourceSubresourceScale): the paths it reads and writes. */
function scaleOf(version: Record<string, unknown>): SubresourceDescription | undefined {
  const scale = record(version.subresources).scale;
  if (!isRecord(scale)) return undefined;
  const labelSelectorPath = text(scale.labelSelectorPath);
  return {
    name: 'scale',
    type: 'scale',
    group: 'autoscaling', version: 'v1', kind: 'Scale',
    specReplicasPath: text(scale.specReplicasPath),
    statusReplicasPath: text(scale.statusReplicasPath),
    selector: (obj) => {
      if (labelSelectorPath === '') return undefined;
      const selector = readPath(obj, labelSelectorPath);
      return typeof selector === 'string' && selector !== '' ? selector : undefined;
    },
  };
}

function printerColumns(version: Record<string, unknown>): CustomResourceColumnDefinition[] {
  const columns = Array.isArray(version.additionalPrinterColumns) ? version.additionalPrinterColumns.filter(isRecord) : [];
  return columns.map((column) => ({
    name: text(column.name),
    type: text(column.type),
    format: text(column.format) || undefined,
    description: text(column.description) || undefined,
    priority: typeof column.priority === 'number' ? column.priority : 0,
    jsonPath: text(column.jsonPath),
  }));
}

function selectableFieldPaths(version: Record<string, unknown>): string[] {
  const fields = Array.isArray(version.selectableFields) ? version.selectableFields.filter(isRecord) : [];
  return fields.map((field) => text(field.jsonPath)).filter((path) => path !== '');
}

/** One strategy per served version of `crd`; `terminating` refuses creates while the CRD is being deleted. */
export function customResourceDefs(crd: KubeObject, terminating: boolean): CustomResourceDef[] {
  const spec = record(crd.spec);
  const names = record(spec.names);
  const group = text(spec.group);
  const kind = text(names.kind);
  const namespaced = spec.scope === 'Namespaced';
  return servedVersions(crd).map((version) => {
    const versionName = text(version.name);
    const schema = isRecord(record(version.schema).openAPIV3Schema) ? (record(version.schema).openAPIV3Schema as JsonSchema) : undefined;
    const hasStatus = isRecord(record(version.subresources).status);
    const scale = scaleOf(version);
    const subresources: SubresourceDescription[] = [];
    if (hasStatus) subresources.push(statusSubresource());
    if (scale) subresources.push(scale);
    const selectable = selectableFieldPaths(version);
    const validateCreate = (obj: KubeObject): FieldError[] => {
      const errors = validateObjectMeta(obj.metadata, { namespaced, nameValidator: nameIsDNSSubdomain });
      if (schema) {
        const { metadata: _metadata, ...body } = obj;
        const schemaErrors: FieldError[] = [];
        validateValue(body, { ...schema, properties: { ...(record(schema.properties) as Record<string, JsonSchema>), metadata: { type: 'object' } } }, '', schemaErrors);
        errors.push(...schemaErrors);
        // Upstream runs the CEL rules only on objects that passed the OpenAPI schema.
        if (schemaErrors.length === 0) errors.push(...validateRules(obj, schema, undefined, false));
      }
      return errors;
    };
    return defineKind({
      group,
      version: versionName,
      resource: text(names.plural),
      singular: text(names.singular) || kind.toLowerCase(),
      kind,
      listKind: text(names.listKind) || `${kind}List`,
      namespaced,
      shortNames: stringList(names.shortNames),
      categories: stringList(names.categories),
      subresources,
      hasGeneration: true,
      defaults: (obj) => applyDefaults(obj, schema),
      validateCreate,
      validateUpdate: (obj, old) => {
        const errors = validateObjectMetaUpdate(obj.metadata, old.metadata);
        // The store merges these with validateCreate's and drops duplicates (rules without oldSelf).
        if (schema && validateCreate(obj).length === 0) errors.push(...validateRules(obj, schema, old, true));
        return errors;
      },
      prepareForCreate: (obj) => {
        if (terminating) throw new StrategyError('MethodNotAllowed', `create not allowed while custom resource definition is terminating`);
        if (hasStatus) delete obj.status;
      },
      prepareForUpdate: (obj, old) => {
        if (hasStatus) keepStoredStatus(obj, old);
      },
      pruneUnknownFields: (obj) => pruneCustomResource(obj, schema),
      printer: customResourceTableDef(printerColumns(version)),
      selectableFields: (obj) => {
        const values: Record<string, string> = {};
        for (const path of selectable) {
          const found = findJsonPathResults(obj, path);
          const value = found && found.length > 0 ? found[0] : undefined;
          values[path.replace(/^\./, '')] = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
        }
        return values;
      },
      openAPIV3Schema: schema,
    });
  });
}
