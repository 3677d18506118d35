import { describe, expect, it } from 'vitest';
import { compactRule, missingPermissions } from './escalation';
import { ruleAllows, type Attributes, type Authorizer, type PolicyRule } from './rbacAuthorizer';

/** An authorizer holding exactly `held` in every namespace. */
function holding(held: PolicyRule[]): Authorizer {
  return {
    authorize: (attributes: Attributes) => ({ allowed: held.some((rule) => ruleAllows(attributes, rule)), reason: '' }),
    rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
  };
}

const user = { name: 'system:serviceaccount:team:deployer', groups: ['system:serviceaccounts', 'system:authenticated'] };

describe('missingPermissions', () => {
  it('finds nothing missing when every verb and resource of the new rules is held', () => {
    const authorizer = holding([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'services'] }]);
    expect(missingPermissions(authorizer, user, 'team', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }])).toEqual([]);
  });

  it('lists each verb and resource the user lacks, and a wildcard is only covered by a wildcard', () => {
    const authorizer = holding([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    expect(missingPermissions(authorizer, user, 'team', [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }])).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['delete'], apiGroups: [''], resources: ['secrets'] },
    ]);
    expect(missingPermissions(authorizer, user, 'team', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])).toHaveLength(1);
  });

  it('checks resource names and non-resource URLs', () => {
    const authorizer = holding([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    expect(
      missingPermissions(authorizer, user, 'team', [
        { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings', 'other'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics'] },
      ]),
    ).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['other'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ]);
  });
});

describe('compactRule', () => {
  it('prints a rule as rbacv1helpers.CompactString does', () => {
    expect(compactRule({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] })).toBe('{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}');
    expect(compactRule({ verbs: ['get'], nonResourceURLs: ['/metrics'] })).toBe('{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  });
});
