// A Helm release's manifest as the objects helm would apply or delete, pure: split as helm's
// releaseutil.SplitManifests splits (`---` separators), parsed, mapped to REST paths through
// discovery, ordered by helm's InstallOrder/UninstallOrder (releaseutil/kind_sorter.go; kinds it
// does not know go last, by kind), compared as kube.ResourceList.Difference compares (group, kind,
// namespace, name), with the labels and annotations helm's setMetadataVisitor stamps on every
// object it applies (app.kubernetes.io/managed-by=Helm, meta.helm.sh/release-name/-namespace) and
// helm's `helm.sh/resource-policy: keep`. Hooks (Release.hooks) are ordered as hookByWeight.
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { DiscoveredResource } from '../kinds/discovery';

export const RESOURCE_POLICY_ANNOTATION = 'helm.sh/resource-policy';
export const HELM_FIELD_MANAGER = 'helm';

const INSTALL_ORDER = [
  'PriorityClass', 'Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget', 'ServiceAccount', 'Secret', 'SecretList',
  'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleList', 'ClusterRoleBinding',
  'ClusterRoleBindingList', 'Role', 'RoleList', 'RoleBinding', 'RoleBindingList', 'Service', 'DaemonSet', 'Pod', 'ReplicationController', 'ReplicaSet', 'Deployment',
  'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'IngressClass', 'Ingress', 'APIService', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration',
];
const UNINSTALL_ORDER = [
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService', 'Ingress', 'IngressClass', 'Service', 'CronJob', 'Job', 'StatefulSet', 'HorizontalPodAutoscaler',
  'Deployment', 'ReplicaSet', 'ReplicationController', 'Pod', 'DaemonSet', 'RoleBindingList', 'RoleBinding', 'RoleList', 'Role', 'ClusterRoleBindingList', 'ClusterRoleBinding',
  'ClusterRoleList', 'ClusterRole', 'CustomResourceDefinition', 'PersistentVolumeClaim', 'PersistentVolume', 'StorageClass', 'ConfigMap', 'SecretList', 'Secret',
  'ServiceAccount', 'PodDisruptionBudget', 'PodSecurityPolicy', 'LimitRange', 'ResourceQuota', 'NetworkPolicy', 'Namespace', 'PriorityClass',
];

/** One object of a manifest. */
export interface ManifestObject {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
  name: string;
  /** the namespace the object lives in ('' for cluster-scoped kinds once resolved) */
  namespace: string;
  object: KubeObject;
  /** helm.sh/resource-policy: keep — helm never deletes it */
  keep: boolean;
}

/** A manifest object with its REST location. */
export interface ResolvedObject extends ManifestObject {
  plural: string;
  namespaced: boolean;
  /** the object's REST path */
  path: string;
  /** the UI route key of its kind (`deployments.apps`) */
  kindKey: string;
}

/** The YAML documents of a manifest (helm's `(?:^|\s*\n)---\s*` separator), empty ones dropped. */
export function splitManifest(manifest: string): string[] {
  return manifest.split(/(?:^|\s*\n)---\s*/).filter((document) => document.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('#')));
}

/** The objects of a manifest; namespaced-ness is not known yet, so `namespace` defaults to the release's. */
export function manifestObjects(manifest: string, releaseNamespace: string): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const text of splitManifest(manifest)) {
    for (const document of parseAllDocuments(text)) {
      const value: unknown = document.toJS();
      if (!isRecord(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string' || !isRecord(value.metadata)) continue;
      const object = value as unknown as KubeObject;
      const slash = object.apiVersion!.indexOf('/');
      const annotations = object.metadata.annotations ?? {};
      objects.push({
        apiVersion: object.apiVersion!,
        group: slash < 0 ? '' : object.apiVersion!.slice(0, slash),
        version: slash < 0 ? object.apiVersion! : object.apiVersion!.slice(slash + 1),
        kind: object.kind!,
        name: object.metadata.name ?? '',
        namespace: object.metadata.namespace || releaseNamespace,
        object,
        keep: annotations[RESOURCE_POLICY_ANNOTATION] === 'keep',
      });
    }
  }
  return objects;
}

/** Resolves each object's resource through discovery; an unknown kind throws (helm: `no matches for kind`). */
export function resolveObjects(objects: readonly ManifestObject[], discovered: readonly DiscoveredResource[]): ResolvedObject[] {
  return objects.map((object) => {
    const resource = discovered.find((candidate) => candidate.group === object.group && candidate.kind === object.kind);
    if (!resource) throw new Error(`resource mapping not found for name: "${object.name}" namespace: "${object.namespace}" from "": no matches for kind "${object.kind}" in version "${object.apiVersion}"`);
    const namespace = resource.namespaced ? object.namespace : '';
    const base = object.group ? `/apis/${object.group}/${object.version}` : `/api/${object.version}`;
    const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return {
      ...object,
      namespace,
      plural: resource.plural,
      namespaced: resource.namespaced,
      path: `${base}${scope}/${resource.plural}/${encodeURIComponent(object.name)}`,
      kindKey: resource.group ? `${resource.plural}.${resource.group}` : resource.plural,
    };
  });
}

function orderIndex(order: readonly string[], kind: string): number {
  const index = order.indexOf(kind);
  return index < 0 ? order.length : index;
}

function sortByKind<T extends { kind: string; name: string }>(objects: readonly T[], order: readonly string[]): T[] {
  return objects
    .map((object, position) => ({ object, position }))
    .sort((a, b) => orderIndex(order, a.object.kind) - orderIndex(order, b.object.kind) || (orderIndex(order, a.object.kind) === order.length ? a.object.kind.localeCompare(b.object.kind) : 0) || a.position - b.position)
    .map((entry) => entry.object);
}

export function installOrder<T extends { kind: string; name: string }>(objects: readonly T[]): T[] {
  return sortByKind(objects, INSTALL_ORDER);
}

export function uninstallOrder<T extends { kind: string; name: string }>(objects: readonly T[]): T[] {
  return sortByKind(objects, UNINSTALL_ORDER);
}

function identity(object: Pick<ManifestObject, 'group' | 'kind' | 'namespace' | 'name'>): string {
  return `${object.group}/${object.kind}/${object.namespace}/${object.name}`;
}

/** The objects of `current` that `target` no longer has (kube.ResourceList.Difference). */
export function removedObjects<T extends ManifestObject>(current: readonly T[], target: readonly ManifestObject[]): T[] {
  const kept = new Set(target.map(identity));
  return current.filter((object) => !kept.has(identity(object)));
}

/** The body helm applies for an object: its manifest plus helm's ownership label and annotations. */
export function applyBody(object: ResolvedObject, releaseName: string, releaseNamespace: string): KubeObject {
  const metadata = { ...object.object.metadata };
  metadata.labels = { ...(metadata.labels ?? {}), 'app.kubernetes.io/managed-by': 'Helm' };
  metadata.annotations = { ...(metadata.annotations ?? {}), 'meta.helm.sh/release-name': releaseName, 'meta.helm.sh/release-namespace': releaseNamespace };
  if (object.namespaced) metadata.namespace = object.namespace;
  return { ...object.object, metadata };
}

/** Release.hooks entries (pkg/release/v1 Hook). */
export interface ReleaseHook {
  name: string;
  kind: string;
  path: string;
  manifest: string;
  events: string[];
  weight: number;
  deletePolicies: string[];
  /** the entry as stored, to write last_run back into */
  raw: Record<string, unknown>;
}

export function releaseHooks(hooks: readonly unknown[]): ReleaseHook[] {
  return hooks.filter(isRecord).map((raw) => ({
    name: typeof raw.name === 'string' ? raw.name : '',
    kind: typeof raw.kind === 'string' ? raw.kind : '',
    path: typeof raw.path === 'string' ? raw.path : '',
    manifest: typeof raw.manifest === 'string' ? raw.manifest : '',
    events: Array.isArray(raw.events) ? raw.events.filter((event): event is string => typeof event === 'string') : [],
    weight: typeof raw.weight === 'number' ? raw.weight : 0,
    // hookSetDeletePolicy: no policy means before-hook-creation
    deletePolicies: Array.isArray(raw.delete_policies) && raw.delete_policies.length > 0 ? raw.delete_policies.filter((policy): policy is string => typeof policy === 'string') : ['before-hook-creation'],
    raw,
  }));
}

/** The hooks of one event (`pre-rollback`, `post-delete`…) in the order helm runs them: by weight, then name. */
export function hooksFor(hooks: readonly ReleaseHook[], event: string): ReleaseHook[] {
  return hooks.filter((hook) => hook.events.includes(event)).sort((a, b) => a.weight - b.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether a hook resource has finished as helm's WatchUntilReady judges: a Job complete (or failed), a Pod Succeeded (or Failed); anything else at once. */
export function hookOutcome(kind: string, object: KubeObject): 'done' | 'failed' | 'running' {
  const status = isRecord(object.status) ? object.status : {};
  if (kind === 'Job') {
    const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
    if (conditions.some((condition) => condition.type === 'Complete' && condition.status === 'True')) return 'done';
    if (conditions.some((condition) => condition.type === 'Failed' && condition.status === 'True')) return 'failed';
    return 'running';
  }
  if (kind === 'Pod') {
    if (status.phase === 'Succeeded') return 'done';
    if (status.phase === 'Failed') return 'failed';
    return 'running';
  }
  return 'done';
}
