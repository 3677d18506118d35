// Cluster-level kinds: Nodes (Ready colouring, cordoned), Namespaces, Events (Warning in colour),
// CustomResourceDefinitions and kubedesk's PortForwards.
import { eventTable } from '../../shared/printers/events';
import { namespaceTable, nodeTable } from '../../shared/printers/core';
import { tableDefFor } from '../../shared/printers';
import type { KindConfig } from './kindConfig';
import { conditionStatus, stringField } from './tones';

export const nodes: KindConfig = {
  key: 'nodes',
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
  tone: (object) => (conditionStatus(object, 'Ready') !== 'True' ? 'error' : object.spec && (object.spec as Record<string, unknown>).unschedulable === true ? 'warn' : 'ok'),
  summary: (object) => [
    { label: 'Ready', value: conditionStatus(object, 'Ready') ?? 'Unknown' },
    { label: 'Schedulable', value: object.spec && (object.spec as Record<string, unknown>).unschedulable === true ? 'no (cordoned)' : 'yes' },
    { label: 'Kubelet', value: stringField(object, 'status', 'nodeInfo', 'kubeletVersion') },
    { label: 'Runtime', value: stringField(object, 'status', 'nodeInfo', 'containerRuntimeVersion') },
    { label: 'CPU', value: stringField(object, 'status', 'allocatable', 'cpu') },
    { label: 'Memory', value: stringField(object, 'status', 'allocatable', 'memory') },
  ],
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
    { label: 'Established', value: conditionStatus(object, 'Established') ?? 'Unknown' },
  ],
};
