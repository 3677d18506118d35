// Defaulters for every built-in kind, keyed like the validators (`pods`, `deployments.apps`),
// plus the create-time strategy steps that are not plain defaults (namespace finalizer, Job
// selector generation), for the API server to wire into each ResourceDef.
import type { KubeObject } from '../../../shared/kubernetes/types';
import {
  defaultMutatingWebhookConfiguration, defaultValidatingAdmissionPolicy, defaultValidatingAdmissionPolicyBinding, defaultValidatingWebhookConfiguration,
} from './admissionRegistration';
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from './apps';
import { defaultCronJob, defaultJob, prepareJobForCreate } from './batch';
import {
  defaultEndpoints, defaultLimitRange, defaultNamespace, defaultNode, defaultNothing, defaultPersistentVolumeClaim, defaultPod,
  defaultPodTemplate, defaultSecret, defaultService, prepareNamespaceForCreate,
} from './core';
import { defaultHorizontalPodAutoscaler } from './autoscaling';
import { defaultEndpointSlice } from './misc';
import { defaultIngressClass, defaultNetworkPolicy } from './networking';
import { defaultPriorityClass } from './scheduling';
import { defaultRbacBinding } from './rbac';
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
  'networkpolicies.networking.k8s.io': { defaults: defaultNetworkPolicy },
  'ingressclasses.networking.k8s.io': { defaults: defaultIngressClass },
  'priorityclasses.scheduling.k8s.io': { defaults: defaultPriorityClass },
  'ingresses.networking.k8s.io': { defaults: defaultNothing },
  'runtimeclasses.node.k8s.io': { defaults: defaultNothing },
  'certificatesigningrequests.certificates.k8s.io': { defaults: defaultNothing },
  'roles.rbac.authorization.k8s.io': { defaults: defaultNothing },
  'clusterroles.rbac.authorization.k8s.io': { defaults: defaultNothing },
  'rolebindings.rbac.authorization.k8s.io': { defaults: defaultRbacBinding },
  'clusterrolebindings.rbac.authorization.k8s.io': { defaults: defaultRbacBinding },
  'validatingwebhookconfigurations.admissionregistration.k8s.io': { defaults: defaultValidatingWebhookConfiguration },
  'mutatingwebhookconfigurations.admissionregistration.k8s.io': { defaults: defaultMutatingWebhookConfiguration },
  'validatingadmissionpolicies.admissionregistration.k8s.io': { defaults: defaultValidatingAdmissionPolicy },
  'validatingadmissionpolicybindings.admissionregistration.k8s.io': { defaults: defaultValidatingAdmissionPolicyBinding },
};

export const defaulters: Record<string, KindDefaulter> = Object.fromEntries(
  Object.entries(defaultFunctions).map(([resource, functions]) => [resource, guarded(functions.defaults, functions.prepareForCreate)]),
);

export function defaulterFor(group: string, resource: string): KindDefaulter | undefined {
  return defaulters[group === '' ? resource : `${resource}.${group}`];
}

export { defaultPodSpec, defaultPodTemplateSpec, defaultContainer, defaultImagePullPolicy } from './podSpec';
