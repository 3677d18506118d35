// Network kinds: Services (type, cluster IP, ports, selector, and the endpoints behind them with
// links to their pods), Endpoints and Ingresses (rules as links to their Services and URLs), with
// kubectl's columns.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { endpointsTable, serviceTable } from '../../shared/printers/core';
import { ingressTable } from '../../shared/printers/networking';
import type { DetailCell, DetailSection, KindConfig, ObjectLookup } from './kindConfig';
import { recordField, stringField } from './tones';

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function portName(value: unknown): string {
  return typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
}

/** `app=web, tier=front` of a selector map. */
export function selectorText(selector: Record<string, unknown> | undefined): string {
  return Object.entries(selector ?? {})
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(', ');
}

/** The Service's ports as `kubectl describe service` lists them. */
export function servicePortRows(service: KubeObject): DetailCell[][] {
  return records(recordField(service, 'spec')?.ports).map((port) => [
    { text: stringField(port, 'name') || '<unset>' },
    { text: portName(port.port), mono: true },
    { text: portName(port.targetPort) || portName(port.port), mono: true },
    { text: stringField(port, 'protocol') || 'TCP' },
    { text: portName(port.nodePort) || '—', mono: port.nodePort !== undefined },
  ]);
}

/**
 * The addresses behind a Service, from its Endpoints object (same name), ready ones first: the
 * pod (linked) and node of each, as `kubectl describe service` shows its Endpoints line.
 */
export function serviceEndpointRows(service: KubeObject, lookup: ObjectLookup): DetailCell[][] {
  const namespace = service.metadata.namespace;
  const endpoints = lookup.get('endpoints', namespace, service.metadata.name ?? '');
  const rows: DetailCell[][] = [];
  for (const subset of records(endpoints?.subsets)) {
    const ports = records(subset.ports).map((port) => `${portName(port.port)}/${stringField(port, 'protocol') || 'TCP'}`).join(', ');
    for (const [field, ready] of [['addresses', true], ['notReadyAddresses', false]] as const) {
      for (const address of records(subset[field])) {
        const target = isRecord(address.targetRef) ? address.targetRef : undefined;
        const podName = target && target.kind === 'Pod' ? stringField(target, 'name') : '';
        const nodeName = stringField(address, 'nodeName');
        rows.push([
          { text: stringField(address, 'ip'), mono: true },
          { text: ports, mono: true },
          { text: ready ? 'yes' : 'no', tone: ready ? 'ok' : 'warn' },
          podName ? { text: podName, link: { kindKey: 'pods', namespace: stringField(target, 'namespace') || namespace, name: podName } } : { text: target ? `${stringField(target, 'kind')} ${stringField(target, 'name')}` : '—' },
          nodeName ? { text: nodeName, link: { kindKey: 'nodes', name: nodeName } } : { text: '—' },
        ]);
      }
    }
  }
  return rows.sort((left, right) => (left[2].text === right[2].text ? 0 : left[2].text === 'yes' ? -1 : 1));
}

function serviceSections(service: KubeObject, lookup: ObjectLookup): DetailSection[] {
  const selector = recordField(service, 'spec', 'selector');
  const type = stringField(service, 'spec', 'type') || 'ClusterIP';
  const loadBalancer = records(recordField(service, 'status', 'loadBalancer')?.ingress).map((entry) => stringField(entry, 'ip') || stringField(entry, 'hostname'));
  const externalName = stringField(service, 'spec', 'externalName');
  const endpointsEmpty = !lookup.ready('endpoints') ? 'loading…' : selector ? 'No endpoints: no ready pod matches the selector.' : 'No endpoints: the Service has no selector (its Endpoints are managed by hand).';
  return [
    {
      type: 'fields',
      id: 'routing',
      title: 'Routing',
      fields: [
        { label: 'Selector', value: selectorText(selector) || '<none>' },
        ...(externalName ? [{ label: 'External name', value: externalName }] : []),
        ...(type === 'LoadBalancer' ? [{ label: 'Load balancer', value: loadBalancer.join(', ') || '<pending>' }] : []),
      ],
    },
    { type: 'table', id: 'service-ports', title: 'Ports', columns: ['Name', 'Port', 'Target port', 'Protocol', 'Node port'], rows: servicePortRows(service), empty: 'No ports.', wide: true },
    { type: 'table', id: 'service-endpoints', title: 'Endpoints', columns: ['Address', 'Ports', 'Ready', 'Pod', 'Node'], rows: serviceEndpointRows(service, lookup), empty: endpointsEmpty, wide: true },
  ];
}

/** The HTTP port the Ingress is reachable on (status.loadBalancer.ingress[].ports, else 80). */
function ingressHttpPort(ingress: KubeObject): number {
  for (const entry of records(recordField(ingress, 'status', 'loadBalancer')?.ingress)) {
    const port = records(entry.ports)[0]?.port;
    if (typeof port === 'number') return port;
  }
  return 80;
}

function backendCell(backend: Record<string, unknown> | undefined, namespace: string | undefined): DetailCell {
  if (!backend) return { text: '<none>' };
  const service = isRecord(backend.service) ? backend.service : undefined;
  if (service) {
    const port = isRecord(service.port) ? portName(service.port.number) || portName(service.port.name) : '';
    const name = stringField(service, 'name');
    return { text: `${name}${port ? `:${port}` : ''}`, link: { kindKey: 'services', namespace, name } };
  }
  const resource = isRecord(backend.resource) ? backend.resource : undefined;
  return { text: resource ? `${stringField(resource, 'kind')} ${stringField(resource, 'name')}` : '<none>' };
}

/** Every rule path of an Ingress as a row: host, path, type, backend (linked Service) and its URL (linked). */
export function ingressRuleRows(ingress: KubeObject): DetailCell[][] {
  const namespace = ingress.metadata.namespace;
  const port = ingressHttpPort(ingress);
  const tlsHosts = new Set(records(recordField(ingress, 'spec')?.tls).flatMap((tls) => (Array.isArray(tls.hosts) ? tls.hosts.map(String) : [])));
  const rows: DetailCell[][] = [];
  for (const rule of records(recordField(ingress, 'spec')?.rules)) {
    const host = stringField(rule, 'host');
    const paths = records(recordField(rule, 'http')?.paths);
    for (const path of paths) {
      const pathText = stringField(path, 'path') || '/';
      const https = host !== '' && tlsHosts.has(host);
      const url = https ? `https://${host}${pathText}` : `http://${host || '127.0.0.1'}${port === 80 ? '' : `:${port}`}${pathText}`;
      rows.push([{ text: host || '*' }, { text: pathText, mono: true }, { text: stringField(path, 'pathType') || 'ImplementationSpecific' }, backendCell(recordField(path, 'backend'), namespace), { text: url, href: url }]);
    }
  }
  const fallback = recordField(ingress, 'spec', 'defaultBackend');
  if (fallback) rows.push([{ text: '*' }, { text: '(default backend)' }, { text: '' }, backendCell(fallback, namespace), { text: '' }]);
  return rows;
}

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
  relatedKinds: ['endpoints'],
  sections: serviceSections,
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
  summary: (object) => [
    { label: 'Class', value: stringField(object, 'spec', 'ingressClassName') || '<default>' },
    { label: 'TLS hosts', value: records(recordField(object, 'spec')?.tls).flatMap((tls) => (Array.isArray(tls.hosts) ? tls.hosts.map(String) : [])).join(', ') || '<none>' },
  ],
  sections: (object) => [{ type: 'table', id: 'ingress-rules', title: 'Rules', columns: ['Host', 'Path', 'Path type', 'Backend', 'URL'], rows: ingressRuleRows(object), empty: 'No rules.', wide: true }],
};
