// Watch fan-out: 500 concurrent `?watch=true&resourceVersion=N` HTTPS streams on one namespace's
// ConfigMaps (500 informers, as many controllers and UIs watching one resource would hold), then
// ConfigMaps created at a steady rate. Each object carries its send time in its data, so every
// watcher measures the whole path — request, store, fan-out, TLS, its own socket — to the event.
// Upstream serves this from the watch cache (apiserver/pkg/storage/cacher); so must we.
// The watchers live in worker threads (watchWorker.mjs), away from the writer's event loop.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { cpuMsOf, memoryOf, request, sleep, startServer, summarise } from './lib.mjs';

const TARGET_P99_MS = 50;
const NAMESPACE = 'bench-watch';

function clock() {
  return Number(process.hrtime.bigint()) / 1e6;
}

function sum(counters, slot) {
  return counters.reduce((total, shared) => total + Atomics.load(shared, slot), 0);
}

async function waitFor(condition, timeoutMs, what) {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

export async function benchWatchFanout({ watchers = 500, objects = 200, rates = [20, 40], threads = 4 } = {}) {
  const server = await startServer({ name: 'watch' });
  const workers = [];
  try {
    const created = await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    if (created.status !== 201) throw new Error(`creating namespace: HTTP ${created.status} ${created.body.slice(0, 300)}`);
    const list = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/configmaps`);
    if (list.status !== 200) throw new Error(`listing configmaps: HTTP ${list.status} ${list.body.slice(0, 300)}`);
    const resourceVersion = JSON.parse(list.body).metadata.resourceVersion;

    const openStarted = performance.now();
    const counters = [];
    for (let thread = 0; thread < threads; thread++) {
      const count = Math.floor(watchers / threads) + (thread < watchers % threads ? 1 : 0);
      const buffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
      counters.push(new Int32Array(buffer));
      const worker = new Worker(new URL('./watchWorker.mjs', import.meta.url), {
        workerData: { url: server.url, ca: server.ca, token: server.token, namespace: NAMESPACE, resourceVersion, count, counters: buffer },
      });
      worker.on('error', (error) => console.error('bench: watch worker failed:', error));
      workers.push(worker);
    }
    await waitFor(() => sum(counters, 2) >= watchers, 60_000, `${watchers} watches to open`);
    const openMs = performance.now() - openStarted;

    // A probe object proves every watcher is subscribed before the clock starts.
    const probe = await request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' }, data: { probe: 'true' } });
    if (probe.status !== 201) throw new Error(`creating probe: HTTP ${probe.status} ${probe.body.slice(0, 300)}`);
    await waitFor(() => sum(counters, 0) >= watchers, 15_000, 'every watcher to see the probe');

    // Each rate is a phase of `objects` creates with its own index range, on the same watchers.
    const writer = new https.Agent({ keepAlive: true, maxSockets: 4, ca: server.ca });
    const total = objects * rates.length;
    const sentAt = new Float64Array(total);
    const ackAt = new Float64Array(total).fill(NaN);
    const phases = [];
    for (const [phase, perSecond] of rates.entries()) {
      const first = phase * objects;
      const cpuBefore = cpuMsOf(server.pid);
      const clientCpuBefore = process.cpuUsage();
      const writeStarted = performance.now();
      const writes = [];
      let writeFailures = 0;
      for (let index = first; index < first + objects; index++) {
        const due = writeStarted + ((index - first) * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        sentAt[index] = clock();
        const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `fan-${index}` }, data: { sentAt: String(sentAt[index]), payload: 'x'.repeat(64) } };
        writes.push(
          request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, body, { agent: writer }).then(
            (reply) => {
              if (reply.status === 201) ackAt[index] = clock();
              else writeFailures++;
            },
            () => writeFailures++,
          ),
        );
      }
      await Promise.all(writes);
      const expectedSoFar = watchers * (first + objects) - watchers * (phases.reduce((failures, done) => failures + done.writeFailures, 0) + writeFailures);
      const drainDeadline = performance.now() + 15_000;
      while (sum(counters, 1) < expectedSoFar && performance.now() < drainDeadline) await sleep(10);
      const seconds = (performance.now() - writeStarted) / 1000;
      const clientCpu = process.cpuUsage(clientCpuBefore);
      phases.push({
        perSecond,
        first,
        writeFailures,
        expected: watchers * (objects - writeFailures),
        serverCores: (cpuMsOf(server.pid) - cpuBefore) / 1000 / seconds,
        clientCores: (clientCpu.user + clientCpu.system) / 1e6 / seconds,
      });
      // A pause between phases lets the machine settle so one phase's backlog does not spill over.
      await sleep(500);
    }
    const memory = memoryOf(server.pid);
    writer.destroy();

    const collected = await Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolveCollect, reject) => {
            const timer = setTimeout(() => reject(new Error('watch worker did not report in 15 s')), 15_000);
            worker.once('message', (message) => {
              clearTimeout(timer);
              resolveCollect(message);
            });
            worker.postMessage('collect');
          }),
      ),
    );
    const delays = phases.map(() => []);
    const sinceAck = phases.map(() => []);
    const receipts = new Int32Array(total);
    let unexpected = 0;
    for (const part of collected) {
      unexpected += part.unexpected;
      for (let event = 0; event < part.names.length; event++) {
        const index = part.names[event];
        const phase = Math.floor(index / objects);
        delays[phase].push(part.receivedAt[event] - part.sentAt[event]);
        // Events can beat the create's own response to the watcher; those give negative figures.
        if (!Number.isNaN(ackAt[index])) sinceAck[phase].push(part.receivedAt[event] - ackAt[index]);
        receipts[index]++;
      }
    }
    const figures = { watchers, objects, threads, openMs, unexpectedEvents: unexpected, serverRssWithWatchesMb: memory.rssMb, serverPeakRssMb: memory.peakMb, phases: [] };
    const rows = [];
    for (const [phase, done] of phases.entries()) {
      const createLatency = [];
      let incomplete = 0;
      for (let index = done.first; index < done.first + objects; index++) {
        if (!Number.isNaN(ackAt[index])) createLatency.push(ackAt[index] - sentAt[index]);
        if (receipts[index] < watchers) incomplete++;
      }
      const latency = summarise(delays[phase]);
      const afterAck = summarise(sinceAck[phase]);
      const creates = summarise(createLatency);
      const delivered = delays[phase].length;
      figures.phases.push({ ...done, delivered, objectsNotSeenByEveryWatcher: incomplete, latencyFromSendMs: latency, latencyFromAckMs: afterAck, createLatencyMs: creates });
      const at = `@${done.perSecond}/s`;
      rows.push(
        [`watch ${at}: events delivered`, `${delivered} / ${done.expected}`, `${watchers} watchers × ${objects} objects`, 'all', delivered === done.expected && incomplete === 0 && done.writeFailures === 0],
        [`watch ${at}: delay p50 / p99`, `${latency.p50.toFixed(1)} / ${latency.p99.toFixed(1)} ms`, `from ack: ${afterAck.p50.toFixed(1)} / ${afterAck.p99.toFixed(1)} ms`, `p99 ≤ ${TARGET_P99_MS} ms`, latency.p99 <= TARGET_P99_MS],
        [`watch ${at}: delay max`, `${latency.max.toFixed(1)} ms`, `from ack: ${afterAck.max.toFixed(1)} ms`, '', undefined],
        [`watch ${at}: create p50 / p99`, `${creates.p50.toFixed(1)} / ${creates.p99.toFixed(1)} ms`, 'the writer\'s own requests', '', undefined],
        [`watch ${at}: CPU cores`, `server ${done.serverCores.toFixed(2)}`, `bench process ${done.clientCores.toFixed(2)}`, '', undefined],
      );
    }
    rows.push([`RSS holding ${watchers} watches`, `${memory.rssMb.toFixed(0)} MB`, `${watchers} opened in ${openMs.toFixed(0)} ms`, '', undefined]);
    return { name: 'watch', figures, rows };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
    await server.stop();
  }
}
