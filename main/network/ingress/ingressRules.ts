// Pure Ingress routing for kubedesk's built-in Ingress controller: which Ingresses it handles
// (IngressClass `kubedesk`, or none while that class is the default, as the upstream
// DefaultIngressClass admission plugin and controllers decide), how a request's host and path pick a
// backend, and which TLS Secret serves an SNI name. Matching follows the networking.k8s.io/v1 API
// comments (staging/src/k8s.io/api/networking/v1/types.go):
// - host: an exact host, or `*.foo.com` matching exactly one extra DNS label; exact hosts win over
//   wildcards, which win over rules without a host. Like ingress-nginx (one server block per host),
//   once a host group is chosen only its paths are considered; nothing falls through to a less
//   specific host;
// - path: Exact compares the whole path (case-sensitive); Prefix compares `/`-separated elements
//   (`/foo` matches `/foo`, `/foo/`, `/foo/bar`, not `/foobar`; trailing slashes are ignored);
//   ImplementationSpecific is treated as Prefix. The longest matching path wins, and on equal length
//   Exact beats Prefix beats ImplementationSpecific;
// - the same host, path and pathType in two Ingresses: the oldest Ingress wins (ingress-nginx's rule);
// - nothing matches: the matched host group's Ingress default backend, else any handled Ingress's
//   default backend (oldest first), else 404.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';

export const ingressClassName = 'kubedesk';
export const ingressControllerName = 'kubedesk.dev/ingress';
export const defaultClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';
/** The annotation that preceded spec.ingressClassName; controllers still honour it. */
export const legacyClassAnnotation = 'kubernetes.io/ingress.class';

export type PathType = 'Exact' | 'Prefix' | 'ImplementationSpecific';

export type IngressBackendRef =
  | { kind: 'service'; namespace: string; name: string; /** port number, port name, or undefined when unset */ port: number | string | undefined }
  | { kind: 'resource'; namespace: string; apiGroup: string; resourceKind: string; name: string }
  | { kind: 'invalid'; namespace: string; reason: string };

export interface RouteMatch {
  backend: IngressBackendRef;
  /** `namespace/name` of the Ingress that supplied the backend */
  ingress: string;
  /** the rule host that matched: exact, `*.suffix`, or '' for rules without a host */
  host: string;
  /** the rule path, or '' when a default backend answered */
  path: string;
  pathType: PathType | 'DefaultBackend';
}

interface PathRoute {
  path: string;
  pathType: PathType;
  backend: IngressBackendRef;
  ingress: string;
}

interface HostGroup {
  host: string;
  paths: PathRoute[];
  /** the default backend of the oldest Ingress that has rules for this host */
  defaultBackend?: { backend: IngressBackendRef; ingress: string };
}

export interface RoutingTable {
  exactHosts: Map<string, HostGroup>;
  /** keyed by the suffix after `*.` */
  wildcardHosts: Map<string, HostGroup>;
  anyHost?: HostGroup;
  defaultBackend?: { backend: IngressBackendRef; ingress: string };
}

export interface TlsEntry {
  /** host patterns, lower case; empty means any name */
  hosts: string[];
  namespace: string;
  secretName: string;
  ingress: string;
}

function stringAt(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function specOf(object: KubeObject): Record<string, unknown> {
  return isRecord(object.spec) ? object.spec : {};
}

function ingressKey(ingress: KubeObject): string {
  return `${ingress.metadata.namespace ?? ''}/${ingress.metadata.name ?? ''}`;
}

/** Whether an IngressClass belongs to this controller (by name or by spec.controller). */
export function isOwnIngressClass(ingressClass: KubeObject): boolean {
  return ingressClass.metadata.name === ingressClassName || specOf(ingressClass).controller === ingressControllerName;
}

export function isDefaultIngressClass(ingressClass: KubeObject): boolean {
  return ingressClass.metadata.annotations?.[defaultClassAnnotation] === 'true';
}

/**
 * Whether kubedesk serves this Ingress. `classes` is the list of IngressClasses, or undefined when
 * they cannot be known (the API does not serve them): then an Ingress without a class is ours, since
 * kubedesk is the cluster's only Ingress controller.
 */
export function isHandledIngress(ingress: KubeObject, classes: readonly KubeObject[] | undefined): boolean {
  const className = stringAt(specOf(ingress), 'ingressClassName');
  if (className !== undefined) {
    if (className === ingressClassName) return true;
    return (classes ?? []).some((candidate) => candidate.metadata.name === className && specOf(candidate).controller === ingressControllerName);
  }
  const legacy = ingress.metadata.annotations?.[legacyClassAnnotation];
  if (legacy !== undefined && legacy !== '') return legacy === ingressClassName;
  if (classes === undefined) return true;
  return classes.some((candidate) => isOwnIngressClass(candidate) && isDefaultIngressClass(candidate));
}

/** Oldest first, then by namespace/name, so conflicts resolve the same way every time. */
export function sortIngresses(ingresses: readonly KubeObject[]): KubeObject[] {
  return [...ingresses].sort((first, second) => {
    const a = first.metadata.creationTimestamp ?? '';
    const b = second.metadata.creationTimestamp ?? '';
    if (a !== b) return a < b ? -1 : 1;
    const keyA = ingressKey(first);
    const keyB = ingressKey(second);
    return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
  });
}

/** Reads an IngressBackend (`service` or `resource`) in the Ingress's namespace. */
export function backendOf(raw: unknown, namespace: string): IngressBackendRef {
  if (!isRecord(raw)) return { kind: 'invalid', namespace, reason: 'the backend is empty' };
  if (isRecord(raw.service)) {
    const name = stringAt(raw.service, 'name');
    if (name === undefined) return { kind: 'invalid', namespace, reason: 'the backend has no service name' };
    const port = isRecord(raw.service.port) ? raw.service.port : {};
    const portRef = typeof port.number === 'number' && port.number > 0 ? port.number : stringAt(port, 'name');
    return { kind: 'service', namespace, name, port: portRef };
  }
  if (isRecord(raw.resource)) {
    return {
      kind: 'resource',
      namespace,
      apiGroup: stringAt(raw.resource, 'apiGroup') ?? '',
      resourceKind: stringAt(raw.resource, 'kind') ?? '',
      name: stringAt(raw.resource, 'name') ?? '',
    };
  }
  return { kind: 'invalid', namespace, reason: 'the backend names neither a service nor a resource' };
}

function pathTypeOf(value: unknown): PathType {
  return value === 'Exact' || value === 'Prefix' ? value : 'ImplementationSpecific';
}

const pathTypeRank: Record<PathType, number> = { Exact: 0, Prefix: 1, ImplementationSpecific: 2 };

function comparePaths(first: PathRoute, second: PathRoute): number {
  if (first.path.length !== second.path.length) return second.path.length - first.path.length;
  return pathTypeRank[first.pathType] - pathTypeRank[second.pathType];
}

/** Builds the routing table from the Ingresses this controller handles. */
export function buildRoutingTable(ingresses: readonly KubeObject[]): RoutingTable {
  const table: RoutingTable = { exactHosts: new Map(), wildcardHosts: new Map() };
  const groupFor = (host: string): HostGroup => {
    if (host === '') return (table.anyHost ??= { host, paths: [] });
    const map = host.startsWith('*.') ? table.wildcardHosts : table.exactHosts;
    const key = host.startsWith('*.') ? host.slice(2) : host;
    let group = map.get(key);
    if (!group) map.set(key, (group = { host, paths: [] }));
    return group;
  };
  for (const ingress of sortIngresses(ingresses)) {
    const namespace = ingress.metadata.namespace ?? '';
    const key = ingressKey(ingress);
    const spec = specOf(ingress);
    const ingressDefault = spec.defaultBackend === undefined ? undefined : { backend: backendOf(spec.defaultBackend, namespace), ingress: key };
    if (ingressDefault) table.defaultBackend ??= ingressDefault;
    const rules = Array.isArray(spec.rules) ? spec.rules.filter(isRecord) : [];
    for (const rule of rules) {
      const group = groupFor(normalizeHost(stringAt(rule, 'host') ?? ''));
      if (ingressDefault) group.defaultBackend ??= ingressDefault;
      const http = isRecord(rule.http) ? rule.http : {};
      const paths = Array.isArray(http.paths) ? http.paths.filter(isRecord) : [];
      for (const entry of paths) {
        const path = stringAt(entry, 'path') ?? '/';
        // Paths must start with '/' (API validation); anything else could never match a request.
        if (!path.startsWith('/')) continue;
        const pathType = pathTypeOf(entry.pathType);
        if (group.paths.some((existing) => existing.path === path && existing.pathType === pathType)) continue;
        group.paths.push({ path, pathType, backend: backendOf(entry.backend, namespace), ingress: key });
      }
    }
  }
  for (const group of [...table.exactHosts.values(), ...table.wildcardHosts.values(), ...(table.anyHost ? [table.anyHost] : [])]) group.paths.sort(comparePaths);
  return table;
}

/** Host header → rule host form: lower case, without port, brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  let result = host.trim().toLowerCase();
  if (result.startsWith('[')) {
    const end = result.indexOf(']');
    return end < 0 ? result : result.slice(1, end);
  }
  const colon = result.indexOf(':');
  // More than one colon: a bare IPv6 address, which has no port to strip.
  if (colon >= 0 && result.indexOf(':', colon + 1) < 0) result = result.slice(0, colon);
  if (result.endsWith('.')) result = result.slice(0, -1);
  return result;
}

/** `*.foo.com` matches `bar.foo.com` but neither `foo.com` nor `baz.bar.foo.com`. */
export function hostMatches(pattern: string, host: string): boolean {
  if (!pattern.startsWith('*.')) return pattern === host;
  const dot = host.indexOf('.');
  return dot > 0 && host.slice(dot + 1) === pattern.slice(2);
}

function pathElements(path: string): string[] {
  return path.split('/').filter((element) => element !== '');
}

/** Whether a rule path matches a request path (the URL path, without the query). */
export function pathMatches(pathType: PathType, rulePath: string, requestPath: string): boolean {
  if (pathType === 'Exact') return rulePath === requestPath;
  const rule = pathElements(rulePath);
  const request = pathElements(requestPath);
  if (rule.length > request.length) return false;
  return rule.every((element, index) => element === request[index]);
}

function hostGroup(table: RoutingTable, host: string): HostGroup | undefined {
  const exact = table.exactHosts.get(host);
  if (exact) return exact;
  const dot = host.indexOf('.');
  if (dot > 0) {
    const wildcard = table.wildcardHosts.get(host.slice(dot + 1));
    if (wildcard) return wildcard;
  }
  return table.anyHost;
}

/** The backend for a request, or undefined when nothing (not even a default backend) matches: 404. */
export function route(table: RoutingTable, hostHeader: string, url: string): RouteMatch | undefined {
  const host = normalizeHost(hostHeader);
  const query = url.search(/[?#]/);
  const requestPath = query < 0 ? url : url.slice(0, query);
  const group = hostGroup(table, host);
  if (group) {
    const found = group.paths.find((candidate) => pathMatches(candidate.pathType, candidate.path, requestPath));
    if (found) return { backend: found.backend, ingress: found.ingress, host: group.host, path: found.path, pathType: found.pathType };
  }
  const fallback = group?.defaultBackend ?? table.defaultBackend;
  if (!fallback) return undefined;
  return { backend: fallback.backend, ingress: fallback.ingress, host: group?.host ?? '', path: '', pathType: 'DefaultBackend' };
}

/** The spec.tls entries of the handled Ingresses, oldest Ingress first. */
export function buildTlsTable(ingresses: readonly KubeObject[]): TlsEntry[] {
  const entries: TlsEntry[] = [];
  for (const ingress of sortIngresses(ingresses)) {
    const spec = specOf(ingress);
    const tls = Array.isArray(spec.tls) ? spec.tls.filter(isRecord) : [];
    for (const entry of tls) {
      const secretName = stringAt(entry, 'secretName');
      if (secretName === undefined) continue;
      const hosts = Array.isArray(entry.hosts) ? entry.hosts.filter((host): host is string => typeof host === 'string' && host !== '').map(normalizeHost) : [];
      entries.push({ hosts, namespace: ingress.metadata.namespace ?? '', secretName, ingress: ingressKey(ingress) });
    }
  }
  return entries;
}

/**
 * The TLS entry for an SNI name: an entry listing the exact name first, then one whose wildcard
 * covers it, then one without hosts (it applies to every name). Undefined: use the fallback certificate.
 */
export function selectTls(entries: readonly TlsEntry[], serverName: string | undefined): TlsEntry | undefined {
  const name = normalizeHost(serverName ?? '');
  if (name !== '') {
    const exact = entries.find((entry) => entry.hosts.includes(name));
    if (exact) return exact;
    const wildcard = entries.find((entry) => entry.hosts.some((pattern) => pattern.startsWith('*.') && hostMatches(pattern, name)));
    if (wildcard) return wildcard;
  }
  return entries.find((entry) => entry.hosts.length === 0);
}
