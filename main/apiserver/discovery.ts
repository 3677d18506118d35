// API discovery documents: legacy (/api, /apis, /api/v1, /apis/<g>/<v>) and aggregated
// (apidiscovery.k8s.io/v2), as staging/src/k8s.io/apiserver/pkg/endpoints/discovery. kubectl
// resolves short names, categories (`kubectl get all`) and scope from these.
import type { KindStrategy } from '../registry/strategy';
import type { ResourceRegistry } from './resourceRegistry';

export const AGGREGATED_DISCOVERY_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** Which aggregated discovery version the Accept header asks for, if any. */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const alternative of accept.split(',')) {
    const params = alternative.split(';').map((part) => part.trim());
    if (!params.includes('g=apidiscovery.k8s.io') || !params.includes('as=APIGroupDiscoveryList')) {
      if (params[0] === 'application/json' && params.length === 1) return undefined;
      continue;
    }
    if (params.includes('v=v2')) return 'v2';
    if (params.includes('v=v2beta1')) return 'v2beta1';
  }
  return undefined;
}

export function aggregatedContentType(version: 'v2' | 'v2beta1'): string {
  return version === 'v2' ? AGGREGATED_DISCOVERY_TYPE : AGGREGATED_V2BETA1_TYPE;
}

export function apiVersions(serverAddress: string): unknown {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(registry: ResourceRegistry): unknown {
  const groups = registry
    .groupVersions()
    .filter((entry) => entry.group !== '')
    .map(({ group, versions }) => ({
      name: group,
      versions: versions.map((version) => ({ groupVersion: `${group}/${version}`, version })),
      preferredVersion: { groupVersion: `${group}/${versions[0]}`, version: versions[0] },
    }));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(registry: ResourceRegistry, group: string): unknown | undefined {
  const entry = registry.groupVersions().find((candidate) => candidate.group === group);
  if (!entry || group === '') return undefined;
  const versions = entry.versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions, preferredVersion: versions[0] };
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): unknown | undefined {
  const defs = registry.all().filter((def) => def.group === group && def.version === version);
  if (defs.length === 0) return undefined;
  const resources: unknown[] = [];
  for (const def of defs) {
    const entry: Record<string, unknown> = {
      name: def.resource,
      singularName: def.singular,
      namespaced: def.namespaced,
      kind: def.kind,
      verbs: def.verbs,
    };
    if (def.shortNames.length) entry.shortNames = def.shortNames;
    if (def.categories.length) entry.categories = def.categories;
    entry.storageVersionHash = storageVersionHash(def);
    resources.push(entry);
    for (const sub of def.subresources) {
      const subEntry: Record<string, unknown> = { name: `${def.resource}/${sub.name}`, singularName: '', namespaced: def.namespaced, kind: sub.kind, verbs: sub.verbs };
      if (sub.group !== def.group || sub.version !== def.version) {
        subEntry.group = sub.group;
        subEntry.version = sub.version;
      }
      resources.push(subEntry);
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

/** Aggregated discovery: `/api` (core only) or `/apis` (all named groups). */
export function aggregatedDiscovery(registry: ResourceRegistry, legacy: boolean, version: 'v2' | 'v2beta1'): unknown {
  const items = registry
    .groupVersions()
    .filter((entry) => (legacy ? entry.group === '' : entry.group !== ''))
    .map(({ group, versions }) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: versions.map((groupVersion) => ({
        version: groupVersion,
        resources: registry
          .all()
          .filter((def) => def.group === group && def.version === groupVersion)
          .map((def) => aggregatedResource(def)),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}

function aggregatedResource(def: KindStrategy): unknown {
  const entry: Record<string, unknown> = {
    resource: def.resource,
    responseKind: { group: def.group, version: def.version, kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: def.verbs,
  };
  if (def.shortNames.length) entry.shortNames = def.shortNames;
  if (def.categories.length) entry.categories = def.categories;
  if (def.subresources.length) {
    entry.subresources = def.subresources.map((sub) => ({
      subresource: sub.name,
      responseKind: { group: sub.group, version: sub.version, kind: sub.kind },
      verbs: sub.verbs,
    }));
  }
  return entry;
}

function storageVersionHash(def: KindStrategy): string {
  // Upstream hashes group/version/kind into 8 base64 bytes; clients only compare it for equality.
  let hash = 0x811c9dc5;
  for (const char of `${def.group}/${def.version}/${def.kind}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return Buffer.from(hash.toString(16).padStart(8, '0')).toString('base64').slice(0, 11) + '=';
}
