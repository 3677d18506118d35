// ContainerRuntime: what the kubelet needs from a container engine, shaped after the CRI
// (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto: RuntimeService + ImageService) as
// dockershim/cri-dockerd implemented it on Docker. DockerRuntime implements it with dockerode;
// FakeRuntime (tests) in memory. Every container the runtime makes carries the labels below, so a
// restarted kubelet rebuilds its state from the engine (adoption) and two clusters never mix.
import type { Duplex, Readable, Writable } from 'node:stream';

/** Label keys on every sandbox and container (our own prefix; values are strings). */
export const RuntimeLabels = {
  cluster: 'dev.kubedesk.cluster',
  node: 'dev.kubedesk.node',
  type: 'dev.kubedesk.type', // 'podsandbox' | 'container'
  podUid: 'io.kubernetes.pod.uid',
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  containerName: 'io.kubernetes.container.name',
  restartCount: 'io.kubernetes.container.restartCount',
  containerHash: 'io.kubernetes.container.hash',
  sandboxId: 'io.kubernetes.sandbox.id',
  attempt: 'dev.kubedesk.sandbox.attempt',
  terminationMessagePath: 'io.kubernetes.container.terminationMessagePath',
  init: 'dev.kubedesk.container.init', // 'true' for init containers
} as const;

export interface RuntimeInfo {
  runtimeName: 'docker';
  runtimeVersion: string; // e.g. 28.2.2 → node reports docker://28.2.2
  operatingSystem: string; // e.g. "Debian GNU/Linux 12 (bookworm)"
  kernelVersion: string;
  architecture: string; // amd64 | arm64
  cpus: number;
  memoryBytes: number;
}

export interface ImageInfo {
  id: string; // sha256:…
  repoTags: string[];
  repoDigests: string[];
  sizeBytes: number;
  /** the user the image runs as (its config's User: a uid or name, optionally `:group`); '' when it sets none (root) */
  user?: string;
}

export interface RegistryAuth {
  username?: string;
  password?: string;
  auth?: string; // base64 user:pass
  serveraddress?: string;
  identitytoken?: string;
}

export interface PullProgress {
  /** human text as docker prints it, e.g. "Downloading 12.3MB/40MB" */
  status: string;
  current?: number;
  total?: number;
}

export interface PortMapping {
  containerPort: number;
  hostPort: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
  hostIP?: string;
}

export interface SandboxConfig {
  podUid: string;
  podName: string;
  namespace: string;
  attempt: number;
  hostname: string;
  /** `<subdomain>.<namespace>.svc.<cluster domain>` when the pod has a subdomain: /etc/hosts then holds its FQDN */
  domainname?: string;
  /** DNS for the pod (written to the sandbox; app containers share it) */
  dns?: { servers: string[]; searches: string[]; options: string[] };
  hostNetwork: boolean;
  /** the host's process namespace (hostPID) */
  hostPID?: boolean;
  /** the host's IPC namespace (hostIPC) */
  hostIPC?: boolean;
  portMappings: PortMapping[];
  extraHosts?: string[]; // "name:ip"
  labels: Record<string, string>; // extra labels (pod labels as annotations-style copies)
}

export interface SandboxStatus {
  id: string;
  podUid: string;
  podName: string;
  namespace: string;
  attempt: number;
  state: 'ready' | 'notready';
  ip: string; // '' when none
  createdAt: Date;
  labels: Record<string, string>;
}

export interface Mount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

/**
 * The Linux namespaces a container joins besides the sandbox's network (CRI NamespaceOption):
 * processes its own (`container`), the sandbox's shared by the pod (`pod`, shareProcessNamespace),
 * the host's (`node`, hostPID) or another container's (`target`, an ephemeral container's
 * targetContainerName); IPC the sandbox's (`pod`) or the host's (`node`, hostIPC).
 */
export interface ContainerNamespaces {
  pid: 'container' | 'pod' | 'node' | 'target';
  /** the runtime id of the container whose processes `target` shares */
  targetId?: string;
  ipc: 'pod' | 'node';
}

export interface ContainerConfig {
  podUid: string;
  podName: string;
  namespace: string;
  name: string;
  image: string; // the image reference as the pod spec names it
  command?: string[]; // entrypoint override (pod `command`)
  args?: string[]; // cmd override (pod `args`)
  env: string[]; // "KEY=value"
  workingDir?: string;
  mounts: Mount[];
  /** tmpfs mounts (emptyDir medium Memory) */
  tmpfs?: Record<string, string>;
  stdin: boolean;
  stdinOnce: boolean;
  tty: boolean;
  resources: { cpuMillis?: number; cpuRequestMillis?: number; memoryLimitBytes?: number };
  security: {
    runAsUser?: number;
    runAsGroup?: number;
    supplementalGroups?: number[];
    privileged?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilitiesAdd?: string[];
    capabilitiesDrop?: string[];
    /** allowPrivilegeEscalation: false (no_new_privs) */
    noNewPrivileges?: boolean;
    /** the seccomp profile; RuntimeDefault is the engine's default */
    seccomp?: 'RuntimeDefault' | 'Unconfined';
  };
  /** default: processes of its own, the sandbox's IPC */
  namespaces?: ContainerNamespaces;
  restartCount: number;
  init: boolean;
  /** hash of the container spec, for restart-on-change decisions */
  specHash: string;
  terminationMessagePath?: string;
  labels: Record<string, string>;
}

export type ContainerState = 'created' | 'running' | 'exited' | 'unknown';

export interface ContainerStatus {
  id: string; // docker id; the API shows docker://<id>
  sandboxId: string;
  podUid: string;
  name: string; // container name in the pod
  init: boolean;
  image: string; // reference used
  imageId: string; // docker-pullable://… or sha256:…
  state: ContainerState;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  exitCode?: number;
  /** Docker's view: OOMKilled etc. */
  reason?: string;
  message?: string;
  restartCount: number;
  specHash: string;
  labels: Record<string, string>;
}

export interface LogOptions {
  follow: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: Date;
  timestamps: boolean;
  limitBytes?: number;
}

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** A running exec or attach: streams plus resize and the exit code. */
export interface StreamSession {
  stdin?: Writable;
  stdout?: Readable;
  /** absent when tty (stderr is merged into stdout) */
  stderr?: Readable;
  resize(width: number, height: number): Promise<void>;
  /** resolves with the process exit code (attach: the container's) */
  exitCode: Promise<number>;
  close(): void;
}

export interface ContainerStats {
  timestamp: Date;
  cpuUsageNanoSeconds: number; // cumulative
  memoryWorkingSetBytes: number;
  /** cumulative bytes of the container's network namespace (a pod's containers share the sandbox's) */
  networkRxBytes?: number;
  networkTxBytes?: number;
  /** cumulative block I/O bytes read and written */
  fsReadBytes?: number;
  fsWriteBytes?: number;
}

/** A program run inside a pod sandbox's network namespace (see runInSandboxNetwork). */
export interface SandboxNetworkProgram {
  /** a static Linux executable on the host, e.g. dist/netd/kd-netpol-linux-amd64 */
  executablePath: string;
  args: string[];
  /** leave a sandbox this program never ran in alone and answer undefined (undoing what was never done) */
  onlyIfUsedBefore?: boolean;
  /** default 10 s */
  timeoutMs?: number;
}

export interface ProgramResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface ContainerRuntime {
  info(): Promise<RuntimeInfo>;
  /** true when the engine answers */
  ping(): Promise<boolean>;

  imageStatus(reference: string): Promise<ImageInfo | undefined>;
  pullImage(reference: string, auth: RegistryAuth | undefined, onProgress: (progress: PullProgress) => void): Promise<ImageInfo>;

  runSandbox(config: SandboxConfig): Promise<SandboxStatus>;
  stopSandbox(id: string, timeoutSeconds: number): Promise<void>;
  removeSandbox(id: string): Promise<void>;
  listSandboxes(): Promise<SandboxStatus[]>;

  createContainer(sandboxId: string, config: ContainerConfig): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** SIGTERM, then SIGKILL after timeoutSeconds */
  stopContainer(id: string, timeoutSeconds: number): Promise<void>;
  removeContainer(id: string): Promise<void>;
  /** every container of this cluster and node (sandboxes excluded) */
  listContainers(): Promise<ContainerStatus[]>;
  containerStatus(id: string): Promise<ContainerStatus | undefined>;
  /** Reads a file from a (possibly exited) container, e.g. the termination message; undefined if absent. */
  readFile(id: string, path: string, maxBytes: number): Promise<string | undefined>;

  logs(id: string, options: LogOptions): Promise<Readable>;
  exec(id: string, command: string[], options: StreamOptions): Promise<StreamSession>;
  execSync(id: string, command: string[], timeoutMs: number): Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean }>;
  attach(id: string, options: StreamOptions): Promise<StreamSession>;
  /** a TCP connection to the pod's port, from inside the sandbox's network namespace */
  portForward(sandboxId: string, port: number): Promise<Duplex>;
  /**
   * Runs a static executable from the host inside a running sandbox's network namespace with
   * CAP_NET_ADMIN there (as a CNI plugin runs in the pod's namespace), e.g. kd-netpol setting the
   * pod's packet filter for NetworkPolicy. App containers share the namespace, not the capability.
   */
  runInSandboxNetwork(sandboxId: string, program: SandboxNetworkProgram): Promise<ProgramResult | undefined>;
  stats(id: string): Promise<ContainerStats | undefined>;
  /**
   * Calls `onChange` soon after any container of this node starts, stops, dies or is removed
   * (Docker's event stream), so the kubelet need not poll often. Optional: runtimes without events
   * are polled. The handle stops the subscription; a broken stream is re-opened by the runtime.
   */
  watchChanges?(onChange: () => void): { dispose(): void };
}
