import { describe, expect, it } from 'vitest';
import { readOnlyRefusal, refusedWhenReadOnly } from './readOnly';

describe('refusedWhenReadOnly', () => {
  it.each([
    ['GET', '/api/v1/pods', false],
    ['GET', '/api/v1/namespaces/a/pods/web/log', false],
    ['HEAD', '/apis/apps/v1/deployments', false],
    ['POST', '/api/v1/namespaces/a/pods', true],
    ['PUT', '/api/v1/namespaces/a/configmaps/c', true],
    ['PATCH', '/apis/apps/v1/namespaces/a/deployments/web/scale', true],
    ['DELETE', '/api/v1/namespaces/a/pods/web', true],
    ['GET', '/api/v1/namespaces/a/pods/web/exec', true],
    ['GET', '/api/v1/namespaces/a/pods/web/attach', true],
    ['GET', '/api/v1/namespaces/a/pods/web/portforward', true],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', false],
    ['POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', false],
    ['POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', false],
    ['POST', '/apis/authorization.k8s.io/v1/namespaces/a/localsubjectaccessreviews', false],
    ['POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', false],
    ['DELETE', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', true],
    ['POST', '/apis/authentication.k8s.io/v1/tokenreviews', true],
    ['POST', '/api/v1/namespaces/a/serviceaccounts/default/token', true],
  ])('%s %s refused: %s', (method, path, refused) => {
    expect(refusedWhenReadOnly(method, path)).toBe(refused);
  });

  it('answers 403 Forbidden in the words the UI shows, only when the switch is on', () => {
    expect(readOnlyRefusal('prod', false, 'DELETE', '/api/v1/namespaces/a/pods/web')).toBeUndefined();
    const refusal = readOnlyRefusal('prod', true, 'DELETE', '/api/v1/namespaces/a/pods/web');
    expect(refusal?.toStatus()).toMatchObject({ code: 403, reason: 'Forbidden', message: 'the cluster "prod" is read-only in kubedesk (turn it off in Settings → Clusters)' });
  });
});
