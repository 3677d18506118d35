// Single-object creates: 16 (or 64) clients, each its own keep-alive HTTPS connection, POSTing
// ConfigMaps one after another (as 16 controllers or `kubectl apply` loops would) for a bounded time.
// Compared with rawSqlite.mjs run in the same process just before, so the ratio tells how much of
// the disk's transaction rate the API path (TLS, HTTP, auth, validation, defaulting, storage,
// watch) keeps. The measured window is recorded on the monotonic clock V8's profiler uses, so a
// `--profile` run's CPU per create can be read from the profile alone (profileSummary.mjs --window).
import https from 'node:https';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cpuMsOf, memoryOf, request, startServer, summarise } from './lib.mjs';
import { rawInsertLoop } from './rawSqlite.mjs';
import { openRawHttpsConnection } from './rawHttpsClient.mjs';

const TARGET_PER_SECOND = 3_000;
const TARGET_P99_MS = 20;
const TARGET_RATIO = 0.45;

/** CLOCK_MONOTONIC in microseconds: the clock of a V8 CPU profile's timestamps on Linux. */
function monotonicMicros() {
  return Number(process.hrtime.bigint() / 1000n);
}

function configMap(name, index) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' }, data: { index: String(index), payload: 'x'.repeat(64) } };
}

export async function ensureNamespace(server, name) {
  const reply = await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (reply.status !== 201 && reply.status !== 409) throw new Error(`creating namespace ${name}: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
}

/**
 * Which client the create loads use: 'raw' (default) writes each request's bytes on a TLS socket
 * and parses only the status line and Content-Length (rawHttpsClient.mjs), 'node-https' is
 * `https.request` with a keep-alive agent per client, which costs the bench process two to three
 * times more CPU per create. The server receives the same requests either way. run.mjs sets it
 * from --node-https-client.
 */
export const createLoadClient = { kind: 'raw' };

/** One client's connection: `send` resolves with { status, ms }. */
async function openClient(server) {
  if (createLoadClient.kind === 'raw') return openRawHttpsConnection(server);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
  return {
    send: (method, path, body) => request(server, method, path, body, { agent }),
    close: () => agent.destroy(),
  };
}

/** Runs `CLIENTS` loops of sequential creates until `maxCreates` in total or `maxMs` have passed. */
export async function createLoad(server, { clients, prefix, maxCreates, maxMs }) {
  const latencies = [];
  const failures = new Map();
  const fail = (key) => failures.set(key, (failures.get(key) ?? 0) + 1);
  let issued = 0;
  const connections = [];
  const started = performance.now();
  const deadline = started + maxMs;
  const client = async (clientIndex) => {
    // connected inside the window, as an agent connects on its first request
    let connection = (connections[clientIndex] = await openClient(server));
    while (issued < maxCreates && performance.now() < deadline) {
      const index = issued++;
      try {
        const reply = await connection.send('POST', '/api/v1/namespaces/bench/configmaps', configMap(`${prefix}-${clientIndex}-${index}`, index));
        if (reply.status === 201) latencies.push(reply.ms);
        else fail(`HTTP ${reply.status}`);
      } catch (error) {
        fail(error instanceof Error ? error.message.slice(0, 80) : String(error));
        // as an agent would, the next request goes on a new connection
        connection.close();
        connection = connections[clientIndex] = await openClient(server);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, clientIndex) => client(clientIndex)));
  const seconds = (performance.now() - started) / 1000;
  for (const connection of connections) connection?.close();
  return { latencies, failures: Object.fromEntries(failures), seconds };
}

export async function benchCreates({ clients = 16, maxCreates = 20_000, maxMs = 5_000 } = {}) {
  const raw = rawInsertLoop({ maxMs: 3_000 });
  const server = await startServer({ name: `creates-${clients}` });
  try {
    await ensureNamespace(server, 'bench');
    await createLoad(server, { clients, prefix: 'warm', maxCreates: 400, maxMs: 5_000 });
    const cpuBefore = cpuMsOf(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const windowStart = monotonicMicros();
    const load = await createLoad(server, { clients, prefix: 'cm', maxCreates, maxMs });
    const profileWindowUs = [windowStart, monotonicMicros()];
    const serverCpuMs = cpuMsOf(server.pid) - cpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const memory = memoryOf(server.pid);
    const latency = summarise(load.latencies);
    const perSecond = load.latencies.length / load.seconds;
    const ratio = perSecond / raw.perSecond;
    const failed = Object.values(load.failures).reduce((sum, count) => sum + count, 0);
    return {
      name: clients === 16 ? 'creates' : `creates-${clients}`,
      figures: {
        clients,
        client: createLoadClient.kind,
        serverPid: server.pid,
        profileWindowUs,
        creates: load.latencies.length,
        failed,
        failures: load.failures,
        seconds: load.seconds,
        createsPerSecond: perSecond,
        latencyMs: latency,
        raw,
        ratioToRaw: ratio,
        serverCpuMsPerCreate: serverCpuMs / Math.max(1, load.latencies.length),
        serverCpuCores: serverCpuMs / 1000 / load.seconds,
        clientCpuMsPerCreate: (clientCpu.user + clientCpu.system) / 1000 / Math.max(1, load.latencies.length),
        serverRssAfterMb: memory.rssMb,
        serverPeakRssMb: memory.peakMb,
      },
      rows: [
        [`creates/s (${clients} clients)`, perSecond.toFixed(0), `raw SQLite: ${raw.perSecond.toFixed(0)}/s`, `≥ ${TARGET_PER_SECOND}`, perSecond >= TARGET_PER_SECOND],
        [`create ratio to raw (${clients} clients)`, `${(ratio * 100).toFixed(0)} %`, '', `≥ ${TARGET_RATIO * 100} %`, ratio >= TARGET_RATIO],
        [`create latency p50 / p90 (${clients} clients)`, `${latency.p50.toFixed(1)} / ${latency.p90.toFixed(1)} ms`, '', '', undefined],
        [`create latency p99 (${clients} clients)`, `${latency.p99.toFixed(1)} ms`, `max ${latency.max.toFixed(1)} ms`, `≤ ${TARGET_P99_MS} ms`, latency.p99 <= TARGET_P99_MS],
        [`server CPU per create (${clients} clients)`, `${((serverCpuMs / Math.max(1, load.latencies.length)) * 1000).toFixed(0)} µs`, `bench process (${createLoadClient.kind} client): ${((clientCpu.user + clientCpu.system) / Math.max(1, load.latencies.length)).toFixed(0)} µs`, '', undefined],
        [`server CPU cores in use (${clients} clients)`, (serverCpuMs / 1000 / load.seconds).toFixed(2), `of ${cpus().length} cores; bench process ${((clientCpu.user + clientCpu.system) / 1e6 / load.seconds).toFixed(2)}`, '', undefined],
        [`failed creates (${clients} clients)`, String(failed), Object.keys(load.failures).join('; ').slice(0, 60), '0', failed === 0],
      ],
    };
  } finally {
    await server.stop();
  }
}
