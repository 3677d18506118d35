// The UI's locations as hash routes (`#/pods`, `#/deployments.apps/default/web`, `#/create/pods`
// for a new object of a kind, `#/changes` and `#/deleted` for the object history,
// `#/helm/NAMESPACE/RELEASE[/tab]`, `#/images`), parsed and
// formatted by pure functions so links, the palette and the back button agree. A window showing
// another kubeconfig context than the serving cluster carries it in front: `#/c/<context>/pods`
// (the context name URL-encoded); a route without it means the window's current cluster.
import { SNAPSHOT_KIND_KEY } from '../../shared/snapshots';

export type Route =
  | { view: 'overview' }
  | { view: 'list'; kindKey: string }
  | { view: 'detail'; kindKey: string; namespace?: string; name: string; tab?: string }
  | { view: 'create'; kindKey?: string }
  | { view: 'portforwards' }
  | { view: 'settings' }
  | { view: 'changes' }
  | { view: 'deleted' }
  | { view: 'helm' }
  | { view: 'helmRelease'; namespace: string; name: string; tab?: string }
  | { view: 'images' }
  | { view: 'snapshots' };

const CLUSTER_SCOPE = '_';

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#?\/?/, '').split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  if (parts.length === 0 || parts[0] === 'overview') return { view: 'overview' };
  if (parts[0] === 'create') return parts[1] ? { view: 'create', kindKey: parts[1] } : { view: 'create' };
  if (parts[0] === 'portforwards') return { view: 'portforwards' };
  // the Snapshot kind has no watch: its routes open the Snapshots page, not a generic list
  if (parts[0] === 'snapshots' || parts[0] === SNAPSHOT_KIND_KEY) return { view: 'snapshots' };
  if (parts[0] === 'settings' && parts.length === 1) return { view: 'settings' };
  if (parts[0] === 'changes' && parts.length === 1) return { view: 'changes' };
  if (parts[0] === 'deleted' && parts.length === 1) return { view: 'deleted' };
  if (parts[0] === 'images' && parts.length === 1) return { view: 'images' };
  if (parts[0] === 'helm') {
    if (parts.length < 3) return { view: 'helm' };
    return parts[3] ? { view: 'helmRelease', namespace: parts[1], name: parts[2], tab: parts[3] } : { view: 'helmRelease', namespace: parts[1], name: parts[2] };
  }
  if (parts.length === 1) return { view: 'list', kindKey: parts[0] };
  if (parts.length >= 3) {
    const route: Route = { view: 'detail', kindKey: parts[0], name: parts[2], ...(parts[1] !== CLUSTER_SCOPE ? { namespace: parts[1] } : {}) };
    return parts[3] ? { ...route, tab: parts[3] } : route;
  }
  return { view: 'list', kindKey: parts[0] };
}

export function formatRoute(route: Route): string {
  switch (route.view) {
    case 'overview':
      return '#/overview';
    case 'create':
      return route.kindKey ? `#/create/${route.kindKey}` : '#/create';
    case 'portforwards':
      return '#/portforwards';
    case 'snapshots':
      return '#/snapshots';
    case 'settings':
      return '#/settings';
    case 'changes':
      return '#/changes';
    case 'deleted':
      return '#/deleted';
    case 'images':
      return '#/images';
    case 'helm':
      return '#/helm';
    case 'helmRelease': {
      const base = `#/helm/${encodeURIComponent(route.namespace)}/${encodeURIComponent(route.name)}`;
      return route.tab ? `${base}/${route.tab}` : base;
    }
    case 'list':
      return `#/${route.kindKey}`;
    case 'detail': {
      const base = `#/${route.kindKey}/${encodeURIComponent(route.namespace ?? CLUSTER_SCOPE)}/${encodeURIComponent(route.name)}`;
      return route.tab ? `${base}/${route.tab}` : base;
    }
  }
}

/** A route with the cluster it belongs to: undefined = the window's current cluster, '' = the serving cluster. */
export interface Location {
  cluster?: string;
  route: Route;
}

const CLUSTER_PREFIX = /^#?\/?c\/([^/]*)(?:\/|$)/;

/** `#/c/<context>/<route>` or a plain route. */
export function parseLocation(hash: string): Location {
  const match = CLUSTER_PREFIX.exec(hash);
  if (!match) return { route: parseRoute(hash) };
  let cluster: string;
  try {
    cluster = decodeURIComponent(match[1]);
  } catch {
    cluster = match[1];
  }
  return { cluster, route: parseRoute(`#/${hash.slice(match[0].length)}`) };
}

/** The hash of a route on a cluster: the serving cluster ('') keeps the plain form. */
export function formatLocation(route: Route, cluster: string): string {
  const hash = formatRoute(route);
  return cluster === '' ? hash : `#/c/${encodeURIComponent(cluster)}/${hash.slice(2)}`;
}

/** Where a window lands after switching clusters: lists and pages stay, a named object (it belongs to the other cluster) becomes its kind's list. */
export function routeOnOtherCluster(route: Route): Route {
  if (route.view === 'detail') return { view: 'list', kindKey: route.kindKey };
  if (route.view === 'helmRelease') return { view: 'helm' };
  return route;
}
