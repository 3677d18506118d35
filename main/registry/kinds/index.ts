// The kinds kubedesk serves, in discovery order (as `kubectl api-resources` lists them on a real
// 1.35 cluster): one strategy per group/version/resource, each declared in its own kind file.
// Adding a kind is its file plus a row here (and its rows in the protobuf and strategic-merge
// tables; servedKinds.test.ts in main/apiserver checks that every kind has them).
import type { KindStrategy } from '../strategy';
import { namespaceStrategy } from './core/namespace';
import { podStrategy } from './core/pod';
import { serviceStrategy } from './core/service';
import { endpointsStrategy } from './core/endpoints';
import { configMapStrategy } from './core/configMap';
import { secretStrategy } from './core/secret';
import { serviceAccountStrategy } from './core/serviceAccount';
import { eventStrategy } from './core/event';
import { nodeStrategy } from './core/node';
import { limitRangeStrategy } from './core/limitRange';
import { resourceQuotaStrategy } from './core/resourceQuota';
import { podTemplateStrategy } from './core/podTemplate';
import { replicationControllerStrategy } from './core/replicationController';
import { persistentVolumeClaimStrategy } from './core/persistentVolumeClaim';
import { persistentVolumeStrategy } from './core/persistentVolume';
import { deploymentStrategy } from './apps/deployment';
import { replicaSetStrategy } from './apps/replicaSet';
import { statefulSetStrategy } from './apps/statefulSet';
import { daemonSetStrategy } from './apps/daemonSet';
import { controllerRevisionStrategy } from './apps/controllerRevision';
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from './autoscaling/horizontalPodAutoscaler';
import { jobStrategy } from './batch/job';
import { cronJobStrategy } from './batch/cronJob';
import { leaseStrategy } from './coordination.k8s.io/lease';
import { endpointSliceStrategy } from './discovery.k8s.io/endpointSlice';
import { eventsV1EventStrategy } from './events.k8s.io/event';
import { ingressStrategy } from './networking.k8s.io/ingress';
import { ingressClassStrategy } from './networking.k8s.io/ingressClass';
import { networkPolicyStrategy } from './networking.k8s.io/networkPolicy';
import { podDisruptionBudgetStrategy } from './policy/podDisruptionBudget';
import { storageClassStrategy } from './storage.k8s.io/storageClass';
import { customResourceDefinitionStrategy } from './apiextensions.k8s.io/customResourceDefinition';
import { priorityClassStrategy } from './scheduling.k8s.io/priorityClass';
import { runtimeClassStrategy } from './node.k8s.io/runtimeClass';
import { certificateSigningRequestStrategy } from './certificates.k8s.io/certificateSigningRequest';
import { clusterRoleBindingStrategy } from './rbac.authorization.k8s.io/clusterRoleBinding';
import { clusterRoleStrategy } from './rbac.authorization.k8s.io/clusterRole';
import { roleBindingStrategy } from './rbac.authorization.k8s.io/roleBinding';
import { roleStrategy } from './rbac.authorization.k8s.io/role';
import { mutatingWebhookConfigurationStrategy } from './admissionregistration.k8s.io/mutatingWebhookConfiguration';
import { validatingAdmissionPolicyStrategy } from './admissionregistration.k8s.io/validatingAdmissionPolicy';
import { validatingAdmissionPolicyBindingStrategy } from './admissionregistration.k8s.io/validatingAdmissionPolicyBinding';
import { validatingWebhookConfigurationStrategy } from './admissionregistration.k8s.io/validatingWebhookConfiguration';
import { selfSubjectReviewStrategy } from './authentication.k8s.io/selfSubjectReview';
import { tokenReviewStrategy } from './authentication.k8s.io/tokenReview';
import { localSubjectAccessReviewStrategy } from './authorization.k8s.io/localSubjectAccessReview';
import { selfSubjectAccessReviewStrategy } from './authorization.k8s.io/selfSubjectAccessReview';
import { selfSubjectRulesReviewStrategy } from './authorization.k8s.io/selfSubjectRulesReview';
import { subjectAccessReviewStrategy } from './authorization.k8s.io/subjectAccessReview';

export const builtinKinds: readonly KindStrategy[] = [
  namespaceStrategy,
  podStrategy,
  serviceStrategy,
  endpointsStrategy,
  configMapStrategy,
  secretStrategy,
  serviceAccountStrategy,
  eventStrategy,
  nodeStrategy,
  limitRangeStrategy,
  resourceQuotaStrategy,
  podTemplateStrategy,
  replicationControllerStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeStrategy,
  deploymentStrategy,
  replicaSetStrategy,
  statefulSetStrategy,
  daemonSetStrategy,
  controllerRevisionStrategy,
  horizontalPodAutoscalerStrategy,
  horizontalPodAutoscalerV1Strategy,
  jobStrategy,
  cronJobStrategy,
  leaseStrategy,
  endpointSliceStrategy,
  eventsV1EventStrategy,
  ingressStrategy,
  ingressClassStrategy,
  networkPolicyStrategy,
  podDisruptionBudgetStrategy,
  storageClassStrategy,
  customResourceDefinitionStrategy,
  priorityClassStrategy,
  runtimeClassStrategy,
  certificateSigningRequestStrategy,
  clusterRoleBindingStrategy,
  clusterRoleStrategy,
  roleBindingStrategy,
  roleStrategy,
  mutatingWebhookConfigurationStrategy,
  validatingAdmissionPolicyStrategy,
  validatingAdmissionPolicyBindingStrategy,
  validatingWebhookConfigurationStrategy,
  selfSubjectReviewStrategy,
  tokenReviewStrategy,
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  selfSubjectRulesReviewStrategy,
  subjectAccessReviewStrategy,
];
