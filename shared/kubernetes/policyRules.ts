// RBAC's rule matching, as upstream pkg/registry/rbac/validation/rule.go (VerbMatches,
// APIGroupMatches, ResourceMatches, ResourceNameMatches, NonResourceURLMatches): the API server's
// authorizer decides with it, and the UI reads a SelfSubjectRulesReview with the same code, so the
// two never disagree about what a rule grants.

/** A PolicyRule (rbac.authorization.k8s.io/v1), or a ResourceRule/NonResourceRule of a rules review. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((ruleVerb) => ruleVerb === '*' || ruleVerb === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === '*' || ruleGroup === group);
}

// A rule resource of * matches everything, one of the form "*" + "/sub" that subresource of any resource, else resource[/subresource] must be equal.
export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  for (const ruleResource of rule.resources ?? []) {
    if (ruleResource === '*' || ruleResource === combinedResource) return true;
    if (subresource === '') continue;
    if (ruleResource.length === subresource.length + 2 && ruleResource.startsWith('*/') && ruleResource.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceUrlMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === '*' || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** What a resource request asks for (authorizer.Attributes of a resource request). */
export interface ResourceAttributes {
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  name: string;
}

/** rbac.go's RuleAllows for a resource request. */
export function resourceRuleAllows(attributes: ResourceAttributes, rule: PolicyRule): boolean {
  const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  return verbMatches(rule, attributes.verb) && apiGroupMatches(rule, attributes.apiGroup) && resourceMatches(rule, combined, attributes.subresource) && resourceNameMatches(rule, attributes.name);
}
