// Shared helpers for the benchmarks: start `kubedesk serve` on a fresh data dir the way a user
// would (ready = kubeconfig written and /readyz answering "ok", as kubeadm and kind wait on
// /readyz), read the server URL, CA and admin token back from that kubeconfig (as client-go's
// clientcmd does), make HTTPS requests with keep-alive agents, and summarise timings. A stopped
// server's cluster is removed with `kubedesk reset` (its Docker network and kd-netd container).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const cliPath = join(repoRoot, 'bin', 'kubedesk.mjs');

/** Extra node flags for the server (e.g. --cpu-prof), set by run.mjs from its own flags. */
export const serverNodeFlags = [];

export function sleep(ms) {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}

export function temporaryDir(prefix) {
  return mkdtempSync(join(tmpdir(), `kubedesk-bench-${prefix}-`));
}

/**
 * Points every server of this bench run at a fresh, empty V8 code cache directory
 * (KUBEDESK_CODE_CACHE_DIR, main/app/codeCache.ts) and fills it with one start: a user's first
 * start after installing or upgrading runs without the cache, every later one with it, whatever
 * its data dir. Resolves with that first start's figures (printed apart by the startup bench) once
 * the server has written the cache, and removes the directory at exit.
 */
export async function prepareCodeCache() {
  const directory = temporaryDir('code-cache');
  process.env.KUBEDESK_CODE_CACHE_DIR = directory;
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  const server = await startServer({ name: 'code-cache' });
  const cold = { readyMs: server.readyMs, cpuMsAtReady: server.cpuMsAtReady };
  // the server writes its cache a few seconds after it started
  const deadline = performance.now() + 30_000;
  while (!readdirSync(directory).some((file) => file.endsWith('.v8cache')) && performance.now() < deadline) await sleep(50);
  await server.stop();
  return { directory, cold, written: readdirSync(directory).some((file) => file.endsWith('.v8cache')) };
}

/**
 * Starts `node bin/kubedesk.mjs serve` on an empty data dir and port 0. Resolves once the
 * kubeconfig exists and /readyz answers 200 "ok"; `readyMs` is measured from just before spawn.
 */
export async function startServer({ name, timeoutMs = 30_000, extraArgs = [] }) {
  const base = temporaryDir(name);
  const dataDir = join(base, 'data');
  const kubeconfigPath = join(base, 'kubeconfig');
  const output = [];
  const started = performance.now();
  const child = spawn(process.execPath, [...serverNodeFlags, cliPath, 'serve', '--data-dir', dataDir, '--port', '0', '--kubeconfig', kubeconfigPath, ...extraArgs], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, KUBECONFIG: kubeconfigPath },
  });
  const remember = (chunk) => {
    output.push(chunk.toString());
    if (output.length > 200) output.splice(0, output.length - 200);
  };
  child.stdout.on('data', remember);
  child.stderr.on('data', remember);
  let exited = null;
  const exitPromise = new Promise((resolveExit) => {
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolveExit(exited);
    });
  });

  const server = {
    name,
    child,
    pid: child.pid,
    base,
    dataDir,
    kubeconfigPath,
    output,
    readyMs: NaN,
    /** SIGTERM → exit of the last stop() */
    stopMs: NaN,
    /** CPU time (user + system) the server had used when /readyz first answered ok */
    cpuMsAtReady: NaN,
    url: '',
    ca: '',
    token: '',
    agent: undefined,
    async stop() {
      if (exited === null) {
        const stopping = performance.now();
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(timer);
        this.stopMs = performance.now() - stopping;
      }
      this.agent?.destroy();
      try {
        // the cluster's network and kd-netd container on Docker go with it
        execFileSync(process.execPath, [cliPath, 'reset', '--data-dir', dataDir, '--kubeconfig', kubeconfigPath], { cwd: repoRoot, stdio: 'ignore', timeout: 60_000 });
      } catch {
        // Docker unreachable: nothing was made there
      }
      rmSync(base, { recursive: true, force: true });
      return exited;
    },
  };

  const deadline = started + timeoutMs;
  try {
    // Poll the file system tightly (2 ms): the figure is start-up time, so the poll must not add to it.
    while (!existsSync(kubeconfigPath)) {
      if (exited !== null) throw new Error(`server exited (${JSON.stringify(exited)}) before writing its kubeconfig`);
      if (performance.now() > deadline) throw new Error(`no kubeconfig after ${timeoutMs} ms`);
      await sleep(2);
    }
    Object.assign(server, readKubeconfig(kubeconfigPath));
    server.agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: server.ca });
    for (;;) {
      if (exited !== null) throw new Error(`server exited (${JSON.stringify(exited)}) before /readyz answered ok`);
      if (performance.now() > deadline) throw new Error(`/readyz not ok after ${timeoutMs} ms`);
      const reply = await request(server, 'GET', '/readyz', undefined, { timeoutMs: 2_000 }).catch(() => undefined);
      if (reply && reply.status === 200 && reply.body === 'ok') break;
      await sleep(2);
    }
    server.readyMs = performance.now() - started;
    server.cpuMsAtReady = cpuMsOf(child.pid);
    return server;
  } catch (error) {
    await server.stop().catch(() => undefined);
    const tail = output.join('').split('\n').slice(-30).join('\n');
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}\n--- server output (tail) ---\n${tail}`);
  }
}

/** Server URL, CA (PEM) and bearer token of the `kubedesk` context, via current-context. */
export function readKubeconfig(path) {
  const config = parse(readFileSync(path, 'utf8'));
  const contextName = config['current-context'] || 'kubedesk';
  const context = (config.contexts ?? []).find((entry) => entry.name === contextName)?.context;
  if (!context) throw new Error(`kubeconfig ${path} has no context ${contextName}`);
  const cluster = (config.clusters ?? []).find((entry) => entry.name === context.cluster)?.cluster;
  const user = (config.users ?? []).find((entry) => entry.name === context.user)?.user;
  if (!cluster?.server || !cluster['certificate-authority-data'] || !user?.token) {
    throw new Error(`kubeconfig ${path} lacks server, certificate-authority-data or token`);
  }
  return { url: cluster.server, ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'), token: user.token };
}

/** One HTTPS request to 127.0.0.1; resolves with status, body text and elapsed milliseconds. */
export function request(server, method, path, body, { agent = server.agent, timeoutMs = 10_000, contentType = 'application/json' } = {}) {
  const target = new URL(path, server.url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolveRequest, reject) => {
    const started = performance.now();
    const outgoing = https.request(
      target,
      {
        method,
        agent,
        ca: server.ca,
        headers: {
          Authorization: `Bearer ${server.token}`,
          Accept: 'application/json',
          ...(payload === undefined ? {} : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }),
        },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => resolveRequest({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Resident set size (VmRSS) and peak (VmHWM) of a process in MB, from /proc. */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (key) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : NaN;
  };
  return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted, fraction) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarise(values) {
  const sorted = Float64Array.from(values).sort();
  return {
    count: sorted.length,
    min: sorted.length ? sorted[0] : NaN,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
  };
}

/** 1-minute load average: the machine is shared, so every figure is printed with it. */
export function machineLoad() {
  try {
    const [one] = readFileSync('/proc/loadavg', 'utf8').split(' ');
    return Number(one);
  } catch {
    return NaN;
  }
}

export function round(value, digits = 1) {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

let clockTicks;
/** User + system CPU time a process has used so far, in milliseconds (from /proc/<pid>/stat). */
export function cpuMsOf(pid) {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
}
