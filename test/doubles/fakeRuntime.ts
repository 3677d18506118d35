// FakeRuntime: an in-memory ContainerRuntime for the kubelet's unit tests, in the spirit of
// upstream's pkg/kubelet/container/testing FakeRuntime and cri-api's fake runtime service. It keeps
// the states and labels DockerRuntime would (created → running → exited, restart counts, exit codes,
// reasons) and lets a test drive what Docker would do on its own: a container exiting with a code,
// an OOM kill, a failed pull or start, log lines, exec results, Docker going away.
import { PassThrough, Readable, type Duplex } from 'node:stream';
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
} from '../../main/kubelet/runtime/containerRuntime';

export interface FakeContainer {
  status: ContainerStatus;
  config: ContainerConfig;
  logs: Array<{ time: Date; text: string }>;
  files: Map<string, string>;
  stats?: ContainerStats;
}

export interface FakeSandbox {
  status: SandboxStatus;
  config: SandboxConfig;
}

export interface ExecResult {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

export type ExecHandler = (containerId: string, command: string[], stdin: string) => ExecResult | Promise<ExecResult>;

export interface FakeRuntimeOptions {
  now?: () => Date;
  nodeName?: string;
}

function normalize(reference: string): string {
  if (reference.includes('@')) return reference;
  const lastSegment = reference.slice(reference.lastIndexOf('/') + 1);
  return lastSegment.includes(':') ? reference : `${reference}:latest`;
}

export class FakeRuntime implements ContainerRuntime {
  readonly sandboxes = new Map<string, FakeSandbox>();
  readonly containers = new Map<string, FakeContainer>();
  readonly images = new Map<string, ImageInfo>();
  /** every call, in order: `{ method, args }` — for assertions on what the kubelet did */
  readonly calls: Array<{ method: string; args: unknown[] }> = [];
  /** Docker reachable? When false, ping() is false and every other call rejects. */
  available = true;
  execHandler: ExecHandler = () => ({ exitCode: 0 });
  /** exit code of a stopped container (SIGTERM handled: 143; a test may set 137) */
  stopExitCode = 143;
  /** what runInSandboxNetwork answers; the runs themselves are in `networkPrograms` */
  networkProgramHandler: (sandboxId: string, args: string[]) => ProgramResult = () => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false });
  /** every program run in a sandbox's network namespace, in order */
  readonly networkPrograms: Array<{ sandboxId: string; executablePath: string; args: string[] }> = [];
  private readonly sandboxesWithPrograms = new Set<string>();

  private readonly now: () => Date;
  private readonly pullFailures = new Map<string, string>();
  private readonly startFailures = new Map<string, string>();
  private readonly portHandlers = new Map<string, (port: number) => Duplex>();
  private readonly logListeners = new Map<string, Set<() => void>>();
  private readonly exitWaiters = new Map<string, Array<(code: number) => void>>();
  private nextId = 1;
  private nextIp = 2;

  constructor(options: FakeRuntimeOptions = {}) {
    this.now = options.now ?? (() => new Date());
  }

  // ---- test controls ----

  /** Makes an image present locally (as after `docker build`). */
  addImage(reference: string, info: Partial<ImageInfo> = {}): ImageInfo {
    const name = normalize(reference);
    const image: ImageInfo = { id: info.id ?? `sha256:${this.hex(64)}`, repoTags: info.repoTags ?? [name], repoDigests: info.repoDigests ?? [], sizeBytes: info.sizeBytes ?? 1_000_000, user: info.user ?? '' };
    this.images.set(name, image);
    return image;
  }

  /** The next pulls of this reference fail with the message (as the registry would say it). */
  failPull(reference: string, message = `Error response from daemon: pull access denied for ${reference}, repository does not exist or may require 'docker login'`): void {
    this.pullFailures.set(normalize(reference), message);
  }

  /** Starting containers of this image fails as Docker does for a missing executable. */
  failStart(image: string, message = 'exec: "x": executable file not found in $PATH'): void {
    this.startFailures.set(normalize(image), message);
  }

  /** Ends a running container as Docker would report it (e.g. exitContainer(id, 137, { oomKilled: true })). */
  exitContainer(id: string, exitCode: number, options: { oomKilled?: boolean; message?: string } = {}): void {
    const container = this.mustGetContainer(id);
    if (container.status.state !== 'running') throw new Error(`container ${id} is ${container.status.state}, not running`);
    container.status.state = 'exited';
    container.status.exitCode = exitCode;
    container.status.finishedAt = this.now();
    container.status.reason = options.oomKilled ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error';
    container.status.message = options.message;
    this.notifyLogs(id);
    for (const waiter of this.exitWaiters.get(id) ?? []) waiter(exitCode);
    this.exitWaiters.delete(id);
  }

  /** Appends output (kept with its time, so tail/since/timestamps work). */
  appendLog(id: string, text: string): void {
    this.mustGetContainer(id).logs.push({ time: this.now(), text });
    this.notifyLogs(id);
  }

  /** A file inside the container, e.g. the termination message. */
  setFile(id: string, path: string, content: string): void {
    this.mustGetContainer(id).files.set(path, content);
  }

  setStats(id: string, stats: Omit<ContainerStats, 'timestamp'>): void {
    this.mustGetContainer(id).stats = { timestamp: this.now(), ...stats };
  }

  /** What portForward(sandboxId, port) connects to; unset → connection refused. */
  setPortHandler(sandboxId: string, handler: (port: number) => Duplex): void {
    this.portHandlers.set(sandboxId, handler);
  }

  containerByName(podUid: string, name: string): FakeContainer | undefined {
    let found: FakeContainer | undefined;
    for (const container of this.containers.values()) {
      if (container.status.podUid === podUid && container.status.name === name) {
        if (!found || container.status.restartCount > found.status.restartCount) found = container;
      }
    }
    return found;
  }

  // ---- ContainerRuntime ----

  async info(): Promise<RuntimeInfo> {
    this.record('info', []);
    return { runtimeName: 'docker', runtimeVersion: '28.2.2', operatingSystem: 'Fake Linux', kernelVersion: '6.1.0-fake', architecture: 'amd64', cpus: 4, memoryBytes: 8 * 1024 ** 3 };
  }

  async ping(): Promise<boolean> {
    this.calls.push({ method: 'ping', args: [] });
    return this.available;
  }

  async imageStatus(reference: string): Promise<ImageInfo | undefined> {
    this.record('imageStatus', [reference]);
    return this.images.get(normalize(reference));
  }

  async pullImage(reference: string, auth: RegistryAuth | undefined, onProgress: (progress: PullProgress) => void): Promise<ImageInfo> {
    this.record('pullImage', [reference, auth]);
    const name = normalize(reference);
    const failure = this.pullFailures.get(name);
    if (failure !== undefined) throw new Error(failure);
    onProgress({ status: `Pulling from ${name}` });
    onProgress({ status: 'layer: Downloading 1.0MB/1.0MB', current: 1_000_000, total: 1_000_000 });
    onProgress({ status: `Status: Downloaded newer image for ${name}` });
    return this.images.get(name) ?? this.addImage(name, { repoDigests: [`${name.replace(/:[^:/]+$/, '')}@sha256:${this.hex(64)}`] });
  }

  async runSandbox(config: SandboxConfig): Promise<SandboxStatus> {
    this.record('runSandbox', [config]);
    const id = this.newId();
    const status: SandboxStatus = {
      id,
      podUid: config.podUid,
      podName: config.podName,
      namespace: config.namespace,
      attempt: config.attempt,
      state: 'ready',
      ip: config.hostNetwork ? '' : `10.100.${Math.floor(this.nextIp / 256)}.${this.nextIp++ % 256}`,
      createdAt: this.now(),
      labels: { ...config.labels, [RuntimeLabels.type]: 'podsandbox', [RuntimeLabels.podUid]: config.podUid, [RuntimeLabels.podName]: config.podName, [RuntimeLabels.podNamespace]: config.namespace, [RuntimeLabels.attempt]: String(config.attempt) },
    };
    this.sandboxes.set(id, { status, config });
    return { ...status };
  }

  async stopSandbox(id: string, timeoutSeconds: number): Promise<void> {
    this.record('stopSandbox', [id, timeoutSeconds]);
    const sandbox = this.sandboxes.get(id);
    if (sandbox) {
      sandbox.status.state = 'notready';
      sandbox.status.ip = '';
    }
  }

  async removeSandbox(id: string): Promise<void> {
    this.record('removeSandbox', [id]);
    this.sandboxes.delete(id);
  }

  async listSandboxes(): Promise<SandboxStatus[]> {
    this.record('listSandboxes', []);
    return [...this.sandboxes.values()].map((sandbox) => ({ ...sandbox.status }));
  }

  async createContainer(sandboxId: string, config: ContainerConfig): Promise<string> {
    this.record('createContainer', [sandboxId, config]);
    if (!this.sandboxes.has(sandboxId)) throw new Error(`creating container ${config.name}: no such sandbox ${sandboxId}`);
    const image = this.images.get(normalize(config.image));
    if (!image) throw new Error(`creating container ${config.name}: No such image: ${config.image}`);
    const id = this.newId();
    const labels: Record<string, string> = {
      ...config.labels,
      [RuntimeLabels.type]: 'container',
      [RuntimeLabels.podUid]: config.podUid,
      [RuntimeLabels.podName]: config.podName,
      [RuntimeLabels.podNamespace]: config.namespace,
      [RuntimeLabels.containerName]: config.name,
      [RuntimeLabels.restartCount]: String(config.restartCount),
      [RuntimeLabels.containerHash]: config.specHash,
      [RuntimeLabels.sandboxId]: sandboxId,
      [RuntimeLabels.init]: String(config.init),
    };
    const status: ContainerStatus = {
      id,
      sandboxId,
      podUid: config.podUid,
      name: config.name,
      init: config.init,
      image: config.image,
      imageId: image.repoDigests.length > 0 ? `docker-pullable://${image.repoDigests[0]}` : `docker://${image.id}`,
      state: 'created',
      createdAt: this.now(),
      restartCount: config.restartCount,
      specHash: config.specHash,
      labels,
    };
    this.containers.set(id, { status, config, logs: [], files: new Map() });
    return id;
  }

  async startContainer(id: string): Promise<void> {
    this.record('startContainer', [id]);
    const container = this.mustGetContainer(id);
    const failure = this.startFailures.get(normalize(container.config.image));
    if (failure !== undefined) {
      container.status.state = 'exited';
      container.status.exitCode = 127;
      container.status.reason = 'ContainerCannotRun';
      container.status.message = failure;
      container.status.startedAt = container.status.createdAt;
      container.status.finishedAt = container.status.createdAt;
      throw new Error(`starting container: ${failure}`);
    }
    if (container.status.state === 'running') return;
    // Joining another container's processes needs that container running, as Docker checks.
    const namespaces = container.config.namespaces;
    if (namespaces?.pid === 'target' && this.containers.get(namespaces.targetId ?? '')?.status.state !== 'running') {
      throw new Error(`starting container: Error response from daemon: cannot join PID of a non running container: ${namespaces.targetId ?? ''}`);
    }
    container.status.state = 'running';
    container.status.startedAt = this.now();
  }

  async stopContainer(id: string, timeoutSeconds: number): Promise<void> {
    this.record('stopContainer', [id, timeoutSeconds]);
    const container = this.containers.get(id);
    if (container?.status.state === 'running') this.exitContainer(id, this.stopExitCode);
  }

  async removeContainer(id: string): Promise<void> {
    this.record('removeContainer', [id]);
    this.containers.delete(id);
    this.notifyLogs(id);
  }

  async listContainers(): Promise<ContainerStatus[]> {
    this.record('listContainers', []);
    return [...this.containers.values()].map((container) => ({ ...container.status }));
  }

  async containerStatus(id: string): Promise<ContainerStatus | undefined> {
    this.record('containerStatus', [id]);
    const container = this.containers.get(id);
    return container ? { ...container.status } : undefined;
  }

  async readFile(id: string, path: string, maxBytes: number): Promise<string | undefined> {
    this.record('readFile', [id, path, maxBytes]);
    const content = this.containers.get(id)?.files.get(path);
    return content === undefined ? undefined : Buffer.from(content).subarray(0, maxBytes).toString('utf8');
  }

  async logs(id: string, options: LogOptions): Promise<Readable> {
    this.record('logs', [id, options]);
    const container = this.mustGetContainer(id);
    const since = options.sinceTime ?? (options.sinceSeconds !== undefined ? new Date(this.now().getTime() - options.sinceSeconds * 1000) : undefined);
    const format = (entry: { time: Date; text: string }): string =>
      entry.text
        .split(/(?<=\n)/)
        .map((line) => (options.timestamps ? `${entry.time.toISOString().replace('Z', '000000Z')} ${line}` : line))
        .join('');
    let entries = container.logs.filter((entry) => !since || entry.time >= since);
    if (options.tailLines !== undefined) {
      const lines = entries.flatMap((entry) => entry.text.split(/(?<=\n)/).map((text) => ({ time: entry.time, text })));
      entries = options.tailLines === 0 ? [] : lines.slice(-options.tailLines);
    }
    const output = new PassThrough();
    let written = 0;
    const limit = options.limitBytes ?? Infinity;
    const write = (text: string): boolean => {
      const bytes = Buffer.from(text);
      const slice = bytes.subarray(0, Math.max(0, limit - written));
      written += slice.length;
      if (slice.length > 0) output.write(slice);
      return written < limit;
    };
    let open = true;
    for (const entry of entries) open = open && write(format(entry));
    if (!open || !options.follow || container.status.state === 'exited') {
      output.end();
      return output;
    }
    let seen = container.logs.length;
    const listener = (): void => {
      const current = this.containers.get(id);
      for (const entry of current?.logs.slice(seen) ?? []) {
        if (!write(format(entry))) break;
      }
      seen = current?.logs.length ?? seen;
      if (!current || current.status.state === 'exited' || written >= limit) {
        this.logListeners.get(id)?.delete(listener);
        output.end();
      }
    };
    const listeners = this.logListeners.get(id) ?? new Set();
    listeners.add(listener);
    this.logListeners.set(id, listeners);
    output.on('close', () => listeners.delete(listener));
    return output;
  }

  async exec(id: string, command: string[], options: StreamOptions): Promise<StreamSession> {
    this.record('exec', [id, command, options]);
    this.requireRunning(id);
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = options.stdin ? new PassThrough() : undefined;
    const input = stdin ? this.collect(stdin) : Promise.resolve('');
    const exitCode = input.then(async (text) => {
      const result = await this.execHandler(id, command, text);
      // A tty merges stderr into stdout, as Docker does.
      stdout.end(options.tty ? (result.stdout ?? '') + (result.stderr ?? '') : (result.stdout ?? ''));
      stderr.end(options.tty ? '' : (result.stderr ?? ''));
      return result.exitCode;
    });
    return { stdin, stdout, stderr: options.tty ? undefined : stderr, resize: async () => undefined, exitCode, close: () => stdin?.end() };
  }

  async execSync(id: string, command: string[], timeoutMs: number): Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean }> {
    this.record('execSync', [id, command, timeoutMs]);
    this.requireRunning(id);
    const result = await this.execHandler(id, command, '');
    return { exitCode: result.exitCode, stdout: result.stdout ?? '', stderr: result.stderr ?? '', timedOut: false };
  }

  async attach(id: string, options: StreamOptions): Promise<StreamSession> {
    this.record('attach', [id, options]);
    this.requireRunning(id);
    const stdout = await this.logs(id, { follow: true, timestamps: false, tailLines: 0 });
    const stdin = options.stdin ? new PassThrough() : undefined;
    const exitCode = new Promise<number>((resolve) => {
      const waiters = this.exitWaiters.get(id) ?? [];
      waiters.push(resolve);
      this.exitWaiters.set(id, waiters);
    });
    return { stdin, stdout, stderr: options.tty ? undefined : Readable.from([]), resize: async () => undefined, exitCode, close: () => stdout.destroy() };
  }

  async portForward(sandboxId: string, port: number): Promise<Duplex> {
    this.record('portForward', [sandboxId, port]);
    const handler = this.portHandlers.get(sandboxId);
    if (!handler) throw Object.assign(new Error(`connect ECONNREFUSED ${sandboxId}:${port}`), { code: 'ECONNREFUSED' });
    return handler(port);
  }

  async runInSandboxNetwork(sandboxId: string, program: SandboxNetworkProgram): Promise<ProgramResult | undefined> {
    this.record('runInSandboxNetwork', [sandboxId, program]);
    const sandbox = this.sandboxes.get(sandboxId);
    if (!sandbox || sandbox.status.state !== 'ready') throw new Error(`pod sandbox ${sandboxId} is not running`);
    const key = `${sandboxId}|${program.executablePath}`;
    if (program.onlyIfUsedBefore && !this.sandboxesWithPrograms.has(key)) return undefined;
    this.sandboxesWithPrograms.add(key);
    this.networkPrograms.push({ sandboxId, executablePath: program.executablePath, args: [...program.args] });
    return this.networkProgramHandler(sandboxId, program.args);
  }

  async stats(id: string): Promise<ContainerStats | undefined> {
    this.record('stats', [id]);
    const container = this.containers.get(id);
    if (!container || container.status.state !== 'running') return undefined;
    return container.stats ?? { timestamp: this.now(), cpuUsageNanoSeconds: 1_000_000, memoryWorkingSetBytes: 4 * 1024 * 1024 };
  }

  // ---- helpers ----

  private record(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    if (!this.available) throw new Error('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?');
  }

  private mustGetContainer(id: string): FakeContainer {
    const container = this.containers.get(id);
    if (!container) throw new Error(`No such container: ${id}`);
    return container;
  }

  private requireRunning(id: string): FakeContainer {
    const container = this.mustGetContainer(id);
    const state: ContainerState = container.status.state;
    if (state !== 'running') throw new Error(`container ${id} is not running`);
    return container;
  }

  private notifyLogs(id: string): void {
    for (const listener of [...(this.logListeners.get(id) ?? [])]) listener();
  }

  private collect(stream: Readable): Promise<string> {
    return new Promise((resolve) => {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve(text));
    });
  }

  private newId(): string {
    return (this.nextId++).toString(16).padStart(12, '0') + this.hex(52);
  }

  private hex(length: number): string {
    let text = '';
    while (text.length < length) text += Math.floor(Math.random() * 16).toString(16);
    return text;
  }
}
