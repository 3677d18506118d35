// DockerRuntime: the ContainerRuntime on a Docker daemon, after dockershim/cri-dockerd
// (core/sandbox_run.go, naming.go, container_create.go, docker_container.go, logs.go, exec.go):
// one "pause" sandbox container per pod holding the network and IPC namespaces on the cluster's
// bridge network (or the host's, for hostNetwork, hostIPC and hostPID pods), app containers joined
// with `container:<sandbox>` (see containerCreateOptions for processes), restart policy `no` (the
// kubelet owns restarts), and every container named and labelled so that a restarted kubelet
// rebuilds its view from Docker alone. Names carry a cluster prefix and every list filters by the
// cluster and node labels, so two clusters on one daemon never see each other's containers.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { basename } from 'node:path';
import { PassThrough, Readable, Writable, type Duplex } from 'node:stream';
import Docker from 'dockerode';
import {
  RuntimeLabels,
  type ContainerConfig,
  type ContainerRuntime,
  type ContainerState,
  type ContainerStats,
  type ContainerStatus,
  type ImageInfo,
  type LogOptions,
  type ProgramResult,
  type PullProgress,
  type RegistryAuth,
  type RuntimeInfo,
  type SandboxConfig,
  type SandboxNetworkProgram,
  type SandboxStatus,
  type StreamOptions,
  type StreamSession,
} from '../kubelet/runtime/containerRuntime';
import { chooseSubnet, hostNetworks, splitSubnet } from '../../shared/net/subnets';
import { parseCidr, type Cidr } from '../../shared/net/ipv4';
import { mergeStreams, splitStreams } from './dockerStreams';
import { pauseArchitecture, pauseExecutable, pauseImageLabel, pauseImageTag } from './pauseImage';
import { readFirstTarFile, writeTar } from './tar';
import { dockerErrorMessage, importOneFileImage, isNotFound, memoize, statusCodeOf } from './daemon';
import { CgroupStatsReader } from './cgroupStats';

export interface DockerRuntimeOptions {
  clusterId: string;
  nodeName: string;
  networkName: string;
  /** the daemon's socket; default: DOCKER_HOST or /var/run/docker.sock */
  socketPath?: string;
  /** the cluster's data directory (reserved: sandbox checkpoints, pod files) */
  dataDir?: string;
  /** a pull that reports nothing for this long is aborted (default 60 s) */
  pullInactivityTimeoutMs?: number;
  /** the subnet to create the cluster network with when it does not exist (the one used before) */
  preferredSubnet?: string;
}

/** Values of RuntimeLabels.type. */
export const containerTypes = { sandbox: 'podsandbox', container: 'container', networkHelper: 'network-helper' } as const;

const execOutputLimit = 4 * 1024 * 1024;

/** The docker name prefix of a cluster: `kd-` and the first 8 letters/digits of its id. */
export function clusterNamePrefix(clusterId: string): string {
  const cleaned = clusterId.replace(/[^a-zA-Z0-9]/g, '').slice(0, 8);
  return `kd-${cleaned || 'cluster'}`;
}

/** `kd-<id8>_k8s_POD_<pod>_<ns>_<uid>_<attempt>` (dockershim's makeSandboxName under our prefix). */
export function sandboxContainerName(clusterId: string, config: Pick<SandboxConfig, 'podName' | 'namespace' | 'podUid' | 'attempt'>): string {
  return `${clusterNamePrefix(clusterId)}_k8s_POD_${config.podName}_${config.namespace}_${config.podUid}_${config.attempt}`;
}

/** `kd-<id8>_k8s_<ctr>_<pod>_<ns>_<uid>_<restartCount>` (dockershim's makeContainerName). */
export function appContainerName(clusterId: string, config: Pick<ContainerConfig, 'name' | 'podName' | 'namespace' | 'podUid' | 'restartCount'>): string {
  return `${clusterNamePrefix(clusterId)}_k8s_${config.name}_${config.podName}_${config.namespace}_${config.podUid}_${config.restartCount}`;
}

/** `busybox` → `busybox:latest`; references with a tag or a digest stay as they are. */
export function normalizeImageReference(reference: string): string {
  if (reference.includes('@')) return reference;
  const lastSegment = reference.slice(reference.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? reference : `${reference}:latest`;
}

/** Splits a reference into Docker's `fromImage` and `tag` (a digest counts as the tag). */
export function splitImageReference(reference: string): { repository: string; tag: string } {
  const at = reference.indexOf('@');
  if (at >= 0) return { repository: reference.slice(0, at), tag: reference.slice(at + 1) };
  const normalized = normalizeImageReference(reference);
  const colon = normalized.lastIndexOf(':');
  return { repository: normalized.slice(0, colon), tag: normalized.slice(colon + 1) };
}

/** Kubernetes command/args to Docker Entrypoint/Cmd (upstream kuberuntime + Docker's config merge). */
export function entrypointAndCmd(command: string[] | undefined, args: string[] | undefined): { Entrypoint?: string[]; Cmd?: string[] } {
  const result: { Entrypoint?: string[]; Cmd?: string[] } = {};
  // A non-empty Entrypoint stops Docker from inheriting the image's Cmd, which is what
  // Kubernetes wants for `command` without `args`.
  if (command && command.length > 0) result.Entrypoint = command;
  if (args && args.length > 0) result.Cmd = args;
  return result;
}

/**
 * Docker's create options for a pod container (cri-dockerd's CreateContainer with
 * modifyContainerNamespaceOptions and the security-context mapping): joined to the sandbox's
 * network, IPC from the sandbox or the host (hostIPC), processes of its own, the sandbox's
 * (shareProcessNamespace), the host's (hostPID) or a target container's (an ephemeral container's
 * targetContainerName); restart policy `no`, json-file logs, limits, user, capabilities, privileged,
 * no_new_privs and seccomp, and the labels adoption reads.
 */
export function containerCreateOptions(clusterId: string, sandboxId: string, config: ContainerConfig, ownLabels: Record<string, string>): Docker.ContainerCreateOptions {
  const labels: Record<string, string> = {
    ...config.labels,
    ...ownLabels,
    [RuntimeLabels.podUid]: config.podUid,
    [RuntimeLabels.podName]: config.podName,
    [RuntimeLabels.podNamespace]: config.namespace,
    [RuntimeLabels.containerName]: config.name,
    [RuntimeLabels.restartCount]: String(config.restartCount),
    [RuntimeLabels.containerHash]: config.specHash,
    [RuntimeLabels.sandboxId]: sandboxId,
    [RuntimeLabels.init]: String(config.init),
  };
  if (config.terminationMessagePath) labels[RuntimeLabels.terminationMessagePath] = config.terminationMessagePath;
  const security = config.security;
  const namespaces = config.namespaces ?? { pid: 'container', ipc: 'pod' };
  const hostConfig: Docker.HostConfig = {
    NetworkMode: `container:${sandboxId}`,
    IpcMode: namespaces.ipc === 'node' ? 'host' : `container:${sandboxId}`,
    RestartPolicy: { Name: 'no' },
    Binds: config.mounts.map((mount) => `${mount.hostPath}:${mount.containerPath}${mount.readOnly ? ':ro' : ''}`),
    LogConfig: { Type: 'json-file', Config: {} },
    Privileged: security.privileged ?? false,
    ReadonlyRootfs: security.readOnlyRootFilesystem ?? false,
  };
  if (namespaces.pid === 'node') hostConfig.PidMode = 'host';
  else if (namespaces.pid === 'pod') hostConfig.PidMode = `container:${sandboxId}`;
  else if (namespaces.pid === 'target' && namespaces.targetId) hostConfig.PidMode = `container:${namespaces.targetId}`;
  if (config.tmpfs && Object.keys(config.tmpfs).length > 0) hostConfig.Tmpfs = config.tmpfs;
  if (config.resources.cpuMillis !== undefined && config.resources.cpuMillis > 0) hostConfig.NanoCpus = config.resources.cpuMillis * 1_000_000;
  if (config.resources.cpuRequestMillis !== undefined) hostConfig.CpuShares = milliCpuToShares(config.resources.cpuRequestMillis);
  if (config.resources.memoryLimitBytes !== undefined && config.resources.memoryLimitBytes > 0) {
    hostConfig.Memory = config.resources.memoryLimitBytes;
    // No swap beyond the limit, as the kubelet configures it: the limit is what OOM-kills.
    hostConfig.MemorySwap = config.resources.memoryLimitBytes;
  }
  if (security.supplementalGroups && security.supplementalGroups.length > 0) hostConfig.GroupAdd = security.supplementalGroups.map(String);
  if (security.capabilitiesAdd && security.capabilitiesAdd.length > 0) hostConfig.CapAdd = security.capabilitiesAdd;
  if (security.capabilitiesDrop && security.capabilitiesDrop.length > 0) hostConfig.CapDrop = security.capabilitiesDrop;
  const securityOptions: string[] = [];
  if (security.noNewPrivileges) securityOptions.push('no-new-privileges:true');
  if (security.seccomp === 'Unconfined') securityOptions.push('seccomp=unconfined');
  if (securityOptions.length > 0) hostConfig.SecurityOpt = securityOptions;
  const create: Docker.ContainerCreateOptions = {
    name: appContainerName(clusterId, config),
    Image: config.image,
    ...entrypointAndCmd(config.command, config.args),
    Env: config.env,
    Labels: labels,
    OpenStdin: config.stdin,
    StdinOnce: config.stdinOnce,
    Tty: config.tty,
    AttachStdin: config.stdin,
    AttachStdout: true,
    AttachStderr: true,
    // The kubelet probes; an image's HEALTHCHECK would only add load (dockershim disabled it too).
    Healthcheck: { Test: ['NONE'] },
    HostConfig: hostConfig,
  };
  if (config.workingDir) create.WorkingDir = config.workingDir;
  // runAsGroup without runAsUser cannot be expressed in Docker's User field; it is dropped.
  if (security.runAsUser !== undefined) create.User = security.runAsGroup !== undefined ? `${security.runAsUser}:${security.runAsGroup}` : String(security.runAsUser);
  return create;
}

/** The kubelet's MilliCPUToShares: 1024 shares per CPU, at least 2. */
export function milliCpuToShares(milliCpu: number): number {
  return Math.max(2, Math.floor((milliCpu * 1024) / 1000));
}

/** Docker's inspect State → the CRI state, reason and times, as cri-dockerd's ContainerStatus. */
export function containerStateFromInspect(created: string, state: { Running: boolean; ExitCode: number; OOMKilled: boolean; Error: string; StartedAt: string; FinishedAt: string }): {
  state: ContainerState;
  reason?: string;
  message?: string;
  exitCode?: number;
  startedAt?: Date;
  finishedAt?: Date;
} {
  const startedAt = parseDockerTime(state.StartedAt);
  const finishedAt = parseDockerTime(state.FinishedAt);
  if (state.Running) return { state: 'running', startedAt };
  const message = state.Error || undefined;
  if (finishedAt) {
    const reason = state.OOMKilled ? 'OOMKilled' : state.ExitCode === 0 ? 'Completed' : 'Error';
    return { state: 'exited', reason, message, exitCode: state.ExitCode, startedAt, finishedAt };
  }
  if (state.ExitCode !== 0) {
    // Docker failed to start it: report it as exited at its creation time.
    const createdAt = parseDockerTime(created);
    return { state: 'exited', reason: 'ContainerCannotRun', message, exitCode: state.ExitCode, startedAt: createdAt, finishedAt: createdAt };
  }
  return { state: 'created', message };
}

function parseDockerTime(value: string | undefined): Date | undefined {
  if (!value || value.startsWith('0001-01-01')) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function withTimeout<T>(promise: Promise<T>, milliseconds: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${milliseconds} ms`)), milliseconds);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberAt(value: unknown, ...path: string[]): number | undefined {
  let current: unknown = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return typeof current === 'number' ? current : undefined;
}

// One network and one pause image per daemon and process: N kubelets (--nodes N) share them and
// must not race to create them.
/** The cluster's Docker bridge network (one user-defined bridge per cluster, labelled with the cluster id; dockershim used a CNI network). */
export interface ClusterNetwork {
  id: string;
  name: string;
  subnet: string; // 10.x.0.0/16
  gateway: string; // 10.x.0.1
  /** where Docker assigns pod IPs (lower half) */
  podRange: string;
  /** free for Service ClusterIPs (upper half); '' when the network was not created by us */
  serviceRange: string;
}

const networkPromises = new Map<string, Promise<ClusterNetwork>>();
const pausePromises = new Map<string, Promise<string>>();

function describeNetwork(network: Docker.NetworkInspectInfo): ClusterNetwork {
  const config = network.IPAM?.Config?.find((entry) => entry.Subnet && parseCidr(entry.Subnet));
  const subnet = config?.Subnet ?? '';
  const halves = subnet ? splitSubnet(subnet) : undefined;
  const ownsUpperHalf = Boolean(config?.IPRange && halves && config.IPRange === halves.podRange);
  return {
    id: network.Id,
    name: network.Name,
    subnet,
    gateway: config?.Gateway ?? halves?.gateway ?? '',
    podRange: config?.IPRange ?? subnet,
    serviceRange: ownsUpperHalf && halves ? halves.serviceRange : '',
  };
}

async function findNetwork(docker: Docker, name: string): Promise<Docker.NetworkInspectInfo | undefined> {
  // The name filter matches substrings; insist on the exact name.
  const networks = await docker.listNetworks({ filters: { name: [name] } });
  const match = networks.find((network) => network.Name === name);
  if (!match) return undefined;
  return (await docker.getNetwork(match.Id).inspect()) as Docker.NetworkInspectInfo;
}

/**
 * Creates (or finds) the cluster's bridge network: a free 10.x.0.0/16 with Docker assigning pod IPs
 * from the lower half. Idempotent; refuses a same-named network of another cluster.
 */
export function ensureNetwork(docker: Docker, options: { name: string; clusterId: string; preferredSubnet?: string }, cacheKey = 'default'): Promise<ClusterNetwork> {
  return memoize(networkPromises, `${cacheKey}|${options.name}`, async () => {
    const tried = new Set<string>();
    for (let attempt = 0; attempt < 20; attempt++) {
      const existing = await findNetwork(docker, options.name);
      if (existing) {
        const owner = existing.Labels?.[RuntimeLabels.cluster];
        if (owner !== options.clusterId) {
          throw new Error(`Docker network ${options.name} exists but belongs to ${owner ? `cluster ${owner}` : 'no kubedesk cluster'}; choose another network name`);
        }
        return describeNetwork(existing);
      }
      const used: Cidr[] = [...hostNetworks()];
      for (const network of await docker.listNetworks()) {
        for (const config of network.IPAM?.Config ?? []) {
          const cidr = config.Subnet ? parseCidr(config.Subnet) : undefined;
          if (cidr) used.push(cidr);
        }
      }
      // The subnet the cluster used before keeps its Service IPs valid when the network is recreated.
      const preferred = options.preferredSubnet && !tried.has(options.preferredSubnet) ? options.preferredSubnet : undefined;
      const subnet = preferred ?? chooseSubnet(used, `${options.clusterId}/${options.name}`, tried);
      if (!subnet) throw new Error('no free 10.x.0.0/16 subnet for the cluster network');
      const { gateway, podRange } = splitSubnet(subnet);
      try {
        await docker.createNetwork({
          Name: options.name,
          CheckDuplicate: true,
          Driver: 'bridge',
          Labels: { [RuntimeLabels.cluster]: options.clusterId },
          IPAM: { Driver: 'default', Config: [{ Subnet: subnet, IPRange: podRange, Gateway: gateway }] },
        });
      } catch (error) {
        const message = dockerErrorMessage(error);
        // Another process created it meanwhile (name) or took the subnet (pool overlap): look again.
        if (statusCodeOf(error) === 409 || /already exists/i.test(message)) continue;
        if (/overlap/i.test(message)) {
          tried.add(subnet);
          continue;
        }
        throw new Error(`creating Docker network ${options.name}: ${message}`);
      }
    }
    throw new Error(`could not create Docker network ${options.name}`);
  });
}

/**
 * Builds the pause image from a generated ELF if the daemon lacks it (`docker import` of a one-file
 * tar; no registry) and returns its tag. Idempotent; the tag depends only on the executable.
 */
export function ensurePauseImage(docker: Docker, cacheKey = 'default'): Promise<string> {
  return memoize(pausePromises, cacheKey, async () => {
    const info: unknown = await docker.info();
    const architecture = pauseArchitecture(isRecord(info) && typeof info.Architecture === 'string' ? info.Architecture : 'x86_64');
    return importOneFileImage(docker, {
      tag: pauseImageTag(architecture),
      file: 'pause',
      content: pauseExecutable(architecture),
      changes: ['ENTRYPOINT ["/pause"]', `LABEL ${pauseImageLabel}=true`],
      description: 'the pause image',
    });
  });
}

/**
 * A failed pull. The message is the daemon's own ("Error response from daemon: …" as the Docker
 * CLI and dockershim showed it), ready for the kubelet's `Failed to pull image "<ref>": <message>`.
 */
export class ImagePullError extends Error {
  constructor(
    readonly reference: string,
    detail: string,
  ) {
    super(`Error response from daemon: ${detail}`);
    this.name = 'ImagePullError';
  }
}

interface CachedStatus {
  listState: string;
  status: ContainerStatus;
}

export class DockerRuntime implements ContainerRuntime {
  readonly docker: Docker;
  readonly clusterId: string;
  readonly nodeName: string;
  readonly networkName: string;
  readonly dataDir: string | undefined;
  private readonly preferredSubnet: string | undefined;
  private readonly cacheKey: string;
  private readonly pullInactivityTimeoutMs: number;
  private prepared: Promise<{ network: ClusterNetwork; pauseImage: string }> | undefined;
  // listContainers inspects each container; running and exited containers do not change until
  // their list state changes, so their inspect results are kept (PLEG relists every second).
  private readonly statusCache = new Map<string, CachedStatus>();
  /** programs copied into sandboxes by runInSandboxNetwork during this run: sandbox id → paths */
  private readonly sandboxPrograms = new Map<string, Set<string>>();
  private readonly networkExecutables = new Map<string, { path: string; content: Buffer; modifiedMs: number }>();
  private readonly imageIdentities = new Map<string, string>();
  private readonly cgroups = new CgroupStatsReader();

  constructor(options: DockerRuntimeOptions) {
    this.clusterId = options.clusterId;
    this.nodeName = options.nodeName;
    this.networkName = options.networkName;
    this.dataDir = options.dataDir;
    this.preferredSubnet = options.preferredSubnet;
    this.pullInactivityTimeoutMs = options.pullInactivityTimeoutMs ?? 60_000;
    this.docker = options.socketPath ? new Docker({ socketPath: options.socketPath }) : new Docker();
    this.cacheKey = options.socketPath ?? process.env.DOCKER_HOST ?? 'default';
  }

  /** Ensures the cluster network and the pause image; called by runSandbox, safe to call any time. */
  start(): Promise<{ network: ClusterNetwork; pauseImage: string }> {
    if (!this.prepared) {
      const prepared = (async () => {
        const [network, pauseImage] = await Promise.all([
          ensureNetwork(this.docker, { name: this.networkName, clusterId: this.clusterId, preferredSubnet: this.preferredSubnet }, this.cacheKey),
          ensurePauseImage(this.docker, this.cacheKey),
        ]);
        return { network, pauseImage };
      })();
      this.prepared = prepared;
      prepared.catch(() => {
        if (this.prepared === prepared) this.prepared = undefined;
      });
    }
    return this.prepared;
  }

  private ownLabels(type: string): Record<string, string> {
    return { [RuntimeLabels.cluster]: this.clusterId, [RuntimeLabels.node]: this.nodeName, [RuntimeLabels.type]: type };
  }

  private labelFilters(type: string): string[] {
    return Object.entries(this.ownLabels(type)).map(([key, value]) => `${key}=${value}`);
  }

  private isOwn(labels: Record<string, string> | undefined): boolean {
    return labels?.[RuntimeLabels.cluster] === this.clusterId && labels?.[RuntimeLabels.node] === this.nodeName;
  }

  /** Inspect, but only containers of this cluster and node; undefined when absent or foreign. */
  private async inspectOwn(id: string): Promise<Docker.ContainerInspectInfo | undefined> {
    try {
      const info = await this.docker.getContainer(id).inspect();
      return this.isOwn(info.Config.Labels) ? info : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private async requireOwn(id: string): Promise<Docker.ContainerInspectInfo> {
    const info = await this.inspectOwn(id);
    if (!info) throw new Error(`container ${id} not found`);
    return info;
  }

  async info(): Promise<RuntimeInfo> {
    const info: unknown = await withTimeout(this.docker.info() as Promise<unknown>, 10_000, 'docker info');
    if (!isRecord(info)) throw new Error('docker info: unexpected answer');
    const text = (key: string): string => (typeof info[key] === 'string' ? (info[key] as string) : '');
    const architecture = text('Architecture');
    return {
      runtimeName: 'docker',
      runtimeVersion: text('ServerVersion'),
      operatingSystem: text('OperatingSystem'),
      kernelVersion: text('KernelVersion'),
      architecture: architecture === 'x86_64' ? 'amd64' : architecture === 'aarch64' ? 'arm64' : architecture,
      cpus: typeof info.NCPU === 'number' ? info.NCPU : 0,
      memoryBytes: typeof info.MemTotal === 'number' ? info.MemTotal : 0,
    };
  }

  async ping(): Promise<boolean> {
    try {
      await withTimeout(this.docker.ping() as Promise<unknown>, 3_000, 'docker ping');
      return true;
    } catch {
      return false;
    }
  }

  // ---- images ----

  async imageStatus(reference: string): Promise<ImageInfo | undefined> {
    try {
      const image = await this.docker.getImage(normalizeImageReference(reference)).inspect();
      return { id: image.Id, repoTags: image.RepoTags ?? [], repoDigests: image.RepoDigests ?? [], sizeBytes: image.Size, user: image.Config?.User ?? '' };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async pullImage(reference: string, auth: RegistryAuth | undefined, onProgress: (progress: PullProgress) => void): Promise<ImageInfo> {
    const { repository, tag } = splitImageReference(reference);
    const abort = new AbortController();
    // Bound the pull by silence, not total time: a big image may take minutes but always reports.
    let timer: NodeJS.Timeout | undefined;
    let stalled: (error: Error) => void = () => undefined;
    const silence = new Promise<never>((_resolve, reject) => (stalled = reject));
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        abort.abort();
        stalled(new Error(`no progress from Docker for ${this.pullInactivityTimeoutMs / 1000} s`));
      }, this.pullInactivityTimeoutMs);
    };
    arm();
    const pull = (async () => {
      const stream = await this.dial<Readable>({
        path: '/images/create?',
        method: 'POST',
        options: { fromImage: repository, tag },
        authconfig: auth ? registryAuth(auth) : undefined,
        abortSignal: abort.signal,
        isStream: true,
        statusCodes: { 200: true, 404: 'not found', 500: 'server error' },
      });
      await new Promise<void>((resolve, reject) => {
        this.docker.modem.followProgress(
          stream,
          (error: Error | null, output: unknown[]) => {
            if (error) return reject(error);
            // Pull failures after the 200 arrive as {"error": …} events.
            const failure = output.find((event) => isRecord(event) && typeof event.error === 'string');
            if (isRecord(failure)) return reject(new Error(String(failure.error)));
            resolve();
          },
          (event: unknown) => {
            arm();
            if (isRecord(event)) onProgress(progressFromEvent(event));
          },
        );
      });
    })();
    try {
      await Promise.race([pull, silence]);
    } catch (error) {
      abort.abort();
      throw new ImagePullError(reference, dockerErrorMessage(error));
    } finally {
      clearTimeout(timer);
    }
    const image = await this.imageStatus(reference);
    if (!image) throw new ImagePullError(reference, 'Docker reported success but the image is absent');
    return image;
  }

  private dial<T>(options: Parameters<Docker['modem']['dial']>[0]): Promise<T> {
    return new Promise((resolve, reject) => {
      this.docker.modem.dial(options, (error: Error | null, result: unknown) => {
        if (error) reject(error);
        else resolve(result as T);
      });
    });
  }

  /** docker-pullable://repo@sha256:… when the image has a registry digest, else docker://sha256:… */
  private async imageIdentity(imageId: string): Promise<string> {
    const cached = this.imageIdentities.get(imageId);
    if (cached) return cached;
    let identity = `docker://${imageId}`;
    try {
      const image = await this.docker.getImage(imageId).inspect();
      if (image.RepoDigests && image.RepoDigests.length > 0) identity = `docker-pullable://${image.RepoDigests[0]}`;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    this.imageIdentities.set(imageId, identity);
    return identity;
  }

  // ---- sandboxes ----

  async runSandbox(config: SandboxConfig): Promise<SandboxStatus> {
    const { pauseImage } = await this.start();
    const labels: Record<string, string> = {
      ...config.labels,
      ...this.ownLabels(containerTypes.sandbox),
      [RuntimeLabels.podUid]: config.podUid,
      [RuntimeLabels.podName]: config.podName,
      [RuntimeLabels.podNamespace]: config.namespace,
      [RuntimeLabels.attempt]: String(config.attempt),
    };
    const exposedPorts: Record<string, Record<string, never>> = {};
    const portBindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
    if (!config.hostNetwork) {
      for (const mapping of config.portMappings) {
        if (!mapping.hostPort) continue;
        const key = `${mapping.containerPort}/${mapping.protocol.toLowerCase()}`;
        exposedPorts[key] = {};
        (portBindings[key] ??= []).push({ HostIp: mapping.hostIP || '127.0.0.1', HostPort: String(mapping.hostPort) });
      }
    }
    const hostConfig: Docker.HostConfig = {
      NetworkMode: config.hostNetwork ? 'host' : this.networkName,
      // The pod's packet filter (NetworkPolicy) is set from inside the sandbox (runInSandboxNetwork);
      // app containers join its network namespace but not this capability.
      CapAdd: config.hostNetwork ? [] : ['NET_ADMIN'],
      IpcMode: config.hostIPC ? 'host' : 'shareable',
      // docker-init as PID 1 forwards SIGTERM to the pause loop: stop takes 0.1 s, not the timeout.
      Init: true,
      RestartPolicy: { Name: 'no' },
      PortBindings: portBindings,
      ExtraHosts: config.extraHosts ?? [],
    };
    if (config.hostPID) hostConfig.PidMode = 'host';
    // DNS settings are allowed on the sandbox only; joined containers share its resolv.conf.
    if (config.dns) {
      if (config.dns.servers.length > 0) hostConfig.Dns = config.dns.servers;
      if (config.dns.searches.length > 0) hostConfig.DnsSearch = config.dns.searches;
      if (config.dns.options.length > 0) hostConfig.DnsOptions = config.dns.options;
    }
    const create: Docker.ContainerCreateOptions = {
      name: sandboxContainerName(this.clusterId, config),
      Image: pauseImage,
      Labels: labels,
      ExposedPorts: exposedPorts,
      HostConfig: hostConfig,
    };
    if (!config.hostNetwork) create.Hostname = config.hostname;
    // Docker writes "<ip> <hostname>.<domainname> <hostname>" into /etc/hosts, as the kubelet does for a subdomain
    if (!config.hostNetwork && config.domainname) create.Domainname = config.domainname;
    let container: Docker.Container;
    try {
      container = await this.createNamed(create);
    } catch (error) {
      // Someone removed the pause image (`docker image prune -a`): build it again, once.
      if (!/no such image/i.test(dockerErrorMessage(error))) throw error;
      pausePromises.delete(this.cacheKey);
      this.prepared = undefined;
      create.Image = (await this.start()).pauseImage;
      container = await this.createNamed(create);
    }
    try {
      await container.start();
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw new Error(`starting the pod sandbox: ${dockerErrorMessage(error)}`);
    }
    const info = await container.inspect();
    return this.sandboxFromInspect(info);
  }

  /** Creates a container; on a name conflict adds a random suffix as dockershim did. */
  private async createNamed(options: Docker.ContainerCreateOptions): Promise<Docker.Container> {
    try {
      return await this.docker.createContainer(options);
    } catch (error) {
      if (statusCodeOf(error) === 409 && options.name) {
        try {
          return await this.docker.createContainer({ ...options, name: `${options.name}_${randomBytes(4).toString('hex')}` });
        } catch (retryError) {
          throw new Error(`creating container: ${dockerErrorMessage(retryError)}`);
        }
      }
      throw new Error(`creating container ${options.name ?? ''}: ${dockerErrorMessage(error)}`);
    }
  }

  private sandboxIp(networks: Record<string, { IPAddress?: string }> | undefined): string {
    if (!networks) return '';
    return networks[this.networkName]?.IPAddress ?? '';
  }

  private sandboxFromInspect(info: Docker.ContainerInspectInfo): SandboxStatus {
    const labels = info.Config.Labels ?? {};
    return {
      id: info.Id,
      podUid: labels[RuntimeLabels.podUid] ?? '',
      podName: labels[RuntimeLabels.podName] ?? '',
      namespace: labels[RuntimeLabels.podNamespace] ?? '',
      attempt: Number(labels[RuntimeLabels.attempt] ?? 0) || 0,
      state: info.State.Running ? 'ready' : 'notready',
      ip: info.State.Running ? this.sandboxIp(info.NetworkSettings.Networks) : '',
      createdAt: new Date(info.Created),
      labels,
    };
  }

  async stopSandbox(id: string, timeoutSeconds: number): Promise<void> {
    await this.stopContainer(id, timeoutSeconds);
  }

  async removeSandbox(id: string): Promise<void> {
    await this.removeContainer(id);
  }

  async listSandboxes(): Promise<SandboxStatus[]> {
    const containers = await this.docker.listContainers({ all: true, filters: { label: this.labelFilters(containerTypes.sandbox) } });
    return containers.map((container) => {
      const labels = container.Labels ?? {};
      const running = container.State === 'running';
      return {
        id: container.Id,
        podUid: labels[RuntimeLabels.podUid] ?? '',
        podName: labels[RuntimeLabels.podName] ?? '',
        namespace: labels[RuntimeLabels.podNamespace] ?? '',
        attempt: Number(labels[RuntimeLabels.attempt] ?? 0) || 0,
        state: running ? 'ready' : 'notready',
        ip: running ? this.sandboxIp(container.NetworkSettings?.Networks) : '',
        createdAt: new Date(container.Created * 1000),
        labels,
      };
    });
  }

  // ---- containers ----

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    const container = await this.createNamed(containerCreateOptions(this.clusterId, sandboxId, config, this.ownLabels(containerTypes.container)));
    return container.id;
  }

  async startContainer(id: string): Promise<void> {
    try {
      await this.docker.getContainer(id).start();
    } catch (error) {
      if (statusCodeOf(error) === 304) return;
      throw new Error(`starting container: ${dockerErrorMessage(error)}`);
    }
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    try {
      await this.docker.getContainer(id).stop({ t: Math.max(0, Math.ceil(timeoutSeconds)) });
    } catch (error) {
      const code = statusCodeOf(error);
      if (code === 304 || code === 404) return;
      throw new Error(`stopping container: ${dockerErrorMessage(error)}`);
    }
  }

  async removeContainer(id: string): Promise<void> {
    this.statusCache.delete(id);
    this.cgroups.forget(id);
    this.sandboxPrograms.delete(id);
    try {
      await this.docker.getContainer(id).remove({ force: true, v: true });
    } catch (error) {
      const code = statusCodeOf(error);
      // 409: a removal is already in progress.
      if (code === 404 || code === 409) return;
      throw new Error(`removing container: ${dockerErrorMessage(error)}`);
    }
  }

  async listContainers(): Promise<ContainerStatus[]> {
    const containers = await this.docker.listContainers({ all: true, filters: { label: this.labelFilters(containerTypes.container) } });
    const seen = new Set<string>();
    const statuses = await Promise.all(
      containers.map(async (container) => {
        seen.add(container.Id);
        const cached = this.statusCache.get(container.Id);
        if (cached && cached.listState === container.State) return cached.status;
        const status = await this.containerStatus(container.Id);
        // 'created' may turn into a failed start without changing its list state: never cache it.
        if (status && (container.State === 'running' || container.State === 'exited')) {
          this.statusCache.set(container.Id, { listState: container.State, status });
        }
        return status;
      }),
    );
    for (const id of this.statusCache.keys()) if (!seen.has(id)) this.statusCache.delete(id);
    // a stopped or removed container's cgroup files are closed (a restart makes a new cgroup)
    this.cgroups.retain(new Set(containers.filter((container) => container.State === 'running').map((container) => container.Id)));
    return statuses.filter((status): status is ContainerStatus => status !== undefined);
  }

  async containerStatus(id: string): Promise<ContainerStatus | undefined> {
    const info = await this.inspectOwn(id);
    if (!info) return undefined;
    const labels = info.Config.Labels ?? {};
    if (labels[RuntimeLabels.type] !== containerTypes.container) return undefined;
    const state = containerStateFromInspect(info.Created, info.State);
    return {
      id: info.Id,
      sandboxId: labels[RuntimeLabels.sandboxId] ?? '',
      podUid: labels[RuntimeLabels.podUid] ?? '',
      name: labels[RuntimeLabels.containerName] ?? '',
      init: labels[RuntimeLabels.init] === 'true',
      image: info.Config.Image,
      imageId: await this.imageIdentity(info.Image),
      state: state.state,
      createdAt: new Date(info.Created),
      startedAt: state.startedAt,
      finishedAt: state.finishedAt,
      exitCode: state.exitCode,
      reason: state.reason,
      message: state.message,
      restartCount: Number(labels[RuntimeLabels.restartCount] ?? 0) || 0,
      specHash: labels[RuntimeLabels.containerHash] ?? '',
      labels,
    };
  }

  async readFile(id: string, path: string, maxBytes: number): Promise<string | undefined> {
    let archive: NodeJS.ReadableStream;
    try {
      archive = await this.docker.getContainer(id).getArchive({ path });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new Error(`reading ${path}: ${dockerErrorMessage(error)}`);
    }
    const content = await readFirstTarFile(archive, maxBytes);
    return content?.toString('utf8');
  }

  // ---- streams ----

  async logs(id: string, options: LogOptions): Promise<Readable> {
    const info = await this.requireOwn(id);
    const query: Record<string, string | number | boolean> = {
      stdout: true,
      stderr: true,
      follow: options.follow,
      timestamps: options.timestamps,
      tail: options.tailLines !== undefined ? Math.max(0, options.tailLines) : 'all',
    };
    const since = options.sinceTime ? options.sinceTime.getTime() / 1000 : options.sinceSeconds !== undefined ? Date.now() / 1000 - options.sinceSeconds : undefined;
    if (since !== undefined) query.since = since.toFixed(9);
    // Always a stream (dockerode buffers non-follow logs whole; a 100 MB log must flow).
    const source = await this.dial<Readable>({
      path: `/containers/${info.Id}/logs?`,
      method: 'GET',
      options: query,
      isStream: true,
      statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
    });
    return mergeStreams(source, { raw: info.Config.Tty, limitBytes: options.limitBytes });
  }

  async exec(id: string, command: string[], options: StreamOptions): Promise<StreamSession> {
    const container = this.docker.getContainer((await this.requireOwn(id)).Id);
    const { exec, socket } = await startExec(container, command, options);
    const session = this.streamSession(socket, options, options.tty, (width, height) => exec.resize({ w: width, h: height }));
    const exitCode = (async () => {
      await session.ended;
      return execExitCode(exec);
    })();
    return { ...session.session, exitCode };
  }

  async execSync(id: string, command: string[], timeoutMs: number): Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean }> {
    return this.execChecked((await this.requireOwn(id)).Id, command, timeoutMs);
  }

  /** execSync in a container already known to be this node's. */
  private async execChecked(id: string, command: string[], timeoutMs: number): Promise<ProgramResult> {
    const container = this.docker.getContainer(id);
    const { exec, socket } = await startExec(container, command, { stdin: false, stdout: true, stderr: true, tty: false });
    const stdout = new CappedSink(execOutputLimit);
    const stderr = new CappedSink(execOutputLimit);
    splitStreams(socket, stdout, stderr);
    let timedOut = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        // Like the CRI's ExecSync timeout: stop waiting; Docker has no way to kill an exec.
        timedOut = true;
        socket.destroy();
        resolve();
      }, timeoutMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const exitCode = timedOut ? -1 : await execExitCode(exec);
    return { exitCode, stdout: stdout.text(), stderr: stderr.text(), timedOut };
  }

  async attach(id: string, options: StreamOptions): Promise<StreamSession> {
    const info = await this.requireOwn(id);
    const container = this.docker.getContainer(info.Id);
    const tty = info.Config.Tty;
    const socket = (await container.attach({ stream: true, stdin: options.stdin, stdout: options.stdout, stderr: options.stderr, hijack: true })) as Socket;
    const abort = new AbortController();
    const session = this.streamSession(socket, options, tty, (width, height) => container.resize({ w: width, h: height }), () => abort.abort());
    // The container's exit code; -1 if the session is closed before the container exits.
    const exitCode = this.dial<unknown>({
      path: `/containers/${info.Id}/wait?`,
      method: 'POST',
      options: { condition: 'not-running' },
      abortSignal: abort.signal,
      statusCodes: { 200: true, 404: 'no such container', 500: 'server error' },
    }).then(
      (result) => numberAt(result, 'StatusCode') ?? -1,
      () => -1,
    );
    return { ...session.session, exitCode };
  }

  /** Wraps a hijacked socket into stdin/stdout/stderr streams (demultiplexed unless tty). */
  private streamSession(
    socket: Socket,
    options: StreamOptions,
    tty: boolean,
    resize: (width: number, height: number) => Promise<unknown>,
    onClose: () => void = () => undefined,
  ): { session: Omit<StreamSession, 'exitCode'>; ended: Promise<void> } {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    if (tty) {
      socket.pipe(stdout);
      socket.on('close', () => {
        if (!stdout.writableEnded) stdout.end();
      });
    } else {
      splitStreams(socket, stdout, stderr);
    }
    if (!options.stdout) stdout.resume();
    if (!options.stderr || tty) stderr.resume();
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    let stdin: Writable | undefined;
    if (options.stdin) {
      stdin = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          if (socket.destroyed) return callback();
          socket.write(chunk, () => callback());
        },
        final(callback) {
          // Half-close: Docker closes the process's stdin and keeps streaming its output.
          if (!socket.destroyed) socket.end();
          callback();
        },
      });
    }
    return {
      ended,
      session: {
        stdin,
        stdout,
        stderr: tty ? undefined : stderr,
        async resize(width: number, height: number) {
          // Best effort: the process may have exited already.
          await resize(width, height).catch(() => undefined);
        },
        close() {
          onClose();
          socket.destroy();
        },
      },
    };
  }

  async portForward(sandboxId: string, port: number): Promise<Duplex> {
    const info = await this.requireOwn(sandboxId);
    // Linux: pod IPs on the bridge are routable from the host, so connect directly (dockershim
    // used nsenter + socat for the same reach). The pause image has no nc, so there is no
    // in-container fallback; Docker Desktop needs another path (published ports or a helper).
    const host = info.HostConfig.NetworkMode === 'host' ? '127.0.0.1' : this.sandboxIp(info.NetworkSettings.Networks);
    if (!host) throw new Error(`pod sandbox ${sandboxId} has no IP`);
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connecting to ${host}:${port} timed out`));
      }, 10_000);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  async runInSandboxNetwork(sandboxId: string, program: SandboxNetworkProgram): Promise<ProgramResult | undefined> {
    const info = await this.requireOwn(sandboxId);
    if (info.Config.Labels?.[RuntimeLabels.type] !== containerTypes.sandbox) throw new Error(`${sandboxId} is not a pod sandbox`);
    if (!info.State.Running) throw new Error(`pod sandbox ${sandboxId} is not running`);
    if (info.HostConfig.NetworkMode === 'host') throw new Error(`pod sandbox ${sandboxId} uses the host's network`);
    const executable = this.networkExecutable(program.executablePath);
    const container = this.docker.getContainer(info.Id);
    // The program lives in the sandbox's own filesystem (the pause image has nothing else), copied
    // once per sandbox and kubedesk run, so an upgrade replaces it.
    const copied = this.sandboxPrograms.get(info.Id);
    if (!copied?.has(executable.path)) {
      if (program.onlyIfUsedBefore && !(await pathExists(container, executable.path))) return undefined;
      await container.putArchive(writeTar([{ path: executable.path.slice(1), content: executable.content, mode: 0o755 }]), { path: '/' });
      this.sandboxPrograms.set(info.Id, new Set([...(copied ?? []), executable.path]));
    }
    const timeoutMs = program.timeoutMs ?? 10_000;
    if (hasNetworkAdmin(info)) return this.execChecked(info.Id, [executable.path, ...program.args], timeoutMs);
    // A sandbox made before kubedesk gave sandboxes CAP_NET_ADMIN: a short-lived helper container
    // joins its network namespace with the capability instead.
    return this.runNetworkHelper(info, executable, program.args, timeoutMs);
  }

  /** The executable's bytes and its path inside containers (`/.kubedesk-<file name>`), re-read when the file changes. */
  private networkExecutable(hostPath: string): { path: string; content: Buffer } {
    const stat = statSync(hostPath);
    const cached = this.networkExecutables.get(hostPath);
    if (cached && cached.modifiedMs === stat.mtimeMs && cached.content.length === stat.size) return cached;
    const executable = { path: `/.kubedesk-${basename(hostPath)}`, content: readFileSync(hostPath), modifiedMs: stat.mtimeMs };
    this.networkExecutables.set(hostPath, executable);
    // a new build must reach sandboxes that have the old one
    this.sandboxPrograms.clear();
    return executable;
  }

  private async runNetworkHelper(sandbox: Docker.ContainerInspectInfo, executable: { path: string; content: Buffer }, args: string[], timeoutMs: number): Promise<ProgramResult> {
    const { pauseImage } = await this.start();
    // No node label: the kubelet's event watch and lists must not see it.
    const helper = await this.createNamed({
      name: `${clusterNamePrefix(this.clusterId)}_netpol_${sandbox.Id.slice(0, 12)}_${randomBytes(3).toString('hex')}`,
      Image: pauseImage,
      Entrypoint: [executable.path],
      Cmd: args,
      Labels: { [RuntimeLabels.cluster]: this.clusterId, [RuntimeLabels.type]: containerTypes.networkHelper, [RuntimeLabels.sandboxId]: sandbox.Id },
      HostConfig: { NetworkMode: `container:${sandbox.Id}`, CapAdd: ['NET_ADMIN'], RestartPolicy: { Name: 'no' }, LogConfig: { Type: 'json-file', Config: {} } },
    });
    try {
      await helper.putArchive(writeTar([{ path: executable.path.slice(1), content: executable.content, mode: 0o755 }]), { path: '/' });
      await helper.start();
      let timedOut = false;
      const waited = await withTimeout(helper.wait() as Promise<unknown>, timeoutMs, 'the network helper').catch((error: unknown) => {
        timedOut = true;
        return error;
      });
      const raw: unknown = await helper.logs({ stdout: true, stderr: true, follow: false }).catch(() => Buffer.alloc(0));
      const output = Buffer.isBuffer(raw) ? splitLogFrames(raw) : { stdout: '', stderr: '' };
      return { exitCode: timedOut ? -1 : (numberAt(waited, 'StatusCode') ?? -1), ...output, timedOut };
    } finally {
      await helper.remove({ force: true }).catch(() => undefined);
    }
  }

  watchChanges(onChange: () => void): { dispose(): void } {
    let disposed = false;
    let stream: NodeJS.ReadableStream | undefined;
    let retry: NodeJS.Timeout | undefined;
    const open = () => {
      if (disposed) return;
      const filters = { type: ['container' as const], label: [`${RuntimeLabels.cluster}=${this.clusterId}`, `${RuntimeLabels.node}=${this.nodeName}`], event: ['start', 'die', 'stop', 'kill', 'destroy', 'oom', 'create'] };
      this.docker.getEvents({ filters }).then(
        (events) => {
          if (disposed) {
            (events as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
            return;
          }
          stream = events;
          events.on('data', () => onChange());
          const reopen = () => {
            stream = undefined;
            if (!disposed) retry = setTimeout(open, 2000).unref();
          };
          events.on('end', reopen);
          events.on('error', reopen);
        },
        () => {
          if (!disposed) retry = setTimeout(open, 2000).unref();
        },
      );
    };
    open();
    return {
      dispose: () => {
        disposed = true;
        if (retry) clearTimeout(retry);
        (stream as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined)?.destroy?.();
      },
    };
  }

  async stats(id: string): Promise<ContainerStats | undefined> {
    // the cgroup files when this host runs the containers (cheap); Docker's stats call otherwise
    const local = this.cgroups.read(id);
    if (local) return local;
    let stats: unknown;
    try {
      stats = await this.docker.getContainer(id).stats({ stream: false, 'one-shot': true });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (!isRecord(stats) || typeof stats.read !== 'string' || stats.read.startsWith('0001-01-01')) return undefined;
    const usage = numberAt(stats, 'memory_stats', 'usage') ?? 0;
    // cgroup v1 reports total_inactive_file, v2 inactive_file (the docker CLI does the same).
    const inactive = numberAt(stats, 'memory_stats', 'stats', 'total_inactive_file') ?? numberAt(stats, 'memory_stats', 'stats', 'inactive_file') ?? 0;
    return {
      timestamp: new Date(stats.read),
      cpuUsageNanoSeconds: numberAt(stats, 'cpu_stats', 'cpu_usage', 'total_usage') ?? 0,
      memoryWorkingSetBytes: Math.max(0, usage - inactive),
      ...networkCounters(stats.networks),
      ...blockIoCounters(isRecord(stats.blkio_stats) ? stats.blkio_stats.io_service_bytes_recursive : undefined),
    };
  }

  // ---- housekeeping ----

  /**
   * Stops (keeps) every running container of this cluster, all nodes: the desktop app's "stop
   * containers on quit". The next start's kubelets find them exited and restart them per the pods'
   * restartPolicy, as after a node reboot.
   */
  async stopClusterContainers(timeoutSeconds = 10): Promise<void> {
    const containers = await this.docker.listContainers({ filters: { label: [`${RuntimeLabels.cluster}=${this.clusterId}`], status: ['running'] } });
    await Promise.all(containers.map((container) => this.stopContainer(container.Id, timeoutSeconds)));
  }

  /** Removes every container of this cluster (all nodes) and its networks: `kubedesk reset`, tests. */
  async removeClusterResources(): Promise<void> {
    const containers = await this.docker.listContainers({ all: true, filters: { label: [`${RuntimeLabels.cluster}=${this.clusterId}`] } });
    await Promise.all(containers.map((container) => this.removeContainer(container.Id)));
    const networks = await this.docker.listNetworks({ filters: { label: [`${RuntimeLabels.cluster}=${this.clusterId}`] } });
    for (const network of networks) {
      await this.docker
        .getNetwork(network.Id)
        .remove()
        .catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
    }
    networkPromises.delete(`${this.cacheKey}|${this.networkName}`);
    this.prepared = undefined;
  }
}

/** Docker's `networks` of a stats reply: bytes over every interface (a container joined to its sandbox reports the sandbox's). */
function networkCounters(networks: unknown): Pick<ContainerStats, 'networkRxBytes' | 'networkTxBytes'> {
  if (!isRecord(networks)) return {};
  let rx = 0;
  let tx = 0;
  for (const network of Object.values(networks)) {
    if (!isRecord(network)) continue;
    rx += typeof network.rx_bytes === 'number' ? network.rx_bytes : 0;
    tx += typeof network.tx_bytes === 'number' ? network.tx_bytes : 0;
  }
  return { networkRxBytes: rx, networkTxBytes: tx };
}

/** Docker's `blkio_stats.io_service_bytes_recursive`: Read and Write bytes summed over devices (cgroup v2 spells them lower case). */
function blockIoCounters(entries: unknown): Pick<ContainerStats, 'fsReadBytes' | 'fsWriteBytes'> {
  if (!Array.isArray(entries)) return {};
  let read = 0;
  let write = 0;
  for (const entry of entries) {
    if (!isRecord(entry) || typeof entry.value !== 'number' || typeof entry.op !== 'string') continue;
    if (entry.op.toLowerCase() === 'read') read += entry.value;
    else if (entry.op.toLowerCase() === 'write') write += entry.value;
  }
  return { fsReadBytes: read, fsWriteBytes: write };
}

function hasNetworkAdmin(info: Docker.ContainerInspectInfo): boolean {
  if (info.HostConfig.Privileged) return true;
  const added: unknown = info.HostConfig.CapAdd;
  return Array.isArray(added) && added.some((capability: unknown) => typeof capability === 'string' && ['NET_ADMIN', 'CAP_NET_ADMIN', 'ALL'].includes(capability.toUpperCase()));
}

/** Whether a path exists in a container (`HEAD /containers/{id}/archive`). */
async function pathExists(container: Docker.Container, path: string): Promise<boolean> {
  try {
    await container.infoArchive({ path });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** Docker's non-TTY log answer (8-byte frame headers: stream, 0, 0, 0, big-endian length) split into stdout and stderr. */
export function splitLogFrames(raw: Buffer): { stdout: string; stderr: string } {
  const streams: Buffer[][] = [[], [], []];
  let offset = 0;
  while (offset + 8 <= raw.length) {
    const stream = raw[offset] === 2 ? 2 : 1;
    const length = raw.readUInt32BE(offset + 4);
    streams[stream].push(raw.subarray(offset + 8, Math.min(raw.length, offset + 8 + length)));
    offset += 8 + length;
  }
  return { stdout: Buffer.concat(streams[1]).toString('utf8'), stderr: Buffer.concat(streams[2]).toString('utf8') };
}

/** Docker wants username/password; a docker config `auth` field (base64 user:pass) is split here. */
function registryAuth(auth: RegistryAuth): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(auth)) if (typeof value === 'string' && value !== '') result[key] = value;
  if (auth.auth && !auth.username) {
    const decoded = Buffer.from(auth.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      result.username = decoded.slice(0, colon);
      result.password = decoded.slice(colon + 1);
    }
  }
  return result;
}

function progressFromEvent(event: Record<string, unknown>): PullProgress {
  const id = typeof event.id === 'string' ? `${event.id}: ` : '';
  const status = typeof event.status === 'string' ? event.status : '';
  const current = numberAt(event, 'progressDetail', 'current');
  const total = numberAt(event, 'progressDetail', 'total');
  const amount = current !== undefined && total ? ` ${formatBytes(current)}/${formatBytes(total)}` : '';
  return { status: `${id}${status}${amount}`, current, total };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)}GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)}MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)}kB`;
  return `${bytes}B`;
}

async function startExec(container: Docker.Container, command: string[], options: StreamOptions): Promise<{ exec: Docker.Exec; socket: Socket }> {
  try {
    const exec = await container.exec({ Cmd: command, AttachStdin: options.stdin, AttachStdout: options.stdout, AttachStderr: options.stderr, Tty: options.tty });
    const socket = (await exec.start({ hijack: true, stdin: options.stdin, Detach: false, Tty: options.tty })) as Socket;
    return { exec, socket };
  } catch (error) {
    // e.g. "Container … is not running" (409), "OCI runtime exec failed: … executable file not found"
    throw new Error(`exec ${JSON.stringify(command)}: ${dockerErrorMessage(error)}`);
  }
}

/** The exec's exit code once Docker has recorded it (the stream can close a moment before). */
async function execExitCode(exec: Docker.Exec): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    if (Date.now() > deadline) return -1;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Collects up to a limit of bytes and drops the rest (probe and hook output is small). */
class CappedSink extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly limit: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.size < this.limit) {
      const slice = chunk.subarray(0, this.limit - this.size);
      this.chunks.push(Buffer.from(slice));
      this.size += slice.length;
    }
    callback();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
