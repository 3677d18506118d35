// VolumeManager prepares a pod's volumes on the host and turns its containers' volumeMounts into
// runtime bind mounts, after the upstream kubelet volume plugins and pkg/kubelet/kubelet_pods.go
// makeMounts:
// - layout: <podsDir>/<uid>/volumes/kubernetes.io~<plugin>/<name> (empty-dir, configmap, secret,
//   downward-api, projected); hostPath volumes are bound where they are, after upstream's type checks;
// - configMap, secret, downwardAPI and projected volumes are written with AtomicWriter and
//   re-projected by refresh(), so running containers see updates (subPath mounts do not, as upstream);
// - projected serviceAccountToken files come from the TokenRequest API and are renewed once 80 % of
//   their lifetime has passed (upstream pkg/kubelet/token/token_manager.go);
// - failures carry upstream's FailedMount text: `MountVolume.SetUp failed for volume "v" : …`;
// - the periodic refresh is cheap when nothing changed: the config maps and secrets it reads are
//   shared by every pod's refresh for a few seconds (upstream's cache-based configmap/secret manager,
//   pkg/kubelet/util/manager/cache_based_manager.go: one GET per object per resync, not one per pod),
//   and a volume whose payload is the one this manager last wrote is not written again (upstream's
//   AtomicWriter compares with the files instead; here the files are compared only when the payload
//   changed), so an idle pod's resync touches neither the API nor the disk. A first set-up always
//   reads the objects afresh.
// Differences from upstream, on purpose: secret volumes live on disk (no tmpfs; the kubelet is not
// root); an emptyDir with medium Memory becomes a Docker tmpfs only when exactly one container mounts
// it without subPath (a Docker tmpfs is per container, so a shared one would stop being shared), else
// a plain directory; fsGroup ownership changes are not applied (no root), so files keep their modes
// and the token keeps defaultMode rather than 0600.
import { mkdir, open, realpath, rm, stat, chmod } from 'node:fs/promises';
import path from 'node:path';
import { isNotFound, resources, type ApiClient } from '../../client';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { parseQuantity, quantityValue } from '../../../shared/kubernetes/quantity';
import { expandSubPathExpr } from '../env/expansion';
import { allContainers, podSpecOf, type Container, type Volume } from '../env/podSpec';
import { ContainerConfigError } from '../env/resolveEnv';
import type { Mount } from '../runtime/containerRuntime';
import { AtomicWriter, type Payload } from './atomicWriter';
import { aggregate, configMapPayload, defaultVolumeMode, downwardAPIPayload, secretPayload } from './payloads';

export interface PodVolume {
  /** where the volume lives on the host */
  hostPath: string;
  /** the plugin forces read-only mounts (configMap, secret, downwardAPI, projected) */
  readOnly: boolean;
  /** mount as a Docker tmpfs instead of binding hostPath (emptyDir medium Memory, single user) */
  tmpfs?: boolean;
  /** tmpfs size in bytes, from emptyDir.sizeLimit */
  sizeBytes?: number;
}

/** volume name → where it is */
export type PodVolumes = Record<string, PodVolume>;

export interface IssuedToken {
  token: string;
  /** RFC 3339 time or Date */
  expirationTimestamp: string | Date;
}

export type TokenRequester = (pod: KubeObject, audience: string | undefined, expirationSeconds: number) => Promise<IssuedToken>;

export interface VolumeManagerOptions {
  podsDir: string;
  client: ApiClient;
  /** Issues a service-account token bound to the pod; default: POST serviceaccounts/<name>/token. */
  requestToken?: TokenRequester;
  /** The cluster CA, used for ca.crt when the namespace's kube-root-ca.crt config map does not exist yet. */
  caCertPem: string;
  /** The node's allocatable (cpu, memory, ephemeral-storage), for downward API limits of containers without limits. */
  nodeAllocatable?: Record<string, string | number>;
  /** Milliseconds since the epoch; injectable for token-rotation tests. */
  now?: () => number;
  /**
   * Where bound PersistentVolumeClaims' volumes live (`<dataDir>/volumes`, the local-path
   * provisioner's layout): a persistentVolumeClaim volume mounts `<persistentVolumesDir>/<spec.volumeName>`.
   * Without it, persistentVolumeClaim volumes are refused.
   */
  persistentVolumesDir?: string;
}

export interface VolumeFailure {
  volumeName: string;
  message: string;
}

/** Volumes that could not be set up; the kubelet emits one FailedMount Warning per failure and retries. */
export class VolumeError extends Error {
  readonly reason = 'FailedMount';

  constructor(readonly failures: VolumeFailure[]) {
    super(failures.map((failure) => failure.message).join('; '));
    this.name = 'VolumeError';
  }
}

export interface MountOptions {
  /** the container's resolved environment ("KEY=value"), for subPathExpr */
  env?: readonly string[];
  /** the container instance's restart count; names its termination-log file */
  restartCount?: number;
}

interface CachedToken {
  token: string;
  issuedAt: number;
  expiresAt: number;
}

interface PodState {
  tokens: Map<string, CachedToken>;
  queue: Promise<unknown>;
  /** volume directory → the payload last written there by this manager */
  written: Map<string, Payload>;
}

/** A config map or secret as a refresh read it: shared by every pod's refresh until it is `objectTtlMs` old. */
interface CachedObject {
  fetchedAt: number;
  object: Promise<KubeObject | undefined>;
}

/** How long a refresh reuses a config map or secret another pod's refresh read (upstream's cache TTL). */
const objectTtlMs = 5_000;

const pluginDirs: Record<string, string> = {
  emptyDir: 'kubernetes.io~empty-dir',
  configMap: 'kubernetes.io~configmap',
  secret: 'kubernetes.io~secret',
  downwardAPI: 'kubernetes.io~downward-api',
  projected: 'kubernetes.io~projected',
};

const projectedPlugins = new Set(['configMap', 'secret', 'downwardAPI', 'projected']);
const rootCAConfigMap = 'kube-root-ca.crt';
const defaultTerminationMessagePath = '/dev/termination-log';
const maxTokenAgeMs = 24 * 60 * 60 * 1000;

class MountFailure extends Error {}

function pluginOf(volume: Volume): string {
  for (const key of Object.keys(volume)) if (key !== 'name' && volume[key] !== undefined && volume[key] !== null) return key;
  return 'emptyDir';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

/** How many container mounts (init and app) use the volume, and whether any uses a subPath. */
function usageOf(pod: KubeObject, volumeName: string): { mounts: number; subPath: boolean } {
  let mounts = 0;
  let subPath = false;
  for (const container of allContainers(pod)) {
    for (const mount of container.volumeMounts ?? []) {
      if (mount.name !== volumeName) continue;
      mounts++;
      if (mount.subPath || mount.subPathExpr) subPath = true;
    }
  }
  return { mounts, subPath };
}

async function checkHostPathType(hostPath: string, type: string): Promise<void> {
  const info = await stat(hostPath).catch((error: unknown) => {
    if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return undefined;
    throw error;
  });
  const notA = (what: string): MountFailure => new MountFailure(`hostPath type check failed: ${hostPath} is not a ${what}`);
  switch (type) {
    case '':
      return;
    case 'DirectoryOrCreate':
    case 'Directory':
      if (!info && type === 'DirectoryOrCreate') {
        await mkdir(hostPath, { recursive: true, mode: 0o755 });
        return;
      }
      if (!info?.isDirectory()) throw notA('directory');
      return;
    case 'FileOrCreate':
    case 'File':
      if (!info && type === 'FileOrCreate') {
        // Like upstream, the parent directory is not created.
        const handle = await open(hostPath, 'a', 0o644).catch((error: unknown) => {
          if (isErrno(error, 'ENOENT')) throw new MountFailure(`open ${hostPath}: no such file or directory`);
          throw error;
        });
        await handle.close();
        return;
      }
      if (!info?.isFile()) throw notA('file');
      return;
    case 'Socket':
      if (!info?.isSocket()) throw notA('socket file');
      return;
    case 'CharDevice':
      if (!info?.isCharacterDevice()) throw notA('character device');
      return;
    case 'BlockDevice':
      if (!info?.isBlockDevice()) throw notA('block device');
      return;
    default:
      throw new MountFailure(`${type} is an invalid volume type`);
  }
}

function defaultTokenRequester(client: ApiClient): TokenRequester {
  return async (pod, audience, expirationSeconds) => {
    const spec = podSpecOf(pod);
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: {
        audiences: audience ? [audience] : [],
        expirationSeconds,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
      },
    };
    const reply = await client.resource(resources.serviceaccounts).createSubresource(pod.metadata.namespace, spec.serviceAccountName || 'default', 'token', body);
    const status = isRecord(reply) && isRecord(reply.status) ? reply.status : {};
    if (typeof status.token !== 'string' || typeof status.expirationTimestamp !== 'string') throw new Error('the TokenRequest reply has no token');
    return { token: status.token, expirationTimestamp: status.expirationTimestamp };
  };
}

export class VolumeManager {
  private readonly pods = new Map<string, PodState>();
  private readonly objects = new Map<string, CachedObject>();
  private readonly requestToken: TokenRequester;
  private readonly now: () => number;

  constructor(private readonly options: VolumeManagerOptions) {
    this.requestToken = options.requestToken ?? defaultTokenRequester(options.client);
    this.now = options.now ?? (() => Date.now());
  }

  podDir(podUid: string): string {
    return path.join(this.options.podsDir, podUid);
  }

  volumeDir(podUid: string, plugin: string, volumeName: string): string {
    return path.join(this.podDir(podUid), 'volumes', pluginDirs[plugin] ?? `kubernetes.io~${plugin}`, volumeName);
  }

  /** The host file bound at the container's terminationMessagePath. */
  terminationLogPath(podUid: string, containerName: string, restartCount: number): string {
    return path.join(this.podDir(podUid), 'containers', containerName, String(restartCount));
  }

  /** Prepares every volume of the pod; throws VolumeError listing each volume that failed. */
  async setUp(pod: KubeObject): Promise<PodVolumes> {
    return this.serialised(pod, async (state) => {
      const volumes: PodVolumes = {};
      const failures: VolumeFailure[] = [];
      for (const volume of podSpecOf(pod).volumes ?? []) {
        try {
          volumes[volume.name] = await this.setUpVolume(pod, volume, state);
        } catch (error) {
          failures.push({ volumeName: volume.name, message: `MountVolume.SetUp failed for volume "${volume.name}" : ${errorText(error)}` });
        }
      }
      if (failures.length > 0) throw new VolumeError(failures);
      return volumes;
    });
  }

  /**
   * Re-projects the configMap, secret, downwardAPI and projected volumes from the current objects and
   * this pod object (labels/annotations), renewing tokens past 80 % of their lifetime. Call it
   * periodically and when a referenced config map or secret changes.
   */
  async refresh(pod: KubeObject): Promise<void> {
    await this.serialised(pod, async (state) => {
      const failures: VolumeFailure[] = [];
      for (const volume of podSpecOf(pod).volumes ?? []) {
        if (!projectedPlugins.has(pluginOf(volume))) continue;
        try {
          await this.setUpVolume(pod, volume, state, true);
        } catch (error) {
          failures.push({ volumeName: volume.name, message: `MountVolume.SetUp failed for volume "${volume.name}" : ${errorText(error)}` });
        }
      }
      if (failures.length > 0) throw new VolumeError(failures);
    });
  }

  /** Removes everything under <podsDir>/<uid> (volumes, termination logs). Host paths are never touched. */
  async tearDown(podUid: string): Promise<void> {
    const state = this.pods.get(podUid);
    if (state) await state.queue.catch(() => undefined);
    this.pods.delete(podUid);
    await rm(this.podDir(podUid), { recursive: true, force: true });
  }

  /**
   * The runtime bind mounts of a container: its volumeMounts (subPath and subPathExpr resolved, safely
   * inside the volume) plus the termination-log file. Volumes marked tmpfs are left to tmpfsFor().
   * Throws ContainerConfigError (upstream CreateContainerConfigError) for bad mounts.
   */
  async mountsFor(pod: KubeObject, container: Container, podVolumes: PodVolumes, options: MountOptions = {}): Promise<Mount[]> {
    const mounts: Mount[] = [];
    for (const mount of container.volumeMounts ?? []) {
      const volume = podVolumes[mount.name];
      if (!volume) throw new ContainerConfigError(`cannot find volume "${mount.name}" to mount into container "${container.name}"`);
      if (volume.tmpfs) continue;
      let hostPath = volume.hostPath;
      let subPath = mount.subPath ?? '';
      if (mount.subPathExpr) {
        try {
          subPath = expandSubPathExpr(mount.subPathExpr, options.env ?? []);
        } catch (error) {
          throw new ContainerConfigError(errorText(error));
        }
      }
      if (subPath !== '') hostPath = await this.prepareSubPath(volume.hostPath, subPath, mount.name, container.name);
      mounts.push({ hostPath, containerPath: mount.mountPath, readOnly: mount.readOnly === true || volume.readOnly });
    }
    const uid = pod.metadata.uid ?? '';
    const logPath = this.terminationLogPath(uid, container.name, options.restartCount ?? 0);
    await mkdir(path.dirname(logPath), { recursive: true, mode: 0o755 });
    const handle = await open(logPath, 'a');
    await handle.close();
    // Any container user must be able to write its termination message.
    await chmod(logPath, 0o666);
    mounts.push({ hostPath: logPath, containerPath: container.terminationMessagePath || defaultTerminationMessagePath, readOnly: false });
    return mounts;
  }

  /** Docker tmpfs mounts (ContainerConfig.tmpfs: container path → options) for the container's tmpfs volumes. */
  tmpfsFor(container: Container, podVolumes: PodVolumes): Record<string, string> {
    const tmpfs: Record<string, string> = {};
    for (const mount of container.volumeMounts ?? []) {
      const volume = podVolumes[mount.name];
      if (!volume?.tmpfs) continue;
      const options = [mount.readOnly ? 'ro' : 'rw'];
      if (volume.sizeBytes) options.push(`size=${volume.sizeBytes}`);
      tmpfs[mount.mountPath] = options.join(',');
    }
    return tmpfs;
  }

  private async serialised<T>(pod: KubeObject, work: (state: PodState) => Promise<T>): Promise<T> {
    const uid = pod.metadata.uid;
    if (!uid) throw new Error(`pod ${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''} has no uid`);
    let state = this.pods.get(uid);
    if (!state) this.pods.set(uid, (state = { tokens: new Map(), queue: Promise.resolve(), written: new Map() }));
    const current = state;
    const run = current.queue.catch(() => undefined).then(() => work(current));
    current.queue = run;
    return run;
  }

  private async prepareSubPath(volumePath: string, subPath: string, mountName: string, containerName: string): Promise<string> {
    if (path.isAbsolute(subPath)) throw new ContainerConfigError(`error SubPath \`${subPath}\` must not be an absolute path`);
    if (subPath.split('/').includes('..')) throw new ContainerConfigError(`unable to provision SubPath \`${subPath}\`: must not contain '..'`);
    const joined = path.join(volumePath, subPath);
    const exists = await stat(joined).then(
      () => true,
      () => false,
    );
    if (!exists) {
      try {
        // The new directory takes the volume's mode, so a non-root container user can write to it.
        const mode = (await stat(volumePath)).mode & 0o7777;
        await mkdir(joined, { recursive: true, mode });
        await chmod(joined, mode);
      } catch {
        throw new ContainerConfigError(`failed to create subPath directory for volumeMount "${mountName}" of container "${containerName}"`);
      }
    }
    // Resolve links (a configMap key is one) and refuse any that lead out of the volume.
    const [resolved, root] = await Promise.all([realpath(joined), realpath(volumePath)]);
    if (resolved !== root && !resolved.startsWith(root + path.sep)) throw new ContainerConfigError(`subpath "${resolved}" not within volume path "${root}"`);
    return resolved;
  }

  private async setUpVolume(pod: KubeObject, volume: Volume, state: PodState, refresh = false): Promise<PodVolume> {
    const uid = pod.metadata.uid ?? '';
    const plugin = pluginOf(volume);
    switch (plugin) {
      case 'emptyDir': {
        const dir = this.volumeDir(uid, plugin, volume.name);
        await this.makeVolumeDir(dir);
        const usage = usageOf(pod, volume.name);
        if (volume.emptyDir?.medium === 'Memory' && usage.mounts === 1 && !usage.subPath) {
          const size = parseQuantity(volume.emptyDir.sizeLimit);
          return { hostPath: dir, readOnly: false, tmpfs: true, sizeBytes: size ? quantityValue(size) : undefined };
        }
        return { hostPath: dir, readOnly: false };
      }
      case 'hostPath': {
        const source = volume.hostPath;
        if (!source?.path) throw new MountFailure('hostPath has no path');
        await checkHostPathType(source.path, source.type ?? '');
        return { hostPath: source.path, readOnly: false };
      }
      case 'configMap':
      case 'secret':
      case 'downwardAPI':
      case 'projected': {
        const dir = this.volumeDir(uid, plugin, volume.name);
        const payload = await this.payloadFor(pod, volume, plugin, state, refresh);
        const written = state.written.get(dir);
        if (refresh && written && samePayload(written, payload)) return { hostPath: dir, readOnly: true };
        state.written.delete(dir);
        await this.makeVolumeDir(dir);
        await new AtomicWriter(dir).write(payload);
        state.written.set(dir, payload);
        return { hostPath: dir, readOnly: true };
      }
      case 'persistentVolumeClaim':
        if (this.options.persistentVolumesDir !== undefined) return this.persistentVolume(pod, volume);
        throw new MountFailure(`volume type "${plugin}" is not supported by this kubelet`);
      default:
        throw new MountFailure(`volume type "${plugin}" is not supported by this kubelet`);
    }
  }

  /**
   * A claim's volume, after the kubelet's desired_state_of_world_populator checks: the claim must exist,
   * not be terminating, and be bound (phase Bound and spec.volumeName set); its directory is
   * `<persistentVolumesDir>/<volumeName>`, created if missing as a DirectoryOrCreate hostPath would be.
   */
  private async persistentVolume(pod: KubeObject, volume: Volume): Promise<PodVolume> {
    const source = isRecord(volume.persistentVolumeClaim) ? volume.persistentVolumeClaim : {};
    const claimName = typeof source.claimName === 'string' ? source.claimName : '';
    const namespace = pod.metadata.namespace ?? '';
    let claim: KubeObject;
    try {
      claim = await this.options.client.resource(resources.persistentvolumeclaims).get(namespace, claimName);
    } catch (error) {
      if (isNotFound(error)) throw new MountFailure(`error processing PVC ${namespace}/${claimName}: persistentvolumeclaim "${claimName}" not found`);
      throw error;
    }
    if (claim.metadata.deletionTimestamp) throw new MountFailure(`error processing PVC ${namespace}/${claimName}: can't start pod because PVC ${namespace}/${claimName} is being deleted`);
    const spec = isRecord(claim.spec) ? claim.spec : {};
    const phase = isRecord(claim.status) && typeof claim.status.phase === 'string' ? claim.status.phase : '';
    const volumeName = typeof spec.volumeName === 'string' ? spec.volumeName : '';
    if (phase !== 'Bound' || volumeName === '') throw new MountFailure(`error processing PVC ${namespace}/${claimName}: PVC ${namespace}/${claimName} has non-bound phase ("${phase}") or empty pvc.Spec.VolumeName ("${volumeName}")`);
    if (volumeName.includes('/') || volumeName === '.' || volumeName === '..') throw new MountFailure(`volume name "${volumeName}" of PVC ${namespace}/${claimName} is not a directory name`);
    const dir = path.join(this.options.persistentVolumesDir ?? '', volumeName);
    await mkdir(dir, { recursive: true, mode: 0o777 });
    return { hostPath: dir, readOnly: source.readOnly === true };
  }

  private async makeVolumeDir(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    // 0777 as upstream's emptyDir (and the config volumes wrapped in one): any container user may use it.
    await chmod(dir, 0o777);
  }

  private async payloadFor(pod: KubeObject, volume: Volume, plugin: string, state: PodState, shared: boolean): Promise<Payload> {
    switch (plugin) {
      case 'configMap': {
        const source = volume.configMap ?? {};
        const optional = source.optional === true;
        const object = await this.fetch(pod, 'configmap', source.name ?? '', optional, shared);
        return configMapPayload(object, source.items, source.defaultMode ?? defaultVolumeMode, optional);
      }
      case 'secret': {
        const source = volume.secret ?? {};
        const optional = source.optional === true;
        const object = await this.fetch(pod, 'secret', source.secretName ?? '', optional, shared);
        return secretPayload(object, source.items, source.defaultMode ?? defaultVolumeMode, optional);
      }
      case 'downwardAPI':
        return downwardAPIPayload(pod, volume.downwardAPI?.items, volume.downwardAPI?.defaultMode ?? defaultVolumeMode, this.options.nodeAllocatable);
      default:
        return this.projectedPayload(pod, volume, state, shared);
    }
  }

  /** upstream projected.collectData: every source merged, each failure collected. */
  private async projectedPayload(pod: KubeObject, volume: Volume, state: PodState, shared: boolean): Promise<Payload> {
    const defaultMode = volume.projected?.defaultMode ?? defaultVolumeMode;
    const payload: Payload = {};
    const errors: string[] = [];
    for (const source of volume.projected?.sources ?? []) {
      try {
        if (source.configMap) {
          const optional = source.configMap.optional === true;
          const object = await this.fetch(pod, 'configmap', source.configMap.name ?? '', optional, shared);
          Object.assign(payload, configMapPayload(object, source.configMap.items, defaultMode, optional));
        } else if (source.secret) {
          const optional = source.secret.optional === true;
          const object = await this.fetch(pod, 'secret', source.secret.name ?? '', optional, shared);
          Object.assign(payload, secretPayload(object, source.secret.items, defaultMode, optional));
        } else if (source.downwardAPI) {
          Object.assign(payload, downwardAPIPayload(pod, source.downwardAPI.items, defaultMode, this.options.nodeAllocatable));
        } else if (source.serviceAccountToken) {
          const token = source.serviceAccountToken;
          const value = await this.token(pod, token.audience || undefined, token.expirationSeconds ?? 3600, state);
          payload[token.path] = { data: Buffer.from(value), mode: defaultMode };
        }
      } catch (error) {
        errors.push(errorText(error));
      }
    }
    if (errors.length > 0) throw new MountFailure(aggregate(errors));
    return payload;
  }

  /**
   * The object, or undefined for an optional one that does not exist. `shared`: a read by another
   * pod's refresh less than objectTtlMs ago serves (found or not found; other errors are not kept).
   */
  private async fetch(pod: KubeObject, kind: 'configmap' | 'secret', name: string, optional: boolean, shared: boolean): Promise<KubeObject | undefined> {
    const namespace = pod.metadata.namespace;
    let object: KubeObject | undefined;
    if (shared) {
      const key = `${kind}/${namespace ?? ''}/${name}`;
      const now = this.now();
      let cached = this.objects.get(key);
      if (!cached || now - cached.fetchedAt >= objectTtlMs || now < cached.fetchedAt) {
        for (const [other, entry] of this.objects) if (now - entry.fetchedAt >= objectTtlMs) this.objects.delete(other);
        const entry: CachedObject = { fetchedAt: now, object: this.get(kind, namespace, name) };
        entry.object.catch(() => {
          if (this.objects.get(key) === entry) this.objects.delete(key);
        });
        this.objects.set(key, entry);
        cached = entry;
      }
      object = await cached.object;
    } else {
      object = await this.get(kind, namespace, name);
    }
    if (object) return object;
    // The root CA config map appears shortly after its namespace; the CA is known here meanwhile.
    if (kind === 'configmap' && name === rootCAConfigMap) return { metadata: { name, namespace }, data: { 'ca.crt': this.options.caCertPem } };
    if (optional) return undefined;
    throw new MountFailure(`${kind} "${name}" not found`);
  }

  /** GET of a config map or secret; undefined when it does not exist. */
  private async get(kind: 'configmap' | 'secret', namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.options.client.resource(kind === 'configmap' ? resources.configmaps : resources.secrets).get(namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** A cached token, renewed past 80 % of its lifetime or after 24 h; a still-valid one survives a failed renewal. */
  private async token(pod: KubeObject, audience: string | undefined, expirationSeconds: number, state: PodState): Promise<string> {
    const key = `${audience ?? ''}|${expirationSeconds}`;
    const cached = state.tokens.get(key);
    const now = this.now();
    if (cached && now < cached.issuedAt + (cached.expiresAt - cached.issuedAt) * 0.8 && now < cached.issuedAt + maxTokenAgeMs) return cached.token;
    try {
      const issued = await this.requestToken(pod, audience, expirationSeconds);
      const expiresAt = issued.expirationTimestamp instanceof Date ? issued.expirationTimestamp.getTime() : Date.parse(issued.expirationTimestamp);
      const entry: CachedToken = { token: issued.token, issuedAt: now, expiresAt: Number.isFinite(expiresAt) ? expiresAt : now + expirationSeconds * 1000 };
      state.tokens.set(key, entry);
      return entry.token;
    } catch (error) {
      if (cached && now < cached.expiresAt) return cached.token;
      throw new MountFailure(`failed to fetch token: ${errorText(error)}`);
    }
  }
}

/** Whether two payloads project the same files with the same modes. */
function samePayload(left: Payload, right: Payload): boolean {
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) {
    const a = left[key];
    const b = Object.prototype.hasOwnProperty.call(right, key) ? right[key] : undefined;
    if (!b || a.mode !== b.mode || !a.data.equals(b.data)) return false;
  }
  return true;
}
