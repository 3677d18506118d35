// From a pod's container spec to the runtime's ContainerConfig and SandboxConfig, after upstream
// pkg/kubelet/kuberuntime/kuberuntime_container.go (generateContainerConfig, verifyRunAsNonRoot in
// security_context_others.go), kuberuntime_sandbox.go (generatePodSandboxConfig), util.go
// (namespacesForPod) and the dockershim security-context mapping.
import { createHash } from 'node:crypto';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { parseMilliValue, parseValue } from '../../shared/kubernetes/quantity';
import type { ContainerConfig, ContainerNamespaces, Mount, PortMapping, SandboxConfig } from './runtime/containerRuntime';

export type ContainerSpec = Record<string, unknown> & { name: string; image: string };

/** Which list of the pod spec a container comes from. */
export type ContainerKind = 'init' | 'regular' | 'ephemeral';

export function containersOf(pod: KubeObject, key: 'containers' | 'initContainers' | 'ephemeralContainers'): ContainerSpec[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const list = Array.isArray(spec[key]) ? spec[key] : [];
  return list.filter(isRecord).map((container) => ({ ...container, name: String(container.name ?? ''), image: String(container.image ?? '') }));
}

/** A stable hash of the container spec: a change (e.g. a new image) restarts the container. */
export function containerHash(container: ContainerSpec): string {
  return createHash('sha256').update(stableJson(container)).digest('hex').slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(String) : undefined;
}

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * namespacesForPod: the host's process namespace (hostPID), the sandbox's (shareProcessNamespace),
 * else the container's own — or, for an ephemeral container with a targetContainerName, the
 * target's (`targetId`, its runtime id), as generateLinuxContainerConfig turns CONTAINER into
 * TARGET; IPC the host's (hostIPC) or the sandbox's.
 */
export function containerNamespaces(pod: KubeObject, targetId?: string): ContainerNamespaces {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const ipc = spec.hostIPC === true ? 'node' : 'pod';
  if (spec.hostPID === true) return { pid: 'node', ipc };
  if (spec.shareProcessNamespace === true) return { pid: 'pod', ipc };
  if (targetId) return { pid: 'target', targetId, ipc };
  return { pid: 'container', ipc };
}

/** A field of the container's securityContext, else of the pod's (DetermineEffectiveSecurityContext). */
function effectiveSecurity(pod: KubeObject, container: ContainerSpec, key: string): unknown {
  const podSpec = isRecord(pod.spec) ? pod.spec : {};
  const podSecurity = isRecord(podSpec.securityContext) ? podSpec.securityContext : {};
  const security = isRecord(container.securityContext) ? container.securityContext : {};
  return security[key] ?? podSecurity[key];
}

/**
 * verifyRunAsNonRoot: with runAsNonRoot, the container must run as a user other than 0 — its
 * runAsUser, else the image's user (none set means root; a name cannot be checked). Returns the
 * kubelet's error text (a CreateContainerConfigError), or undefined.
 */
export function verifyRunAsNonRoot(pod: KubeObject, container: ContainerSpec, imageUser: string): string | undefined {
  if (effectiveSecurity(pod, container, 'runAsNonRoot') !== true) return undefined;
  const podRef = `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;
  const runAsUser = effectiveSecurity(pod, container, 'runAsUser');
  if (typeof runAsUser === 'number') {
    return runAsUser === 0 ? `container's runAsUser breaks non-root policy (pod: ${JSON.stringify(podRef)}, container: ${container.name})` : undefined;
  }
  const user = imageUser.split(':')[0];
  if (user === '' || user === '0') return `container has runAsNonRoot and image will run as root (pod: ${JSON.stringify(podRef)}, container: ${container.name})`;
  if (!/^\d+$/.test(user)) return `container has runAsNonRoot and image has non-numeric user (${user}), cannot verify user is non-root (pod: ${JSON.stringify(podRef)}, container: ${container.name})`;
  return undefined;
}

export interface ContainerConfigInput {
  pod: KubeObject;
  container: ContainerSpec;
  init: boolean;
  /** an ephemeral container's target: the runtime id of the container whose processes it shares */
  targetId?: string;
  restartCount: number;
  env: string[];
  mounts: Mount[];
  tmpfs?: Record<string, string>;
  /** command and args after $(VAR) expansion */
  command?: string[];
  args?: string[];
}

export function containerConfig(input: ContainerConfigInput): ContainerConfig {
  const { pod, container } = input;
  const podSpec = isRecord(pod.spec) ? pod.spec : {};
  const podSecurity = isRecord(podSpec.securityContext) ? podSpec.securityContext : {};
  const security = isRecord(container.securityContext) ? container.securityContext : {};
  const resources = isRecord(container.resources) ? container.resources : {};
  const limits = isRecord(resources.limits) ? resources.limits : {};
  const requests = isRecord(resources.requests) ? resources.requests : {};
  const capabilities = isRecord(security.capabilities) ? security.capabilities : {};
  const supplementalGroups = [...(Array.isArray(podSecurity.supplementalGroups) ? podSecurity.supplementalGroups : []), ...(podSecurity.fsGroup !== undefined ? [podSecurity.fsGroup] : [])]
    .map(Number)
    .filter((group) => Number.isInteger(group));
  const config: ContainerConfig = {
    podUid: pod.metadata.uid ?? '',
    podName: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? '',
    name: container.name,
    image: container.image,
    command: input.command,
    args: input.args,
    env: input.env,
    workingDir: typeof container.workingDir === 'string' && container.workingDir ? container.workingDir : undefined,
    mounts: input.mounts,
    tmpfs: input.tmpfs,
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    resources: {
      cpuMillis: limits.cpu !== undefined ? parseMilliValue(limits.cpu) : undefined,
      cpuRequestMillis: requests.cpu !== undefined ? parseMilliValue(requests.cpu) : limits.cpu !== undefined ? parseMilliValue(limits.cpu) : undefined,
      memoryLimitBytes: limits.memory !== undefined ? parseValue(limits.memory) : undefined,
    },
    security: {
      runAsUser: numberOrUndefined(security.runAsUser) ?? numberOrUndefined(podSecurity.runAsUser),
      runAsGroup: numberOrUndefined(security.runAsGroup) ?? numberOrUndefined(podSecurity.runAsGroup),
      supplementalGroups: supplementalGroups.length ? supplementalGroups : undefined,
      privileged: security.privileged === true,
      readOnlyRootFilesystem: security.readOnlyRootFilesystem === true,
      capabilitiesAdd: stringList(capabilities.add),
      capabilitiesDrop: stringList(capabilities.drop),
      noNewPrivileges: security.allowPrivilegeEscalation === false,
      seccomp: seccompOf(effectiveSecurity(pod, container, 'seccompProfile')),
    },
    namespaces: containerNamespaces(pod, input.targetId),
    restartCount: input.restartCount,
    init: input.init,
    specHash: containerHash(container),
    terminationMessagePath: typeof container.terminationMessagePath === 'string' ? container.terminationMessagePath : '/dev/termination-log',
    labels: {},
  };
  return config;
}

/** The seccomp profile type the runtime applies: Unconfined, else the engine's default (RuntimeDefault). */
function seccompOf(profile: unknown): 'RuntimeDefault' | 'Unconfined' | undefined {
  if (!isRecord(profile)) return undefined;
  if (profile.type === 'Unconfined') return 'Unconfined';
  return profile.type === 'RuntimeDefault' ? 'RuntimeDefault' : undefined;
}

export interface ClusterDns {
  servers: string[];
  domain: string;
}

/** The sandbox: hostname, DNS as dnsPolicy asks (upstream pkg/kubelet/network/dns), host ports. */
export function sandboxConfig(pod: KubeObject, attempt: number, clusterDns: ClusterDns | undefined): SandboxConfig {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const namespace = pod.metadata.namespace ?? 'default';
  const hostNetwork = spec.hostNetwork === true;
  const portMappings: PortMapping[] = [];
  for (const container of [...containersOf(pod, 'initContainers'), ...containersOf(pod, 'containers')]) {
    const ports = Array.isArray(container.ports) ? container.ports.filter(isRecord) : [];
    for (const port of ports) {
      const hostPort = numberOrUndefined(port.hostPort);
      const containerPort = numberOrUndefined(port.containerPort);
      if (!hostPort || !containerPort) continue;
      const protocol = port.protocol === 'UDP' || port.protocol === 'SCTP' ? port.protocol : 'TCP';
      portMappings.push({ containerPort, hostPort, protocol, hostIP: typeof port.hostIP === 'string' && port.hostIP ? port.hostIP : undefined });
    }
  }
  const dnsPolicy = typeof spec.dnsPolicy === 'string' ? spec.dnsPolicy : 'ClusterFirst';
  const dnsConfig = isRecord(spec.dnsConfig) ? spec.dnsConfig : {};
  let dns: SandboxConfig['dns'];
  const useCluster = clusterDns && (dnsPolicy === 'ClusterFirst' || (dnsPolicy === 'ClusterFirstWithHostNet' && hostNetwork)) && !(hostNetwork && dnsPolicy === 'ClusterFirst');
  if (useCluster && clusterDns) {
    dns = {
      servers: clusterDns.servers,
      searches: [`${namespace}.svc.${clusterDns.domain}`, `svc.${clusterDns.domain}`, clusterDns.domain],
      options: ['ndots:5'],
    };
  } else if (dnsPolicy === 'None') {
    dns = { servers: [], searches: [], options: [] };
  }
  if (dns || Object.keys(dnsConfig).length) {
    dns = dns ?? { servers: [], searches: [], options: [] };
    dns.servers = [...dns.servers, ...(stringList(dnsConfig.nameservers) ?? [])];
    dns.searches = [...dns.searches, ...(stringList(dnsConfig.searches) ?? [])];
    const options = Array.isArray(dnsConfig.options) ? dnsConfig.options.filter(isRecord) : [];
    for (const option of options) {
      const name = String(option.name ?? '');
      dns.options = dns.options.filter((existing) => existing.split(':')[0] !== name);
      dns.options.push(option.value !== undefined ? `${name}:${String(option.value)}` : name);
    }
  }
  const hostname = typeof spec.hostname === 'string' && spec.hostname ? spec.hostname : (pod.metadata.name ?? '').slice(0, 63);
  const extraHosts = (Array.isArray(spec.hostAliases) ? spec.hostAliases.filter(isRecord) : []).flatMap((alias) => (stringList(alias.hostnames) ?? []).map((name) => `${name}:${String(alias.ip)}`));
  return {
    podUid: pod.metadata.uid ?? '',
    podName: pod.metadata.name ?? '',
    namespace,
    attempt,
    hostname,
    ...(typeof spec.subdomain === 'string' && spec.subdomain !== '' && !hostNetwork ? { domainname: `${spec.subdomain}.${namespace}.svc.${clusterDns?.domain ?? 'cluster.local'}` } : {}),
    dns,
    hostNetwork,
    hostPID: spec.hostPID === true,
    hostIPC: spec.hostIPC === true,
    portMappings,
    extraHosts,
    labels: {},
  };
}

/** The image pull policy, defaulted as upstream (`:latest` or no tag → Always). */
export function pullPolicy(container: ContainerSpec): 'Always' | 'IfNotPresent' | 'Never' {
  const policy = container.imagePullPolicy;
  if (policy === 'Always' || policy === 'IfNotPresent' || policy === 'Never') return policy;
  const image = container.image;
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  return !last.includes(':') || last.endsWith(':latest') ? 'Always' : 'IfNotPresent';
}
