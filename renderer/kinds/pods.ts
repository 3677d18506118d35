// Pods: kubectl's columns (READY, STATUS, RESTARTS, AGE, IP, NODE…), status colouring and health
// from the STATUS and READY kubectl would print (shared/printers/podHealth), a summary, and cards
// for the containers (image, state, environment, mounts, probes, resources) and volumes.
import type { KubeObject } from '../../shared/kubernetes/types';
import { podTable, summarizePod } from '../../shared/printers/pod';
import { healthOfSummary, podHealth, type PodHealth } from '../../shared/printers/podHealth';
import type { DetailCell, KindConfig, SummaryField } from './kindConfig';
import { containerDetails, podVolumes } from './podDetails';
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
  usage: 'pod',
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
    return fields;
  },
  relatedKinds: ['configmaps', 'secrets'],
  sections: (pod, lookup) => [
    { type: 'containers', id: 'containers', title: 'Containers', containers: containerDetails(pod, lookup) },
    {
      type: 'table',
      id: 'volumes',
      title: 'Volumes',
      columns: ['Name', 'Type', 'Source', 'Mounted at'],
      empty: 'No volumes.',
      wide: true,
      rows: podVolumes(pod).map((volume): DetailCell[] => [{ text: volume.name, mono: true }, { text: volume.type }, { text: volume.source, link: volume.link }, { text: volume.mountedBy.join(', ') || 'not mounted', mono: volume.mountedBy.length > 0 }]),
    },
  ],
};

export { containersOf, defaultContainer, type ContainerInfo } from './podContainers';
