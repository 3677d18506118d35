// The resource metrics API (metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics) that `kubectl top`
// reads. Upstream it is an aggregated API served by metrics-server (sigs.k8s.io/metrics-server
// pkg/api/pod.go, node.go, table.go); here it is a pair of virtual resources of the one API server,
// computed on request from a MetricsProvider (the kubelets' collectors) and never stored. Like
// metrics-server: only get and list, label and field selectors filtered here, items sorted by
// namespace then name, items of a list carry no kind/apiVersion, a missing item is
// `pods.metrics.k8s.io "<ns>/<name>" not found`, and Table replies have Name, cpu, memory, Window.
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { ColumnDefinition, TableDef } from '../../../shared/printers/table';
import { column } from '../../../shared/printers/columns';
import { defineKind, type KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import { json } from '../handlers/replies';
import type { ApiRequest, ApiResponse, ApiServerContext } from '../handlers/request';
import { negotiate } from '../content';
import type { ResourceRegistry } from '../resourceRegistry';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, validateFieldSelector } from '../selectors';
import { parseIncludeObject, toTable } from '../tables';
import { approximateValue, formatBytes, formatNanocores } from '../../../shared/kubernetes/quantity';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

/** The metadata metrics-server fills: name, namespace (pods), a creation time of "now", the object's labels. */
export type MetricsObjectMeta = {
  name: string;
  namespace?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
};

/** Quantities as strings: cpu like `1234567n`, memory like `12345Ki`. */
export type ResourceUsage = {
  cpu: string;
  memory: string;
};

/** k8s.io/metrics/pkg/apis/metrics/v1beta1 ContainerMetrics */
export type ContainerMetrics = {
  name: string;
  usage: ResourceUsage;
};

/** k8s.io/metrics/pkg/apis/metrics/v1beta1 PodMetrics (without kind/apiVersion: the API adds them) */
export type PodMetrics = {
  metadata: MetricsObjectMeta;
  /** RFC 3339: the end of the window the usage was measured over */
  timestamp: string;
  /** a Go duration string, e.g. `10.002s` */
  window: string;
  containers: ContainerMetrics[];
};

/** k8s.io/metrics/pkg/apis/metrics/v1beta1 NodeMetrics (without kind/apiVersion) */
export type NodeMetrics = {
  metadata: MetricsObjectMeta;
  timestamp: string;
  window: string;
  usage: ResourceUsage;
};

/** Where the figures come from. An object without metrics yet is simply absent. */
export interface MetricsProvider {
  /** Pod metrics of one namespace, or of all namespaces when `namespace` is undefined. */
  podMetrics(namespace?: string): Promise<PodMetrics[]>;
  nodeMetrics(): Promise<NodeMetrics[]>;
}

/** Adds pods.metrics.k8s.io and nodes.metrics.k8s.io to discovery and OpenAPI and serves them from `provider`. */
export function registerMetricsApi(api: ApiServerContext, registry: ResourceRegistry, provider: MetricsProvider): void {
  const [pods, nodes] = metricsResourceDefs();
  api.registerVirtualResource(METRICS_GROUP, METRICS_VERSION, pods.resource, (request, context) =>
    serve(request, pods, context.namespace, context.name, context.rest, () => provider.podMetrics(context.namespace || undefined)),
  );
  api.registerVirtualResource(METRICS_GROUP, METRICS_VERSION, nodes.resource, (request, context) =>
    serve(request, nodes, '', context.name, context.rest, () => provider.nodeMetrics()),
  );
  registry.add(pods);
  registry.add(nodes);
}

/** The two resource definitions: metadata for discovery, OpenAPI and Table columns; no storage rules. */
export function metricsResourceDefs(): [KindStrategy, KindStrategy] {
  return [
    metricsDef({ resource: 'pods', singular: 'pod', kind: 'PodMetrics', namespaced: true, table: metricsTable(podUsage) }),
    metricsDef({ resource: 'nodes', singular: 'node', kind: 'NodeMetrics', namespaced: false, table: metricsTable(nodeUsage) }),
  ];
}

/** Nothing is ever written through these kinds: the virtual handler answers every request. */
function metricsDef(input: { resource: string; singular: string; kind: string; namespaced: boolean; table: TableDef }): KindStrategy {
  return defineKind({
    group: METRICS_GROUP,
    version: METRICS_VERSION,
    resource: input.resource,
    singular: input.singular,
    kind: input.kind,
    namespaced: input.namespaced,
    verbs: ['get', 'list'],
    printer: input.table,
  });
}

type MetricsItem = PodMetrics | NodeMetrics;

async function serve(request: ApiRequest, def: KindStrategy, namespace: string, name: string | undefined, rest: string[], load: () => Promise<MetricsItem[]>): Promise<ApiResponse> {
  if (rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  if (request.method !== 'GET') throw ApiError.methodNotAllowed();
  const watch = request.query.get('watch');
  if (watch === 'true' || watch === '1') throw ApiError.methodNotAllowed();
  if (name === undefined) return list(request, def, await load());
  if (def.namespaced && !namespace) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  const found = (await load()).find((item) => item.metadata.name === name && (item.metadata.namespace ?? '') === namespace);
  if (!found) throw ApiError.notFound({ group: def.group, resource: def.resource }, def.namespaced ? `${namespace}/${name}` : name);
  if (negotiate(request.headers['accept']).shape === 'table') return tableReply(request, def, [found]);
  return json(200, { kind: def.kind, apiVersion: `${def.group}/${def.version}`, ...found });
}

function list(request: ApiRequest, def: KindStrategy, items: MetricsItem[]): ApiResponse {
  const labels = parseLabelSelector(request.query.get('labelSelector') ?? '');
  const fields = parseFieldSelector(request.query.get('fieldSelector') ?? '');
  validateFieldSelector(fields, new Set(['metadata.name', 'metadata.namespace']), def.kind);
  const selected = items
    .filter((item) => matchesLabels(labels, item.metadata.labels))
    .filter((item) => matchesFields(fields, { 'metadata.name': item.metadata.name, 'metadata.namespace': item.metadata.namespace ?? '' }))
    .sort(byNamespaceAndName);
  if (negotiate(request.headers['accept']).shape === 'table') return tableReply(request, def, selected);
  return json(200, { kind: def.listKind, apiVersion: `${def.group}/${def.version}`, metadata: {}, items: selected });
}

function tableReply(request: ApiRequest, def: KindStrategy, items: MetricsItem[]): ApiResponse {
  const negotiated = negotiate(request.headers['accept']);
  const objects: KubeObject[] = items.map((item) => ({ kind: def.kind, apiVersion: `${def.group}/${def.version}`, ...item }));
  return json(200, toTable(def, objects, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
}

function byNamespaceAndName(left: MetricsItem, right: MetricsItem): number {
  const leftNamespace = left.metadata.namespace ?? '';
  const rightNamespace = right.metadata.namespace ?? '';
  if (leftNamespace !== rightNamespace) return leftNamespace < rightNamespace ? -1 : 1;
  return left.metadata.name < right.metadata.name ? -1 : left.metadata.name > right.metadata.name ? 1 : 0;
}

// ---- Table (metrics-server table.go: Name, one column per resource in name order, Window) ----

const METRICS_COLUMNS: ColumnDefinition[] = [
  column('Name', 'string', 'Name of the resource', { format: 'name' }),
  column('cpu', 'string', '', { format: 'quantity' }),
  column('memory', 'string', '', { format: 'quantity' }),
  column('Window', 'string', '', { format: 'duration' }),
];

function metricsTable(usageOf: (object: KubeObject) => { cpuNanocores: number; memoryBytes: number }): TableDef {
  return {
    columns: METRICS_COLUMNS,
    row(object) {
      const usage = usageOf(object);
      return [object.metadata.name ?? '', formatNanocores(usage.cpuNanocores), formatBytes(usage.memoryBytes), typeof object.window === 'string' ? object.window : ''];
    },
  };
}

function podUsage(object: KubeObject): { cpuNanocores: number; memoryBytes: number } {
  let cpuNanocores = 0;
  let memoryBytes = 0;
  for (const container of Array.isArray(object.containers) ? object.containers : []) {
    const usage = usageFields(container);
    cpuNanocores += usage.cpuNanocores;
    memoryBytes += usage.memoryBytes;
  }
  return { cpuNanocores, memoryBytes };
}

function nodeUsage(object: KubeObject): { cpuNanocores: number; memoryBytes: number } {
  return usageFields(object);
}

function usageFields(holder: unknown): { cpuNanocores: number; memoryBytes: number } {
  const usage = typeof holder === 'object' && holder !== null && 'usage' in holder ? holder.usage : undefined;
  const cpu = typeof usage === 'object' && usage !== null && 'cpu' in usage && typeof usage.cpu === 'string' ? usage.cpu : '0';
  const memory = typeof usage === 'object' && usage !== null && 'memory' in usage && typeof usage.memory === 'string' ? usage.memory : '0';
  return { cpuNanocores: Math.round(approximateValue(cpu) * 1e9), memoryBytes: Math.round(approximateValue(memory)) };
}
