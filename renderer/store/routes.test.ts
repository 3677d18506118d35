import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, type Route } from './routes';

describe('routes', () => {
  const cases: { hash: string; route: Route }[] = [
    { hash: '#/overview', route: { view: 'overview' } },
    { hash: '#/create', route: { view: 'create' } },
    { hash: '#/create/deployments.apps', route: { view: 'create', kindKey: 'deployments.apps' } },
    { hash: '#/portforwards', route: { view: 'portforwards' } },
    { hash: '#/settings', route: { view: 'settings' } },
    { hash: '#/helm', route: { view: 'helm' } },
    { hash: '#/helm/web/demo', route: { view: 'helmRelease', namespace: 'web', name: 'demo' } },
    { hash: '#/helm/web/demo/history', route: { view: 'helmRelease', namespace: 'web', name: 'demo', tab: 'history' } },
    { hash: '#/images', route: { view: 'images' } },
    { hash: '#/snapshots', route: { view: 'snapshots' } },
    { hash: '#/pods', route: { view: 'list', kindKey: 'pods' } },
    { hash: '#/deployments.apps/default/web', route: { view: 'detail', kindKey: 'deployments.apps', namespace: 'default', name: 'web' } },
    { hash: '#/nodes/_/kubedesk', route: { view: 'detail', kindKey: 'nodes', name: 'kubedesk' } },
    { hash: '#/changes', route: { view: 'changes' } },
    { hash: '#/deleted', route: { view: 'deleted' } },
    { hash: '#/deployments.apps/default/web/history', route: { view: 'detail', kindKey: 'deployments.apps', namespace: 'default', name: 'web', tab: 'history' } },
    { hash: '#/pods/default/web-1/yaml', route: { view: 'detail', kindKey: 'pods', namespace: 'default', name: 'web-1', tab: 'yaml' } },
  ];
  for (const { hash, route } of cases) {
    it(`parses and formats ${hash}`, () => {
      expect(parseRoute(hash)).toEqual(route);
      expect(formatRoute(route)).toBe(hash);
    });
  }

  it('sends an empty hash to the overview', () => {
    expect(parseRoute('')).toEqual({ view: 'overview' });
    expect(parseRoute('#/')).toEqual({ view: 'overview' });
  });

  it('opens the Snapshots page for the Snapshot kind’s own routes, which have no watch to list from', () => {
    expect(parseRoute('#/snapshots.snapshots.kubedesk.dev')).toEqual({ view: 'snapshots' });
    expect(parseRoute('#/snapshots.snapshots.kubedesk.dev/_/before')).toEqual({ view: 'snapshots' });
  });

  it('escapes names that contain slashes or spaces', () => {
    const route: Route = { view: 'detail', kindKey: 'configmaps', namespace: 'a b', name: 'x/y' };
    expect(parseRoute(formatRoute(route))).toEqual(route);
  });
});
