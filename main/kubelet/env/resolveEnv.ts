// A container's environment, as upstream pkg/kubelet/kubelet_pods.go makeEnvironmentVariables builds
// it: envFrom first (configMapRef/secretRef, prefix, invalid names skipped with an
// InvalidEnvironmentVariableNames warning), then env in declaration order (a value expands `$(VAR)`
// from the variables defined so far and the service variables; valueFrom reads configMapKeyRef,
// secretKeyRef, fieldRef and resourceFieldRef), then the service variables not already set.
// Failures carry upstream's CreateContainerConfigError messages. serviceEnvironment follows
// getServiceEnvVarMap and pkg/kubelet/envvars (FromServices, docker-links variables).
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { joinHostPort } from '../../../shared/net/hostPort';
import { isNotFound, resources, type ApiClient } from '../../client';
import { expand, mappingFuncFor } from './expansion';
import { containerResourceValue, extractFieldPathAsString, podContainerResourceValue } from './fieldPath';
import { podSpecOf, podStatusOf, type Container, type EnvVar } from './podSpec';

/** Why a container could not be configured; the kubelet shows it as waiting reason CreateContainerConfigError. */
export class ContainerConfigError extends Error {
  readonly reason = 'CreateContainerConfigError';

  constructor(message: string) {
    super(message);
    this.name = 'ContainerConfigError';
  }
}

/** A container's environment could not be resolved (a missing config map, secret or key…). */
export class EnvError extends ContainerConfigError {
  constructor(message: string) {
    super(message);
    this.name = 'EnvError';
  }
}

export interface ResolveEnvOptions {
  client: ApiClient;
  /** KUBERNETES_SERVICE_HOST and friends, from serviceEnvironment(). */
  serviceEnv: Record<string, string>;
  /** The node's allocatable (cpu, memory, ephemeral-storage), used for limits.* when a container sets none. */
  nodeAllocatable?: Record<string, string | number>;
  /** The sandbox's IPs; default: the pod's status.podIPs. */
  podIPs?: string[];
  /** The node's IPs; default: the pod's status.hostIPs. */
  hostIPs?: string[];
  /** Non-fatal problems (reason InvalidEnvironmentVariableNames), for Warning events on the pod. */
  onWarning?: (reason: string, message: string) => void;
}

/** Upstream validation.IsEnvVarName (C_IDENTIFIER plus '.' and '-', not starting with a digit). */
export function isEnvVarName(name: string): boolean {
  return /^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(name);
}

interface SourceObject {
  /** string values; secret data is decoded from base64 */
  data: Map<string, string>;
}

function readStringMap(value: unknown, decode: boolean): Map<string, string> {
  const map = new Map<string, string>();
  if (!isRecord(value)) return map;
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') continue;
    map.set(key, decode ? Buffer.from(entry, 'base64').toString('utf8') : entry);
  }
  return map;
}

type SourceKind = 'configmap' | 'secret';

class SourceCache {
  private readonly cache = new Map<string, SourceObject>();

  constructor(
    private readonly client: ApiClient,
    private readonly namespace: string,
  ) {}

  /** The object, or undefined when it does not exist and `optional`; other failures throw. */
  async get(kind: SourceKind, name: string, optional: boolean): Promise<SourceObject | undefined> {
    const cacheKey = `${kind}/${name}`;
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    let object: KubeObject;
    try {
      object = await this.client.resource(kind === 'configmap' ? resources.configmaps : resources.secrets).get(this.namespace, name);
    } catch (error) {
      if (isNotFound(error)) {
        if (optional) return undefined;
        // The kubelet's configmap/secret managers word it with the singular resource.
        throw new EnvError(`${kind} "${name}" not found`);
      }
      throw new EnvError(error instanceof Error ? error.message : String(error));
    }
    // Config maps keep strings in data; envFrom and configMapKeyRef ignore binaryData, as upstream.
    const source: SourceObject = { data: readStringMap(object.data, kind === 'secret') };
    this.cache.set(cacheKey, source);
    return source;
  }
}

function podIPsOf(pod: KubeObject, options: ResolveEnvOptions): string[] {
  if (options.podIPs) return options.podIPs;
  const status = podStatusOf(pod);
  const ips = (status.podIPs ?? []).map((entry) => entry.ip).filter((ip) => typeof ip === 'string' && ip !== '');
  if (ips.length === 0 && status.podIP) ips.push(status.podIP);
  return ips;
}

function hostIPsOf(pod: KubeObject, options: ResolveEnvOptions): string[] {
  if (options.hostIPs) return options.hostIPs;
  const status = podStatusOf(pod);
  const ips = (status.hostIPs ?? []).map((entry) => entry.ip).filter((ip) => typeof ip === 'string' && ip !== '');
  if (ips.length === 0 && status.hostIP) ips.push(status.hostIP);
  return ips;
}

/** upstream podFieldSelectorRuntimeValue: node and IP fields first, then metadata. */
export function podFieldValue(pod: KubeObject, fieldRef: { apiVersion?: string; fieldPath: string }, podIPs: string[], hostIPs: string[]): string {
  if (fieldRef.apiVersion && fieldRef.apiVersion !== 'v1') throw new EnvError(`unsupported pod version: ${fieldRef.apiVersion}`);
  const spec = podSpecOf(pod);
  switch (fieldRef.fieldPath) {
    case 'spec.nodeName':
      return spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return spec.serviceAccountName ?? '';
    case 'status.hostIP':
      return hostIPs[0] ?? '';
    case 'status.hostIPs':
      return hostIPs.join(',');
    case 'status.podIP':
      return podIPs[0] ?? '';
    case 'status.podIPs':
      return podIPs.join(',');
  }
  try {
    return extractFieldPathAsString(pod, fieldRef.fieldPath);
  } catch (error) {
    throw new EnvError(error instanceof Error ? error.message : String(error));
  }
}

async function envVarValue(envVar: EnvVar, pod: KubeObject, container: Container, sources: SourceCache, options: ResolveEnvOptions): Promise<string | undefined> {
  const from = envVar.valueFrom;
  if (!from) return '';
  const namespace = pod.metadata.namespace ?? 'default';
  if (from.fieldRef) return podFieldValue(pod, from.fieldRef, podIPsOf(pod, options), hostIPsOf(pod, options));
  if (from.resourceFieldRef) {
    const selector = from.resourceFieldRef;
    try {
      return selector.containerName
        ? podContainerResourceValue(selector, pod, selector.containerName, options.nodeAllocatable)
        : containerResourceValue(selector, container, options.nodeAllocatable);
    } catch (error) {
      throw new EnvError(error instanceof Error ? error.message : String(error));
    }
  }
  const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
  if (keyRef) {
    const kind: SourceKind = from.configMapKeyRef ? 'configmap' : 'secret';
    const name = keyRef.name ?? '';
    const optional = keyRef.optional === true;
    const source = await sources.get(kind, name, optional);
    if (!source) return undefined;
    const value = source.data.get(keyRef.key);
    if (value === undefined) {
      if (optional) return undefined;
      throw new EnvError(`couldn't find key ${keyRef.key} in ${kind === 'configmap' ? 'ConfigMap' : 'Secret'} ${namespace}/${name}`);
    }
    return value;
  }
  return '';
}

/** The container's environment as "KEY=value" entries, ready for the runtime. */
export async function resolveEnv(pod: KubeObject, container: Container, options: ResolveEnvOptions): Promise<string[]> {
  const namespace = pod.metadata.namespace ?? 'default';
  const sources = new SourceCache(options.client, namespace);
  const values = new Map<string, string>();

  for (const envFrom of container.envFrom ?? []) {
    const reference = envFrom.configMapRef ?? envFrom.secretRef;
    if (!reference) continue;
    const kind: SourceKind = envFrom.configMapRef ? 'configmap' : 'secret';
    const name = reference.name ?? '';
    const source = await sources.get(kind, name, reference.optional === true);
    if (!source) continue;
    const invalid: string[] = [];
    for (const [key, value] of source.data) {
      const variable = `${envFrom.prefix ?? ''}${key}`;
      if (!isEnvVarName(variable)) {
        invalid.push(variable);
        continue;
      }
      values.set(variable, value);
    }
    if (invalid.length > 0) {
      invalid.sort();
      options.onWarning?.(
        'InvalidEnvironmentVariableNames',
        `Keys [${invalid.join(', ')}] from the EnvFrom ${kind === 'configmap' ? 'configMap' : 'secret'} ${namespace}/${name} were skipped since they are considered invalid environment variable names.`,
      );
    }
  }

  const serviceEnv = new Map(Object.entries(options.serviceEnv));
  // `values` is read live, so a value sees only the variables declared before it.
  const mapping = mappingFuncFor(values, serviceEnv);
  for (const envVar of container.env ?? []) {
    let value: string | undefined;
    if (envVar.value) value = expand(envVar.value, mapping);
    else value = await envVarValue(envVar, pod, container, sources, options);
    if (value === undefined) continue; // an optional reference that is absent
    values.set(envVar.name, value);
  }

  const result: string[] = [];
  for (const [name, value] of values) result.push(`${name}=${value}`);
  for (const [name, value] of serviceEnv) if (!values.has(name)) result.push(`${name}=${value}`);
  return result;
}

interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
}

function serviceEnvName(name: string): string {
  return name.replace(/-/g, '_').toUpperCase();
}

function variablesForService(name: string, clusterIP: string, ports: ServicePort[]): [string, string][] {
  if (ports.length === 0) return [];
  const prefix = serviceEnvName(name);
  const result: [string, string][] = [[`${prefix}_SERVICE_HOST`, clusterIP]];
  result.push([`${prefix}_SERVICE_PORT`, String(ports[0].port)]);
  for (const port of ports) if (port.name) result.push([`${prefix}_SERVICE_PORT_${serviceEnvName(port.name)}`, String(port.port)]);
  // Docker links variables; Docker special-cases the first port.
  ports.forEach((port, index) => {
    const protocol = (port.protocol || 'TCP').toLowerCase();
    const url = `${protocol}://${joinHostPort(clusterIP, port.port)}`;
    if (index === 0) result.push([`${prefix}_PORT`, url]);
    const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
    result.push([portPrefix, url], [`${portPrefix}_PROTO`, protocol], [`${portPrefix}_PORT`, String(port.port)], [`${portPrefix}_ADDR`, clusterIP]);
  });
  return result;
}

/**
 * The service variables for pods of `namespace`: always the `kubernetes` service of `default`
 * (KUBERNETES_SERVICE_HOST/PORT…), plus every service of the namespace with a cluster IP when
 * `enableServiceLinks` (the pod's spec.enableServiceLinks, default true).
 */
export function serviceEnvironment(services: readonly KubeObject[], namespace: string, enableServiceLinks = true): Record<string, string> {
  const chosen = new Map<string, KubeObject>();
  for (const service of services) {
    const spec = isRecord(service.spec) ? service.spec : {};
    const clusterIP = typeof spec.clusterIP === 'string' ? spec.clusterIP : '';
    if (clusterIP === '' || clusterIP === 'None') continue;
    const name = service.metadata.name ?? '';
    if (service.metadata.namespace === 'default' && name === 'kubernetes') {
      if (!chosen.has(name)) chosen.set(name, service);
    } else if (service.metadata.namespace === namespace && enableServiceLinks) {
      chosen.set(name, service);
    }
  }
  const environment: Record<string, string> = {};
  for (const [name, service] of [...chosen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const spec = isRecord(service.spec) ? service.spec : {};
    const ports: ServicePort[] = Array.isArray(spec.ports)
      ? spec.ports.filter(isRecord).map((port) => ({
          name: typeof port.name === 'string' ? port.name : undefined,
          port: typeof port.port === 'number' ? port.port : 0,
          protocol: typeof port.protocol === 'string' ? port.protocol : undefined,
        }))
      : [];
    for (const [key, value] of variablesForService(name, String(spec.clusterIP), ports)) environment[key] = value;
  }
  return environment;
}
