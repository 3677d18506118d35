// RBAC's privilege-escalation prevention (pkg/registry/rbac: role/policybased,
// clusterrole/policybased, rolebinding/policybased, clusterrolebinding/policybased and
// rbac/validation.ConfirmNoEscalation): a user may create or update a Role or ClusterRole only
// with permissions they already hold (or with the `escalate` verb on it), and may bind a role only
// when they hold all of its permissions (or the `bind` verb on it). Writes by kubedesk's own
// components carry no user and are not checked, like upstream's loopback client in system:masters.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ValidatingAdmission } from '../resourceStore';
import { forbidden } from '../admission/admissionErrors';
import { SYSTEM_MASTERS, type Attributes, type Authorizer, type PolicyRule, type UserIdentity } from './rbacAuthorizer';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const raw = role && Array.isArray((role as unknown as { rules?: unknown }).rules) ? ((role as unknown as { rules: unknown[] }).rules) : [];
  return raw.filter(isRecord).map((rule) => ({
    verbs: stringList(rule.verbs),
    apiGroups: stringList(rule.apiGroups),
    resources: stringList(rule.resources),
    resourceNames: stringList(rule.resourceNames),
    nonResourceURLs: stringList(rule.nonResourceURLs),
  }));
}

function attributes(user: UserIdentity, namespace: string, fields: Partial<Attributes>): Attributes {
  return { user, verb: '', isResourceRequest: true, path: '', apiGroup: '', apiVersion: '', namespace, resource: '', subresource: '', name: '', ...fields };
}

/** The parts of `rules` the user does not hold in `namespace` ('' = cluster-wide), one rule per missing tuple. */
export function missingPermissions(authorizer: Authorizer, user: UserIdentity, namespace: string, rules: PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of rules) {
    for (const verb of rule.verbs) {
      for (const url of rule.nonResourceURLs ?? []) {
        if (!authorizer.authorize(attributes(user, '', { isResourceRequest: false, path: url, verb })).allowed) missing.push({ verbs: [verb], nonResourceURLs: [url] });
      }
      for (const apiGroup of rule.apiGroups ?? []) {
        for (const combined of rule.resources ?? []) {
          const [resource, subresource = ''] = combined.split('/');
          const names = rule.resourceNames && rule.resourceNames.length > 0 ? rule.resourceNames : [''];
          for (const name of names) {
            if (!authorizer.authorize(attributes(user, namespace, { verb, apiGroup, resource, subresource, name })).allowed) {
              missing.push({ verbs: [verb], apiGroups: [apiGroup], resources: [combined], ...(name ? { resourceNames: [name] } : {}) });
            }
          }
        }
      }
    }
  }
  return missing;
}

/** rbacv1helpers.CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactRule(rule: PolicyRule): string {
  const quoted = (values: string[]) => `[${values.map((value) => JSON.stringify(value)).join(' ')}]`;
  const parts: string[] = [];
  if (rule.apiGroups && rule.apiGroups.length > 0) parts.push(`APIGroups:${quoted(rule.apiGroups)}`);
  if (rule.resources && rule.resources.length > 0) parts.push(`Resources:${quoted(rule.resources)}`);
  if (rule.resourceNames && rule.resourceNames.length > 0) parts.push(`ResourceNames:${quoted(rule.resourceNames)}`);
  if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${quoted(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${quoted(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

function escalationMessage(user: UserIdentity, missing: PolicyRule[]): string {
  return `user ${JSON.stringify(user.name)} (groups=[${user.groups.map((group) => JSON.stringify(group)).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactRule).join('\n')}`;
}

export function rbacEscalationAdmission(authorizer: Authorizer, registry: ResourceRegistry): ValidatingAdmission {
  return ({ def, obj, options, objects }) => {
    if (def.group !== RBAC_GROUP) return;
    const user = options.user;
    if (!user || user.groups.includes(SYSTEM_MASTERS)) return;
    const name = obj.metadata.name ?? '';
    const namespace = def.namespaced ? (obj.metadata.namespace ?? '') : '';
    const groupResource = { group: RBAC_GROUP, resource: def.resource };
    const has = (verb: string, resource: string, objectName: string) => authorizer.authorize(attributes(user, namespace, { verb, apiGroup: RBAC_GROUP, resource, name: objectName })).allowed;
    if (def.resource === 'roles' || def.resource === 'clusterroles') {
      if (has('escalate', def.resource, name)) return;
      if (def.resource === 'clusterroles' && isRecord((obj as unknown as { aggregationRule?: unknown }).aggregationRule)) {
        throw forbidden(groupResource, name, ['must have cluster-admin privileges to use the aggregationRule']);
      }
      const missing = missingPermissions(authorizer, user, namespace, rulesOf(obj));
      if (missing.length > 0) throw forbidden(groupResource, name, [escalationMessage(user, missing)]);
      return;
    }
    if (def.resource === 'rolebindings' || def.resource === 'clusterrolebindings') {
      const roleRef = isRecord((obj as unknown as { roleRef?: unknown }).roleRef) ? (obj as unknown as { roleRef: Record<string, unknown> }).roleRef : {};
      const roleKind = roleRef.kind === 'Role' ? 'roles' : 'clusterroles';
      const roleName = typeof roleRef.name === 'string' ? roleRef.name : '';
      if (has('bind', roleKind, roleName)) return;
      const roleDef = registry.lookup(RBAC_GROUP, 'v1', roleKind);
      const role = roleDef ? objects.tryGet(roleDef, roleKind === 'roles' ? namespace : '', roleName) : undefined;
      const missing = missingPermissions(authorizer, user, namespace, rulesOf(role));
      if (missing.length > 0) throw forbidden(groupResource, name, [escalationMessage(user, missing)]);
    }
  };
}
