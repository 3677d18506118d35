// Validation for rbac.authorization.k8s.io/v1 Roles, ClusterRoles and their bindings, as upstream
// pkg/apis/rbac/validation/validation.go: names are path segments, every rule needs verbs, resource
// rules need API groups and resources, non-resource URLs only in ClusterRoles, a binding's roleRef
// is fixed once created and names a Role (namespaced bindings) or ClusterRole.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { jsonEqual } from '../../../shared/kubernetes/json';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { isDNS1123Subdomain } from './names';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** path.IsValidPathSegmentName */
export function validRbacName(name: string, prefix: boolean): string[] {
  const errors: string[] = [];
  if (!prefix && (name === '.' || name === '..')) errors.push(`may not be '${name}'`);
  if (name.includes('/')) errors.push("may not contain '/'");
  if (name.includes('%')) errors.push("may not contain '%'");
  return errors;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function validatePolicyRule(rule: unknown, clusterScoped: boolean, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const record = isRecord(rule) ? rule : {};
  if (stringList(record.verbs).length === 0) errors.push(fieldErrors.required(`${field}.verbs`, 'verbs must contain at least one value'));
  const nonResourceURLs = stringList(record.nonResourceURLs);
  if (nonResourceURLs.length > 0) {
    if (!clusterScoped) errors.push(fieldErrors.invalid(`${field}.nonResourceURLs`, nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (stringList(record.apiGroups).length > 0 || stringList(record.resources).length > 0 || stringList(record.resourceNames).length > 0) {
      errors.push(fieldErrors.invalid(`${field}.nonResourceURLs`, nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errors;
  }
  if (stringList(record.apiGroups).length === 0) errors.push(fieldErrors.required(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  if (stringList(record.resources).length === 0) errors.push(fieldErrors.required(`${field}.resources`, 'resource rules must supply at least one resource'));
  return errors;
}

function validateRules(obj: KubeObject, clusterScoped: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const rules = Array.isArray(obj.rules) ? obj.rules : [];
  rules.forEach((rule, index) => errors.push(...validatePolicyRule(rule, clusterScoped, `rules[${index}]`)));
  return errors;
}

export function validateRole(obj: KubeObject): FieldError[] {
  return [...validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: validRbacName }), ...validateRules(obj, false)];
}

export function validateRoleUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateRules(obj, false)];
}

function validateAggregationRule(obj: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  if (obj.aggregationRule === undefined || obj.aggregationRule === null) return errors;
  const rule = isRecord(obj.aggregationRule) ? obj.aggregationRule : {};
  const selectors = Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : [];
  if (selectors.length === 0) errors.push(fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((selector, index) => validateLabelSelector(selector, `aggregationRule.clusterRoleSelectors[${index}]`, errors));
  return errors;
}

export function validateClusterRole(obj: KubeObject): FieldError[] {
  return [...validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: validRbacName }), ...validateAggregationRule(obj), ...validateRules(obj, true)];
}

export function validateClusterRoleUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateAggregationRule(obj), ...validateRules(obj, true)];
}

function validateRoleRef(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const ref = isRecord(obj.roleRef) ? obj.roleRef : {};
  const apiGroup = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (apiGroup !== RBAC_GROUP) errors.push(fieldErrors.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errors.push(fieldErrors.notSupported('roleRef.kind', kind, kinds));
  if (name === '') errors.push(fieldErrors.required('roleRef.name', ''));
  else for (const message of validRbacName(name, false)) errors.push(fieldErrors.invalid('roleRef.name', name, message));
  return errors;
}

function validateSubjects(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const subjects = Array.isArray(obj.subjects) ? obj.subjects : [];
  subjects.forEach((value, index) => {
    const field = `subjects[${index}]`;
    const subject = isRecord(value) ? value : {};
    const name = typeof subject.name === 'string' ? subject.name : '';
    const kind = typeof subject.kind === 'string' ? subject.kind : '';
    const apiGroup = typeof subject.apiGroup === 'string' ? subject.apiGroup : '';
    const namespace = typeof subject.namespace === 'string' ? subject.namespace : '';
    if (name === '') errors.push(fieldErrors.required(`${field}.name`, ''));
    switch (kind) {
      case 'ServiceAccount':
        if (name !== '') for (const message of isDNS1123Subdomain(name)) errors.push(fieldErrors.invalid(`${field}.name`, name, message));
        if (apiGroup !== '') errors.push(fieldErrors.notSupported(`${field}.apiGroup`, apiGroup, ['']));
        if (!namespaced && namespace === '') errors.push(fieldErrors.required(`${field}.namespace`, ''));
        break;
      case 'User':
      case 'Group':
        if (apiGroup !== RBAC_GROUP) errors.push(fieldErrors.notSupported(`${field}.apiGroup`, apiGroup, [RBAC_GROUP]));
        break;
      default:
        errors.push(fieldErrors.notSupported(`${field}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
    }
  });
  return errors;
}

export function validateRoleBinding(obj: KubeObject): FieldError[] {
  return [...validateObjectMeta(obj.metadata, { namespaced: true, nameValidator: validRbacName }), ...validateRoleRef(obj, true), ...validateSubjects(obj, true)];
}

export function validateRoleBindingUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata)];
  if (!jsonEqual(obj.roleRef, old.roleRef)) errors.push(fieldErrors.invalid('roleRef', obj.roleRef, 'cannot change roleRef'));
  return [...errors, ...validateRoleRef(obj, true), ...validateSubjects(obj, true)];
}

export function validateClusterRoleBinding(obj: KubeObject): FieldError[] {
  return [...validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: validRbacName }), ...validateRoleRef(obj, false), ...validateSubjects(obj, false)];
}

export function validateClusterRoleBindingUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors = [...validateObjectMetaUpdate(obj.metadata, old.metadata)];
  if (!jsonEqual(obj.roleRef, old.roleRef)) errors.push(fieldErrors.invalid('roleRef', obj.roleRef, 'cannot change roleRef'));
  return [...errors, ...validateRoleRef(obj, false), ...validateSubjects(obj, false)];
}
