// Every kind the UI shows, in sidebar order, and lookups by store key or kind name.
import type { KubeObject } from '../../shared/kubernetes/types';
import { configMaps, persistentVolumeClaims, persistentVolumes, secrets, storageClasses } from './config';
import { customResourceDefinitions, events, namespaces, nodes } from './cluster';
import { customKindOf } from './customKinds';
import { discoveredKindConfig, resourceKey, type DiscoveredResource } from './discovery';
import type { KindConfig } from './kindConfig';
import { endpoints, ingresses, services } from './network';
import { pods } from './pods';
import { portForwards } from './portForwards';
import { cronJobs, daemonSets, deployments, jobs, replicaSets, replicationControllers, statefulSets } from './workloads';

export const builtinKinds: KindConfig[] = [
  pods,
  deployments,
  statefulSets,
  daemonSets,
  replicaSets,
  replicationControllers,
  jobs,
  cronJobs,
  services,
  endpoints,
  ingresses,
  portForwards,
  configMaps,
  secrets,
  persistentVolumeClaims,
  persistentVolumes,
  storageClasses,
  nodes,
  namespaces,
  events,
  customResourceDefinitions,
];

/**
 * Built-in kinds, one per CRD (CRDs that shadow a built-in key are ignored), then every other kind
 * discovery lists, with a generic configuration.
 */
export function allKinds(crds: KubeObject[], discovered: DiscoveredResource[] = []): KindConfig[] {
  const builtin = new Set(builtinKinds.map((kind) => kind.key));
  const custom = crds.flatMap((crd) => {
    const config = customKindOf(crd);
    return config && !builtin.has(config.key) ? [config] : [];
  });
  custom.sort((left, right) => left.kind.localeCompare(right.kind));
  const known = new Set([...builtin, ...custom.map((kind) => kind.key)]);
  const others = discovered.filter((resource) => !known.has(resourceKey(resource))).map(discoveredKindConfig);
  others.sort((left, right) => left.kind.localeCompare(right.kind) || left.group.localeCompare(right.group));
  return [...builtinKinds, ...custom, ...others];
}

export function kindByKey(kinds: KindConfig[], key: string): KindConfig | undefined {
  return kinds.find((kind) => kind.key === key);
}

/** The config for an owner reference or link: apiVersion + kind → KindConfig. */
export function kindOf(kinds: KindConfig[], apiVersion: string | undefined, kind: string | undefined): KindConfig | undefined {
  const group = apiVersion?.includes('/') ? apiVersion.split('/')[0] : '';
  return kinds.find((candidate) => candidate.kind === kind && candidate.group === group);
}

export { pods, deployments, statefulSets, daemonSets, replicaSets, replicationControllers, jobs, cronJobs, services, endpoints, ingresses, configMaps, secrets, persistentVolumeClaims, persistentVolumes, storageClasses, nodes, namespaces, events, customResourceDefinitions };
