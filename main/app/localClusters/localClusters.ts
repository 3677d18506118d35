// Several local clusters side by side (docs/architecture.md, "Several local clusters"), as kind and
// minikube profiles offer them: the registry is the folders under <root>/clusters/ plus the
// default cluster in <root> itself. Each named cluster runs as its own detached
// `kubedesk serve --name NAME` process (the same node binary and entry as the caller), logging to
// <data dir>/serve.log, so it outlives the command that started it; its state comes from its pid
// and its /readyz. Stopping is SIGTERM (serve stops cleanly), then stopping its containers, as
// `kind`/`minikube stop` leave nothing running; start adopts them again. Deleting removes exactly
// what carries its cluster id (containers, network), its data dir and its kubeconfig entries.
// The command line (clusterCommand.ts), the UI's /ui/local-clusters routes and the tray use it.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { isRecord } from '../../../shared/kubernetes/types';
import { removeCluster } from '../removeCluster';
import { networkNameFor, readClusterId } from '../clusterIdentity';
import { DockerRuntime } from '../../docker/dockerRuntime';
import { contextNameFor, DEFAULT_CLUSTER_NAME, invalidLocalClusterName, localClusterDataDir, localClustersDirectory } from './localClusterNames';
import { processAlive, readServerState, serverStateFile, type ServerState } from './serverState';
import { probeCluster, type ClusterProbe } from './clusterProbe';

export type LocalClusterState = 'running' | 'stopped' | 'starting';

export interface LocalCluster {
  name: string;
  context: string;
  dataDir: string;
  /** the API server's port while it runs */
  port?: number;
  /** https://127.0.0.1:PORT while it runs */
  server?: string;
  state: LocalClusterState;
  nodes: number;
  /** the serve process, while there is one */
  pid?: number;
}

/** What `create` fixed for a named cluster: <data dir>/local-cluster.json. */
export interface LocalClusterConfig {
  nodes: number;
  kubeconfig: string;
  /** the API port it had last time, tried first on the next start */
  port?: number;
}

/** How to run `kubedesk`: the program and the arguments before the command (`serve …` follows). */
export interface ServeLauncher {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

/** How this process was run (node and the kubedesk entry script), to run `kubedesk serve` the same way. */
export function currentProcessLauncher(): ServeLauncher {
  return { command: process.execPath, args: [...process.execArgv, process.argv[1]] };
}

export type LocalClusterErrorReason = 'AlreadyExists' | 'NotFound' | 'Invalid' | 'Conflict' | 'Failed';

export class LocalClusterError extends Error {
  constructor(
    readonly reason: LocalClusterErrorReason,
    message: string,
  ) {
    super(message);
  }
}

export interface LocalClustersOptions {
  /** the kubedesk root (~/.kubedesk): the default cluster's data dir, named ones under clusters/ */
  root: string;
  launcher: ServeLauncher;
  /** where contexts go when create is given no --kubeconfig (the first of KUBECONFIG, else ~/.kube/config) */
  defaultKubeconfig: string;
  /** how long start waits for /readyz and Ready nodes; default 180 s */
  readyTimeoutMs?: number;
  /** how long stop waits after SIGTERM before SIGKILL; default 60 s */
  stopTimeoutMs?: number;
  /** /readyz and node readiness of a running server (tests stand in) */
  probe?: ClusterProbe;
  /** stops the containers of a cluster id once its server has stopped (tests stand in) */
  stopContainers?: (clusterId: string) => Promise<void>;
  /** removes a stopped cluster (tests stand in); default cli.ts removeCluster */
  remove?: typeof removeCluster;
}

const CONFIG_FILE = 'local-cluster.json';
const PID_FILE = 'serve.pid';
const LOG_FILE = 'serve.log';
const POLL_MS = 200;

export function serveLogFile(dataDir: string): string {
  return join(dataDir, LOG_FILE);
}

export class LocalClusters {
  private readonly probe: ClusterProbe;

  constructor(private readonly options: LocalClustersOptions) {
    this.probe = options.probe ?? probeCluster;
  }

  /** The default cluster first, then the named ones by name. */
  async list(): Promise<LocalCluster[]> {
    return Promise.all(this.names().map((name) => this.describe(name)));
  }

  async get(name: string): Promise<LocalCluster | undefined> {
    return this.exists(name) ? this.describe(name) : undefined;
  }

  names(): string[] {
    const directory = localClustersDirectory(this.options.root);
    const named = existsSync(directory)
      ? readdirSync(directory)
          .filter((entry) => invalidLocalClusterName(entry) === undefined && isDirectory(join(directory, entry)))
          .sort()
      : [];
    return [DEFAULT_CLUSTER_NAME, ...named];
  }

  exists(name: string): boolean {
    return name === DEFAULT_CLUSTER_NAME || (invalidLocalClusterName(name) === undefined && isDirectory(localClusterDataDir(this.options.root, name)));
  }

  dataDirOf(name: string): string {
    return localClusterDataDir(this.options.root, name);
  }

  /** Makes the named cluster and starts it; resolves once it is Ready. */
  async create(name: string, options: { nodes?: number; kubeconfig?: string } = {}): Promise<LocalCluster> {
    const problem = invalidLocalClusterName(name);
    if (problem) throw new LocalClusterError('Invalid', `invalid cluster name "${name}": ${problem}`);
    const nodes = options.nodes ?? 1;
    if (!Number.isInteger(nodes) || nodes < 1 || nodes > 50) throw new LocalClusterError('Invalid', `invalid node count ${nodes}: a number from 1 to 50`);
    const dataDir = this.dataDirOf(name);
    mkdirSync(localClustersDirectory(this.options.root), { recursive: true, mode: 0o700 });
    try {
      // not recursive: the one that makes the folder owns the name
      mkdirSync(dataDir, { mode: 0o700 });
    } catch (error) {
      if (errorCode(error) === 'EEXIST') throw new LocalClusterError('AlreadyExists', `cluster "${name}" already exists`);
      throw error;
    }
    writeConfig(dataDir, { nodes, kubeconfig: options.kubeconfig ?? this.options.defaultKubeconfig });
    return this.start(name);
  }

  /** Starts a stopped cluster (a running one is left as it is); resolves once it is Ready. */
  async start(name: string): Promise<LocalCluster> {
    const dataDir = this.requireDataDir(name);
    const current = await this.describe(name);
    if (current.state === 'running') return current;
    const config = this.configOf(name);
    let pid = current.pid;
    if (pid === undefined) pid = await this.spawnServe(name, dataDir, config);
    await this.waitReady(name, dataDir, pid, config.nodes);
    const started = await this.describe(name);
    if (name !== DEFAULT_CLUSTER_NAME && started.port !== undefined) writeConfig(dataDir, { ...config, port: started.port });
    return started;
  }

  /** Stops the cluster's server (SIGTERM, then SIGKILL after the timeout) and its containers. */
  async stop(name: string): Promise<LocalCluster> {
    const dataDir = this.requireDataDir(name);
    await this.stopServer(dataDir);
    const clusterId = readClusterId(dataDir);
    if (clusterId) await (this.options.stopContainers ?? stopClusterContainers)(clusterId);
    return this.describe(name);
  }

  /**
   * Stops the named cluster and removes its containers, Docker network, data dir and kubeconfig
   * entries (cluster, user and context kubedesk-NAME; current-context is cleared only when it named it).
   */
  async delete(name: string, options: { kubeconfig?: string } = {}): Promise<{ containersError?: string }> {
    if (name === DEFAULT_CLUSTER_NAME) throw new LocalClusterError('Invalid', 'the default cluster is not deleted this way: use kubedesk reset');
    const dataDir = this.requireDataDir(name);
    const config = this.configOf(name);
    await this.stopServer(dataDir);
    const remove = this.options.remove ?? removeCluster;
    const result = await remove(dataDir, options.kubeconfig ?? config.kubeconfig, { contextName: contextNameFor(name) });
    // a data dir made by create but never started may be left by a remove that had no cluster id
    rmSync(dataDir, { recursive: true, force: true });
    return result;
  }

  /** The last lines of the cluster's serve.log. */
  logTail(name: string, lines = 20): string {
    const path = serveLogFile(this.dataDirOf(name));
    if (!existsSync(path)) return '';
    const text = readFileSync(path, 'utf8').trimEnd();
    return text.split('\n').slice(-lines).join('\n');
  }

  configOf(name: string): LocalClusterConfig {
    const fallback: LocalClusterConfig = { nodes: 1, kubeconfig: this.options.defaultKubeconfig };
    if (name === DEFAULT_CLUSTER_NAME) return fallback;
    return readConfig(this.dataDirOf(name)) ?? fallback;
  }

  private requireDataDir(name: string): string {
    if (!this.exists(name)) throw new LocalClusterError('NotFound', `cluster "${name}" not found`);
    return this.dataDirOf(name);
  }

  private async describe(name: string): Promise<LocalCluster> {
    const dataDir = this.dataDirOf(name);
    const config = this.configOf(name);
    const base = { name, context: contextNameFor(name), dataDir, nodes: config.nodes };
    const server = liveServerState(dataDir);
    if (server) {
      const port = Number(new URL(server.server).port);
      const ready = await this.probe(server, dataDir, undefined);
      return { ...base, nodes: server.nodes, port, server: server.server, pid: server.pid, state: ready ? 'running' : 'starting' };
    }
    const pid = livePid(dataDir);
    return pid === undefined ? { ...base, state: 'stopped' } : { ...base, pid, state: 'starting' };
  }

  private async spawnServe(name: string, dataDir: string, config: LocalClusterConfig): Promise<number> {
    const port = name === DEFAULT_CLUSTER_NAME ? await preferredPort(6443) : await preferredPort(config.port);
    const args = [...this.options.launcher.args, 'serve', '--data-dir', dataDir, '--kubeconfig', config.kubeconfig, '--nodes', String(config.nodes), '--port', String(port)];
    if (name !== DEFAULT_CLUSTER_NAME) args.push('--name', name);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const log = openSync(serveLogFile(dataDir), 'a');
    let pid: number | undefined;
    try {
      writeFileSync(log, `kubedesk: starting ${new Date().toISOString()}: ${args.join(' ')}\n`);
      // its own process group, no stdin, output to the log: it survives the caller exiting
      const child = spawn(this.options.launcher.command, args, { detached: true, stdio: ['ignore', log, log], env: this.options.launcher.env ?? process.env });
      child.on('error', () => undefined);
      child.unref();
      pid = child.pid;
    } finally {
      closeSync(log);
    }
    if (pid === undefined) throw new LocalClusterError('Failed', `cluster "${name}" failed to start: could not run ${this.options.launcher.command}`);
    writeFileSync(join(dataDir, PID_FILE), `${pid}\n`, { mode: 0o600 });
    return pid;
  }

  private async waitReady(name: string, dataDir: string, pid: number, nodes: number): Promise<void> {
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 180_000);
    for (;;) {
      if (!processAlive(pid)) {
        const state = readServerState(dataDir);
        // a server that replaced this pid (started by someone else meanwhile) counts
        if (!state || !processAlive(state.pid)) throw this.failedToStart(name, 'the server exited');
        pid = state.pid;
      }
      const state = readServerState(dataDir);
      if (state && state.pid === pid && (await this.probe(state, dataDir, nodes))) return;
      if (Date.now() > deadline) {
        await this.stopServer(dataDir);
        throw this.failedToStart(name, 'not ready in time');
      }
      await delay(POLL_MS);
    }
  }

  private failedToStart(name: string, why: string): LocalClusterError {
    const tail = this.logTail(name);
    return new LocalClusterError('Failed', `cluster "${name}" failed to start (${why})${tail ? `; the last lines of ${serveLogFile(this.dataDirOf(name))}:\n${tail}` : ''}`);
  }

  private async stopServer(dataDir: string): Promise<void> {
    const pids = new Set<number>();
    const state = readServerState(dataDir);
    if (state && processAlive(state.pid)) pids.add(state.pid);
    const pid = livePid(dataDir);
    if (pid !== undefined) pids.add(pid);
    for (const each of pids) signal(each, 'SIGTERM');
    const deadline = Date.now() + (this.options.stopTimeoutMs ?? 60_000);
    while ([...pids].some(processAlive)) {
      if (Date.now() > deadline) {
        for (const each of pids) signal(each, 'SIGKILL');
      }
      await delay(POLL_MS);
    }
    rmSync(join(dataDir, PID_FILE), { force: true });
    // a server killed before it could clean up leaves its state behind
    if (state && !processAlive(state.pid)) rmSync(serverStateFile(dataDir), { force: true });
  }
}

/** The serve process this data dir's server.json names, when it still runs. */
function liveServerState(dataDir: string): ServerState | undefined {
  const state = readServerState(dataDir);
  return state && processAlive(state.pid) ? state : undefined;
}

/**
 * The pid `start` recorded, when that process still runs and (where /proc tells) is this data
 * dir's serve: a pid file left by a crash may name a pid the system has since given to another program.
 */
function livePid(dataDir: string): number | undefined {
  const path = join(dataDir, PID_FILE);
  if (!existsSync(path)) return undefined;
  const pid = Number(readFileSync(path, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return undefined;
  const commandLine = processCommandLine(pid);
  return commandLine === undefined || commandLine.includes(dataDir) ? pid : undefined;
}

/** A process's arguments joined by spaces (Linux /proc), or undefined where that cannot be read. */
export function processCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

export function readConfig(dataDir: string): LocalClusterConfig | undefined {
  const path = join(dataDir, CONFIG_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return parseConfig(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

export function parseConfig(value: unknown): LocalClusterConfig | undefined {
  if (!isRecord(value)) return undefined;
  const { nodes, kubeconfig, port } = value;
  if (typeof nodes !== 'number' || !Number.isInteger(nodes) || nodes < 1 || typeof kubeconfig !== 'string' || kubeconfig === '') return undefined;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? { nodes, kubeconfig, port } : { nodes, kubeconfig };
}

function writeConfig(dataDir: string, config: LocalClusterConfig): void {
  writeFileSync(join(dataDir, CONFIG_FILE), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
}

/** `port` when it can be bound on 127.0.0.1 now, else 0 (any free port). */
export async function preferredPort(port: number | undefined): Promise<number> {
  if (port === undefined || port === 0) return 0;
  return (await canBind(port)) ? port : 0;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function stopClusterContainers(clusterId: string): Promise<void> {
  await new DockerRuntime({ clusterId, nodeName: '', networkName: networkNameFor(clusterId) }).stopClusterContainers();
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // gone already
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function errorCode(error: unknown): unknown {
  return error instanceof Error && 'code' in error ? error.code : undefined;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
