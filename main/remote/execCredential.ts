// An exec credential plugin as client-go runs one (plugin/pkg/client/auth/exec/exec.go): the
// command with its args and the caller's environment plus the kubeconfig's env entries, and
// KUBERNETES_EXEC_INFO holding an ExecCredential spec (spec.interactive; spec.cluster when
// provideClusterInfo is set). Its stdout must be an ExecCredential of the configured apiVersion
// (client.authentication.k8s.io/v1 or v1beta1) whose status holds a token or a client certificate
// and key, optionally with an expirationTimestamp. The credential is cached until that time
// (without one, until the server rejects it), and concurrent callers share one run.
// Two callers: the app has no terminal, so a plugin never gets stdin, interactiveMode Always is
// refused, its stderr is kept for the message, and a run past the timeout fails; a command-line
// caller (kubedesk's own commands) passes an ExecTerminal and gets kubectl's behaviour: the
// plugin's stderr goes straight to the user's terminal, and it is interactive — stdin handed over,
// no timeout — when interactiveMode allows it and stdin is a terminal (Always without one is
// kubectl's "exec plugin cannot support interactive mode: standard input is not a terminal").
// A missing command is 'exec-missing' with the plugin's installHint, and a failing or silent
// plugin is 'exec-failed'.
import { spawn as nodeSpawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { ExecConfig } from './kubeconfig';
import { isRecord } from '../../shared/kubernetes/types';
import { CredentialError } from './clusterConnection';

export const execApiVersions: ReadonlySet<string> = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);

/** What the plugin returned. */
export interface ExecCredential {
  token?: string;
  /** client certificate and key (PEM), both or neither */
  certificate?: Buffer;
  key?: Buffer;
  /** epoch milliseconds; undefined = valid until the server rejects it */
  expiresAt?: number;
}

/** The cluster as the plugin sees it in spec.cluster (clientauthentication Cluster). */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string;
  insecureSkipTlsVerify: boolean;
  ca?: Buffer;
  proxyUrl?: string;
}

/** The terminal of a command-line caller, as kubectl has one. */
export interface ExecTerminal {
  /** whether the process's standard input is a terminal (process.stdin.isTTY) */
  stdinIsTerminal: boolean;
  /** where the plugin's stderr goes as it comes (kubectl passes it through to its own stderr) */
  stderr(text: string): void;
}

export interface ExecPluginOptions {
  /** a command-line caller's terminal; without one the plugin runs as the app runs it (no stdin, stderr captured) */
  terminal?: ExecTerminal;
  /** node's spawn, replaceable in tests */
  spawn?: typeof nodeSpawn;
  /** the environment the plugin's env entries are added to; default process.env */
  env?: NodeJS.ProcessEnv;
  /** epoch milliseconds; default Date.now */
  now?: () => number;
  /** a plugin that has not exited by then fails; default 120 s (a plugin may wait for a browser sign-in) */
  timeoutMs?: number;
}

const maxOutputBytes = 1024 * 1024;
const maxStderrChars = 8 * 1024;

/** The KUBERNETES_EXEC_INFO value client-go gives the plugin. */
export function execInfo(config: ExecConfig, cluster: ExecClusterInfo, interactive = false): string {
  const spec: Record<string, unknown> = { interactive };
  if (config.provideClusterInfo) {
    spec.cluster = {
      server: cluster.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.insecureSkipTlsVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(cluster.ca ? { 'certificate-authority-data': cluster.ca.toString('base64') } : {}),
      ...(cluster.proxyUrl ? { 'proxy-url': cluster.proxyUrl } : {}),
      ...(config.clusterConfig !== undefined ? { config: config.clusterConfig } : {}),
    };
  }
  return JSON.stringify({ apiVersion: config.apiVersion, kind: 'ExecCredential', spec });
}

/** Parses the plugin's stdout into a credential; a CredentialError 'exec-failed' says what is wrong. */
export function parseExecCredential(stdout: string, config: ExecConfig, stderr: string): ExecCredential {
  const fail = (message: string): never => {
    throw new CredentialError('exec-failed', `exec plugin ${config.command}: ${message}`, stderr || undefined);
  };
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch (error) {
    return fail(`decoding stdout: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isRecord(document) || document.kind !== 'ExecCredential') return fail('its output is not an ExecCredential');
  if (document.apiVersion !== config.apiVersion) return fail(`it is configured to use API version ${config.apiVersion}, plugin returned version ${String(document.apiVersion)}`);
  const status = document.status;
  if (!isRecord(status)) return fail("it didn't return a status field");
  const token = typeof status.token === 'string' && status.token !== '' ? status.token : undefined;
  const certificate = typeof status.clientCertificateData === 'string' && status.clientCertificateData !== '' ? status.clientCertificateData : undefined;
  const key = typeof status.clientKeyData === 'string' && status.clientKeyData !== '' ? status.clientKeyData : undefined;
  if ((certificate === undefined) !== (key === undefined)) return fail('it returned only certificate or key, not both');
  if (!token && !certificate) return fail("it didn't return a token or cert/key pair");
  let expiresAt: number | undefined;
  if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
    expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
    if (Number.isNaN(expiresAt)) return fail(`its expirationTimestamp ${JSON.stringify(status.expirationTimestamp)} is not a time`);
  }
  return {
    ...(token ? { token } : {}),
    ...(certificate && key ? { certificate: Buffer.from(certificate), key: Buffer.from(key) } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
  };
}

/**
 * Whether the plugin runs interactively (client-go's interactiveFunc): never for Never or without a
 * terminal; for IfAvailable when stdin is a terminal; for Always it must be one.
 */
export function execInteractive(config: ExecConfig, terminal: ExecTerminal | undefined): boolean {
  if (!terminal || config.interactiveMode === 'Never') return false;
  if (config.interactiveMode === 'Always' && !terminal.stdinIsTerminal) throw new CredentialError('exec-interactive', 'exec plugin cannot support interactive mode: standard input is not a terminal');
  return terminal.stdinIsTerminal;
}

/** Checks what can be refused before running anything (version, interactive mode). */
export function checkExecConfig(config: ExecConfig, terminal?: ExecTerminal): void {
  if (!execApiVersions.has(config.apiVersion)) {
    throw new CredentialError('unsupported', `exec plugin ${config.command || '(no command)'}: apiVersion ${JSON.stringify(config.apiVersion)} is not supported (client.authentication.k8s.io/v1 and v1beta1 are)`);
  }
  if (!config.command) throw new CredentialError('unsupported', 'exec plugin: command must be specified');
  if (config.interactiveMode === '') throw new CredentialError('unsupported', `interactiveMode must be specified for ${config.userName} to use exec authentication plugin`);
  if (config.interactiveMode === 'Always' && !terminal) {
    throw new CredentialError('exec-interactive', `exec plugin ${config.command} needs a terminal (interactiveMode Always) and the kubedesk app has none; run kubectl with this context in a terminal, or set interactiveMode to IfAvailable`);
  }
  if (config.interactiveMode !== 'Never' && config.interactiveMode !== 'IfAvailable' && config.interactiveMode !== 'Always') {
    throw new CredentialError('unsupported', `exec plugin ${config.command}: invalid interactiveMode ${JSON.stringify(config.interactiveMode)} (Never, IfAvailable or Always)`);
  }
}

/** Runs the plugin once and returns its credential. */
export function runExecPlugin(config: ExecConfig, cluster: ExecClusterInfo, options: ExecPluginOptions = {}): Promise<ExecCredential> {
  const { terminal } = options;
  let interactive: boolean;
  try {
    checkExecConfig(config, terminal);
    interactive = execInteractive(config, terminal);
  } catch (error) {
    return Promise.reject(error);
  }
  const spawn = options.spawn ?? nodeSpawn;
  // an interactive plugin may wait for the user as long as it likes, as kubectl lets it
  const timeoutMs = interactive ? 0 : (options.timeoutMs ?? 120_000);
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  for (const entry of config.env) env[entry.name] = entry.value;
  env.KUBERNETES_EXEC_INFO = execInfo(config, cluster, interactive);
  return new Promise((resolve, reject) => {
    const child = spawn(config.command, config.args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let settled = false;
    const finish = (outcome: () => ExecCredential) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    };
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            child.kill('SIGKILL');
            finish(() => {
              throw new CredentialError('exec-failed', `exec plugin ${config.command} did not finish within ${Math.round(timeoutMs / 1000)} s`, stderr.trim() || undefined);
            });
          }, timeoutMs)
        : undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes <= maxOutputBytes) stdout.push(chunk);
    });
    // with a terminal the user has read the plugin's stderr already: messages do not repeat it (as kubectl's do not)
    const stderrDecoder = new StringDecoder('utf8');
    child.stderr?.on('data', (chunk: Buffer) => {
      if (terminal) terminal.stderr(stderrDecoder.write(chunk));
      else if (stderr.length < maxStderrChars) stderr = (stderr + chunk.toString('utf8')).slice(0, maxStderrChars);
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish(() => {
        if (error.code === 'ENOENT' || error.code === 'EACCES') {
          const words = error.code === 'ENOENT' ? 'not found' : 'is not executable';
          const hint = 'It looks like you are trying to use a client-go credential plugin that is not installed.';
          throw new CredentialError('exec-missing', `exec: executable ${config.command} ${words}\n\n${hint}${config.installHint ? `\n\n${config.installHint}` : ''}`);
        }
        throw new CredentialError('exec-failed', `exec plugin ${config.command}: ${error.message}`, stderr.trim() || undefined);
      }),
    );
    child.on('close', (code, signal) =>
      finish(() => {
        const rest = stderrDecoder.end();
        if (terminal && rest) terminal.stderr(rest);
        const trimmed = stderr.trim();
        if (code !== 0) throw new CredentialError('exec-failed', `exec: executable ${config.command} failed with ${signal ? `signal ${signal}` : `exit code ${code}`}${trimmed ? `: ${trimmed}` : ''}`, trimmed || undefined);
        if (stdoutBytes > maxOutputBytes) throw new CredentialError('exec-failed', `exec plugin ${config.command} printed more than 1 MiB`, trimmed || undefined);
        return parseExecCredential(Buffer.concat(stdout).toString('utf8'), config, trimmed);
      }),
    );
  });
}

/** The cached credential of one plugin: one run serves every waiting caller, until it expires or is rejected. */
export class ExecCredentialCache {
  private cached: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  private readonly now: () => number;
  /** how many times the plugin ran (for tests and diagnostics) */
  runs = 0;

  constructor(
    private readonly config: ExecConfig,
    private readonly cluster: ExecClusterInfo,
    private readonly options: ExecPluginOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  get(): Promise<ExecCredential> {
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || this.now() < cached.expiresAt)) return Promise.resolve(cached);
    if (this.running) return this.running;
    this.cached = undefined;
    this.runs += 1;
    const running = runExecPlugin(this.config, this.cluster, this.options).then(
      (credential) => {
        if (this.running === running) {
          this.cached = credential;
          this.running = undefined;
        }
        return credential;
      },
      (error: unknown) => {
        if (this.running === running) this.running = undefined;
        throw error;
      },
    );
    this.running = running;
    return running;
  }

  /** The server rejected the credential: the next get() runs the plugin again (a run under way already is fresh). */
  invalidate(): void {
    if (!this.running) this.cached = undefined;
  }
}
