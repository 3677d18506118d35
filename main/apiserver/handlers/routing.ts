// Where a request goes, from its path (upstream endpoints/request/requestinfo.go and the
// installer's routes): the root paths, /version, /openapi, discovery of /api and /apis, or a
// resource request with its group, version, namespace, resource, name, subresource and the
// segments after it. `/api/v1/namespaces/{name}/status` addresses the cluster-scoped namespace
// object itself: a cluster-scoped resource whose subresource the path names is not a scope.
import type { KindStrategy } from '../../registry/strategy';
import { subresourceOf } from '../../registry/strategy';
import { ApiError } from '../apiError';
import type { ResourceRegistry } from '../resourceRegistry';
import { notFoundPath } from './replies';

/** The path segment that opens a namespace scope (`…/namespaces/{namespace}/{resource}`). */
const NAMESPACE_SCOPE = 'namespaces';

export type Route =
  | { type: 'root' }
  | { type: 'version' }
  | { type: 'openapi'; segments: string[] }
  | { type: 'legacyVersions' }
  | { type: 'groupList' }
  | { type: 'group'; group: string }
  | { type: 'resourceList'; group: string; version: string }
  | { type: 'resource'; def: KindStrategy; namespace: string; name?: string; subresource?: string; rest: string[] };

export function routeOf(path: string, registry: ResourceRegistry): Route {
  const segments = path.split('/').filter((segment) => segment !== '').map(decodeSegment);
  if (segments.length === 0) return { type: 'root' };
  if (segments[0] === 'version' && segments.length === 1) return { type: 'version' };
  if (segments[0] === 'openapi') return { type: 'openapi', segments };
  if (segments[0] === 'api') {
    if (segments.length === 1) return { type: 'legacyVersions' };
    if (segments[1] !== 'v1') throw notFoundPath();
    if (segments.length === 2) return { type: 'resourceList', group: '', version: 'v1' };
    return resourceRoute(registry, '', 'v1', segments.slice(2));
  }
  if (segments[0] === 'apis') {
    if (segments.length === 1) return { type: 'groupList' };
    if (segments.length === 2) return { type: 'group', group: segments[1] };
    if (segments.length === 3) return { type: 'resourceList', group: segments[1], version: segments[2] };
    return resourceRoute(registry, segments[1], segments[2], segments.slice(3));
  }
  throw notFoundPath();
}

function resourceRoute(registry: ResourceRegistry, group: string, version: string, rest: string[]): Route {
  let namespace = '';
  let parts = rest;
  if (parts[0] === NAMESPACE_SCOPE && parts.length >= 3 && !addressesScopeObject(registry, group, version, parts)) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource, name, subresource, ...subrest] = parts;
  const def = registry.lookup(group, version, resource);
  if (!def) throw notFoundPath();
  if (namespace && !def.namespaced) throw notFoundPath();
  return { type: 'resource', def, namespace, name, subresource, rest: subrest };
}

/** `namespaces/{name}/{subresource}`: the namespace object's own subresource, not a scope. */
function addressesScopeObject(registry: ResourceRegistry, group: string, version: string, parts: string[]): boolean {
  if (parts.length !== 3) return false;
  const scope = registry.lookup(group, version, parts[0]);
  return scope !== undefined && !scope.namespaced && subresourceOf(scope, parts[2]) !== undefined;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ApiError.badRequest(`invalid path segment: ${segment}`);
  }
}
