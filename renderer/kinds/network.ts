// Network kinds: Services (type, cluster IP, ports), Endpoints and Ingresses, with kubectl's columns.
import { endpointsTable, serviceTable } from '../../shared/printers/core';
import { ingressTable } from '../../shared/printers/networking';
import type { KindConfig } from './kindConfig';
import { recordField, stringField } from './tones';

export const services: KindConfig = {
  key: 'services',
  kind: 'Service',
  group: '',
  version: 'v1',
  plural: 'services',
  namespaced: true,
  title: 'Services',
  section: 'Network',
  table: serviceTable,
  shortNames: ['svc'],
  podSelector(object) {
    const selector = recordField(object, 'spec', 'selector');
    if (!selector) return undefined;
    const labels: Record<string, string> = {};
    for (const [key, value] of Object.entries(selector)) if (typeof value === 'string') labels[key] = value;
    return Object.keys(labels).length ? labels : undefined;
  },
  summary: (object) => [
    { label: 'Type', value: stringField(object, 'spec', 'type') || 'ClusterIP' },
    { label: 'Cluster IP', value: stringField(object, 'spec', 'clusterIP') || '<none>' },
    { label: 'Session affinity', value: stringField(object, 'spec', 'sessionAffinity') || 'None' },
  ],
};

export const endpoints: KindConfig = {
  key: 'endpoints',
  kind: 'Endpoints',
  group: '',
  version: 'v1',
  plural: 'endpoints',
  namespaced: true,
  title: 'Endpoints',
  section: 'Network',
  table: endpointsTable,
  shortNames: ['ep'],
};

export const ingresses: KindConfig = {
  key: 'ingresses.networking.k8s.io',
  kind: 'Ingress',
  group: 'networking.k8s.io',
  version: 'v1',
  plural: 'ingresses',
  namespaced: true,
  title: 'Ingresses',
  section: 'Network',
  table: ingressTable,
  shortNames: ['ing'],
  summary: (object) => [{ label: 'Class', value: stringField(object, 'spec', 'ingressClassName') || '<default>' }],
};
