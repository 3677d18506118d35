// The resource usage history API (usage.kubedesk.dev/v1), kubedesk's own, served like an
// aggregated API (virtual resources of the one API server, as metrics.k8s.io is here) from the
// history the kubelets keep (main/kubelet/usageHistory.ts). Where metrics.k8s.io answers "now",
// this answers "over the last hour at 10 s, or the last day at 1 min". Read-only, get and list:
//
//   GET /apis/usage.kubedesk.dev/v1/namespaces/NS/pods/NAME[?window=1h&resolution=10s|1m]
//       a PodUsage: the pod's CPU, memory, network and filesystem series, each container's, and
//       the requests and limits. Needs `get` on the pod itself (RBAC, as for reading the pod).
//   GET /apis/usage.kubedesk.dev/v1/[namespaces/NS/]pods[?labelSelector=&fieldSelector=&names=a,b
//       &window=&resolution=&containers=false]
//       a PodUsageList of the selected pods that have a history, leaving out pods the requester may
//       not `get` (as the object history's change feed does).
//   GET /apis/usage.kubedesk.dev/v1/nodes[/NAME]   NodeUsage, needing `get` on the node.
//
// window is a duration up to a day (default 1h); the resolution defaults to 10s up to an hour and
// 1m beyond. A pod that exists but has not been sampled yet answers with empty series.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { formatTime } from '../../../shared/kubernetes/time';
import { formatGoDurationMilliseconds } from '../../../shared/kubernetes/duration';
import { podResources, resourceFigures, USAGE_API_VERSION, USAGE_GROUP, USAGE_VERSION, type ContainerUsage, type NodeUsage, type PodUsage, type SeriesWindow, type UsageSeries, type UsageWindow } from '../../../shared/usage';
import type { TableDef } from '../../../shared/printers/table';
import { column } from '../../../shared/printers/columns';
import { defineKind, type KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import type { Attributes, Authorizer, UserIdentity } from '../auth/rbacAuthorizer';
import { forbidden } from '../auth/forbidden';
import { LOOPBACK_USER } from '../auth/reviews';
import { json } from '../handlers/replies';
import type { ApiReply, ApiRequest, ApiServerContext } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import { negotiate } from '../content';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector, validateFieldSelector } from '../selectors';
import { parseIncludeObject, toTable } from '../tables';

/** The two resolutions the kubelets keep. */
export type UsageResolution = '10s' | '1m';

/** A request's time range. */
export interface UsageQuery {
  resolution: UsageResolution;
  /** epoch ms */
  from: number;
  to: number;
}

/** Where the series come from: the kubelets' histories. Undefined = never sampled. */
export interface UsageProvider {
  pod(pod: KubeObject, containers: readonly string[], query: UsageQuery): { pod: SeriesWindow; containers: Array<{ name: string; series: SeriesWindow }> } | undefined;
  node(name: string, query: UsageQuery): SeriesWindow | undefined;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export function registerUsageApi(api: ApiServerContext, registry: ResourceRegistry, options: { provider: UsageProvider; authorizer: Authorizer }): void {
  const [podsDef, nodesDef] = usageResourceDefs();
  const { provider, authorizer } = options;
  const storedPods = () => registry.lookup('', 'v1', 'pods');
  const storedNodes = () => registry.lookup('', 'v1', 'nodes');
  api.registerVirtualResource(USAGE_GROUP, USAGE_VERSION, podsDef.resource, (request, context) => {
    requireRead(request, context.rest);
    const user = request.user ?? LOOPBACK_USER;
    const query = usageQuery(request);
    const def = storedPods();
    if (!def) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    if (context.name !== undefined) {
      if (!context.namespace) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
      const check = attributesFor(user, 'pods', context.namespace, context.name, 'get');
      const decision = authorizer.authorize(check);
      if (!decision.allowed) throw forbidden(check, decision.reason);
      const pod = api.objects.tryGet(def, context.namespace, context.name);
      if (!pod) throw ApiError.notFound({ group: USAGE_GROUP, resource: 'pods' }, context.name);
      return reply(request, podsDef, [podUsage(pod, provider, query, true) ?? unsampledPod(pod, query)]);
    }
    const names = request.query.get('names');
    const wanted = names ? new Set(names.split(',').filter(Boolean)) : undefined;
    const labels = parseLabelSelector(request.query.get('labelSelector') ?? '');
    const fields = parseFieldSelector(request.query.get('fieldSelector') ?? '');
    validateFieldSelector(fields, new Set(['metadata.name', 'metadata.namespace']), 'PodUsage');
    const withContainers = request.query.get('containers') !== 'false';
    const allowed = decisions(authorizer);
    const items: PodUsage[] = [];
    // named pods of one namespace (the UI's visible rows) are looked up, not found in a list
    const candidates =
      wanted && context.namespace
        ? [...wanted].flatMap((name) => api.objects.tryGet(def, context.namespace, name) ?? []).filter((pod) => matchesLabels(labels, pod.metadata.labels))
        : api.objects.list(def, { namespace: context.namespace || undefined, labels, fields: [] }).items;
    for (const pod of candidates) {
      const { name = '', namespace = '' } = pod.metadata;
      if (wanted && !wanted.has(name)) continue;
      if (!matchesFields(fields, { 'metadata.name': name, 'metadata.namespace': namespace })) continue;
      if (!allowed(attributesFor(user, 'pods', namespace, name, 'get'))) continue;
      const usage = podUsage(pod, provider, query, withContainers);
      if (usage) items.push(usage);
    }
    items.sort((left, right) => (left.metadata.namespace === right.metadata.namespace ? compare(left.metadata.name, right.metadata.name) : compare(left.metadata.namespace, right.metadata.namespace)));
    return listReply(request, podsDef, 'PodUsageList', items);
  });
  api.registerVirtualResource(USAGE_GROUP, USAGE_VERSION, nodesDef.resource, (request, context) => {
    requireRead(request, context.rest);
    const user = request.user ?? LOOPBACK_USER;
    const query = usageQuery(request);
    const def = storedNodes();
    if (!def) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    if (context.name !== undefined) {
      const check = attributesFor(user, 'nodes', '', context.name, 'get');
      const decision = authorizer.authorize(check);
      if (!decision.allowed) throw forbidden(check, decision.reason);
      const node = api.objects.tryGet(def, '', context.name);
      if (!node) throw ApiError.notFound({ group: USAGE_GROUP, resource: 'nodes' }, context.name);
      return reply(request, nodesDef, [nodeUsage(node, provider, query)]);
    }
    const labels = parseLabelSelector(request.query.get('labelSelector') ?? '');
    const allowed = decisions(authorizer);
    const items = api.objects
      .list(def, { labels, fields: [] })
      .items.filter((node) => allowed(attributesFor(user, 'nodes', '', node.metadata.name ?? '', 'get')))
      .map((node) => nodeUsage(node, provider, query))
      .filter((usage) => usage.window.stepSeconds > 0);
    return listReply(request, nodesDef, 'NodeUsageList', items);
  });
  registry.add(podsDef);
  registry.add(nodesDef);
}

/** Discovery and OpenAPI metadata only: the virtual handlers answer every request. */
export function usageResourceDefs(): [KindStrategy, KindStrategy] {
  const describe = (resource: string, kind: string, namespaced: boolean) =>
    defineKind({ group: USAGE_GROUP, version: USAGE_VERSION, resource, singular: resource.slice(0, -1), kind, namespaced, verbs: ['get', 'list'], printer: USAGE_TABLE });
  return [describe('pods', 'PodUsage', true), describe('nodes', 'NodeUsage', false)];
}

function latest(values: ReadonlyArray<number | null> | undefined): number | undefined {
  if (!values) return undefined;
  for (let index = values.length - 1; index >= 0; index--) if (values[index] !== null) return values[index] ?? undefined;
  return undefined;
}

/** Columns of `kubectl get pods.usage.kubedesk.dev`: the latest figures and the window's span. */
const USAGE_TABLE: TableDef = {
  columns: [
    column('Name', 'string', 'the pod or node', { format: 'name' }),
    column('CPU(cores)', 'string', 'the latest CPU usage in millicores'),
    column('Memory(bytes)', 'string', 'the latest memory working set in Mi'),
    column('Points', 'integer', 'how many steps the window holds'),
    column('Step', 'string', 'the time between points'),
  ],
  row(object) {
    const usage = isRecord(object.usage) ? object.usage : {};
    const window = isRecord(object.window) ? object.window : {};
    const cpu = latest(Array.isArray(usage.cpu) ? (usage.cpu as Array<number | null>) : undefined);
    const memory = latest(Array.isArray(usage.memory) ? (usage.memory as Array<number | null>) : undefined);
    const points = Array.isArray(usage.cpu) ? usage.cpu.length : 0;
    return [object.metadata.name ?? '', cpu === undefined ? '<unknown>' : `${Math.round(cpu)}m`, memory === undefined ? '<unknown>' : `${Math.round(memory / 1048576)}Mi`, points, typeof window.step === 'string' ? window.step : ''];
  },
};

function requireRead(request: ApiRequest, rest: string[]): void {
  if (rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  if (request.method !== 'GET') throw ApiError.methodNotAllowed();
  const watch = request.query.get('watch');
  if (watch === 'true' || watch === '1') throw ApiError.methodNotAllowed('usage history cannot be watched');
}

/** `window` (a duration up to a day, default 1h) and `resolution` (10s or 1m) of a request. */
export function usageQuery(request: Pick<ApiRequest, 'query'>, now = Date.now()): UsageQuery {
  const windowText = request.query.get('window');
  let windowMs = HOUR_MS;
  if (windowText !== null) {
    const match = /^(\d+)(s|m|h|d)$/.exec(windowText);
    const parsed = match ? Number(match[1]) * { s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS }[match[2] as 's' | 'm' | 'h' | 'd'] : Number.NaN;
    if (!(parsed > 0) || parsed > DAY_MS) throw invalidParameter('window', windowText, 'a duration from 1s up to 24h, such as 15m, 1h or 1d');
    windowMs = parsed;
  }
  const resolutionText = request.query.get('resolution');
  if (resolutionText !== null && resolutionText !== '10s' && resolutionText !== '1m') throw invalidParameter('resolution', resolutionText, '10s (the last hour) or 1m (the last day)');
  const resolution: UsageResolution = resolutionText ?? (windowMs <= HOUR_MS ? '10s' : '1m');
  return { resolution, from: now - windowMs, to: now };
}

function invalidParameter(field: string, value: string, expected: string): ApiError {
  return new ApiError(400, 'BadRequest', `${field}: Invalid value: "${value}": ${expected}`, { causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "${value}": ${expected}`, field }] });
}

function attributesFor(user: UserIdentity, resource: 'pods' | 'nodes', namespace: string, name: string, verb: string): Attributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace, resource, subresource: '', name };
}

/** The authorizer's answers, asked once per object (a list may hold thousands). */
function decisions(authorizer: Authorizer): (attributes: Attributes) => boolean {
  const namespaceWide = new Map<string, boolean>();
  return (attributes) => {
    // whoever may list the namespace's pods may get each of them: one question per namespace
    const scope = `${attributes.resource}\u0000${attributes.namespace}`;
    let wide = namespaceWide.get(scope);
    if (wide === undefined) {
      wide = authorizer.authorize({ ...attributes, verb: 'get', name: '' }).allowed;
      namespaceWide.set(scope, wide);
    }
    return wide || authorizer.authorize(attributes).allowed;
  };
}

/** The wire series: CPU from nanocores to millicores (one decimal), the rest as kept. */
function wireSeries(series: SeriesWindow | undefined, withNetwork: boolean): UsageSeries {
  if (!series) return withNetwork ? { cpu: [], memory: [], networkReceive: [], networkTransmit: [], fsRead: [], fsWrite: [] } : { cpu: [], memory: [], fsRead: [], fsWrite: [] };
  const out: UsageSeries = {
    cpu: series.values.cpu.map((value) => (value === null ? null : Math.round(value / 1e5) / 10)),
    memory: series.values.memory,
    fsRead: series.values.fsRead,
    fsWrite: series.values.fsWrite,
  };
  if (withNetwork) {
    out.networkReceive = series.values.networkRx;
    out.networkTransmit = series.values.networkTx;
  }
  return out;
}

/**
 * Leaves out the steps before the first sample of any of the series (a pod younger than the window),
 * so a chart spans what there is; the series stay aligned with each other.
 */
export function trimLeadingGaps(series: SeriesWindow[]): SeriesWindow[] {
  let first = Number.POSITIVE_INFINITY;
  for (const window of series) {
    const index = window.values.cpu.findIndex((value) => value !== null);
    if (index !== -1) first = Math.min(first, index);
  }
  if (!Number.isFinite(first) || first === 0) return series;
  return series.map((window) => ({
    start: window.start + first * window.stepMs,
    stepMs: window.stepMs,
    values: Object.fromEntries(Object.entries(window.values).map(([metric, values]) => [metric, values.slice(first)])) as SeriesWindow['values'],
  }));
}

function windowOf(series: SeriesWindow | undefined, query: UsageQuery): UsageWindow {
  if (!series) return { start: formatTime(query.to), step: '', stepSeconds: 0 };
  return { start: formatTime(series.start), step: formatGoDurationMilliseconds(series.stepMs), stepSeconds: series.stepMs / 1000 };
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A pod's usage, or undefined when no kubelet has sampled it (asked first: a list may hold thousands). */
function podUsage(pod: KubeObject, provider: UsageProvider, query: UsageQuery, withContainers: boolean): PodUsage | undefined {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const names = withContainers && Array.isArray(spec.containers) ? spec.containers.flatMap((container) => (isRecord(container) && typeof container.name === 'string' ? [container.name] : [])) : [];
  const history = provider.pod(pod, names, query);
  if (!history) return undefined;
  const [trimmed, ...containers] = trimLeadingGaps([history.pod, ...history.containers.map((container) => container.series)]);
  return podUsageOf(pod, { pod: trimmed, containers: history.containers.map((container, index) => ({ name: container.name, series: containers[index] })) }, query);
}

/** A pod that exists but has no history yet: empty series, so a chart can say "collecting". */
function unsampledPod(pod: KubeObject, query: UsageQuery): PodUsage {
  return podUsageOf(pod, undefined, query);
}

function podUsageOf(pod: KubeObject, history: ReturnType<UsageProvider['pod']>, query: UsageQuery): PodUsage {
  const resources = podResources(pod);
  const metadata: PodUsage['metadata'] = { name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? '', creationTimestamp: formatTime(query.to) };
  if (pod.metadata.uid) metadata.uid = pod.metadata.uid;
  if (pod.metadata.labels) metadata.labels = { ...pod.metadata.labels };
  const containers: ContainerUsage[] = (history?.containers ?? []).map(({ name, series }) => ({
    name,
    usage: wireSeries(series, false),
    requests: resources.containers.get(name)?.requests ?? {},
    limits: resources.containers.get(name)?.limits ?? {},
  }));
  return {
    apiVersion: USAGE_API_VERSION,
    kind: 'PodUsage',
    metadata,
    window: windowOf(history?.pod, query),
    usage: wireSeries(history?.pod, true),
    requests: resources.requests,
    limits: resources.limits,
    containers,
  };
}

function nodeUsage(node: KubeObject, provider: UsageProvider, query: UsageQuery): NodeUsage {
  const name = node.metadata.name ?? '';
  const found = provider.node(name, query);
  const series = found ? trimLeadingGaps([found])[0] : undefined;
  const status = isRecord(node.status) ? node.status : {};
  const metadata: NodeUsage['metadata'] = { name, creationTimestamp: formatTime(query.to) };
  if (node.metadata.labels) metadata.labels = { ...node.metadata.labels };
  return {
    apiVersion: USAGE_API_VERSION,
    kind: 'NodeUsage',
    metadata,
    window: windowOf(series, query),
    usage: wireSeries(series, true),
    allocatable: resourceFigures(status.allocatable),
    capacity: resourceFigures(status.capacity),
  };
}

function reply(request: ApiRequest, def: KindStrategy, [item]: Array<PodUsage | NodeUsage>): ApiReply {
  const negotiated = negotiate(request.headers['accept']);
  if (negotiated.shape === 'table') return json(200, toTable(def, [item], { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
  return json(200, item);
}

function listReply(request: ApiRequest, def: KindStrategy, kind: string, items: Array<PodUsage | NodeUsage>): ApiReply {
  const negotiated = negotiate(request.headers['accept']);
  if (negotiated.shape === 'table') return json(200, toTable(def, items, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
  return json(200, { kind, apiVersion: USAGE_API_VERSION, metadata: {}, items });
}
