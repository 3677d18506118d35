// Pods: kubectl's columns (READY, STATUS, RESTARTS, AGE, IP, NODE…), status colouring and health
// from the STATUS and READY kubectl would print (shared/printers/podHealth), and the containers in
// the summary.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { podTable, summarizePod } from '../../shared/printers/pod';
import { healthOfSummary, podHealth, type PodHealth } from '../../shared/printers/podHealth';
import type { KindConfig, SummaryField } from './kindConfig';
import { POD_HEALTH_TONES, stringField } from './tones';

// a row asks for both tone and health: compute once per object version (objects are replaced, never mutated)
const healthCache = new WeakMap<KubeObject, PodHealth>();

function healthOf(pod: KubeObject): PodHealth {
  let health = healthCache.get(pod);
  if (health === undefined) healthCache.set(pod, (health = podHealth(pod)));
  return health;
}

export const pods: KindConfig = {
  key: 'pods',
  kind: 'Pod',
  group: '',
  version: 'v1',
  plural: 'pods',
  namespaced: true,
  title: 'Pods',
  section: 'Workloads',
  table: podTable,
  statusColumn: 'Status',
  shortNames: ['po'],
  tone: (pod) => POD_HEALTH_TONES[healthOf(pod)],
  health: (pod) => healthOf(pod),
  summary(pod) {
    const summary = summarizePod(pod, new Date());
    const tone = POD_HEALTH_TONES[healthOfSummary(summary)];
    const fields: SummaryField[] = [
      { label: 'Status', value: summary.status, tone },
      { label: 'Ready', value: summary.ready, tone },
      { label: 'Restarts', value: summary.restarts },
      { label: 'Node', value: stringField(pod, 'spec', 'nodeName') || '<none>', link: stringField(pod, 'spec', 'nodeName') ? { kindKey: 'nodes', name: stringField(pod, 'spec', 'nodeName') } : undefined },
      { label: 'Pod IP', value: stringField(pod, 'status', 'podIP') || '<none>' },
      { label: 'QoS class', value: stringField(pod, 'status', 'qosClass') || '<none>' },
      { label: 'Service account', value: stringField(pod, 'spec', 'serviceAccountName') || 'default' },
    ];
    for (const container of containersOf(pod)) fields.push({ label: `Container ${container.name}`, value: container.image });
    return fields;
  },
};

export interface ContainerInfo {
  name: string;
  image: string;
  init: boolean;
}

/** The pod's containers (init containers first), for container pickers and the summary. */
export function containersOf(pod: KubeObject): ContainerInfo[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const list = (value: unknown, init: boolean): ContainerInfo[] =>
    Array.isArray(value) ? value.filter(isRecord).map((container) => ({ name: String(container.name ?? ''), image: String(container.image ?? ''), init })) : [];
  return [...list(spec.initContainers, true), ...list(spec.containers, false)];
}
