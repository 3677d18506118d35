// Workload kinds (apps and batch): kubectl's columns, readiness colouring from ready/desired
// counts, the pods they run (by their selector) and their rollout state in the summary.
import { getCondition } from '../../shared/kubernetes/conditions';
import type { KubeObject } from '../../shared/kubernetes/types';
import { daemonSetTable, deploymentTable, replicaSetTable, statefulSetTable } from '../../shared/printers/apps';
import { cronJobTable, jobTable } from '../../shared/printers/batch';
import { replicationControllerTable } from '../../shared/printers/core';
import type { KindConfig, SummaryField, Tone } from './kindConfig';
import { countTone, matchLabels, numberField, recordField, stringField } from './tones';

/** status.readyReplicas against spec.replicas. */
function replicasTone(object: KubeObject): Tone {
  return countTone(numberField(object, 'status', 'readyReplicas'), numberField(object, 'spec', 'replicas'));
}

function replicasSummary(object: KubeObject, readyField: string): SummaryField[] {
  const desired = numberField(object, 'spec', 'replicas');
  const ready = numberField(object, 'status', readyField);
  return [
    { label: 'Replicas', value: `${ready} ready of ${desired} desired`, tone: countTone(ready, desired) },
    { label: 'Updated', value: String(numberField(object, 'status', 'updatedReplicas')) },
    { label: 'Available', value: String(numberField(object, 'status', 'availableReplicas')) },
  ];
}

export const deployments: KindConfig = {
  key: 'deployments.apps',
  kind: 'Deployment',
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  namespaced: true,
  title: 'Deployments',
  section: 'Workloads',
  table: deploymentTable,
  statusColumn: 'Ready',
  shortNames: ['deploy'],
  tone: replicasTone,
  podSelector: matchLabels,
  usage: 'workload',
  summary: (object) => [
    ...replicasSummary(object, 'readyReplicas'),
    { label: 'Strategy', value: stringField(object, 'spec', 'strategy', 'type') || 'RollingUpdate' },
    { label: 'Progressing', value: getCondition(object, 'Progressing')?.status ?? 'Unknown' },
    { label: 'Paused', value: object.spec && (object.spec as Record<string, unknown>).paused === true ? 'yes' : 'no' },
  ],
};

export const statefulSets: KindConfig = {
  key: 'statefulsets.apps',
  kind: 'StatefulSet',
  group: 'apps',
  version: 'v1',
  plural: 'statefulsets',
  namespaced: true,
  title: 'StatefulSets',
  section: 'Workloads',
  table: statefulSetTable,
  statusColumn: 'Ready',
  shortNames: ['sts'],
  tone: replicasTone,
  podSelector: matchLabels,
  usage: 'workload',
  summary: (object) => [...replicasSummary(object, 'readyReplicas'), { label: 'Service', value: stringField(object, 'spec', 'serviceName') || '<none>' }],
};

export const daemonSets: KindConfig = {
  key: 'daemonsets.apps',
  kind: 'DaemonSet',
  group: 'apps',
  version: 'v1',
  plural: 'daemonsets',
  namespaced: true,
  title: 'DaemonSets',
  section: 'Workloads',
  table: daemonSetTable,
  statusColumn: 'Ready',
  shortNames: ['ds'],
  tone: (object) => countTone(numberField(object, 'status', 'numberReady'), numberField(object, 'status', 'desiredNumberScheduled')),
  podSelector: matchLabels,
  usage: 'workload',
  summary: (object) => [
    { label: 'Desired', value: String(numberField(object, 'status', 'desiredNumberScheduled')) },
    { label: 'Ready', value: String(numberField(object, 'status', 'numberReady')), tone: countTone(numberField(object, 'status', 'numberReady'), numberField(object, 'status', 'desiredNumberScheduled')) },
    { label: 'Up to date', value: String(numberField(object, 'status', 'updatedNumberScheduled')) },
  ],
};

export const replicaSets: KindConfig = {
  key: 'replicasets.apps',
  kind: 'ReplicaSet',
  group: 'apps',
  version: 'v1',
  plural: 'replicasets',
  namespaced: true,
  title: 'ReplicaSets',
  section: 'Workloads',
  table: replicaSetTable,
  statusColumn: 'Ready',
  shortNames: ['rs'],
  tone: replicasTone,
  podSelector: matchLabels,
  usage: 'workload',
  summary: (object) => replicasSummary(object, 'readyReplicas'),
};

/** The legacy core/v1 kind: reachable by route and palette (not in the sidebar); its selector is a plain label map. */
export const replicationControllers: KindConfig = {
  key: 'replicationcontrollers',
  kind: 'ReplicationController',
  group: '',
  version: 'v1',
  plural: 'replicationcontrollers',
  namespaced: true,
  title: 'ReplicationControllers',
  section: 'Workloads',
  inSidebar: false,
  table: replicationControllerTable,
  statusColumn: 'Ready',
  shortNames: ['rc'],
  tone: replicasTone,
  usage: 'workload',
  podSelector: (object) => {
    const selector = recordField(object, 'spec', 'selector');
    return selector ? Object.fromEntries(Object.entries(selector).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) : undefined;
  },
  summary: (object) => replicasSummary(object, 'readyReplicas').filter((field) => field.label !== 'Updated'),
};

export const jobs: KindConfig = {
  key: 'jobs.batch',
  kind: 'Job',
  group: 'batch',
  version: 'v1',
  plural: 'jobs',
  namespaced: true,
  title: 'Jobs',
  section: 'Workloads',
  table: jobTable,
  statusColumn: 'Status',
  tone: (object) => (getCondition(object, 'Failed')?.status === 'True' ? 'error' : getCondition(object, 'Complete')?.status === 'True' ? 'ok' : 'warn'),
  podSelector: matchLabels,
  usage: 'workload',
  summary: (object) => [
    { label: 'Completions', value: `${numberField(object, 'status', 'succeeded')} of ${numberField(object, 'spec', 'completions') || 1}` },
    { label: 'Active', value: String(numberField(object, 'status', 'active')) },
    { label: 'Failed', value: String(numberField(object, 'status', 'failed')), tone: numberField(object, 'status', 'failed') > 0 ? 'error' : undefined },
    { label: 'Started', value: stringField(object, 'status', 'startTime') || '<not yet>' },
  ],
};

export const cronJobs: KindConfig = {
  key: 'cronjobs.batch',
  kind: 'CronJob',
  group: 'batch',
  version: 'v1',
  plural: 'cronjobs',
  namespaced: true,
  title: 'CronJobs',
  section: 'Workloads',
  table: cronJobTable,
  statusColumn: 'Suspend',
  shortNames: ['cj'],
  tone: (object) => (object.spec && (object.spec as Record<string, unknown>).suspend === true ? 'muted' : 'ok'),
  summary: (object) => [
    { label: 'Schedule', value: stringField(object, 'spec', 'schedule') },
    { label: 'Suspended', value: object.spec && (object.spec as Record<string, unknown>).suspend === true ? 'yes' : 'no' },
    { label: 'Last schedule', value: stringField(object, 'status', 'lastScheduleTime') || '<never>' },
    { label: 'Last success', value: stringField(object, 'status', 'lastSuccessfulTime') || '<never>' },
  ],
};
