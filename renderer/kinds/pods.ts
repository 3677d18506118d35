// Pods: kubectl's columns (READY, STATUS, RESTARTS, AGE, IP, NODE…), status colouring from the
// STATUS kubectl would print, a summary, and cards for the containers (image, state, environment,
// mounts, probes, resources) and volumes.
import { summarizePod } from '../../shared/printers/pod';
import { podTable } from '../../shared/printers/pod';
import type { DetailCell, KindConfig, SummaryField } from './kindConfig';
import { containerDetails, podVolumes } from './podDetails';
import { podStatusTone, stringField } from './tones';

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
  tone: (pod) => podStatusTone(summarizePod(pod, new Date()).status),
  summary(pod) {
    const summary = summarizePod(pod, new Date());
    const fields: SummaryField[] = [
      { label: 'Status', value: summary.status, tone: podStatusTone(summary.status) },
      { label: 'Ready', value: summary.ready },
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
