// Defaults for admissionregistration.k8s.io/v1 (pkg/apis/admissionregistration/v1/defaults.go):
// webhooks get failurePolicy Fail, matchPolicy Equivalent, empty namespace/object selectors, a
// 10 s timeout, rule scope `*` and service port 443 (mutating ones also reinvocationPolicy Never);
// ValidatingAdmissionPolicies get failurePolicy Fail and the same match-resource defaults.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';

function defaultRules(rules: unknown): void {
  if (!Array.isArray(rules)) return;
  for (const rule of rules) if (isRecord(rule) && rule.scope === undefined) rule.scope = '*';
}

function defaultMatchResources(match: unknown): void {
  if (!isRecord(match)) return;
  match.matchPolicy ??= 'Equivalent';
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  defaultRules(match.resourceRules);
  defaultRules(match.excludeResourceRules);
}

function defaultWebhooks(obj: KubeObject, mutating: boolean): void {
  if (!Array.isArray(obj.webhooks)) return;
  for (const webhook of obj.webhooks) {
    if (!isRecord(webhook)) continue;
    webhook.failurePolicy ??= 'Fail';
    webhook.matchPolicy ??= 'Equivalent';
    webhook.namespaceSelector ??= {};
    webhook.objectSelector ??= {};
    webhook.timeoutSeconds ??= 10;
    if (mutating) webhook.reinvocationPolicy ??= 'Never';
    defaultRules(webhook.rules);
    if (isRecord(webhook.clientConfig) && isRecord(webhook.clientConfig.service)) webhook.clientConfig.service.port ??= 443;
  }
}

export function defaultValidatingWebhookConfiguration(obj: KubeObject): void {
  defaultWebhooks(obj, false);
}

export function defaultMutatingWebhookConfiguration(obj: KubeObject): void {
  defaultWebhooks(obj, true);
}

export function defaultValidatingAdmissionPolicy(obj: KubeObject): void {
  if (!isRecord(obj.spec)) return;
  obj.spec.failurePolicy ??= 'Fail';
  defaultMatchResources(obj.spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(obj: KubeObject): void {
  if (!isRecord(obj.spec)) return;
  defaultMatchResources(obj.spec.matchResources);
  if (isRecord(obj.spec.paramRef)) obj.spec.paramRef.parameterNotFoundAction ??= 'Deny';
}
