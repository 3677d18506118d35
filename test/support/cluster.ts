// Starts a real `kubedesk serve` for an end-to-end suite, in a fresh data dir with its own
// kubeconfig, and gives the test the real kubectl/helm and raw HTTPS against it. Follows the
// command-line contract in docs/architecture.md: the server is ready when the kubeconfig is
// written and /readyz answers ok; SIGTERM stops it; `kubedesk reset` removes its state and containers.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repositoryRoot, toolPaths } from './tools';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  input?: string;
  env?: Record<string, string>;
  /** Kills the command after this long (default 60 s); the result then has code null. */
  timeoutMs?: number;
}

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartClusterOptions {
  nodes?: number;
  extraArgs?: string[];
  env?: Record<string, string>;
  /** How long to wait for readiness (default 90 s). */
  readyTimeoutMs?: number;
  /** The CLI script to run (default bin/kubedesk.mjs); the harness's own test uses a fake. */
  cli?: string;
  /** Text the kubeconfig holds before the first start, standing for a user's existing kubeconfig. */
  kubeconfigContent?: string;
}

export interface TestCluster {
  /** Temporary folder holding the data dir, kubeconfig, logs and tool caches. */
  root: string;
  dataDir: string;
  kubeconfig: string;
  server: string;
  token: string;
  caPem: string;
  logPath: string;
  /** The running server process id, or undefined when stopped. */
  pid(): number | undefined;
  kubectl(args: string[], options?: CommandOptions): Promise<CommandResult>;
  helm(args: string[], options?: CommandOptions): Promise<CommandResult>;
  request(method: string, path: string, body?: string | object, headers?: Record<string, string>): Promise<HttpResult>;
  /** Sends `signal` (default SIGTERM) and waits for the process to exit. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitResult>;
  kill9(): Promise<ExitResult>;
  /** Stops the server if it runs, then starts it again on the same port and data dir (with other flags when given). */
  restart(options?: { extraArgs?: string[] }): Promise<void>;
  logs(): string;
  /** Stops the server, runs `kubedesk reset` (removes its containers) and deletes `root`. */
  destroy(): Promise<void>;
}

const defaultCliPath = join(repositoryRoot, 'bin', 'kubedesk.mjs');
const running = new Set<ChildProcess>();

// A crashed or interrupted test run must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startCluster(options: StartClusterOptions = {}): Promise<TestCluster> {
  const cliPath = options.cli ?? defaultCliPath;
  const bundle = join(repositoryRoot, 'dist', 'kubedesk.mjs');
  if (!existsSync(cliPath) || (options.cli === undefined && !existsSync(bundle))) {
    throw new Error(`${existsSync(cliPath) ? bundle : cliPath} is missing: run \`npm run build\` first`);
  }
  const root = mkdtempSync(join(tmpdir(), 'kubedesk-e2e-'));
  const dataDir = join(root, 'data');
  const kubeconfig = join(root, 'kubeconfig');
  const logPath = join(root, 'serve.log');
  const toolHome = join(root, 'home');
  mkdirSync(toolHome);
  if (options.kubeconfigContent !== undefined) writeFileSync(kubeconfig, options.kubeconfigContent, { mode: 0o600 });
  const tools = toolPaths();
  const readyTimeoutMs = options.readyTimeoutMs ?? 90_000;

  let child: ChildProcess | undefined;
  let exited: Promise<ExitResult> = Promise.resolve({ code: null, signal: null });
  let connection: Connection | undefined;

  let extraArgs = options.extraArgs ?? [];

  function launch(port: number): void {
    const args = [cliPath, 'serve', '--data-dir', dataDir, '--port', String(port), '--kubeconfig', kubeconfig];
    if (options.nodes !== undefined) args.push('--nodes', String(options.nodes));
    args.push(...extraArgs);
    const log = openSync(logPath, 'a');
    try {
      child = spawn(process.execPath, args, {
        cwd: repositoryRoot,
        env: { ...process.env, ...options.env, KUBECONFIG: kubeconfig },
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    const current = child;
    running.add(current);
    exited = new Promise((resolve) => {
      current.once('exit', (code, signal) => {
        running.delete(current);
        if (child === current) child = undefined;
        resolve({ code, signal });
      });
    });
  }

  async function waitUntilReady(): Promise<Connection> {
    const deadline = Date.now() + readyTimeoutMs;
    let lastProblem = 'kubeconfig not written yet';
    while (Date.now() < deadline) {
      if (!child) throw new Error(`kubedesk serve exited before it was ready.\n${tail(logPath)}`);
      const candidate = readConnection(kubeconfig);
      if (candidate) {
        try {
          const reply = await send(candidate, 'GET', '/readyz', undefined, {}, 5_000);
          if (reply.status === 200 && reply.body.trim() === 'ok') return candidate;
          lastProblem = `/readyz answered ${reply.status}: ${reply.body.slice(0, 500)}`;
        } catch (error) {
          lastProblem = `/readyz failed: ${error instanceof Error ? error.message : String(error)}`;
        }
      }
      await delay(100);
    }
    throw new Error(`kubedesk serve was not ready within ${readyTimeoutMs} ms (${lastProblem}).\n${tail(logPath)}`);
  }

  async function stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<ExitResult> {
    const current = child;
    if (!current) return exited;
    current.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const outcome = await Promise.race([exited, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      current.kill('SIGKILL');
      await exited;
      throw new Error(`kubedesk serve did not exit within ${timeoutMs} ms of ${signal}.\n${tail(logPath)}`);
    }
    return outcome;
  }

  function requireConnection(): Connection {
    if (!connection) throw new Error('the cluster has not started');
    return connection;
  }

  launch(0);
  try {
    connection = await waitUntilReady();
  } catch (error) {
    // The error already carries the log tail; remove what a half-started server left behind.
    await stop('SIGKILL').catch(() => undefined);
    await runCommand(process.execPath, [cliPath, 'reset', '--data-dir', dataDir], { timeoutMs: 120_000 }).catch(() => undefined);
    if (!process.env.KUBEDESK_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
    throw error;
  }

  function runTool(binary: string, args: string[], commandOptions: CommandOptions = {}): Promise<CommandResult> {
    return runCommand(binary, args, {
      ...commandOptions,
      env: {
        KUBECONFIG: kubeconfig,
        KUBECACHEDIR: join(root, 'kube-cache'),
        HELM_CACHE_HOME: join(toolHome, 'helm-cache'),
        HELM_CONFIG_HOME: join(toolHome, 'helm-config'),
        HELM_DATA_HOME: join(toolHome, 'helm-data'),
        ...commandOptions.env,
      },
    });
  }

  const cluster: TestCluster = {
    root,
    dataDir,
    kubeconfig,
    logPath,
    get server() {
      return requireConnection().server;
    },
    get token() {
      return requireConnection().token;
    },
    get caPem() {
      return requireConnection().caPem;
    },
    pid: () => child?.pid,
    kubectl: (args, commandOptions) => runTool(tools.kubectl, ['--kubeconfig', kubeconfig, ...args], commandOptions),
    helm: (args, commandOptions) => runTool(tools.helm, ['--kubeconfig', kubeconfig, ...args], commandOptions),
    request: (method, path, body, headers = {}) => send(requireConnection(), method, path, body, headers, 60_000),
    stop,
    kill9: () => stop('SIGKILL'),
    async restart(restartOptions = {}) {
      await stop();
      if (restartOptions.extraArgs) extraArgs = restartOptions.extraArgs;
      // The same port keeps the kubeconfig and any client's address valid across the restart.
      launch(Number(new URL(requireConnection().server).port));
      try {
        connection = await waitUntilReady();
      } catch (error) {
        await stop('SIGKILL').catch(() => undefined);
        throw error;
      }
    },
    logs: () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : ''),
    async destroy() {
      await stop().catch(() => stop('SIGKILL'));
      // Without --kubeconfig, reset would edit the default kubeconfig of whoever runs the tests.
      const reset = await runCommand(process.execPath, [cliPath, 'reset', '--data-dir', dataDir, '--kubeconfig', kubeconfig], { timeoutMs: 120_000 });
      if (reset.code !== 0) {
        throw new Error(`kubedesk reset failed (${String(reset.code)}); state kept in ${root}.\n${reset.stdout}${reset.stderr}`);
      }
      if (!process.env.KUBEDESK_KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}

interface Connection {
  server: string;
  token: string;
  caPem: string;
}

// Reads the kubedesk entries (or the current context's) from the kubeconfig the server wrote. The
// kubedesk context wins: in a user's existing kubeconfig the current context stays someone else's.
function readConnection(kubeconfig: string): Connection | undefined {
  if (!existsSync(kubeconfig)) return undefined;
  let config: unknown;
  try {
    config = parse(readFileSync(kubeconfig, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(config)) return undefined;
  const currentContext = typeof config['current-context'] === 'string' && config['current-context'] ? config['current-context'] : 'kubedesk';
  const contextName = namedEntry(config.contexts, 'kubedesk') ? 'kubedesk' : currentContext;
  const context = asRecord(namedEntry(config.contexts, contextName)?.context);
  const cluster = asRecord(namedEntry(config.clusters, typeof context.cluster === 'string' ? context.cluster : 'kubedesk')?.cluster);
  const user = asRecord(namedEntry(config.users, typeof context.user === 'string' ? context.user : 'kubedesk')?.user);
  const server = cluster.server;
  const caData = cluster['certificate-authority-data'];
  const token = user.token;
  if (typeof server !== 'string' || typeof caData !== 'string' || typeof token !== 'string') return undefined;
  return { server, token, caPem: Buffer.from(caData, 'base64').toString('utf8') };
}

function namedEntry(list: unknown, name: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.filter(isRecord).find((entry) => entry.name === name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

function send(
  connection: Connection,
  method: string,
  path: string,
  body: string | object | undefined,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<HttpResult> {
  const url = new URL(path, connection.server);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const lowerCaseHeaders = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const requestHeaders: Record<string, string> = {
    authorization: `Bearer ${connection.token}`,
    accept: 'application/json',
    ...(payload !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...lowerCaseHeaders,
  };
  if (payload !== undefined) requestHeaders['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      url,
      { method, headers: requestHeaders, ca: connection.caPem, agent: false, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

export function runCommand(binary: string, args: string[], options: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs ?? 60_000} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
}

function tail(path: string, lines = 60): string {
  if (!existsSync(path)) return '(no server log)';
  const content = readFileSync(path, 'utf8').trimEnd().split('\n');
  return `--- last ${Math.min(lines, content.length)} lines of ${path} ---\n${content.slice(-lines).join('\n')}`;
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
