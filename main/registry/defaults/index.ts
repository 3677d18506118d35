// Defaulters for every built-in kind, keyed like the validators (`pods`, `deployments.apps`),
// plus the create-time strategy steps that are not plain defaults (namespace finalizer, Job
// selector generation), for the API server to wire into each ResourceDef.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './apps';
import { defaultCronJob, defaultJob, prepareJobForCreate } from './batch';
import {
  defaultEndpoints, defaultLimitRange, defaultNamespace, defaultNode, defaultNothing, defaultPersistentVolumeClaim, defaultPod,
  defaultPodTemplate, defaultSecret, defaultService, prepareNamespaceForCreate,
} from './core';
import { defaultHorizontalPodAutoscaler } from './autoscaling';
import { defaultEndpointSlice } from './misc';
import { defaultPersistentVolume, defaultStorageClass } from './storage';

export interface KindDefaulter {
  /** Upstream SetDefaults_* for the kind (and admission defaults for Pods). Mutates `obj`. */
  defaults(obj: KubeObject): void;
  /** Create-only strategy steps that must not repeat on update; absent when a kind has none. */
  prepareForCreate?(obj: KubeObject): void;
}

/** Defaulting never throws: a body of the wrong shape is left for validation to report. */
function guarded(defaults: (obj: KubeObject) => void, prepareForCreate?: (obj: KubeObject) => void): KindDefaulter {
  const safe = (step: (obj: KubeObject) => void) => (obj: KubeObject): void => {
    try {
      step(obj);
    } catch {
      // validation reports the malformed field
    }
  };
  return prepareForCreate ? { defaults: safe(defaults), prepareForCreate: safe(prepareForCreate) } : { defaults: safe(defaults) };
}

/** The unguarded defaulting functions per resource, with the create-only step where there is one. */
export const defaultFunctions: Record<string, { defaults(obj: KubeObject): void; prepareForCreate?(obj: KubeObject): void }> = {
  namespaces: { defaults: defaultNamespace, prepareForCreate: prepareNamespaceForCreate },
  pods: { defaults: defaultPod },
  services: { defaults: defaultService },
  endpoints: { defaults: defaultEndpoints },
  configmaps: { defaults: defaultNothing },
  secrets: { defaults: defaultSecret },
  serviceaccounts: { defaults: defaultNothing },
  events: { defaults: defaultNothing },
  nodes: { defaults: defaultNode },
  limitranges: { defaults: defaultLimitRange },
  resourcequotas: { defaults: defaultNothing },
  podtemplates: { defaults: defaultPodTemplate },
  persistentvolumeclaims: { defaults: defaultPersistentVolumeClaim },
  persistentvolumes: { defaults: defaultPersistentVolume },
  'deployments.apps': { defaults: defaultDeployment },
  'replicasets.apps': { defaults: defaultReplicaSet },
  'statefulsets.apps': { defaults: defaultStatefulSet },
  'daemonsets.apps': { defaults: defaultDaemonSet },
  'controllerrevisions.apps': { defaults: defaultNothing },
  'horizontalpodautoscalers.autoscaling': { defaults: defaultHorizontalPodAutoscaler },
  'jobs.batch': { defaults: defaultJob, prepareForCreate: prepareJobForCreate },
  'cronjobs.batch': { defaults: defaultCronJob },
  'leases.coordination.k8s.io': { defaults: defaultNothing },
  'endpointslices.discovery.k8s.io': { defaults: defaultEndpointSlice },
  'events.events.k8s.io': { defaults: defaultNothing },
  'storageclasses.storage.k8s.io': { defaults: defaultStorageClass },
};

export const defaulters: Record<string, KindDefaulter> = Object.fromEntries(
  Object.entries(defaultFunctions).map(([resource, functions]) => [resource, guarded(functions.defaults, functions.prepareForCreate)]),
);

export function defaulterFor(group: string, resource: string): KindDefaulter | undefined {
  return defaulters[group === '' ? resource : `${resource}.${group}`];
}

export { defaultPodSpec, defaultPodTemplateSpec, defaultContainer, defaultImagePullPolicy } from './podSpec';
