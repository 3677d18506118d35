// The `kubectl get` table of every built-in resource, keyed by group-qualified resource
// (`pods`, `deployments.apps`, `events.events.k8s.io`), as upstream registers printers in
// pkg/printers/internalversion/printers.go AddHandlers. Resources missing here use
// defaultTableDef (upstream rest.DefaultTableConvertor); custom resources use customResourceTableDef.
import type { TableDef } from './table';
import { validatingAdmissionPolicyBindingTable, validatingAdmissionPolicyTable } from './admissionRegistration';
import { controllerRevisionTable, daemonSetTable, deploymentTable, replicaSetTable, statefulSetTable } from './apps';
import { horizontalPodAutoscalerTable } from './autoscaling';
import { cronJobTable, jobTable } from './batch';
import { certificateSigningRequestTable } from './certificates';
import { leaseTable } from './coordination';
import {
  configMapTable,
  endpointsTable,
  namespaceTable,
  nodeTable,
  persistentVolumeClaimTable,
  persistentVolumeTable,
  podTemplateTable,
  replicationControllerTable,
  resourceQuotaTable,
  secretTable,
  serviceAccountTable,
  serviceTable,
} from './core';
import { defaultTableDef } from './defaultTable';
import { endpointSliceTable } from './discovery';
import { eventsApiEventTable, eventTable } from './events';
import { ingressClassTable, ingressTable, networkPolicyTable } from './networking';
import { runtimeClassTable } from './node';
import { podTable } from './pod';
import { podDisruptionBudgetTable, priorityClassTable, webhookConfigurationTable } from './policy';
import { clusterRoleBindingTable, roleBindingTable } from './rbac';
import { storageClassTable } from './storage';

export const tableDefs: Record<string, TableDef> = {
  pods: podTable,
  podtemplates: podTemplateTable,
  replicationcontrollers: replicationControllerTable,
  services: serviceTable,
  endpoints: endpointsTable,
  configmaps: configMapTable,
  secrets: secretTable,
  serviceaccounts: serviceAccountTable,
  events: eventTable,
  nodes: nodeTable,
  namespaces: namespaceTable,
  limitranges: defaultTableDef,
  resourcequotas: resourceQuotaTable,
  persistentvolumeclaims: persistentVolumeClaimTable,
  persistentvolumes: persistentVolumeTable,
  'deployments.apps': deploymentTable,
  'replicasets.apps': replicaSetTable,
  'statefulsets.apps': statefulSetTable,
  'daemonsets.apps': daemonSetTable,
  'controllerrevisions.apps': controllerRevisionTable,
  'horizontalpodautoscalers.autoscaling': horizontalPodAutoscalerTable,
  'jobs.batch': jobTable,
  'cronjobs.batch': cronJobTable,
  'events.events.k8s.io': eventsApiEventTable,
  'leases.coordination.k8s.io': leaseTable,
  'endpointslices.discovery.k8s.io': endpointSliceTable,
  'ingresses.networking.k8s.io': ingressTable,
  'ingressclasses.networking.k8s.io': ingressClassTable,
  'networkpolicies.networking.k8s.io': networkPolicyTable,
  'rolebindings.rbac.authorization.k8s.io': roleBindingTable,
  'clusterrolebindings.rbac.authorization.k8s.io': clusterRoleBindingTable,
  'storageclasses.storage.k8s.io': storageClassTable,
  'poddisruptionbudgets.policy': podDisruptionBudgetTable,
  'priorityclasses.scheduling.k8s.io': priorityClassTable,
  'runtimeclasses.node.k8s.io': runtimeClassTable,
  'certificatesigningrequests.certificates.k8s.io': certificateSigningRequestTable,
  'mutatingwebhookconfigurations.admissionregistration.k8s.io': webhookConfigurationTable,
  'validatingwebhookconfigurations.admissionregistration.k8s.io': webhookConfigurationTable,
  'validatingadmissionpolicies.admissionregistration.k8s.io': validatingAdmissionPolicyTable,
  'validatingadmissionpolicybindings.admissionregistration.k8s.io': validatingAdmissionPolicyBindingTable,
};

/** The table for `resource` in `group` (`''` for core), falling back to the default table. */
export function tableDefFor(group: string, resource: string): TableDef {
  const key = group === '' ? resource : `${resource}.${group}`;
  // hasOwn keeps names such as `constructor` from resolving to Object.prototype members.
  return Object.hasOwn(tableDefs, key) ? tableDefs[key] : defaultTableDef;
}

export { defaultTableDef, customResourceTableDef } from './defaultTable';
export type { CustomResourceColumnDefinition } from './defaultTable';
export { humanDuration, shortHumanDuration, translateTimestampSince } from './duration';
export { summarizePod } from './pod';
export type { PodSummary } from './pod';
