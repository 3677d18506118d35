import { describe, expect, it } from 'vitest';
import { parseRelayPath, relayBasePath } from './relayPaths';

describe('parseRelayPath', () => {
  it.each([
    ['/ui/clusters', { kind: 'list' }],
    ['/ui/clusters/', { kind: 'list' }],
    ['/ui/clusters/prod/-/status', { kind: 'status', context: 'prod' }],
    ['/ui/clusters/prod/-/settings', { kind: 'settings', context: 'prod' }],
    ['/ui/clusters/prod/api/v1/pods?watch=1&limit=5', { kind: 'api', context: 'prod', apiPath: '/api/v1/pods', search: '?watch=1&limit=5' }],
    ['/ui/clusters/kind-kind/apis/apps/v1/namespaces/a/deployments', { kind: 'api', context: 'kind-kind', apiPath: '/apis/apps/v1/namespaces/a/deployments', search: '' }],
    ['/ui/clusters/gke_p_z_c%3Aone/version', { kind: 'api', context: 'gke_p_z_c:one', apiPath: '/version', search: '' }],
    ['/ui/clusters/arn%3Aaws%3Aeks%3Aeu/openapi/v3', { kind: 'api', context: 'arn:aws:eks:eu', apiPath: '/openapi/v3', search: '' }],
    ['/ui/clusters/remote/registry/v2/_catalog', { kind: 'api', context: 'remote', apiPath: '/registry/v2/_catalog', search: '' }],
  ])('reads %s', (target, route) => {
    expect(parseRelayPath(target)).toEqual(route);
  });

  it('leaves paths outside /ui/clusters alone', () => {
    expect(parseRelayPath('/ui/')).toBeUndefined();
    expect(parseRelayPath('/ui/clustersx')).toBeUndefined();
    expect(parseRelayPath('/api/v1/pods')).toBeUndefined();
  });

  it.each([
    '/ui/clusters/../api/v1/secrets',
    '/ui/clusters/%2E%2E/api/v1/secrets',
    '/ui/clusters/a%2Fb/api/v1/pods',
    '/ui/clusters/a%5Cb/api/v1/pods',
    '/ui/clusters/a%00/api/v1/pods',
    '/ui/clusters/%E0%A4%A/api',
    '/ui/clusters/prod/api/v1/../../other/api',
    '/ui/clusters/prod/api/v1/%2e%2e/secrets',
    '/ui/clusters/prod/api/v1/namespaces/a%2Fb/pods',
    '/ui/clusters/prod/./api',
  ])('refuses %s, which tries to step out of its place', (target) => {
    expect(parseRelayPath(target)?.kind).toBe('refused');
  });

  it('names a path that is not the Kubernetes API as such', () => {
    expect(parseRelayPath('/ui/clusters/prod/ui/index.html')).toEqual({ kind: 'not-api', context: 'prod', apiPath: '/ui/index.html' });
    expect(parseRelayPath('/ui/clusters/prod')).toEqual({ kind: 'not-api', context: 'prod', apiPath: '/' });
  });

  it('builds base paths that parse back to the same context', () => {
    for (const name of ['prod', 'gke_project_zone:cluster', 'user@cluster', 'a b', 'kubedesk-b']) {
      const route = parseRelayPath(`${relayBasePath(name)}/api/v1/pods`);
      expect(route).toEqual({ kind: 'api', context: name, apiPath: '/api/v1/pods', search: '' });
    }
  });
});
