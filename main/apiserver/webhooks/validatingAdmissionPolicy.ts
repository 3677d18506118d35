// ValidatingAdmissionPolicy + ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1),
// as upstream's staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/validating does: a binding
// selects a policy by name; both the policy's matchConstraints and the binding's matchResources
// must match; matchConditions gate it; each validation's CEL expression sees `object`,
// `oldObject`, `request`, `params`, `namespaceObject` and `variables`. A false result under a Deny
// action rejects with `<resource> "<name>" is forbidden: ValidatingAdmissionPolicy '<p>' with
// binding '<b>' denied request: <message>` (reason Invalid unless the validation names one), a
// Warn action adds a Warning header, Audit is accepted and ignored.
// CEL comes from main/apiserver/crd/cel.ts, a subset of the language (see its header): an
// expression outside it counts as an evaluation error and follows the policy's failurePolicy.
import type { KubeObject, Status } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { ApiError } from '../apiError';
import { evaluateRule } from '../crd/cel';
import { qualifiedResource } from '../../registry/resources';
import { WebhookStatusError } from './admissionReview';
import { kindOf, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type AdmissionAttributes } from './matching';

export interface PolicyContext {
  policies: readonly KubeObject[];
  bindings: readonly KubeObject[];
  namespaceLabels(name: string): Record<string, string> | undefined;
  namespaceObject(name: string): KubeObject | undefined;
  /** the parameter object a binding's paramRef names (paramKind is resolved by the caller) */
  params(paramKind: Record<string, unknown>, namespace: string, name: string): KubeObject | undefined;
  /** the request as other served versions of its resource (matchPolicy Equivalent), converted */
  equivalents?(attributes: AdmissionAttributes): AdmissionAttributes[];
}

const reasonCodes: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** Whether match resources (policy matchConstraints or binding matchResources) select the request. */
export function matchResourcesMatch(match: unknown, attributes: AdmissionAttributes, namespaceLabels: (name: string) => Record<string, string> | undefined): boolean {
  if (!isRecord(match)) return true;
  if (!namespaceSelectorMatches(match.namespaceSelector, attributes, namespaceLabels)) return false;
  if (!objectSelectorMatches(match.objectSelector, attributes)) return false;
  const rules = Array.isArray(match.resourceRules) ? match.resourceRules : undefined;
  if (rules && !rules.some((rule) => namedRuleMatches(rule, attributes))) return false;
  const excluded = Array.isArray(match.excludeResourceRules) ? match.excludeResourceRules : [];
  return !excluded.some((rule) => namedRuleMatches(rule, attributes));
}

function namedRuleMatches(rule: unknown, attributes: AdmissionAttributes): boolean {
  if (!ruleMatches(rule, attributes)) return false;
  const names = isRecord(rule) && Array.isArray(rule.resourceNames) ? rule.resourceNames : [];
  return names.length === 0 || names.includes(attributes.name);
}

/** `request` as CEL sees it: the AdmissionRequest fields. */
export function celRequest(attributes: AdmissionAttributes): Record<string, unknown> {
  const { def } = attributes;
  const user = attributes.user ?? { name: 'system:apiserver', groups: ['system:authenticated', 'system:masters'] };
  const kind = kindOf(attributes);
  const requested = attributes.requestDef ?? def;
  return {
    kind,
    resource: { group: def.group, version: def.version, resource: def.resource },
    subResource: attributes.subresource,
    requestKind: attributes.requestKind ?? kind,
    requestResource: { group: requested.group, version: requested.version, resource: requested.resource },
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: { username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} },
    dryRun: attributes.dryRun,
    options: attributes.options ?? null,
  };
}

/** Evaluates matchConditions: true when all hold; throws Error when one fails to evaluate. */
export function matchConditionsHold(conditions: unknown, variables: Record<string, unknown>): boolean {
  if (!Array.isArray(conditions)) return true;
  for (const condition of conditions) {
    if (!isRecord(condition) || typeof condition.expression !== 'string') continue;
    const result = evaluateRule(condition.expression, variables);
    if (typeof result !== 'boolean') throw new Error(`matchCondition '${String(condition.name)}' must evaluate to bool`);
    if (!result) return false;
  }
  return true;
}

/** Runs every bound policy against the request; throws the first Deny, returns Warn texts. */
export function evaluatePolicies(request: AdmissionAttributes, context: PolicyContext): string[] {
  const warnings: string[] = [];
  const policies = new Map(context.policies.map((policy) => [policy.metadata.name ?? '', policy]));
  const bindings = [...context.bindings].sort((left, right) => (left.metadata.name ?? '').localeCompare(right.metadata.name ?? ''));
  for (const binding of bindings) {
    const bindingSpec = isRecord(binding.spec) ? binding.spec : {};
    const policy = policies.get(String(bindingSpec.policyName ?? ''));
    if (!policy) continue;
    const spec = isRecord(policy.spec) ? policy.spec : {};
    // matchPolicy Equivalent (the default): the request as another served version may match instead
    const exact = isRecord(spec.matchConstraints) && spec.matchConstraints.matchPolicy === 'Exact';
    const variants = exact ? [request] : [request, ...(context.equivalents?.(request) ?? [])];
    const attributes = variants.find((variant) => matchResourcesMatch(spec.matchConstraints, variant, context.namespaceLabels));
    if (!attributes) continue;
    if (isRecord(bindingSpec.matchResources) && !matchResourcesMatch(bindingSpec.matchResources, attributes, context.namespaceLabels)) continue;
    const actions = Array.isArray(bindingSpec.validationActions) ? bindingSpec.validationActions.map(String) : [];
    const failurePolicy = spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail';
    const policyName = policy.metadata.name ?? '';
    const bindingName = binding.metadata.name ?? '';
    const decisions: Array<{ message: string; reason: string }> = [];
    try {
      const variables = policyVariables(attributes, context, spec, bindingSpec);
      if (!matchConditionsHold(spec.matchConditions, variables)) continue;
      for (const validation of Array.isArray(spec.validations) ? spec.validations : []) {
        if (!isRecord(validation) || typeof validation.expression !== 'string') continue;
        let result: unknown;
        try {
          result = evaluateRule(validation.expression, variables);
        } catch (error) {
          if (failurePolicy === 'Ignore') continue;
          decisions.push({ message: `expression '${validation.expression}' resulted in error: ${error instanceof Error ? error.message : String(error)}`, reason: 'Invalid' });
          continue;
        }
        if (result === true) continue;
        decisions.push({ message: validationMessage(validation, variables), reason: typeof validation.reason === 'string' ? validation.reason : 'Invalid' });
      }
    } catch (error) {
      if (failurePolicy === 'Ignore') continue;
      decisions.push({ message: `failed to configure binding: ${error instanceof Error ? error.message : String(error)}`, reason: 'Invalid' });
    }
    for (const decision of decisions) {
      if (actions.includes('Deny')) throw policyDenied(attributes, policyName, bindingName, decision);
      if (actions.includes('Warn')) warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`);
    }
  }
  return warnings;
}

function policyVariables(attributes: AdmissionAttributes, context: PolicyContext, spec: Record<string, unknown>, bindingSpec: Record<string, unknown>): Record<string, unknown> {
  let params: unknown = null;
  if (isRecord(spec.paramKind)) {
    const ref = isRecord(bindingSpec.paramRef) ? bindingSpec.paramRef : undefined;
    if (!ref || typeof ref.name !== 'string') throw new Error('paramRef with a name is required when the policy has a paramKind');
    const namespace = typeof ref.namespace === 'string' ? ref.namespace : attributes.namespace;
    params = context.params(spec.paramKind, namespace, ref.name) ?? null;
    if (params === null && ref.parameterNotFoundAction !== 'Allow') throw new Error(`no params found for policy binding with \`Deny\` parameterNotFoundAction`);
  }
  const base: Record<string, unknown> = {
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    request: celRequest(attributes),
    params,
    namespaceObject: attributes.namespace ? (context.namespaceObject(attributes.namespace) ?? null) : null,
  };
  const variables: Record<string, unknown> = {};
  base.variables = variables;
  for (const variable of Array.isArray(spec.variables) ? spec.variables : []) {
    if (!isRecord(variable) || typeof variable.name !== 'string' || typeof variable.expression !== 'string') continue;
    variables[variable.name] = evaluateRule(variable.expression, base);
  }
  return base;
}

function validationMessage(validation: Record<string, unknown>, variables: Record<string, unknown>): string {
  if (typeof validation.messageExpression === 'string' && validation.messageExpression !== '') {
    try {
      const message = evaluateRule(validation.messageExpression, variables);
      if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) return message;
    } catch {
      // upstream falls back to message / the expression when messageExpression fails
    }
  }
  if (typeof validation.message === 'string' && validation.message !== '') return validation.message;
  return `failed expression: ${String(validation.expression).trim()}`;
}

function policyDenied(attributes: AdmissionAttributes, policyName: string, bindingName: string, decision: { message: string; reason: string }): ApiError {
  const message = `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${decision.message}`;
  const resource = qualifiedResource(attributes.def);
  const full = attributes.name ? `${resource} "${attributes.name}" is forbidden: ${message}` : `${resource} is forbidden: ${message}`;
  const status: Status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: full,
    reason: decision.reason,
    details: { name: attributes.name, group: attributes.def.group, kind: attributes.def.resource, causes: [{ message }] },
    code: reasonCodes[decision.reason] ?? 422,
  };
  return new WebhookStatusError(status);
}
