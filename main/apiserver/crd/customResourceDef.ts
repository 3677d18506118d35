// ResourceDefs for the served versions of a CustomResourceDefinition, after apiextensions-apiserver
// pkg/registry/customresource/strategy.go and status_strategy.go: status reset on create and kept on
// main-resource updates when the status subresource is on, generation on every change outside
// metadata/status, ObjectMeta + schema + x-kubernetes-validations validation, schema defaulting,
// Table columns from additionalPrinterColumns, selectableFields. Conversion is None: every version
// reads and writes the same stored objects, only apiVersion differs.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { FieldError } from '../../registry/fieldErrors';
import type { ResourceDef, SubresourceDef } from '../../registry/types';
import { customResourceTableDef, type CustomResourceColumnDefinition } from '../../../shared/printers';
import { findJsonPathResults } from '../../../shared/printers/jsonPath';
import { nameIsDNSSubdomain } from '../../registry/validation/names';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../registry/validation/objectMeta';
import { ApiError } from '../apiError';
import { compareVersions } from './crdValidation';
import { stringList, type JsonSchema } from './jsonSchema';
import { validateValue } from './schemaValidation';
import { applyDefaults, pruneCustomResource } from './structural';
import { validateRules } from './validationRules';

const standardVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** What kubedesk remembers about a served custom resource version beside its ResourceDef. */
export interface CustomResourceInfo {
  crdName: string;
  schema: JsonSchema | undefined;
  scale: ScaleSpec | undefined;
  /** set while the CRD is being deleted: creates are refused */
  terminating: boolean;
}

/** A ResourceDef that also carries its schema, which the OpenAPI documents publish. */
export type CustomResourceDef = ResourceDef & { openAPIV3Schema?: unknown };

const infos = new WeakMap<ResourceDef, CustomResourceInfo>();

export function customResourceInfo(def: ResourceDef): CustomResourceInfo | undefined {
  return infos.get(def);
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Decoding step of custom resources (called from ResourceStore.decodeObject): prunes fields the
 * schema does not specify and returns them as `unknown field "…"` messages for fieldValidation.
 * Returns undefined for kinds that are not custom resources.
 */
export function pruneCustomResourceObject(def: ResourceDef, obj: KubeObject): string[] | undefined {
  const info = infos.get(def);
  if (!info) return undefined;
  return pruneCustomResource(obj, info.schema);
}

/** Served versions in discovery order (kube-aware version priority). */
export function servedVersions(crd: KubeObject): Record<string, unknown>[] {
  const versions = Array.isArray(record(crd.spec).versions) ? (record(crd.spec).versions as unknown[]) : [];
  return versions.filter(isRecord).filter((version) => version.served === true).sort((left, right) => compareVersions(text(left.name), text(right.name)));
}

function scaleOf(version: Record<string, unknown>): ScaleSpec | undefined {
  const scale = record(version.subresources).scale;
  if (!isRecord(scale)) return undefined;
  const spec: ScaleSpec = { specReplicasPath: text(scale.specReplicasPath), statusReplicasPath: text(scale.statusReplicasPath) };
  if (text(scale.labelSelectorPath) !== '') spec.labelSelectorPath = text(scale.labelSelectorPath);
  return spec;
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

/** One ResourceDef per served version of `crd`. */
export function customResourceDefs(crd: KubeObject, terminating: boolean): CustomResourceDef[] {
  const spec = record(crd.spec);
  const names = record(spec.names);
  const group = text(spec.group);
  const kind = text(names.kind);
  const namespaced = spec.scope === 'Namespaced';
  return servedVersions(crd).map((version) => {
    const versionName = text(version.name);
    const schema = isRecord(record(version.schema).openAPIV3Schema) ? (record(version.schema).openAPIV3Schema as JsonSchema) : undefined;
    const subresourcesSpec = record(version.subresources);
    const hasStatus = isRecord(subresourcesSpec.status);
    const scale = scaleOf(version);
    const subresources: SubresourceDef[] = [];
    if (hasStatus) subresources.push({ name: 'status', kind, group, version: versionName, verbs: ['get', 'patch', 'update'] });
    if (scale) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] });
    const info: CustomResourceInfo = { crdName: crd.metadata.name ?? '', schema, scale, terminating };
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
    const def: CustomResourceDef = {
      group,
      version: versionName,
      resource: text(names.plural),
      singular: text(names.singular) || kind.toLowerCase(),
      kind,
      listKind: text(names.listKind) || `${kind}List`,
      namespaced,
      shortNames: stringList(names.shortNames),
      categories: stringList(names.categories),
      verbs: standardVerbs,
      subresources,
      hasStatus,
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
        if (info.terminating) throw new ApiError(405, 'MethodNotAllowed', `create not allowed while custom resource definition is terminating`);
        if (hasStatus) delete obj.status;
      },
      prepareForUpdate: (obj, old) => {
        if (!hasStatus) return;
        if (old.status === undefined) delete obj.status;
        else obj.status = structuredClone(old.status);
      },
      table: customResourceTableDef(printerColumns(version)),
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
    };
    infos.set(def, info);
    return def;
  });
}
