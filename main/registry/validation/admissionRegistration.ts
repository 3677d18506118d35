// Validation for admissionregistration.k8s.io/v1 (pkg/apis/admissionregistration/validation):
// webhook configurations (fully qualified unique webhook names, exactly one of url/service, https
// only, rules, sideEffects and admissionReviewVersions required in v1, timeouts 1–30 s) and
// ValidatingAdmissionPolicy / Binding (match constraints, expressions, validation actions).
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { fieldErrors, type FieldError } from '../fieldErrors';
import { arrayAt, objectAt, objectsAt, optionalStringAt, recordOf, stringAt } from './fields';
import { nameIsDNSSubdomain } from './names';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';

const operations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const scopes = ['*', 'Cluster', 'Namespaced'];

function validateRules(value: unknown, field: string, errors: FieldError[], requireOperations: boolean): void {
  for (const { item, path } of objectsAt(value, field, errors)) {
    const ops = arrayAt(item.operations, `${path}.operations`, errors);
    if (requireOperations && ops.length === 0) errors.push(fieldErrors.required(`${path}.operations`, ''));
    ops.forEach((op, index) => {
      if (typeof op !== 'string' || !operations.includes(op)) errors.push(fieldErrors.notSupported(`${path}.operations[${index}]`, op, operations));
    });
    for (const key of ['apiGroups', 'apiVersions', 'resources']) {
      if (arrayAt(item[key], `${path}.${key}`, errors).length === 0) errors.push(fieldErrors.required(`${path}.${key}`, ''));
    }
    const scope = optionalStringAt(item.scope, `${path}.scope`, errors);
    if (scope !== undefined && !scopes.includes(scope)) errors.push(fieldErrors.notSupported(`${path}.scope`, scope, scopes));
  }
}

function validateClientConfig(value: unknown, field: string, errors: FieldError[]): void {
  const config = objectAt(value, field, errors);
  if (!config) {
    errors.push(fieldErrors.required(field, 'exactly one of url or service is required'));
    return;
  }
  const hasUrl = config.url !== undefined && config.url !== null;
  const hasService = config.service !== undefined && config.service !== null;
  if (hasUrl === hasService) {
    errors.push(fieldErrors.required(field, 'exactly one of url or service is required'));
    return;
  }
  if (hasUrl) {
    const url = stringAt(config.url, `${field}.url`, errors);
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.push(fieldErrors.invalid(`${field}.url`, url, 'host must be specified'));
    }
    if (parsed && parsed.protocol !== 'https:') errors.push(fieldErrors.invalid(`${field}.url`, url, "'https' is the only allowed URL scheme"));
    if (parsed && (parsed.username || parsed.password)) errors.push(fieldErrors.invalid(`${field}.url`, url, 'user information is not permitted in the URL'));
    if (parsed && parsed.hash) errors.push(fieldErrors.invalid(`${field}.url`, url, 'fragments are not permitted in the URL'));
    if (parsed && parsed.search) errors.push(fieldErrors.invalid(`${field}.url`, url, 'query parameters are not permitted in the URL'));
    return;
  }
  const service = objectAt(config.service, `${field}.service`, errors) ?? {};
  if (!service.name) errors.push(fieldErrors.required(`${field}.service.name`, 'service name is required'));
  if (!service.namespace) errors.push(fieldErrors.required(`${field}.service.namespace`, 'service namespace is required'));
  const path = optionalStringAt(service.path, `${field}.service.path`, errors);
  if (path !== undefined && path !== '' && !path.startsWith('/')) errors.push(fieldErrors.invalid(`${field}.service.path`, path, "must start with a '/'"));
  const port = service.port;
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)) {
    errors.push(fieldErrors.invalid(`${field}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
}

function isQualifiedWebhookName(name: string): boolean {
  return name.split('.').length >= 3 && nameIsDNSSubdomain(name, false).length === 0;
}

function validateWebhooks(obj: KubeObject, mutating: boolean): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const seen = new Set<string>();
  for (const { item, path } of objectsAt(obj.webhooks, 'webhooks', errors)) {
    const name = typeof item.name === 'string' ? item.name : '';
    if (name === '') errors.push(fieldErrors.required(`${path}.name`, ''));
    else if (!isQualifiedWebhookName(name)) errors.push(fieldErrors.invalid(`${path}.name`, name, 'should be a domain with at least three segments separated by dots'));
    else if (seen.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    seen.add(name);
    validateRules(item.rules, `${path}.rules`, errors, false);
    validateClientConfig(item.clientConfig, `${path}.clientConfig`, errors);
    const sideEffects = item.sideEffects;
    if (sideEffects === undefined || sideEffects === null || sideEffects === '') errors.push(fieldErrors.required(`${path}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
    else if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') errors.push(fieldErrors.notSupported(`${path}.sideEffects`, sideEffects, ['None', 'NoneOnDryRun']));
    const versions = arrayAt(item.admissionReviewVersions, `${path}.admissionReviewVersions`, errors);
    if (versions.length === 0) errors.push(fieldErrors.required(`${path}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
    else if (!versions.some((version) => version === 'v1' || version === 'v1beta1')) errors.push(fieldErrors.invalid(`${path}.admissionReviewVersions`, versions, 'must include at least one of v1, v1beta1'));
    const failurePolicy = item.failurePolicy;
    if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') errors.push(fieldErrors.notSupported(`${path}.failurePolicy`, failurePolicy, ['Fail', 'Ignore']));
    const matchPolicy = item.matchPolicy;
    if (matchPolicy !== undefined && matchPolicy !== 'Exact' && matchPolicy !== 'Equivalent') errors.push(fieldErrors.notSupported(`${path}.matchPolicy`, matchPolicy, ['Equivalent', 'Exact']));
    const timeout = item.timeoutSeconds;
    if (timeout !== undefined && (typeof timeout !== 'number' || timeout < 1 || timeout > 30)) errors.push(fieldErrors.invalid(`${path}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
    if (item.namespaceSelector !== undefined) validateLabelSelector(item.namespaceSelector, `${path}.namespaceSelector`, errors);
    if (item.objectSelector !== undefined) validateLabelSelector(item.objectSelector, `${path}.objectSelector`, errors);
    if (mutating) {
      const reinvocation = item.reinvocationPolicy;
      if (reinvocation !== undefined && reinvocation !== 'Never' && reinvocation !== 'IfNeeded') errors.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, reinvocation, ['IfNeeded', 'Never']));
    }
    validateMatchConditions(item.matchConditions, `${path}.matchConditions`, errors);
  }
  return errors;
}

function validateMatchConditions(value: unknown, field: string, errors: FieldError[]): void {
  const names = new Set<string>();
  for (const { item, path } of objectsAt(value, field, errors)) {
    const name = typeof item.name === 'string' ? item.name : '';
    if (name === '') errors.push(fieldErrors.required(`${path}.name`, ''));
    else if (names.has(name)) errors.push(fieldErrors.duplicate(`${path}.name`, name));
    names.add(name);
    if (typeof item.expression !== 'string' || item.expression === '') errors.push(fieldErrors.required(`${path}.expression`, ''));
  }
}

export function validateValidatingWebhookConfiguration(obj: KubeObject): FieldError[] {
  return validateWebhooks(obj, false);
}

export function validateValidatingWebhookConfigurationUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateWebhooks(obj, false)];
}

export function validateMutatingWebhookConfiguration(obj: KubeObject): FieldError[] {
  return validateWebhooks(obj, true);
}

export function validateMutatingWebhookConfigurationUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateWebhooks(obj, true)];
}

function validatePolicySpec(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  const constraints = spec.matchConstraints;
  if (!isRecord(constraints)) errors.push(fieldErrors.required('spec.matchConstraints', ''));
  else {
    if (arrayAt(constraints.resourceRules, 'spec.matchConstraints.resourceRules', errors).length === 0) errors.push(fieldErrors.required('spec.matchConstraints.resourceRules', ''));
    validateRules(constraints.resourceRules, 'spec.matchConstraints.resourceRules', errors, true);
  }
  const validations = arrayAt(spec.validations, 'spec.validations', errors);
  const auditAnnotations = arrayAt(spec.auditAnnotations, 'spec.auditAnnotations', errors);
  if (validations.length === 0 && auditAnnotations.length === 0) errors.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  for (const { item, path } of objectsAt(spec.validations, 'spec.validations', errors)) {
    if (typeof item.expression !== 'string' || item.expression.trim() === '') errors.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
    const reason = item.reason;
    const reasons = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
    if (reason !== undefined && !reasons.includes(String(reason))) errors.push(fieldErrors.notSupported(`${path}.reason`, reason, reasons));
  }
  const failurePolicy = spec.failurePolicy;
  if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') errors.push(fieldErrors.notSupported('spec.failurePolicy', failurePolicy, ['Fail', 'Ignore']));
  validateMatchConditions(spec.matchConditions, 'spec.matchConditions', errors);
  return errors;
}

export function validateValidatingAdmissionPolicy(obj: KubeObject): FieldError[] {
  return validatePolicySpec(obj);
}

export function validateValidatingAdmissionPolicyUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validatePolicySpec(obj)];
}

const validationActions = ['Audit', 'Deny', 'Warn'];

function validateBindingSpec(obj: KubeObject): FieldError[] {
  const errors = validateObjectMeta(obj.metadata, { namespaced: false, nameValidator: nameIsDNSSubdomain });
  const spec = objectAt(obj.spec, 'spec', errors) ?? {};
  if (typeof spec.policyName !== 'string' || spec.policyName === '') errors.push(fieldErrors.required('spec.policyName', ''));
  const actions = arrayAt(spec.validationActions, 'spec.validationActions', errors);
  if (actions.length === 0) errors.push(fieldErrors.required('spec.validationActions', 'at least one validation action is required'));
  const seen = new Set<unknown>();
  actions.forEach((action, index) => {
    if (!validationActions.includes(String(action))) errors.push(fieldErrors.notSupported(`spec.validationActions[${index}]`, action, validationActions));
    else if (seen.has(action)) errors.push(fieldErrors.duplicate(`spec.validationActions[${index}]`, action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn')) errors.push(fieldErrors.invalid('spec.validationActions', actions, 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  const paramRef = spec.paramRef;
  if (isRecord(paramRef) && paramRef.name !== undefined && paramRef.selector !== undefined) errors.push(fieldErrors.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
  if (isRecord(spec.matchResources)) validateRules(recordOf(spec.matchResources).resourceRules, 'spec.matchResources.resourceRules', errors, true);
  return errors;
}

export function validateValidatingAdmissionPolicyBinding(obj: KubeObject): FieldError[] {
  return validateBindingSpec(obj);
}

export function validateValidatingAdmissionPolicyBindingUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateBindingSpec(obj)];
}
