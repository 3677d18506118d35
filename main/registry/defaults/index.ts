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
import { defaultEndpointSlice } from './misc';

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

export const defaulters: Record<string, KindDefaulter> = {
  namespaces: guarded(defaultNamespace, prepareNamespaceForCreate),
  pods: guarded(defaultPod),
  services: guarded(defaultService),
  endpoints: guarded(defaultEndpoints),
  configmaps: guarded(defaultNothing),
  secrets: guarded(defaultSecret),
  serviceaccounts: guarded(defaultNothing),
  events: guarded(defaultNothing),
  nodes: guarded(defaultNode),
  limitranges: guarded(defaultLimitRange),
  resourcequotas: guarded(defaultNothing),
  podtemplates: guarded(defaultPodTemplate),
  persistentvolumeclaims: guarded(defaultPersistentVolumeClaim),
  'deployments.apps': guarded(defaultDeployment),
  'replicasets.apps': guarded(defaultReplicaSet),
  'statefulsets.apps': guarded(defaultStatefulSet),
  'daemonsets.apps': guarded(defaultDaemonSet),
  'controllerrevisions.apps': guarded(defaultNothing),
  'jobs.batch': guarded(defaultJob, prepareJobForCreate),
  'cronjobs.batch': guarded(defaultCronJob),
  'leases.coordination.k8s.io': guarded(defaultNothing),
  'endpointslices.discovery.k8s.io': guarded(defaultEndpointSlice),
  'events.events.k8s.io': guarded(defaultNothing),
};

export function defaulterFor(group: string, resource: string): KindDefaulter | undefined {
  return defaulters[group === '' ? resource : `${resource}.${group}`];
}

export { defaultPodSpec, defaultPodTemplateSpec, defaultContainer, defaultImagePullPolicy } from './podSpec';
