// Cluster-level kinds: Nodes (Ready colouring, cordoned; capacity and allocatable in readable
// units with the raw quantity on hover, taints, addresses, system info), Namespaces, Events
// (Warning in colour, LAST SEEN live and sorted by the real times, newest first, a Warnings-only
// filter and a timeline) and CustomResourceDefinitions.
import { humanQuantity } from '../../shared/kubernetes/quantity';
import { getCondition } from '../../shared/kubernetes/conditions';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { eventTable } from '../../shared/printers/events';
import { namespaceTable, nodeTable } from '../../shared/printers/core';
import { tableDefFor } from '../../shared/printers';
import { compareEventsNewestFirst, eventFirstSeen, eventLastSeen } from './eventTimes';
import type { DetailCell, DetailSection, KindConfig, SummaryField } from './kindConfig';
import { recordField, stringField } from './tones';

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function quantityText(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** A quantity cell: readable units, the raw quantity on hover. */
function quantityCell(resource: string, raw: unknown): DetailCell {
  const text = quantityText(raw);
  if (text === '') return { text: '—' };
  return { text: humanQuantity(resource, text), hint: text };
}

function quantityField(label: string, resource: string, raw: unknown): SummaryField {
  const text = quantityText(raw);
  return { label, value: text ? humanQuantity(resource, text) : '<unknown>', hint: text || undefined };
}

/** Capacity and allocatable of each resource the node reports (cpu, memory, pods first). */
export function nodeResourceRows(node: KubeObject): DetailCell[][] {
  const capacity = recordField(node, 'status', 'capacity') ?? {};
  const allocatable = recordField(node, 'status', 'allocatable') ?? {};
  const order = ['cpu', 'memory', 'pods', 'ephemeral-storage'];
  const names = [...new Set([...Object.keys(capacity), ...Object.keys(allocatable)])].sort((left, right) => {
    const a = order.indexOf(left);
    const b = order.indexOf(right);
    return (a === -1 ? order.length : a) - (b === -1 ? order.length : b) || left.localeCompare(right);
  });
  return names.map((name) => [{ text: name, mono: true }, quantityCell(name, capacity[name]), quantityCell(name, allocatable[name])]);
}

function nodeSections(node: KubeObject): DetailSection[] {
  const info = recordField(node, 'status', 'nodeInfo') ?? {};
  return [
    { type: 'table', id: 'node-resources', title: 'Capacity', columns: ['Resource', 'Capacity', 'Allocatable'], rows: nodeResourceRows(node), empty: 'The node reports no capacity.' },
    {
      type: 'table',
      id: 'node-taints',
      title: 'Taints',
      columns: ['Key', 'Value', 'Effect'],
      rows: records(recordField(node, 'spec')?.taints).map((taint) => [{ text: stringField(taint, 'key'), mono: true }, { text: stringField(taint, 'value') || '—' }, { text: stringField(taint, 'effect'), tone: stringField(taint, 'effect') === 'NoExecute' ? 'warn' : undefined }]),
      empty: 'No taints: any pod may be scheduled here.',
    },
    { type: 'table', id: 'node-addresses', title: 'Addresses', columns: ['Type', 'Address'], rows: records(recordField(node, 'status')?.addresses).map((address) => [{ text: stringField(address, 'type') }, { text: stringField(address, 'address'), mono: true }]), empty: 'No addresses.' },
    {
      type: 'fields',
      id: 'node-info',
      title: 'System info',
      fields: [
        { label: 'OS image', value: stringField(info, 'osImage') },
        { label: 'Kernel', value: stringField(info, 'kernelVersion') },
        { label: 'Architecture', value: `${stringField(info, 'operatingSystem')}/${stringField(info, 'architecture')}` },
        { label: 'Container runtime', value: stringField(info, 'containerRuntimeVersion') },
        { label: 'Kubelet', value: stringField(info, 'kubeletVersion') },
        { label: 'Pod CIDR', value: stringField(node, 'spec', 'podCIDR') || '<none>' },
      ],
    },
  ];
}

export const nodes: KindConfig = {
  key: 'nodes',
  usage: 'node',
  kind: 'Node',
  group: '',
  version: 'v1',
  plural: 'nodes',
  namespaced: false,
  title: 'Nodes',
  section: 'Cluster',
  table: nodeTable,
  statusColumn: 'Status',
  shortNames: ['no'],
  tone: (object) => (getCondition(object, 'Ready')?.status !== 'True' ? 'error' : object.spec && (object.spec as Record<string, unknown>).unschedulable === true ? 'warn' : 'ok'),
  summary: (object) => [
    { label: 'Ready', value: getCondition(object, 'Ready')?.status ?? 'Unknown' },
    { label: 'Schedulable', value: object.spec && (object.spec as Record<string, unknown>).unschedulable === true ? 'no (cordoned)' : 'yes' },
    { label: 'Kubelet', value: stringField(object, 'status', 'nodeInfo', 'kubeletVersion') },
    { label: 'Runtime', value: stringField(object, 'status', 'nodeInfo', 'containerRuntimeVersion') },
    quantityField('CPU', 'cpu', recordField(object, 'status', 'allocatable')?.cpu),
    quantityField('Memory', 'memory', recordField(object, 'status', 'allocatable')?.memory),
  ],
  sections: nodeSections,
};

export const namespaces: KindConfig = {
  key: 'namespaces',
  kind: 'Namespace',
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  title: 'Namespaces',
  section: 'Cluster',
  table: namespaceTable,
  statusColumn: 'Status',
  shortNames: ['ns'],
  tone: (object) => (stringField(object, 'status', 'phase') === 'Terminating' ? 'muted' : 'ok'),
};

export const events: KindConfig = {
  key: 'events',
  kind: 'Event',
  group: '',
  version: 'v1',
  plural: 'events',
  namespaced: true,
  title: 'Events',
  section: 'Cluster',
  table: eventTable,
  statusColumn: 'Type',
  shortNames: ['ev'],
  tone: (object) => (stringField(object, 'type') === 'Warning' ? 'warn' : undefined),
  timeColumns: {
    'Last Seen': { timestamp: eventLastSeen, newestFirst: compareEventsNewestFirst },
    'First Seen': { timestamp: eventFirstSeen, newestFirst: compareEventsNewestFirst },
  },
  // newest first, as `kubectl events` lists them (the time columns sort newest first ascending, as Age does)
  defaultSort: { column: 'Last Seen' },
  quickFilters: [{ id: 'warnings', label: 'Warnings only', matches: (object) => stringField(object, 'type') === 'Warning' }],
  timeline: true,
};

export const customResourceDefinitions: KindConfig = {
  key: 'customresourcedefinitions.apiextensions.k8s.io',
  kind: 'CustomResourceDefinition',
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  namespaced: false,
  title: 'CRDs',
  section: 'Custom resources',
  table: tableDefFor('apiextensions.k8s.io', 'customresourcedefinitions'),
  shortNames: ['crd', 'crds'],
  summary: (object) => [
    { label: 'Group', value: stringField(object, 'spec', 'group') },
    { label: 'Kind', value: stringField(object, 'spec', 'names', 'kind') },
    { label: 'Scope', value: stringField(object, 'spec', 'scope') },
    { label: 'Established', value: getCondition(object, 'Established')?.status ?? 'Unknown' },
  ],
};
