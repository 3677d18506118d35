// A pod's containers and volumes as `kubectl describe pod` shows them, for the detail page: image,
// state, readiness, restarts and the last termination; ports; requests and limits; probes in
// describe's words (`http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1
// #failure=3`); mounts (`/data from cache (ro)`); and the environment resolved as the kubelet
// resolves it (kubelet_pods.go makeEnvironmentVariables): envFrom first, then env; values from
// ConfigMaps and Secrets read from the watch caches, Secret values marked secret so the page keeps
// them hidden; fieldRef read from the pod itself. Pure.
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import type { ObjectLink, ObjectLookup, Tone } from './kindConfig';
import { dataValue, configMapEntries, secretEntries } from './objectData';
import { execAvailability, type ExecAvailability } from './podExec';

export interface EnvRow {
  name: string;
  value: string;
  /** where the value comes from (`ConfigMap settings, key color`), empty for a literal */
  source: string;
  link?: ObjectLink;
  secret: boolean;
  /** the value could not be resolved (missing object or key) */
  problem?: boolean;
}

export interface MountRow {
  path: string;
  volume: string;
  readOnly: boolean;
  subPath?: string;
}

export interface LastTermination {
  reason: string;
  exitCode?: number;
  startedAt?: string;
  finishedAt?: string;
  message?: string;
}

export interface ContainerDetail {
  name: string;
  init: boolean;
  image: string;
  state: string;
  tone: Tone;
  ready: boolean;
  restarts: number;
  lastTermination?: LastTermination;
  ports: string[];
  requests: string;
  limits: string;
  probes: { kind: string; text: string }[];
  command: string;
  mounts: MountRow[];
  env: EnvRow[];
  exec: ExecAvailability;
}

export interface VolumeRow {
  name: string;
  type: string;
  source: string;
  link?: ObjectLink;
  /** `container:/path` of every mount of the volume */
  mountedBy: string[];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function statusesByName(pod: KubeObject): Map<string, Record<string, unknown>> {
  const status = isRecord(pod.status) ? pod.status : {};
  const result = new Map<string, Record<string, unknown>>();
  for (const field of ['initContainerStatuses', 'containerStatuses']) for (const item of records(status[field])) result.set(text(item.name), item);
  return result;
}

/** A container status's state as describe words it (`Waiting: CrashLoopBackOff`), with its tone. */
export function containerStateOf(state: unknown): { state: string; tone: Tone } {
  if (!isRecord(state)) return { state: 'Waiting', tone: 'warn' };
  if (isRecord(state.running)) return { state: 'Running', tone: 'ok' };
  if (isRecord(state.terminated)) {
    const reason = text(state.terminated.reason) || 'Terminated';
    const exitCode = typeof state.terminated.exitCode === 'number' ? state.terminated.exitCode : undefined;
    return { state: `Terminated: ${reason}${exitCode !== undefined ? ` (exit code ${exitCode})` : ''}`, tone: exitCode === 0 ? 'muted' : 'error' };
  }
  if (isRecord(state.waiting)) {
    const reason = text(state.waiting.reason);
    return { state: reason ? `Waiting: ${reason}` : 'Waiting', tone: /BackOff|Err|Invalid/.test(reason) ? 'error' : 'warn' };
  }
  return { state: 'Waiting', tone: 'warn' };
}

function lastTerminationOf(status: Record<string, unknown> | undefined): LastTermination | undefined {
  const last = status && isRecord(status.lastState) && isRecord(status.lastState.terminated) ? status.lastState.terminated : undefined;
  if (!last) return undefined;
  return {
    reason: text(last.reason) || 'Terminated',
    exitCode: typeof last.exitCode === 'number' ? last.exitCode : undefined,
    startedAt: text(last.startedAt) || undefined,
    finishedAt: text(last.finishedAt) || undefined,
    message: text(last.message) || undefined,
  };
}

/** `cpu 100m, memory 64Mi` of a requests/limits map, in kubectl describe's order (alphabetical). */
export function resourceList(value: unknown): string {
  if (!isRecord(value)) return '';
  return Object.keys(value)
    .sort()
    .map((key) => `${key} ${typeof value[key] === 'string' || typeof value[key] === 'number' ? String(value[key]) : ''}`)
    .join(', ');
}

function portText(port: Record<string, unknown>): string {
  const number = typeof port.containerPort === 'number' ? port.containerPort : text(port.containerPort);
  const name = text(port.name);
  const host = typeof port.hostPort === 'number' && port.hostPort > 0 ? ` → host ${port.hostPort}` : '';
  return `${number}/${text(port.protocol) || 'TCP'}${name ? ` (${name})` : ''}${host}`;
}

function seconds(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
}

/** A probe as kubectl describe prints it (describe.go DescribeProbe), with the API's defaults. */
export function probeText(probe: Record<string, unknown>): string {
  const attributes = `delay=${seconds(probe.initialDelaySeconds, 0)}s timeout=${seconds(probe.timeoutSeconds, 1)}s period=${seconds(probe.periodSeconds, 10)}s #success=${seconds(probe.successThreshold, 1)} #failure=${seconds(probe.failureThreshold, 3)}`;
  if (isRecord(probe.exec)) {
    const command = Array.isArray(probe.exec.command) ? probe.exec.command.map(String) : [];
    return `exec [${command.join(' ')}] ${attributes}`;
  }
  if (isRecord(probe.httpGet)) {
    const http = probe.httpGet;
    const scheme = (text(http.scheme) || 'HTTP').toLowerCase();
    const port = typeof http.port === 'number' ? String(http.port) : text(http.port);
    return `http-get ${scheme}://${text(http.host)}:${port}${text(http.path)} ${attributes}`;
  }
  if (isRecord(probe.tcpSocket)) {
    const port = typeof probe.tcpSocket.port === 'number' ? String(probe.tcpSocket.port) : text(probe.tcpSocket.port);
    return `tcp-socket ${text(probe.tcpSocket.host)}:${port} ${attributes}`;
  }
  if (isRecord(probe.grpc)) {
    const service = text(probe.grpc.service);
    return `grpc <pod>:${String(probe.grpc.port)} ${service || '<service>'} ${attributes}`;
  }
  return `unknown ${attributes}`;
}

/** A downward-API field of the pod (fieldRef.fieldPath), as the kubelet resolves it. */
export function podFieldValue(pod: KubeObject, path: string): string | undefined {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const status = isRecord(pod.status) ? pod.status : {};
  const labelOrAnnotation = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (labelOrAnnotation) return (labelOrAnnotation[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations)?.[labelOrAnnotation[2]];
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace;
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'spec.nodeName':
      return text(spec.nodeName) || undefined;
    case 'spec.serviceAccountName':
      return text(spec.serviceAccountName) || undefined;
    case 'status.hostIP':
      return text(status.hostIP) || undefined;
    case 'status.podIP':
      return text(status.podIP) || undefined;
    case 'status.podIPs':
      return records(status.podIPs).map((entry) => text(entry.ip)).filter(Boolean).join(',') || undefined;
    case 'status.hostIPs':
      return records(status.hostIPs).map((entry) => text(entry.ip)).filter(Boolean).join(',') || undefined;
    default:
      return undefined;
  }
}

function keyRef(pod: KubeObject, lookup: ObjectLookup, name: string, reference: Record<string, unknown>, secret: boolean): EnvRow {
  const objectName = text(reference.name);
  const key = text(reference.key);
  const kindKey = secret ? 'secrets' : 'configmaps';
  const namespace = pod.metadata.namespace;
  const source = `${secret ? 'Secret' : 'ConfigMap'} ${objectName}, key ${key}`;
  const link: ObjectLink = { kindKey, namespace, name: objectName };
  const object = lookup.get(kindKey, namespace, objectName);
  if (!object) {
    if (!lookup.ready(kindKey)) return { name, value: '…', source, link, secret: false };
    return { name, value: reference.optional === true ? '<not set: optional and missing>' : `<missing: ${secret ? 'secret' : 'configmap'} ${objectName} not found>`, source, link, secret: false, problem: reference.optional !== true };
  }
  const entry = dataValue(object, key, secret);
  if (!entry) return { name, value: reference.optional === true ? '<not set: optional key missing>' : `<missing: key ${key} not found>`, source, link, secret: false, problem: reference.optional !== true };
  return { name, value: entry.binary ? `<binary, ${entry.size} bytes>` : entry.value, source, link, secret: secret && !entry.binary };
}

/** The container's environment: envFrom (every key, with its prefix), then env, resolved. */
export function environmentOf(pod: KubeObject, container: Record<string, unknown>, lookup: ObjectLookup): EnvRow[] {
  const rows: EnvRow[] = [];
  const namespace = pod.metadata.namespace;
  for (const from of records(container.envFrom)) {
    const prefix = text(from.prefix);
    const secret = isRecord(from.secretRef);
    const reference = isRecord(from.secretRef) ? from.secretRef : isRecord(from.configMapRef) ? from.configMapRef : undefined;
    if (!reference) continue;
    const kindKey = secret ? 'secrets' : 'configmaps';
    const objectName = text(reference.name);
    const link: ObjectLink = { kindKey, namespace, name: objectName };
    const source = `all keys of ${secret ? 'Secret' : 'ConfigMap'} ${objectName}`;
    const object = lookup.get(kindKey, namespace, objectName);
    if (!object) {
      const missing = lookup.ready(kindKey);
      rows.push({ name: `${prefix}*`, value: missing ? (reference.optional === true ? '<not set: optional and missing>' : `<missing: ${secret ? 'secret' : 'configmap'} ${objectName} not found>`) : '…', source, link, secret: false, problem: missing && reference.optional !== true });
      continue;
    }
    for (const entry of secret ? secretEntries(object) : configMapEntries(object)) {
      rows.push({ name: `${prefix}${entry.key}`, value: entry.binary ? `<binary, ${entry.size} bytes>` : entry.value, source, link, secret: secret && !entry.binary });
    }
  }
  for (const variable of records(container.env)) {
    const name = text(variable.name);
    const from = isRecord(variable.valueFrom) ? variable.valueFrom : undefined;
    if (!from) {
      rows.push({ name, value: text(variable.value), source: '', secret: false });
    } else if (isRecord(from.configMapKeyRef)) {
      rows.push(keyRef(pod, lookup, name, from.configMapKeyRef, false));
    } else if (isRecord(from.secretKeyRef)) {
      rows.push(keyRef(pod, lookup, name, from.secretKeyRef, true));
    } else if (isRecord(from.fieldRef)) {
      const path = text(from.fieldRef.fieldPath);
      const value = podFieldValue(pod, path);
      rows.push({ name, value: value ?? '<not set yet>', source: `field ${path}`, secret: false });
    } else if (isRecord(from.resourceFieldRef)) {
      const reference = from.resourceFieldRef;
      const resource = text(reference.resource);
      const [bucket, name2] = resource.split('.');
      const resources = isRecord(container.resources) ? container.resources : {};
      const values = isRecord(resources[bucket]) ? resources[bucket] : {};
      const raw = values[name2];
      rows.push({ name, value: typeof raw === 'string' || typeof raw === 'number' ? String(raw) : '<node allocatable>', source: `resource ${resource}${text(reference.containerName) ? ` of ${text(reference.containerName)}` : ''}`, secret: false });
    } else {
      rows.push({ name, value: '', source: 'unknown source', secret: false });
    }
  }
  return rows;
}

/** Every container (init containers first) with what describe shows about it. */
export function containerDetails(pod: KubeObject, lookup: ObjectLookup): ContainerDetail[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const statuses = statusesByName(pod);
  const result: ContainerDetail[] = [];
  for (const [field, init] of [['initContainers', true], ['containers', false]] as const) {
    for (const container of records(spec[field])) {
      const name = text(container.name);
      const status = statuses.get(name);
      const { state, tone } = containerStateOf(status?.state);
      const resources = isRecord(container.resources) ? container.resources : {};
      const probes: { kind: string; text: string }[] = [];
      for (const [key, kind] of [['startupProbe', 'Startup'], ['livenessProbe', 'Liveness'], ['readinessProbe', 'Readiness']] as const) {
        if (isRecord(container[key])) probes.push({ kind, text: probeText(container[key]) });
      }
      const command = [...(Array.isArray(container.command) ? container.command.map(String) : []), ...(Array.isArray(container.args) ? container.args.map(String) : [])];
      result.push({
        name,
        init,
        image: text(container.image),
        state,
        tone,
        ready: status?.ready === true,
        restarts: typeof status?.restartCount === 'number' ? status.restartCount : 0,
        lastTermination: lastTerminationOf(status),
        ports: records(container.ports).map(portText),
        requests: resourceList(resources.requests),
        limits: resourceList(resources.limits),
        probes,
        command: command.join(' '),
        mounts: records(container.volumeMounts).map((mount) => ({ path: text(mount.mountPath), volume: text(mount.name), readOnly: mount.readOnly === true, subPath: text(mount.subPath) || undefined })),
        env: environmentOf(pod, container, lookup),
        exec: execAvailability(pod, name),
      });
    }
  }
  return result;
}

/** `/data from cache (ro)` as kubectl describe writes a mount. */
export function mountText(mount: MountRow): string {
  return `${mount.path} from ${mount.volume}${mount.subPath ? ` (path "${mount.subPath}")` : ''} (${mount.readOnly ? 'ro' : 'rw'})`;
}

/** The pod's volumes: type, source (linked when it is a ConfigMap, Secret or claim) and who mounts them where. */
export function podVolumes(pod: KubeObject): VolumeRow[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const namespace = pod.metadata.namespace;
  const mounts = new Map<string, string[]>();
  for (const field of ['initContainers', 'containers']) {
    for (const container of records(spec[field])) {
      for (const mount of records(container.volumeMounts)) {
        const list = mounts.get(text(mount.name)) ?? [];
        list.push(`${text(container.name)}:${text(mount.mountPath)}`);
        mounts.set(text(mount.name), list);
      }
    }
  }
  return records(spec.volumes).map((volume) => {
    const name = text(volume.name);
    const base = { name, mountedBy: mounts.get(name) ?? [] };
    if (isRecord(volume.configMap)) return { ...base, type: 'ConfigMap', source: text(volume.configMap.name), link: { kindKey: 'configmaps', namespace, name: text(volume.configMap.name) } };
    if (isRecord(volume.secret)) return { ...base, type: 'Secret', source: text(volume.secret.secretName), link: { kindKey: 'secrets', namespace, name: text(volume.secret.secretName) } };
    if (isRecord(volume.persistentVolumeClaim)) return { ...base, type: 'PersistentVolumeClaim', source: `${text(volume.persistentVolumeClaim.claimName)}${volume.persistentVolumeClaim.readOnly === true ? ' (read-only)' : ''}`, link: { kindKey: 'persistentvolumeclaims', namespace, name: text(volume.persistentVolumeClaim.claimName) } };
    if (isRecord(volume.emptyDir)) return { ...base, type: 'EmptyDir', source: [text(volume.emptyDir.medium) && `medium ${text(volume.emptyDir.medium)}`, volume.emptyDir.sizeLimit !== undefined && `size limit ${String(volume.emptyDir.sizeLimit)}`].filter(Boolean).join(', ') || 'a temporary directory that shares the pod\'s lifetime' };
    if (isRecord(volume.hostPath)) return { ...base, type: 'HostPath', source: `${text(volume.hostPath.path)}${text(volume.hostPath.type) ? ` (${text(volume.hostPath.type)})` : ''}` };
    if (isRecord(volume.projected)) {
      const sources = records(volume.projected.sources).map((item) => {
        if (isRecord(item.serviceAccountToken)) return 'service account token';
        if (isRecord(item.configMap)) return `ConfigMap ${text(item.configMap.name)}`;
        if (isRecord(item.secret)) return `Secret ${text(item.secret.name)}`;
        if (isRecord(item.downwardAPI)) return 'downward API';
        if (isRecord(item.clusterTrustBundle)) return 'cluster trust bundle';
        return Object.keys(item)[0] ?? '';
      });
      return { ...base, type: 'Projected', source: sources.join(', ') };
    }
    if (isRecord(volume.downwardAPI)) return { ...base, type: 'DownwardAPI', source: records(volume.downwardAPI.items).map((item) => text(item.path)).join(', ') };
    const other = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
    return { ...base, type: other, source: '' };
  });
}
