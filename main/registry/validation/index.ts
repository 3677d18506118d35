// Validators for every built-in kind, keyed like upstream's GroupResource strings:
// `pods` for the core group, `deployments.apps` otherwise. The API server wires these into
// each ResourceDef (validateCreate after defaults and prepareForCreate, validateUpdate likewise).
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { FieldError } from '../fieldErrors';
import * as admissionRegistration from './admissionRegistration';
import * as apps from './apps';
import * as autoscaling from './autoscaling';
import * as batch from './batch';
import * as certificates from './certificates';
import * as core from './core';
import * as misc from './misc';
import * as networking from './networking';
import * as node from './node';
import * as scheduling from './scheduling';
import * as rbac from './rbac';
import * as storage from './storage';

export interface KindValidator {
  validateCreate(obj: KubeObject): FieldError[];
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

/** Wraps a validator pair so an unexpected exception becomes a field error, never a crash. */
function guarded(create: (obj: KubeObject) => FieldError[], update: (obj: KubeObject, old: KubeObject) => FieldError[]): KindValidator {
  const failure = (error: unknown): FieldError[] => [{
    type: 'FieldValueInvalid', field: '', detail: `Invalid value: internal validation error: ${error instanceof Error ? error.message : String(error)}`,
  }];
  return {
    validateCreate(obj) {
      try {
        return create(obj);
      } catch (error) {
        return failure(error);
      }
    },
    validateUpdate(obj, old) {
      try {
        return update(obj, old);
      } catch (error) {
        return failure(error);
      }
    },
  };
}

export const validators: Record<string, KindValidator> = {
  namespaces: guarded(core.validateNamespace, core.validateNamespaceUpdate),
  pods: guarded(core.validatePod, core.validatePodUpdate),
  services: guarded(core.validateService, core.validateServiceUpdate),
  endpoints: guarded(core.validateEndpoints, core.validateEndpointsUpdate),
  configmaps: guarded(core.validateConfigMap, core.validateConfigMapUpdate),
  secrets: guarded(core.validateSecret, core.validateSecretUpdate),
  serviceaccounts: guarded(core.validateServiceAccount, core.validateServiceAccountUpdate),
  events: guarded(core.validateEvent, core.validateEventUpdate),
  nodes: guarded(core.validateNode, core.validateNodeUpdate),
  limitranges: guarded(core.validateLimitRange, core.validateLimitRangeUpdate),
  resourcequotas: guarded(core.validateResourceQuota, core.validateResourceQuotaUpdate),
  podtemplates: guarded(core.validatePodTemplate, core.validatePodTemplateUpdate),
  persistentvolumeclaims: guarded(core.validatePersistentVolumeClaim, core.validatePersistentVolumeClaimUpdate),
  persistentvolumes: guarded(storage.validatePersistentVolume, storage.validatePersistentVolumeUpdate),
  'deployments.apps': guarded(apps.validateDeployment, apps.validateDeploymentUpdate),
  'replicasets.apps': guarded(apps.validateReplicaSet, apps.validateReplicaSetUpdate),
  'statefulsets.apps': guarded(apps.validateStatefulSet, apps.validateStatefulSetUpdate),
  'daemonsets.apps': guarded(apps.validateDaemonSet, apps.validateDaemonSetUpdate),
  'controllerrevisions.apps': guarded(apps.validateControllerRevision, apps.validateControllerRevisionUpdate),
  'horizontalpodautoscalers.autoscaling': guarded(autoscaling.validateHorizontalPodAutoscaler, autoscaling.validateHorizontalPodAutoscalerUpdate),
  'jobs.batch': guarded(batch.validateJob, batch.validateJobUpdate),
  'cronjobs.batch': guarded(batch.validateCronJob, batch.validateCronJobUpdate),
  'leases.coordination.k8s.io': guarded(misc.validateLease, misc.validateLeaseUpdate),
  'endpointslices.discovery.k8s.io': guarded(misc.validateEndpointSlice, misc.validateEndpointSliceUpdate),
  'events.events.k8s.io': guarded(misc.validateEventsV1Event, misc.validateEventsV1EventUpdate),
  'storageclasses.storage.k8s.io': guarded(storage.validateStorageClass, storage.validateStorageClassUpdate),
  'ingresses.networking.k8s.io': guarded(networking.validateIngress, networking.validateIngressUpdate),
  'ingressclasses.networking.k8s.io': guarded(networking.validateIngressClass, networking.validateIngressClassUpdate),
  'networkpolicies.networking.k8s.io': guarded(networking.validateNetworkPolicy, networking.validateNetworkPolicyUpdate),
  'priorityclasses.scheduling.k8s.io': guarded(scheduling.validatePriorityClass, scheduling.validatePriorityClassUpdate),
  'runtimeclasses.node.k8s.io': guarded(node.validateRuntimeClass, node.validateRuntimeClassUpdate),
  'certificatesigningrequests.certificates.k8s.io': guarded(certificates.validateCertificateSigningRequest, certificates.validateCertificateSigningRequestUpdate),
  'roles.rbac.authorization.k8s.io': guarded(rbac.validateRole, rbac.validateRoleUpdate),
  'clusterroles.rbac.authorization.k8s.io': guarded(rbac.validateClusterRole, rbac.validateClusterRoleUpdate),
  'rolebindings.rbac.authorization.k8s.io': guarded(rbac.validateRoleBinding, rbac.validateRoleBindingUpdate),
  'clusterrolebindings.rbac.authorization.k8s.io': guarded(rbac.validateClusterRoleBinding, rbac.validateClusterRoleBindingUpdate),
  'validatingwebhookconfigurations.admissionregistration.k8s.io': guarded(admissionRegistration.validateValidatingWebhookConfiguration, admissionRegistration.validateValidatingWebhookConfigurationUpdate),
  'mutatingwebhookconfigurations.admissionregistration.k8s.io': guarded(admissionRegistration.validateMutatingWebhookConfiguration, admissionRegistration.validateMutatingWebhookConfigurationUpdate),
  'validatingadmissionpolicies.admissionregistration.k8s.io': guarded(admissionRegistration.validateValidatingAdmissionPolicy, admissionRegistration.validateValidatingAdmissionPolicyUpdate),
  'validatingadmissionpolicybindings.admissionregistration.k8s.io': guarded(admissionRegistration.validateValidatingAdmissionPolicyBinding, admissionRegistration.validateValidatingAdmissionPolicyBindingUpdate),
};

/** The validator for a resource in a group ('' for core), or undefined for kinds without one. */
export function validatorFor(group: string, resource: string): KindValidator | undefined {
  return validators[group === '' ? resource : `${resource}.${group}`];
}

export { validatePodSpec, validatePodTemplateSpec } from './podSpec';
export { validateObjectMeta, validateObjectMetaUpdate } from './objectMeta';
