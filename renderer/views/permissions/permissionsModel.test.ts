import { describe, expect, it } from 'vitest';
import { accessReviewBody, checkKey, combine, decideFromRules, deniedReason, forbiddenText, isWrite, parseAccessReview, parseRulesReview, parseSelfSubjectReview, readOnlyReason, refusal, requestTarget, type Can, type RulesReview } from './permissionsModel';

/** What the `view` ClusterRole's rules look like in a SelfSubjectRulesReview (trimmed). */
const viewRules = parseRulesReview({
  status: {
    resourceRules: [
      { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'pods/log', 'pods/status', 'services', 'configmaps'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'replicasets'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
    incomplete: false,
  },
});

describe('permissions from a SelfSubjectRulesReview', () => {
  it('reads the review, dropping what is not a rule', () => {
    const review = parseRulesReview({ status: { resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, 'junk'], incomplete: true, evaluationError: 'webhook: no rules' } });
    expect(review).toEqual({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }], incomplete: true, evaluationError: 'webhook: no rules' });
    expect(parseRulesReview(undefined)).toEqual({ resourceRules: [], incomplete: false, evaluationError: undefined });
  });

  it('allows what a view user may read and denies its writes in the namespace', () => {
    expect(decideFromRules(viewRules, { verb: 'list', group: '', resource: 'pods', namespace: 'default' })).toBe('allowed');
    expect(decideFromRules(viewRules, { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'default', name: 'web' })).toBe('allowed');
    expect(decideFromRules(viewRules, { verb: 'delete', group: '', resource: 'pods', namespace: 'default', name: 'web' })).toBe('denied');
    // the group must match: deployments in "" are not apps' deployments
    expect(decideFromRules(viewRules, { verb: 'get', group: '', resource: 'deployments', namespace: 'default' })).toBe('denied');
    expect(decideFromRules(viewRules, { verb: 'get', group: 'extensions', resource: 'deployments', namespace: 'default' })).toBe('denied');
  });

  it('matches * verbs, groups and resources, */subresource and resourceNames as RBAC does', () => {
    const review: RulesReview = {
      incomplete: false,
      resourceRules: [
        { verbs: ['*'], apiGroups: ['batch'], resources: ['*'] },
        { verbs: ['patch'], apiGroups: ['*'], resources: ['*/scale'] },
        { verbs: ['delete'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['settings'] },
      ],
    };
    expect(decideFromRules(review, { verb: 'deletecollection', group: 'batch', resource: 'cronjobs', namespace: 'ns' })).toBe('allowed');
    expect(decideFromRules(review, { verb: 'patch', group: 'apps', resource: 'statefulsets', subresource: 'scale', namespace: 'ns', name: 'db' })).toBe('allowed');
    expect(decideFromRules(review, { verb: 'delete', group: '', resource: 'configmaps', namespace: 'ns', name: 'settings' })).toBe('allowed');
    expect(decideFromRules(review, { verb: 'delete', group: '', resource: 'configmaps', namespace: 'ns', name: 'other' })).toBe('denied');
    // a rule with resourceNames never grants a request without a name (list, create)
    expect(decideFromRules(review, { verb: 'delete', group: '', resource: 'configmaps', namespace: 'ns' })).toBe('denied');
  });

  it('leaves to a SelfSubjectAccessReview what the rules cannot answer', () => {
    // cluster-scoped: the namespace's rules include its RoleBindings, which never grant nodes
    expect(decideFromRules(viewRules, { verb: 'patch', group: '', resource: 'nodes', name: 'n1' })).toBe('ask');
    // a subresource no rule grants: another authorizer may
    expect(decideFromRules(viewRules, { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: 'default', name: 'web' })).toBe('ask');
    // incomplete rules: only a denial needs asking
    const incomplete = { ...viewRules, incomplete: true };
    expect(decideFromRules(incomplete, { verb: 'delete', group: '', resource: 'pods', namespace: 'default' })).toBe('ask');
    expect(decideFromRules(incomplete, { verb: 'list', group: '', resource: 'pods', namespace: 'default' })).toBe('allowed');
    expect(decideFromRules(undefined, { verb: 'list', group: '', resource: 'pods', namespace: 'default' })).toBe('ask');
  });

  it('writes a SelfSubjectAccessReview and reads its answer', () => {
    expect(accessReviewBody({ verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: 'default', name: 'web' })).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb: 'create', group: '', resource: 'pods', subresource: 'exec', namespace: 'default', name: 'web' } },
    });
    expect(parseAccessReview({ status: { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "admin"' } })).toEqual({ allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "admin"' });
    expect(parseAccessReview({ status: { allowed: true, denied: true } }).allowed).toBe(false);
    expect(parseAccessReview({}).allowed).toBe(false);
  });

  it('asks about a non-resource URL (the registry under the API server) with nonResourceAttributes', () => {
    const check = { verb: 'delete', group: '', resource: '', path: '/registry/v2/app/manifests/v1' };
    expect(accessReviewBody(check)).toEqual({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { path: '/registry/v2/app/manifests/v1', verb: 'delete' } } });
    // a namespace's rules never answer for URLs: always an access review
    expect(decideFromRules(viewRules, { ...check, namespace: 'default' })).toBe('ask');
    expect(checkKey(check)).not.toBe(checkKey({ ...check, path: '/registry/v2/app/manifests/v2' }));
    expect(deniedReason({ username: 'alice', groups: [] }, check)).toBe('You (alice) may not delete /registry/v2/app/manifests/v1');
  });

  it('reads who the user is from a SelfSubjectReview', () => {
    expect(parseSelfSubjectReview({ status: { userInfo: { username: 'system:serviceaccount:ns:viewer', groups: ['system:serviceaccounts', 'system:authenticated'] } } })).toEqual({ username: 'system:serviceaccount:ns:viewer', groups: ['system:serviceaccounts', 'system:authenticated'] });
    expect(parseSelfSubjectReview({ status: {} })).toBeUndefined();
  });
});

describe('the reasons in words', () => {
  const viewer = { username: 'system:serviceaccount:ns:viewer', groups: [] };

  it('says who may not do what, where', () => {
    expect(deniedReason(viewer, { verb: 'delete', group: '', resource: 'pods', namespace: 'default' })).toBe('You (system:serviceaccount:ns:viewer) may not delete pods in "default"');
    expect(deniedReason(viewer, { verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'shop' })).toBe('You (system:serviceaccount:ns:viewer) may not patch deployments.apps/scale in "shop"');
    expect(deniedReason(undefined, { verb: 'patch', group: '', resource: 'nodes', name: 'n1' })).toBe('You may not patch nodes "n1"');
    expect(readOnlyReason('kubedesk-b')).toBe('read-only: the cluster "kubedesk-b" is read-only in kubedesk (turn it off in Settings → Clusters)');
  });

  it('disables an action on its first refused check, never on unknown ones', () => {
    const can: Can = (check) => (check.verb === 'delete' ? { state: 'denied', reason: `no ${check.verb}` } : check.verb === 'create' ? { state: 'unknown' } : { state: 'allowed' });
    expect(refusal(can, [{ verb: 'patch', group: '', resource: 'nodes' }, { verb: 'delete', group: '', resource: 'pods' }])).toBe('no delete');
    expect(refusal(can, [{ verb: 'create', group: '', resource: 'pods' }])).toBeUndefined();
    expect(combine([{ state: 'unknown' }, { state: 'allowed' }])).toEqual({ state: 'unknown' });
    expect(isWrite({ verb: 'watch' })).toBe(false);
    expect(isWrite({ verb: 'deletecollection' })).toBe(true);
  });

  it('splits a refused request into verb, resource, namespace and name as the API server does', () => {
    expect(requestTarget('PATCH', '/apis/apps/v1/namespaces/default/deployments/web/scale')).toEqual({ verb: 'patch', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'default', name: 'web' });
    expect(requestTarget('GET', '/api/v1/namespaces/default/pods')).toMatchObject({ verb: 'list', resource: 'pods', namespace: 'default', name: '' });
    expect(requestTarget('GET', '/api/v1/pods', 'watch=1')).toMatchObject({ verb: 'watch' });
    expect(requestTarget('DELETE', '/api/v1/namespaces/a/configmaps')).toMatchObject({ verb: 'deletecollection' });
    expect(requestTarget('PUT', '/api/v1/nodes/n%201')).toMatchObject({ verb: 'update', resource: 'nodes', name: 'n 1', namespace: '' });
    expect(requestTarget('POST', '/api/v1/namespaces')).toMatchObject({ verb: 'create', resource: 'namespaces', namespace: '' });
    expect(requestTarget('GET', '/version')).toBeUndefined();
  });

  it('words a 403 with the user, the refused request and the server’s message', () => {
    const target = requestTarget('DELETE', '/api/v1/namespaces/default/pods/web');
    expect(forbiddenText(viewer, target, 'pods "web" is forbidden: User "system:serviceaccount:ns:viewer" cannot delete resource "pods" in API group "" in the namespace "default"')).toBe(
      'Refused: you (system:serviceaccount:ns:viewer) may not delete pods "web" in "default". The server said: pods "web" is forbidden: User "system:serviceaccount:ns:viewer" cannot delete resource "pods" in API group "" in the namespace "default"',
    );
    expect(forbiddenText(undefined, undefined, 'nope')).toBe('Refused: you may not do this. The server said: nope');
  });
});
