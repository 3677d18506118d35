import { describe, expect, it } from 'vitest';
import { formatLocation, formatRoute, parseLocation, parseRoute, routeOnOtherCluster, type Route } from './routes';

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

describe('cluster locations', () => {
  it('keeps the plain hash for the serving cluster and puts another context in front', () => {
    const route: Route = { view: 'detail', kindKey: 'pods', namespace: 'default', name: 'web-1', tab: 'yaml' };
    expect(formatLocation(route, '')).toBe('#/pods/default/web-1/yaml');
    expect(formatLocation(route, 'prod')).toBe('#/c/prod/pods/default/web-1/yaml');
    expect(parseLocation('#/c/prod/pods/default/web-1/yaml')).toEqual({ cluster: 'prod', route });
  });

  it('encodes a context name with slashes and colons, and reads it back', () => {
    const name = 'arn:aws:eks:eu-west-1:1234:cluster/prod';
    const hash = formatLocation({ view: 'list', kindKey: 'deployments.apps' }, name);
    expect(hash).toBe('#/c/arn%3Aaws%3Aeks%3Aeu-west-1%3A1234%3Acluster%2Fprod/deployments.apps');
    expect(parseLocation(hash)).toEqual({ cluster: name, route: { view: 'list', kindKey: 'deployments.apps' } });
  });

  it('reads a cluster with no route as its overview, and a plain hash as no cluster at all', () => {
    expect(parseLocation('#/c/prod')).toEqual({ cluster: 'prod', route: { view: 'overview' } });
    expect(parseLocation('#/c/prod/')).toEqual({ cluster: 'prod', route: { view: 'overview' } });
    expect(parseLocation('#/pods')).toEqual({ route: { view: 'list', kindKey: 'pods' } });
    expect(parseLocation('')).toEqual({ route: { view: 'overview' } });
  });

  it('formats every page under a cluster so that it parses back', () => {
    const routes: Route[] = [{ view: 'overview' }, { view: 'settings' }, { view: 'helmRelease', namespace: 'web', name: 'demo', tab: 'history' }, { view: 'create', kindKey: 'pods' }, { view: 'detail', kindKey: 'nodes', name: 'n1' }];
    for (const route of routes) expect(parseLocation(formatLocation(route, 'kubedesk-b'))).toEqual({ cluster: 'kubedesk-b', route });
  });

  it('lands on the list of the kind when switching clusters from an object, keeping other pages', () => {
    expect(routeOnOtherCluster({ view: 'detail', kindKey: 'pods', namespace: 'default', name: 'a' })).toEqual({ view: 'list', kindKey: 'pods' });
    expect(routeOnOtherCluster({ view: 'helmRelease', namespace: 'web', name: 'demo' })).toEqual({ view: 'helm' });
    expect(routeOnOtherCluster({ view: 'list', kindKey: 'pods' })).toEqual({ view: 'list', kindKey: 'pods' });
    expect(routeOnOtherCluster({ view: 'settings' })).toEqual({ view: 'settings' });
  });
});
