// Helpers for the benchmarks that run pods on Docker: start a cluster and wait for its node to be
// Ready (as kubeadm waits on the node's Ready condition before workloads), watch pods and note when
// each one's Ready condition turns True (what `kubectl wait --for=condition=Ready` watches), run
// kubectl / docker with stdout to /dev/null, and remove everything afterwards with `kubedesk reset`
// (which removes the containers labelled with the cluster id) plus the bench's own Docker objects.
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Docker from 'dockerode';
import { cliPath, repoRoot, request, sleep, startServer } from './lib.mjs';

export const busyboxImage = 'kubedesk-test/busybox:4';
export const kubectlPath = process.env.KUBECTL ?? join(repoRoot, '.tools', 'kubectl');
/** Label on the bench's own baseline containers and network, so a crashed run can be cleaned up. */
export const benchLabel = 'dev.kubedesk.bench';

export const docker = new Docker();

// Cleanups run when a pod bench finishes, and also from run.mjs's watchdog and on Ctrl-C, so a run
// that is cut short does not leave 200 containers on a shared Docker daemon.
const cleanups = new Set();

export function registerCleanup(cleanup) {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** Runs every pending cleanup (each bounded by its own timeouts); used by the watchdog and SIGINT. */
export async function runPendingCleanups() {
  const pending = [...cleanups];
  cleanups.clear();
  await Promise.allSettled(pending.map((cleanup) => cleanup()));
}

let interruptHandlers = 0;
function onInterrupt() {
  console.error('\nbench: interrupted; removing the bench containers and clusters …');
  runPendingCleanups().finally(() => process.exit(130));
}

/** The bench's test image must exist (the e2e global setup builds it); pulls would fail here. */
export async function requireImage(name) {
  try {
    await docker.getImage(name).inspect();
  } catch {
    throw new Error(`image ${name} is missing: run the e2e suite once (test/globalSetup.ts builds it)`);
  }
}

/**
 * Starts `kubedesk serve` (via lib.startServer), then waits until its Node is Ready and the
 * default ServiceAccount exists. `stop()` stops the server with SIGTERM, runs
 * `kubedesk reset --data-dir D --kubeconfig K` (removes the pod containers and the network) and
 * deletes the temp dir.
 */
export async function startPodCluster({ name, nodeTimeoutMs = 60_000 }) {
  if (!existsSync(kubectlPath)) throw new Error(`${kubectlPath} is missing: run the e2e suite once (it unpacks kubectl)`);
  const server = await startServer({ name });
  let stopped;
  const stop = () => (stopped ??= stopAndReset(server));
  const unregister = registerCleanup(stop);
  if (interruptHandlers++ === 0) process.on('SIGINT', onInterrupt);
  const cluster = {
    server,
    kubectlEnv: { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(server.base, 'kube-cache'), HOME: join(server.base, 'home') },
    async stop() {
      unregister();
      if (--interruptHandlers === 0) process.off('SIGINT', onInterrupt);
      await stop();
    },
  };
  mkdirSync(cluster.kubectlEnv.HOME, { recursive: true });
  try {
    const deadline = performance.now() + nodeTimeoutMs;
    for (;;) {
      const reply = await request(server, 'GET', '/api/v1/nodes').catch(() => undefined);
      const nodes = reply?.status === 200 ? JSON.parse(reply.body).items : [];
      if (nodes.some((node) => readyCondition(node) === 'True')) break;
      if (performance.now() > deadline) throw new Error(`no Ready node within ${nodeTimeoutMs} ms`);
      await sleep(100);
    }
    for (;;) {
      const reply = await request(server, 'GET', '/api/v1/namespaces/default/serviceaccounts/default').catch(() => undefined);
      if (reply?.status === 200) break;
      // Some clusters admit pods without the ServiceAccount; after 15 s go on and let the POSTs tell.
      if (performance.now() > deadline) break;
      await sleep(100);
    }
    return cluster;
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    throw error;
  }
}

async function stopAndReset(server) {
  const { child } = server;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  await runFile(process.execPath, [cliPath, 'reset', '--data-dir', server.dataDir, '--kubeconfig', server.kubeconfigPath], { timeoutMs: 180_000 }).catch((error) => {
    console.error(`bench: kubedesk reset of ${server.dataDir} failed: ${error.message}`);
  });
  // lib's stop(): the process has exited already, so this only removes the temp dir.
  await server.stop();
}

export function runFile(file, args, { timeoutMs = 60_000, env } = {}) {
  return new Promise((resolveRun, reject) => {
    execFile(file, args, { timeout: timeoutMs, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')}: ${error.message}${stderr ? `\n${stderr}` : ''}`));
      else resolveRun(stdout);
    });
  });
}

/**
 * Runs a command with stdout to /dev/null (or counted, with `countBytes`), stderr kept for errors.
 * Resolves with the wall time from just before spawn to exit, the exit code and the byte count.
 */
export function timeCommand(file, args, { env, timeoutMs = 60_000, countBytes = false } = {}) {
  return new Promise((resolveRun) => {
    const devNull = countBytes ? undefined : openSync('/dev/null', 'w');
    const started = performance.now();
    const child = spawn(file, args, { env, stdio: ['ignore', countBytes ? 'pipe' : devNull, 'pipe'] });
    if (devNull !== undefined) closeSync(devNull);
    let bytes = 0;
    let stderr = '';
    child.stdout?.on('data', (chunk) => (bytes += chunk.length));
    child.stderr.on('data', (chunk) => {
      if (stderr.length < 4_000) stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolveRun({ ms: performance.now() - started, code: -1, bytes, stderr: error.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ ms: performance.now() - started, code, bytes: countBytes ? bytes : NaN, stderr });
    });
  });
}

export function readyCondition(object) {
  const conditions = object?.status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  return conditions.find((condition) => condition.type === 'Ready')?.status;
}

export function podManifest(name, { labels = {}, command = ['sleep', '3600'] } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command }],
      // `sleep` as PID 1 ignores SIGTERM; a short grace keeps the clean-up quick.
      terminationGracePeriodSeconds: 1,
    },
  };
}

/**
 * Watches pods in `namespace` from the current resourceVersion and records, per pod name, the
 * time (performance.now()) the chunk carrying its first Ready=True arrived. `ready(name)` gives
 * that time; `whenReady(names, timeoutMs)` resolves once all are Ready or the time is up.
 */
export async function watchReadyPods(server, namespace) {
  const list = await request(server, 'GET', `/api/v1/namespaces/${namespace}/pods?limit=1`);
  if (list.status !== 200) throw new Error(`listing pods: ${list.status} ${list.body.slice(0, 300)}`);
  const resourceVersion = JSON.parse(list.body).metadata.resourceVersion;
  const readyAt = new Map();
  const waiters = new Set();
  const url = new URL(`/api/v1/namespaces/${namespace}/pods?watch=true&allowWatchBookmarks=false&resourceVersion=${resourceVersion}`, server.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${url.hostname}`);
  let failure;
  const agent = new https.Agent({ keepAlive: false, ca: server.ca });
  const outgoing = https.request(url, { method: 'GET', agent, ca: server.ca, headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json' } });
  const opened = new Promise((resolveOpen, reject) => {
    outgoing.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`watch answered ${response.statusCode}`));
        response.resume();
        return;
      }
      resolveOpen();
      let pending = '';
      response.setEncoding('utf8');
      response.on('data', (text) => {
        const now = performance.now();
        pending += text;
        let newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (!line) continue;
          const event = JSON.parse(line);
          const name = event.object?.metadata?.name;
          if (name && !readyAt.has(name) && readyCondition(event.object) === 'True') readyAt.set(name, now);
        }
        for (const waiter of waiters) waiter();
      });
      response.on('end', () => {
        failure ??= new Error('the pod watch ended');
        for (const waiter of waiters) waiter();
      });
    });
    outgoing.on('error', (error) => {
      failure ??= error;
      reject(error);
      for (const waiter of waiters) waiter();
    });
  });
  outgoing.end();
  await opened;
  return {
    ready: (name) => readyAt.get(name),
    whenReady(names, timeoutMs) {
      return new Promise((resolveReady) => {
        const check = () => {
          if (failure || names.every((name) => readyAt.has(name))) finish();
        };
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
          resolveReady(names.filter((name) => readyAt.has(name)).length);
        };
        const timer = setTimeout(finish, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      outgoing.destroy();
      agent.destroy();
    },
  };
}

/** Runs `task` over `items` with at most `limit` in flight; returns the results in order. */
export async function mapLimit(items, limit, task) {
  const results = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  });
  await Promise.all(workers);
  return results;
}

/** Force-removes the bench's own containers (by label) and then its network. */
export async function removeBenchDockerObjects(runId) {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${benchLabel}=${runId}`] } });
  await mapLimit(containers, 8, (container) =>
    docker
      .getContainer(container.Id)
      .remove({ force: true })
      .catch(() => undefined),
  );
  const networks = await docker.listNetworks({ filters: { label: [`${benchLabel}=${runId}`] } });
  for (const network of networks) await docker.getNetwork(network.Id).remove().catch(() => undefined);
}

/** Pids of dockerd and containerd, when visible: their CPU is context for the kubelet's polling cost. */
export function dockerDaemonPids() {
  const pids = [];
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return pids;
  }
  for (const name of ['dockerd', 'containerd']) {
    for (const entry of entries) {
      try {
        if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) {
          pids.push(Number(entry));
          break;
        }
      } catch {
        // The process went away meanwhile.
      }
    }
  }
  return pids;
}

export function now() {
  return performance.now();
}
