// RBAC authorization as upstream plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/registry/rbac/validation/rule.go: ClusterRoleBindings are visited first, then the
// RoleBindings of the request's namespace; a binding applies when one of its subjects names the
// user, one of its groups or (ServiceAccount) the user's service-account name, and grants the
// rules of the Role or ClusterRole it refers to. A missing role is an error that becomes the
// `RBAC: …` reason of a denial. Members of system:masters are allowed everything before RBAC is
// asked, as upstream's privileged-groups authorizer does.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { RequestInfo } from './requestInfo';
import { nonResourceUrlMatches, resourceRuleAllows, verbMatches, type PolicyRule } from '../../../shared/kubernetes/policyRules';

// the rule matching is shared with the UI (which reads SelfSubjectRulesReviews with it)
export { apiGroupMatches, nonResourceUrlMatches, resourceMatches, resourceNameMatches, resourceRuleAllows, verbMatches, type PolicyRule } from '../../../shared/kubernetes/policyRules';

export interface UserIdentity {
  name: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** authorizer.Attributes: the user and what the request asks for (RequestInfo without the API prefix) */
export interface Attributes extends Omit<RequestInfo, 'apiPrefix'> {
  user: UserIdentity;
}

export interface Decision {
  allowed: boolean;
  /** why a request was denied (missing roles), '' when there is nothing to say */
  reason: string;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind: string;
  name: string;
}

export interface Binding {
  namespace: string;
  name: string;
  subjects: Subject[];
  roleRef: RoleRef;
}

/** Where the authorizer reads roles and bindings from. */
export interface RbacSource {
  clusterRole(name: string): PolicyRule[] | undefined;
  role(namespace: string, name: string): PolicyRule[] | undefined;
  clusterRoleBindings(): Binding[];
  roleBindings(namespace: string): Binding[];
}

/** What SelfSubjectRulesReview reports. */
export interface SubjectRules {
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames: string[] }[];
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  incomplete: boolean;
  evaluationError: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): Decision;
  rulesFor(user: UserIdentity, namespace: string): SubjectRules;
}

export const SYSTEM_MASTERS = 'system:masters';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (attributes.isResourceRequest) {
    return resourceRuleAllows(attributes, rule);
  }
  return verbMatches(rule, attributes.verb) && nonResourceUrlMatches(rule, attributes.path);
}

/** Whether a binding's subject names this user (a ServiceAccount subject without namespace takes the binding's). */
export function subjectAppliesTo(subject: Subject, user: UserIdentity, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      if (!namespace) return false;
      return user.name === `${SERVICE_ACCOUNT_PREFIX}${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly source: RbacSource) {}

  authorize(attributes: Attributes): Decision {
    if (attributes.user.groups.includes(SYSTEM_MASTERS)) return { allowed: true, reason: '' };
    const errors: string[] = [];
    let reason = '';
    this.visitRules(attributes.user, attributes.namespace, (rule, source) => {
      if (!ruleAllows(attributes, rule)) return false;
      reason = `RBAC: allowed by ${source()}`;
      return true;
    }, errors);
    if (reason) return { allowed: true, reason };
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : '' };
  }

  rulesFor(user: UserIdentity, namespace: string): SubjectRules {
    const result: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' };
    if (user.groups.includes(SYSTEM_MASTERS)) {
      // the privileged-groups authorizer's rules
      result.resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] });
      result.nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    }
    const errors: string[] = [];
    this.visitRules(user, namespace, (rule) => {
      if (rule.nonResourceURLs?.length) result.nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
      else result.resourceRules.push({ verbs: [...rule.verbs], apiGroups: [...(rule.apiGroups ?? [])], resources: [...(rule.resources ?? [])], resourceNames: [...(rule.resourceNames ?? [])] });
      return false;
    }, errors);
    if (errors.length) {
      result.incomplete = true;
      result.evaluationError = aggregate(errors);
    }
    return result;
  }

  /** Calls `visit` for each rule granted to the user, with where it came from; stops when it returns true. */
  private visitRules(user: UserIdentity, namespace: string, visit: (rule: PolicyRule, source: () => string) => boolean, errors: string[]): void {
    for (const binding of this.source.clusterRoleBindings()) {
      const subject = binding.subjects.find((candidate) => subjectAppliesTo(candidate, user, ''));
      if (!subject) continue;
      const source = () => `ClusterRoleBinding "${binding.name}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, '')}`;
      for (const rule of this.rulesOf(binding.roleRef, '', errors)) if (visit(rule, source)) return;
    }
    if (!namespace) return;
    for (const binding of this.source.roleBindings(namespace)) {
      const subject = binding.subjects.find((candidate) => subjectAppliesTo(candidate, user, namespace));
      if (!subject) continue;
      const source = () => `RoleBinding "${binding.name}/${binding.namespace}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, binding.namespace)}`;
      for (const rule of this.rulesOf(binding.roleRef, namespace, errors)) if (visit(rule, source)) return;
    }
  }

  private rulesOf(roleRef: RoleRef, namespace: string, errors: string[]): PolicyRule[] {
    if (roleRef.kind === 'ClusterRole') {
      const rules = this.source.clusterRole(roleRef.name);
      if (!rules) errors.push(`clusterrole.rbac.authorization.k8s.io "${roleRef.name}" not found`);
      return rules ?? [];
    }
    if (roleRef.kind === 'Role' && namespace) {
      const rules = this.source.role(namespace, roleRef.name);
      if (!rules) errors.push(`role.rbac.authorization.k8s.io "${roleRef.name}" not found`);
      return rules ?? [];
    }
    errors.push(`unsupported role reference kind: "${roleRef.kind}"`);
    return [];
  }
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} "${subject.name}/${subject.namespace || bindingNamespace}"`;
  return `${subject.kind} "${subject.name}"`;
}

/** utilerrors.NewAggregate's text: one error as is, several in brackets. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** PolicyRules from a stored Role/ClusterRole's `rules`, skipping malformed entries. */
export function policyRulesOf(role: KubeObject): PolicyRule[] {
  const rules: PolicyRule[] = [];
  if (!Array.isArray(role.rules)) return rules;
  for (const rule of role.rules) {
    if (!isRecord(rule)) continue;
    rules.push({
      verbs: strings(rule.verbs),
      apiGroups: strings(rule.apiGroups),
      resources: strings(rule.resources),
      resourceNames: strings(rule.resourceNames),
      nonResourceURLs: strings(rule.nonResourceURLs),
    });
  }
  return rules;
}

/** A stored RoleBinding/ClusterRoleBinding as a Binding. */
export function bindingOf(binding: KubeObject): Binding {
  const subjects: Subject[] = [];
  if (Array.isArray(binding.subjects)) {
    for (const subject of binding.subjects) {
      if (!isRecord(subject)) continue;
      subjects.push({ kind: String(subject.kind ?? ''), apiGroup: typeof subject.apiGroup === 'string' ? subject.apiGroup : undefined, name: String(subject.name ?? ''), namespace: typeof subject.namespace === 'string' ? subject.namespace : undefined });
    }
  }
  const ref = isRecord(binding.roleRef) ? binding.roleRef : {};
  return {
    namespace: binding.metadata.namespace ?? '',
    name: binding.metadata.name ?? '',
    subjects,
    roleRef: { apiGroup: typeof ref.apiGroup === 'string' ? ref.apiGroup : undefined, kind: String(ref.kind ?? ''), name: String(ref.name ?? '') },
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
