// Every kind the cluster serves, from aggregated discovery (apidiscovery.k8s.io/v2, the document
// kubectl reads: one GET of /api and one of /apis): built-in groups, aggregated APIs and the kinds
// CustomResourceDefinitions add. The UI gives each kind it has no configuration for a generic one
// — kubectl's table for it (shared/printers) or Name and Age —, reachable from the command palette
// and by route, so every kind the user can list can be listed, opened and searched.
import { isRecord } from '../../shared/kubernetes/types';
import { tableDefFor } from '../../shared/printers';
import type { KubeClient } from '../api/kubeClient';
import type { KindConfig } from './kindConfig';

export const AGGREGATED_DISCOVERY = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

export interface DiscoveredResource {
  group: string;
  /** the group's preferred version (the first one listed) */
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The resources of an APIGroupDiscoveryList, each group at its preferred version. */
export function parseAggregatedDiscovery(body: unknown): DiscoveredResource[] {
  if (!isRecord(body) || !Array.isArray(body.items)) return [];
  const resources: DiscoveredResource[] = [];
  for (const item of body.items) {
    if (!isRecord(item) || !isRecord(item.metadata) || !Array.isArray(item.versions)) continue;
    const group = typeof item.metadata.name === 'string' ? item.metadata.name : '';
    const preferred = item.versions.find(isRecord);
    if (!preferred || typeof preferred.version !== 'string' || !Array.isArray(preferred.resources)) continue;
    for (const resource of preferred.resources) {
      if (!isRecord(resource) || typeof resource.resource !== 'string' || resource.resource.includes('/')) continue;
      const kind = isRecord(resource.responseKind) && typeof resource.responseKind.kind === 'string' ? resource.responseKind.kind : '';
      if (!kind) continue;
      resources.push({ group, version: preferred.version, plural: resource.resource, kind, namespaced: resource.scope === 'Namespaced', verbs: strings(resource.verbs), shortNames: strings(resource.shortNames) });
    }
  }
  return resources;
}

/** Both discovery documents (core and named groups); a failure of either leaves its part out. */
export async function loadDiscovery(client: KubeClient): Promise<DiscoveredResource[]> {
  const [core, groups] = await Promise.all(['/api', '/apis'].map((path) => client.get<unknown>(path, { accept: AGGREGATED_DISCOVERY }).catch(() => undefined)));
  return [...parseAggregatedDiscovery(core), ...parseAggregatedDiscovery(groups)];
}

/** The store key of a resource: `plural` for core, `plural.group` otherwise. */
export function resourceKey(resource: Pick<DiscoveredResource, 'group' | 'plural'>): string {
  return resource.group ? `${resource.plural}.${resource.group}` : resource.plural;
}

// one configuration per resource as discovery describes it, so re-reading discovery (or a CRD
// changing) does not hand views a new config object, which would restart their watches
const configCache = new Map<string, KindConfig>();

/** A generic configuration for a kind the UI has none for: kubectl's columns, no sidebar entry. */
export function discoveredKindConfig(resource: DiscoveredResource): KindConfig {
  const cacheKey = JSON.stringify(resource);
  const cached = configCache.get(cacheKey);
  if (cached) return cached;
  const config: KindConfig = {
    key: resourceKey(resource),
    kind: resource.kind,
    group: resource.group,
    version: resource.version,
    plural: resource.plural,
    namespaced: resource.namespaced,
    title: resource.kind,
    section: resource.namespaced ? 'Config' : 'Cluster',
    table: tableDefFor(resource.group, resource.plural),
    inSidebar: false,
    shortNames: resource.shortNames,
  };
  configCache.set(cacheKey, config);
  return config;
}

/**
 * Kinds that can be listed and are worth searching: not Events (they would bury what they are
 * about), not metrics, not the object history's revisions (records of other objects, each named
 * after its object), nor the usage history (a record per pod and node, named after it), not the
 * local image store (image IDs; the Images page shows them), not snapshots (copies of the whole
 * cluster, not objects in it; the Snapshots page lists them).
 */
export function isSearchable(resource: Pick<DiscoveredResource, 'group' | 'plural' | 'verbs'>): boolean {
  if (!resource.verbs.includes('list')) return false;
  if (resource.plural === 'events' && (resource.group === '' || resource.group === 'events.k8s.io')) return false;
  return !['metrics.k8s.io', 'history.kubedesk.dev', 'images.kubedesk.dev', 'snapshots.kubedesk.dev', 'usage.kubedesk.dev'].includes(resource.group);
}
