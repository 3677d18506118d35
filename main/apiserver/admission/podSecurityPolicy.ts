// The Pod Security Standards checks (staging/src/k8s.io/pod-security-admission/policy/check_*.go)
// for the baseline and restricted levels, with the versions kube-apiserver 1.35 knows: each check
// gives upstream's reason and detail texts, and a level's result lists the failing checks in
// upstream's order (baseline check IDs sorted, then restricted ones; restricted checks replace
// the baseline checks they override).
import { isRecord } from '../../../shared/kubernetes/types';

export type Level = 'privileged' | 'baseline' | 'restricted';

/** The newest policy version this server knows ("latest"). */
export const LATEST_MINOR = 35;

export interface CheckResult {
  reason: string;
  detail: string;
}

type Spec = Record<string, unknown>;
type Container = Record<string, unknown>;
type CheckFunction = (metadata: { annotations: Record<string, string> }, spec: Spec, minor: number) => CheckResult | undefined;

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  minimumMinor: number;
  overrides?: string[];
  run: CheckFunction;
}

function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

function joinQuote(items: string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort();
}

function containers(spec: Spec): Container[] {
  const pick = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as unknown[]).filter(isRecord) : []);
  return [...pick('initContainers'), ...pick('containers'), ...pick('ephemeralContainers')];
}

function securityContext(holder: Record<string, unknown>): Record<string, unknown> | undefined {
  return isRecord(holder.securityContext) ? holder.securityContext : undefined;
}

function nameOf(container: Container): string {
  return String(container.name ?? '');
}

function isWindows(spec: Spec): boolean {
  return isRecord(spec.os) && spec.os.name === 'windows';
}

function userNamespaced(spec: Spec): boolean {
  return spec.hostUsers === false;
}

function containersPhrase(names: string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

const privileged: CheckFunction = (_metadata, spec) => {
  const bad = containers(spec).filter((container) => securityContext(container)?.privileged === true).map(nameOf);
  if (bad.length === 0) return undefined;
  return { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
};

const allowedBaselineCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

function capabilityList(container: Container, key: 'add' | 'drop'): string[] | undefined {
  const capabilities = securityContext(container)?.capabilities;
  if (!isRecord(capabilities)) return undefined;
  return Array.isArray(capabilities[key]) ? capabilities[key].map(String) : [];
}

const capabilitiesBaseline: CheckFunction = (_metadata, spec) => {
  const bad: string[] = [];
  const capabilities: string[] = [];
  for (const container of containers(spec)) {
    const added = (capabilityList(container, 'add') ?? []).filter((capability) => !allowedBaselineCapabilities.has(capability));
    if (added.length) {
      bad.push(nameOf(container));
      capabilities.push(...added);
    }
  }
  if (bad.length === 0) return undefined;
  return { reason: 'non-default capabilities', detail: `${containersPhrase(bad)} must not include ${joinQuote(sortedUnique(capabilities))} in securityContext.capabilities.add` };
};

const hostNamespaces: CheckFunction = (_metadata, spec) => {
  const found = [spec.hostNetwork === true && 'hostNetwork=true', spec.hostPID === true && 'hostPID=true', spec.hostIPC === true && 'hostIPC=true'].filter((entry): entry is string => typeof entry === 'string');
  return found.length ? { reason: 'host namespaces', detail: found.join(', ') } : undefined;
};

function volumes(spec: Spec): Record<string, unknown>[] {
  return Array.isArray(spec.volumes) ? spec.volumes.filter(isRecord) : [];
}

const hostPathVolumes: CheckFunction = (_metadata, spec) => {
  const bad = volumes(spec).filter((volume) => volume.hostPath !== undefined && volume.hostPath !== null).map((volume) => String(volume.name ?? ''));
  return bad.length ? { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` } : undefined;
};

const hostPorts: CheckFunction = (_metadata, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const container of containers(spec)) {
    const used = (Array.isArray(container.ports) ? container.ports.filter(isRecord) : []).map((port) => port.hostPort).filter((port) => typeof port === 'number' && port !== 0);
    if (used.length) {
      bad.push(nameOf(container));
      ports.push(...used.map(String));
    }
  }
  if (bad.length === 0) return undefined;
  const unique = sortedUnique(ports);
  return { reason: 'hostPort', detail: `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', unique.length)} ${unique.join(', ')}` };
};

function handlerHosts(handler: unknown): string[] {
  if (!isRecord(handler)) return [];
  const hosts: string[] = [];
  for (const key of ['httpGet', 'tcpSocket']) {
    const action = handler[key];
    if (isRecord(action) && typeof action.host === 'string' && action.host !== '') hosts.push(action.host);
  }
  return hosts;
}

const hostProbesAndLifecycle: CheckFunction = (_metadata, spec) => {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  for (const container of containers(spec)) {
    const lifecycle = isRecord(container.lifecycle) ? container.lifecycle : {};
    const found = [container.livenessProbe, container.readinessProbe, container.startupProbe, lifecycle.postStart, lifecycle.preStop].flatMap(handlerHosts);
    if (found.length) {
      bad.add(nameOf(container));
      for (const host of found) hosts.add(host);
    }
  }
  if (bad.size === 0) return undefined;
  const names = sortedUnique(bad);
  const hostList = sortedUnique(hosts);
  return {
    reason: 'probe or lifecycle host',
    detail: `${containersPhrase(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hostList.length)} ${joinQuote(hostList)}`,
  };
};

const procMount: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 35 && userNamespaced(spec)) return undefined;
  const bad: string[] = [];
  const types: string[] = [];
  for (const container of containers(spec)) {
    const mount = securityContext(container)?.procMount;
    if (typeof mount === 'string' && mount !== 'Default') {
      bad.push(nameOf(container));
      types.push(mount);
    }
  }
  if (bad.length === 0) return undefined;
  return { reason: 'procMount', detail: `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}` };
};

const seLinuxOptions: CheckFunction = (_metadata, spec, minor) => {
  const allowed = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', ...(minor >= 31 ? ['container_engine_t'] : [])]);
  const badTypes = new Set<string>();
  let setUser = false;
  let setRole = false;
  const valid = (options: Record<string, unknown>): boolean => {
    let ok = true;
    const type = typeof options.type === 'string' ? options.type : '';
    if (!allowed.has(type)) {
      ok = false;
      badTypes.add(type);
    }
    if (typeof options.user === 'string' && options.user !== '') {
      ok = false;
      setUser = true;
    }
    if (typeof options.role === 'string' && options.role !== '') {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOptions = securityContext(spec)?.seLinuxOptions;
  if (isRecord(podOptions) && !valid(podOptions)) setters.push('pod');
  const bad = containers(spec)
    .filter((container) => {
      const options = securityContext(container)?.seLinuxOptions;
      return isRecord(options) && !valid(options);
    })
    .map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  const data: string[] = [];
  if (badTypes.size) data.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sortedUnique(badTypes))}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

function seccompType(holder: Record<string, unknown>): string | undefined {
  const profile = securityContext(holder)?.seccompProfile;
  return isRecord(profile) ? String(profile.type ?? '') : undefined;
}

function validSeccomp(type: string): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

const seccompBaseline: CheckFunction = (_metadata, spec) => {
  const setters: string[] = [];
  const values = new Set<string>();
  const podType = seccompType(spec);
  if (podType !== undefined && !validSeccomp(podType)) {
    setters.push('pod');
    values.add(podType);
  }
  const bad: string[] = [];
  for (const container of containers(spec)) {
    const type = seccompType(container);
    if (type !== undefined && !validSeccomp(type)) {
      bad.push(nameOf(container));
      values.add(type);
    }
  }
  if (bad.length) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
};

const sysctlSets: [number, string[]][] = [
  [0, ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']],
  [27, ['net.ipv4.ip_local_reserved_ports']],
  [29, ['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']],
  [32, ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']],
];

const sysctls: CheckFunction = (_metadata, spec, minor) => {
  const allowed = new Set(sysctlSets.filter(([since]) => minor >= since).flatMap(([, names]) => names));
  const entries = securityContext(spec)?.sysctls;
  const bad = (Array.isArray(entries) ? entries.filter(isRecord) : []).map((sysctl) => String(sysctl.name ?? '')).filter((name) => !allowed.has(name));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

function appArmorType(holder: Record<string, unknown>): string | undefined {
  const profile = securityContext(holder)?.appArmorProfile;
  return isRecord(profile) ? String(profile.type ?? '') : undefined;
}

const appArmorProfile: CheckFunction = (metadata, spec) => {
  const allowedType = (type: string) => type === 'RuntimeDefault' || type === 'Localhost';
  const setters: string[] = [];
  const values = new Set<string>();
  const podType = appArmorType(spec);
  if (podType !== undefined && !allowedType(podType)) {
    setters.push('pod');
    values.add(podType);
  }
  const bad: string[] = [];
  for (const container of containers(spec)) {
    const type = appArmorType(container);
    if (type !== undefined && !allowedType(type)) {
      bad.push(nameOf(container));
      values.add(type);
    }
  }
  if (bad.length) setters.push(containersPhrase(bad));
  const annotations: string[] = [];
  for (const [key, value] of Object.entries(metadata.annotations)) {
    if (key.startsWith('container.apparmor.security.beta.kubernetes.io/') && !(value === '' || value === 'runtime/default' || value.startsWith('localhost/'))) {
      annotations.push(`${key}=${JSON.stringify(value)}`);
    }
  }
  const valueList = sortedUnique(values);
  if (annotations.length) {
    valueList.push(...annotations.sort());
    setters.push(pluralize('annotation', 'annotations', annotations.length));
  }
  if (setters.length === 0) return undefined;
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', valueList.length),
    detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(valueList)}`,
  };
};

const windowsHostProcess: CheckFunction = (_metadata, spec) => {
  const hostProcess = (holder: Record<string, unknown>) => {
    const options = securityContext(holder)?.windowsOptions;
    return isRecord(options) && options.hostProcess === true;
  };
  const setters: string[] = [];
  if (hostProcess(spec)) setters.push('pod');
  const bad = containers(spec).filter(hostProcess).map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  if (setters.length === 0) return undefined;
  return { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

const allowPrivilegeEscalation: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 25 && isWindows(spec)) return undefined;
  const bad = containers(spec).filter((container) => securityContext(container)?.allowPrivilegeEscalation !== false).map(nameOf);
  if (bad.length === 0) return undefined;
  return { reason: 'allowPrivilegeEscalation != false', detail: `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false` };
};

const capabilitiesRestricted: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 25 && isWindows(spec)) return undefined;
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const forbiddenCapabilities: string[] = [];
  for (const container of containers(spec)) {
    const dropped = capabilityList(container, 'drop');
    if (dropped === undefined) {
      missingDrop.push(nameOf(container));
      continue;
    }
    if (!dropped.includes('ALL')) missingDrop.push(nameOf(container));
    const added = (capabilityList(container, 'add') ?? []).filter((capability) => capability !== 'NET_BIND_SERVICE');
    if (added.length) {
      adding.push(nameOf(container));
      forbiddenCapabilities.push(...added);
    }
  }
  const details: string[] = [];
  if (missingDrop.length) details.push(`${containersPhrase(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersPhrase(adding)} must not include ${joinQuote(sortedUnique(forbiddenCapabilities))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const restrictedVolumeKinds: [string, string][] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'], ['gitRepo', 'gitRepo'], ['nfs', 'nfs'],
  ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'], ['rbd', 'rbd'], ['flexVolume', 'flexVolume'], ['cinder', 'cinder'], ['cephfs', 'cephfs'], ['flocker', 'flocker'],
  ['fc', 'fc'], ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['quobyte', 'quobyte'], ['azureDisk', 'azureDisk'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['scaleIO', 'scaleIO'], ['storageos', 'storageos'],
];
const allowedVolumeKinds = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'image', 'persistentVolumeClaim', 'projected', 'secret'];

const restrictedVolumes: CheckFunction = (_metadata, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const volume of volumes(spec)) {
    const present = (key: string) => volume[key] !== undefined && volume[key] !== null;
    if (allowedVolumeKinds.some(present)) continue;
    bad.push(String(volume.name ?? ''));
    types.add(restrictedVolumeKinds.find(([key]) => present(key))?.[1] ?? 'unknown');
  }
  if (bad.length === 0) return undefined;
  const typeList = sortedUnique(types);
  return {
    reason: 'restricted volume types',
    detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', typeList.length)} ${joinQuote(typeList)}`,
  };
};

const runAsNonRoot: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 35 && userNamespaced(spec)) return undefined;
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = securityContext(spec)?.runAsNonRoot;
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const container of containers(spec)) {
    const value = securityContext(container)?.runAsNonRoot;
    if (typeof value === 'boolean') {
      if (!value) explicit.push(nameOf(container));
    } else if (!podNonRoot) {
      implicit.push(nameOf(container));
    }
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 35 && userNamespaced(spec)) return undefined;
  const setters: string[] = [];
  if (securityContext(spec)?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec).filter((container) => securityContext(container)?.runAsUser === 0).map(nameOf);
  if (bad.length) setters.push(containersPhrase(bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
};

const seccompRestricted: CheckFunction = (_metadata, spec, minor) => {
  if (minor >= 25 && isWindows(spec)) return undefined;
  const setters: string[] = [];
  const values = new Set<string>();
  let podSet = false;
  const podType = seccompType(spec);
  if (podType !== undefined) {
    if (!validSeccomp(podType)) {
      setters.push('pod');
      values.add(podType);
    } else {
      podSet = true;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const container of containers(spec)) {
    const type = seccompType(container);
    if (type !== undefined) {
      if (!validSeccomp(type)) {
        explicit.push(nameOf(container));
        values.add(type);
      }
    } else if (!podSet) {
      implicit.push(nameOf(container));
    }
  }
  if (explicit.length) setters.push(containersPhrase(explicit));
  if (setters.length) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
  if (implicit.length) return { reason: 'seccompProfile', detail: `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  return undefined;
};

const checks: Check[] = [
  { id: 'appArmorProfile', level: 'baseline', minimumMinor: 0, run: appArmorProfile },
  { id: 'capabilities_baseline', level: 'baseline', minimumMinor: 0, run: capabilitiesBaseline },
  { id: 'hostNamespaces', level: 'baseline', minimumMinor: 0, run: hostNamespaces },
  { id: 'hostPathVolumes', level: 'baseline', minimumMinor: 0, run: hostPathVolumes },
  { id: 'hostPorts', level: 'baseline', minimumMinor: 0, run: hostPorts },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', minimumMinor: 34, run: hostProbesAndLifecycle },
  { id: 'privileged', level: 'baseline', minimumMinor: 0, run: privileged },
  { id: 'procMount', level: 'baseline', minimumMinor: 0, run: procMount },
  { id: 'seLinuxOptions', level: 'baseline', minimumMinor: 0, run: seLinuxOptions },
  { id: 'seccompProfile_baseline', level: 'baseline', minimumMinor: 19, run: seccompBaseline },
  { id: 'sysctls', level: 'baseline', minimumMinor: 0, run: sysctls },
  { id: 'windowsHostProcess', level: 'baseline', minimumMinor: 0, run: windowsHostProcess },
  { id: 'allowPrivilegeEscalation', level: 'restricted', minimumMinor: 8, run: allowPrivilegeEscalation },
  { id: 'capabilities_restricted', level: 'restricted', minimumMinor: 22, overrides: ['capabilities_baseline'], run: capabilitiesRestricted },
  { id: 'procMount_restricted', level: 'restricted', minimumMinor: 35, overrides: ['procMount'], run: (metadata, spec) => procMount(metadata, spec, 0) },
  { id: 'restrictedVolumes', level: 'restricted', minimumMinor: 0, overrides: ['hostPathVolumes'], run: restrictedVolumes },
  { id: 'runAsNonRoot', level: 'restricted', minimumMinor: 0, run: runAsNonRoot },
  { id: 'runAsUser', level: 'restricted', minimumMinor: 23, run: runAsUser },
  { id: 'seccompProfile_restricted', level: 'restricted', minimumMinor: 19, overrides: ['seccompProfile_baseline'], run: seccompRestricted },
];

/** The failing checks of `level` at version 1.`minor` for a pod's metadata and spec, in upstream's order. */
export function evaluatePod(level: Level, minor: number, metadata: { annotations?: Record<string, string> }, spec: unknown): CheckResult[] {
  if (level === 'privileged' || !isRecord(spec)) return [];
  const active = checks.filter((check) => check.minimumMinor <= minor && (check.level === 'baseline' || level === 'restricted'));
  const overridden = new Set(active.flatMap((check) => check.overrides ?? []));
  const results: CheckResult[] = [];
  for (const check of active) {
    if (overridden.has(check.id)) continue;
    const result = check.run({ annotations: metadata.annotations ?? {} }, spec, minor);
    if (result) results.push(result);
  }
  return results;
}

/** AggregateCheckResult.ForbiddenDetail: `reason (detail), reason (detail)`. */
export function forbiddenDetail(results: CheckResult[]): string {
  return results.map((result) => (result.detail ? `${result.reason} (${result.detail})` : result.reason)).join(', ');
}

/** AggregateCheckResult.ForbiddenReason: the reasons only. */
export function forbiddenReason(results: CheckResult[]): string {
  return results.map((result) => result.reason).join(', ');
}
