// CustomResourceDefinition (apiextensions.k8s.io/v1) rules the CRD kind file
// (main/registry/kinds/apiextensions/customResourceDefinition.ts) is made of: defaults
// (v1/defaults.go), status handling (registry/customresourcedefinition/strategy.go: status reset on
// create, storedVersions gains the storage version), conditions, and validation with upstream's
// paths and messages (pkg/apis/apiextensions/validation/validation.go, pkg/apiserver/schema/
// validation.go for the structural-schema rules). Not checked: conversion webhooks' client config
// details, CEL rule compilation and cost, defaults against their own schema.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { isConditionTrue, setCondition as setStatusCondition, statusConditions } from '../../../shared/kubernetes/conditions';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from './names';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';
import { flag, schemaAdditionalProperties, schemaItems, schemaList, schemaProperties, schemaType, stringList, type JsonSchema } from './jsonSchema';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_RESOURCE = 'customresourcedefinitions';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Go %#v-ish rendering upstream uses for the versions list in messages; JSON keeps it readable. */
function versionsValue(versions: unknown): unknown {
  return Array.isArray(versions) ? versions.map((version) => text(record(version).name)) : versions;
}

/** SetDefaults_CustomResourceDefinition (v1). */
export function defaultCustomResourceDefinition(crd: KubeObject): void {
  if (!isRecord(crd.spec)) return;
  const spec = crd.spec;
  if (!isRecord(spec.conversion)) spec.conversion = { strategy: 'None' };
  const names = record(spec.names);
  if (isRecord(spec.names)) {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind !== '') names.listKind = `${names.kind}List`;
  }
  if (Array.isArray(spec.versions)) {
    for (const version of spec.versions) {
      if (!isRecord(version)) continue;
      const columns = version.additionalPrinterColumns;
      if (Array.isArray(columns)) for (const column of columns) if (isRecord(column) && column.priority === undefined) column.priority = 0;
    }
  }
}

/** SetCRDCondition: the condition replaces its type's, keeping lastTransitionTime while the status stays. */
export function setCondition(status: Record<string, unknown>, condition: { type: string; status: string; reason: string; message: string }, timestamp: string): void {
  status.conditions = setStatusCondition(statusConditions(status), condition, timestamp);
}

export function storageVersionOf(crd: KubeObject): string | undefined {
  const versions = Array.isArray(record(crd.spec).versions) ? (record(crd.spec).versions as unknown[]) : [];
  for (const version of versions) if (isRecord(version) && version.storage === true && typeof version.name === 'string') return version.name;
  return undefined;
}

/** Strategy PrepareForCreate: status starts empty apart from the storage version. */
export function prepareCustomResourceDefinitionForCreate(crd: KubeObject): void {
  const storage = storageVersionOf(crd);
  crd.status = { acceptedNames: { kind: '', plural: '' }, storedVersions: storage ? [storage] : [] };
}

/** Strategy PrepareForUpdate: main-resource writes keep status, but record a new storage version. */
export function prepareCustomResourceDefinitionForUpdate(crd: KubeObject, old: KubeObject): void {
  crd.status = structuredClone(old.status ?? {});
  const status = record(crd.status);
  const stored = stringList(status.storedVersions);
  const storage = storageVersionOf(crd);
  if (storage && !stored.includes(storage)) status.storedVersions = [...stored, storage];
}

export function validateCustomResourceDefinition(crd: KubeObject): FieldError[] {
  const spec = record(crd.spec);
  const names = record(spec.names);
  const requiredName = `${text(names.plural)}.${text(spec.group)}`;
  const errors = validateObjectMeta(crd.metadata, {
    namespaced: false,
    nameValidator: (name, prefix) => {
      const messages = nameIsDNSSubdomain(name, prefix);
      if (name !== requiredName) messages.push('must be spec.names.plural+"."+spec.group');
      return messages;
    },
  });
  errors.push(...validateSpec(spec, 'spec'));
  errors.push(...validateNames(record(record(crd.status).acceptedNames), 'status.acceptedNames'));
  return errors;
}

export function validateCustomResourceDefinitionUpdate(crd: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(crd.metadata, old.metadata);
  const spec = record(crd.spec);
  const oldSpec = record(old.spec);
  const established = isConditionTrue(old, 'Established');
  if (established) {
    if (spec.scope !== oldSpec.scope) errors.push(fieldErrors.invalid('spec.scope', spec.scope, 'field is immutable'));
    if (record(spec.names).kind !== record(oldSpec.names).kind) errors.push(fieldErrors.invalid('spec.names.kind', record(spec.names).kind, 'field is immutable'));
  }
  if (spec.group !== oldSpec.group) errors.push(fieldErrors.invalid('spec.group', spec.group, 'field is immutable'));
  if (record(spec.names).plural !== record(oldSpec.names).plural) errors.push(fieldErrors.invalid('spec.names.plural', record(spec.names).plural, 'field is immutable'));
  const stored = stringList(record(crd.status).storedVersions);
  const versionNames = new Set((Array.isArray(spec.versions) ? spec.versions : []).map((version) => text(record(version).name)));
  stored.forEach((version, index) => {
    if (!versionNames.has(version)) errors.push(fieldErrors.invalid(`status.storedVersions[${index}]`, version, 'must appear in spec.versions'));
  });
  return errors;
}

function validateSpec(spec: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const group = text(spec.group);
  if (group === '') errors.push(fieldErrors.required(`${path}.group`));
  else {
    const messages = isDNS1123Subdomain(group);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.group`, group, messages.join(',')));
    else if (group.split('.').length < 2) errors.push(fieldErrors.invalid(`${path}.group`, group, 'should be a domain with at least one dot'));
  }
  const scope = text(spec.scope);
  if (scope === '') errors.push(fieldErrors.required(`${path}.scope`));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errors.push(fieldErrors.notSupported(`${path}.scope`, scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) errors.push(fieldErrors.required(`${path}.versions`, 'must have at least one version'));
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  const statusEnabled = isRecord(record(spec.subresources).status);
  versions.forEach((entry, index) => {
    const version = record(entry);
    const versionPath = `${path}.versions[${index}]`;
    const name = text(version.name);
    if (version.storage === true) storageCount++;
    if (seen.has(name)) unique = false;
    seen.add(name);
    const nameErrors = isDNS1035Label(name);
    if (nameErrors.length > 0) errors.push(fieldErrors.invalid(`${versionPath}.name`, name, nameErrors.join(',')));
    const schema = record(version.schema).openAPIV3Schema;
    if (!isRecord(schema)) {
      if (spec.preserveUnknownFields !== true) errors.push(fieldErrors.required(`${versionPath}.schema.openAPIV3Schema`, 'schemas are required'));
    } else {
      errors.push(...validateStructuralSchema(schema, `${versionPath}.schema.openAPIV3Schema`));
    }
    errors.push(...validateSubresources(isRecord(version.subresources) ? version.subresources : undefined, `${versionPath}.subresources`));
    errors.push(...validatePrinterColumns(version.additionalPrinterColumns, `${versionPath}.additionalPrinterColumns`));
  });
  if (!unique) errors.push(fieldErrors.invalid(`${path}.versions`, versionsValue(spec.versions), 'must contain unique version names'));
  if (versions.length > 0 && storageCount !== 1) errors.push(fieldErrors.invalid(`${path}.versions`, versionsValue(spec.versions), 'must have exactly one version marked as storage version'));
  if (spec.preserveUnknownFields === true) errors.push(fieldErrors.invalid(`${path}.preserveUnknownFields`, true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in openAPIV3Schema instead'));

  const names = record(spec.names);
  if (text(names.plural) === '') errors.push(fieldErrors.required(`${path}.names.plural`));
  if (text(names.singular) === '') errors.push(fieldErrors.required(`${path}.names.singular`));
  if (text(names.kind) === '') errors.push(fieldErrors.required(`${path}.names.kind`));
  if (text(names.listKind) === '') errors.push(fieldErrors.required(`${path}.names.listKind`));
  errors.push(...validateNames(names, `${path}.names`));

  const conversion = record(spec.conversion);
  const strategy = text(conversion.strategy);
  if (strategy !== 'None' && strategy !== 'Webhook') errors.push(fieldErrors.notSupported(`${path}.conversion.strategy`, strategy, ['None', 'Webhook']));
  errors.push(...validateSubresources(isRecord(spec.subresources) ? spec.subresources : undefined, `${path}.subresources`));
  if (statusEnabled) {
    // nothing extra in v1: the root schema may hold anything once structural
  }
  return errors;
}

function validateNames(names: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const check = (key: string, lower: boolean, prefix = ''): void => {
    const value = text(names[key]);
    if (value === '') return;
    const messages = isDNS1035Label(lower ? value.toLowerCase() : value);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.${key}`, value, prefix + messages.join(',')));
  };
  check('plural', false);
  check('singular', false);
  check('kind', true, 'may have mixed case, but should otherwise match: ');
  check('listKind', true, 'may have mixed case, but should otherwise match: ');
  stringList(names.shortNames).forEach((shortName, index) => {
    const messages = isDNS1035Label(shortName);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.shortNames[${index}]`, shortName, messages.join(',')));
  });
  if (text(names.kind) !== '' && names.kind === names.listKind) errors.push(fieldErrors.invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  stringList(names.categories).forEach((category, index) => {
    const messages = isDNS1035Label(category);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.categories[${index}]`, category, messages.join(',')));
  });
  return errors;
}

function validateSubresources(subresources: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (!subresources || !isRecord(subresources.scale)) return [];
  const errors: FieldError[] = [];
  const scale = subresources.scale;
  const specPath = text(scale.specReplicasPath);
  if (specPath === '') errors.push(fieldErrors.required(`${path}.scale.specReplicasPath`));
  else if (!specPath.startsWith('.spec.')) errors.push(fieldErrors.invalid(`${path}.scale.specReplicasPath`, specPath, 'should be a json path under .spec'));
  const statusPath = text(scale.statusReplicasPath);
  if (statusPath === '') errors.push(fieldErrors.required(`${path}.scale.statusReplicasPath`));
  else if (!statusPath.startsWith('.status.')) errors.push(fieldErrors.invalid(`${path}.scale.statusReplicasPath`, statusPath, 'should be a json path under .status'));
  const selectorPath = text(scale.labelSelectorPath);
  if (selectorPath !== '' && !selectorPath.startsWith('.spec.') && !selectorPath.startsWith('.status.')) {
    errors.push(fieldErrors.invalid(`${path}.scale.labelSelectorPath`, selectorPath, 'should be a json path under either .spec or .status'));
  }
  return errors;
}

function validatePrinterColumns(columns: unknown, path: string): FieldError[] {
  if (!Array.isArray(columns)) return [];
  const errors: FieldError[] = [];
  columns.forEach((entry, index) => {
    const column = record(entry);
    const columnPath = `${path}[${index}]`;
    if (text(column.name) === '') errors.push(fieldErrors.required(`${columnPath}.name`));
    const type = text(column.type);
    if (type === '') errors.push(fieldErrors.required(`${columnPath}.type`, `must be one of integer, number, string, boolean, date`));
    else if (!['integer', 'number', 'string', 'boolean', 'date'].includes(type)) errors.push(fieldErrors.notSupported(`${columnPath}.type`, type, ['integer', 'number', 'string', 'boolean', 'date']));
    const format = text(column.format);
    if (format !== '' && !['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password'].includes(format)) {
      errors.push(fieldErrors.notSupported(`${columnPath}.format`, format, ['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password']));
    }
    if (text(column.jsonPath) === '') errors.push(fieldErrors.required(`${columnPath}.JSONPath`));
  });
  return errors;
}

/**
 * The structural-schema rules that real CRDs trip over: a type everywhere (unless int-or-string or
 * preserve-unknown-fields), object at the root, no properties beside additionalProperties, no
 * uniqueItems, metadata restricted to name/generateName at the root.
 */
export function validateStructuralSchema(schema: JsonSchema, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = schemaType(schema);
  if (type === '') errors.push(fieldErrors.required(`${path}.type`, 'must not be empty at the root'));
  else if (type !== 'object') errors.push(fieldErrors.invalid(`${path}.type`, type, 'must be object at the root'));
  const metadata = schemaProperties(schema)?.metadata;
  if (metadata) {
    const extra = Object.keys(schemaProperties(metadata) ?? {}).filter((key) => key !== 'name' && key !== 'generateName');
    if (extra.length > 0 || (metadata.type !== undefined && metadata.type !== 'object')) {
      errors.push(fieldErrors.forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  walkSchema(schema, path, errors, true);
  return errors;
}

function walkSchema(schema: JsonSchema, path: string, errors: FieldError[], root: boolean): void {
  if (flag(schema, 'uniqueItems')) errors.push(fieldErrors.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const properties = schemaProperties(schema);
  const additional = isRecord(schema.additionalProperties) || schema.additionalProperties === false ? schema.additionalProperties : undefined;
  if (properties && Object.keys(properties).length > 0 && additional !== undefined) {
    errors.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (typeof schema.$ref === 'string') errors.push(fieldErrors.forbidden(`${path}.$ref`, '$ref is not supported'));
  const intOrString = flag(schema, 'x-kubernetes-int-or-string');
  if (intOrString && schemaType(schema) !== '') errors.push(fieldErrors.invalid(`${path}.type`, schemaType(schema), 'must be empty if x-kubernetes-int-or-string is true'));
  if (flag(schema, 'x-kubernetes-embedded-resource') && schemaType(schema) !== 'object') errors.push(fieldErrors.invalid(`${path}.type`, schemaType(schema), 'must be object if x-kubernetes-embedded-resource is true'));
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errors.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (listType === 'map' && stringList(schema['x-kubernetes-list-map-keys']).length === 0) {
    errors.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  if (properties) {
    for (const key of Object.keys(properties).sort()) {
      const child = properties[key];
      const childPath = `${path}.properties[${key}]`;
      if (!root || key !== 'metadata') requireType(child, childPath, 'must not be empty for specified object fields', errors);
      walkSchema(child, childPath, errors, false);
    }
  }
  const additionalSchema = schemaAdditionalProperties(schema);
  if (isRecord(schema.additionalProperties) && additionalSchema) {
    requireType(additionalSchema, `${path}.additionalProperties`, 'must not be empty for specified additionalProperties', errors);
    walkSchema(additionalSchema, `${path}.additionalProperties`, errors, false);
  }
  const items = schemaItems(schema);
  if (schemaType(schema) === 'array' && !items) errors.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  if (items) {
    requireType(items, `${path}.items`, 'must not be empty for specified array items', errors);
    walkSchema(items, `${path}.items`, errors, false);
  }
  for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
    schemaList(schema[keyword]).forEach((part, index) => {
      if (part.type !== undefined && part.type !== schema.type) errors.push(fieldErrors.forbidden(`${path}.${keyword}[${index}].type`, 'must be empty to be structural'));
    });
  }
}

function requireType(schema: JsonSchema, path: string, message: string, errors: FieldError[]): void {
  if (schemaType(schema) !== '') return;
  if (flag(schema, 'x-kubernetes-int-or-string') || flag(schema, 'x-kubernetes-preserve-unknown-fields')) return;
  errors.push(fieldErrors.required(`${path}.type`, message));
}

/**
 * Kube-aware version order (apimachinery version.CompareKubeAwareVersionStrings): GA before beta
 * before alpha, higher numbers first, then anything else alphabetically.
 */
export function compareVersions(left: string, right: string): number {
  const parse = (version: string): [number, number, number] | undefined => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
    if (!match) return undefined;
    const stability = match[2] === 'alpha' ? 0 : match[2] === 'beta' ? 1 : 2;
    return [stability, Number(match[1]), Number(match[3] ?? 0)];
  };
  const a = parse(left);
  const b = parse(right);
  if (a && !b) return -1;
  if (!a && b) return 1;
  if (!a || !b) return left.localeCompare(right);
  if (a[0] !== b[0]) return b[0] - a[0];
  if (a[1] !== b[1]) return b[1] - a[1];
  return b[2] - a[2];
}
