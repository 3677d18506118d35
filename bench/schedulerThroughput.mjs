// Scheduler throughput on 100 Nodes with no kubelet (binding only, as kube-scheduler's
// scheduler_perf runs against kwok/hollow nodes): how many pods per second get `spec.nodeName`.
// The pods carry a nodeSelector for the fake nodes' label, so the cluster's own node (and Docker)
// takes no part. Two figures:
// - backlog: the 100 fake nodes carry a NoSchedule taint the pods do not tolerate; N pods are
//   created (each fails once, FailedScheduling, and waits as unschedulable, as in upstream's queue),
//   then the taint is removed from all nodes (16 clients, GET + PUT each), and the time is taken
//   from the first taint removal to the last binding seen on a pod watch. This is the scheduler on
//   its own: upstream's queue moves unschedulable pods back on a Node update that may help them.
//   (Nodes appearing one by one instead would fill the first ones and send pods into back-off.)
// - steady: with the nodes in place, N more pods are POSTed from 16 clients; the time is taken from
//   the first POST to the last binding. The create rate over HTTPS is measured in the same window
//   and printed beside it, since the scheduler cannot bind faster than pods arrive.
import { cpuMsOf, machineLoad, memoryOf, round, sleep, summarise } from './lib.mjs';
import { now, startPodCluster } from './podLib.mjs';
import { createConcurrently, openWatch, smallPod, startFakeNodes } from './workloadLib.mjs';

const NODE_COUNT = 100;
const TARGET_PODS_PER_SECOND = 1_000;
const CLIENTS = 16;
const PHASE_LIMIT_MS = 60_000;
const NAMESPACE = 'default';
const HOLD_TAINT = 'kubedesk.dev/bench-hold';

function envCount(name, fallback, max) {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? Math.min(value, max) : fallback;
}

function podScheduledFalse(pod) {
  return pod.status?.conditions?.some((condition) => condition.type === 'PodScheduled' && condition.status === 'False') === true;
}

function perSecond(count, ms) {
  return ms > 0 ? (count * 1000) / ms : NaN;
}

/** Count of `times` in each `bucketMs` slot from `start`: shows stalls (back-off, queueing) over time. */
function histogram(times, start, bucketMs) {
  const counts = [];
  for (const time of times) {
    const slot = Math.max(0, Math.floor((time - start) / bucketMs));
    while (counts.length <= slot) counts.push(0);
    counts[slot]++;
  }
  return counts;
}

/** The most bindings seen in any `windowMs` window, as a rate: the pace once the queue is flowing. */
function peakRate(times, windowMs) {
  const sorted = Float64Array.from(times).sort();
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end] - sorted[start] > windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return (best * 1000) / windowMs;
}

function rate(value) {
  return Number.isFinite(value) ? `${round(value, 0)} pods/s` : 'n/a';
}

export async function benchScheduler() {
  const podCount = envCount('KUBEDESK_BENCH_SCHEDULER_PODS', 2_000, 5_000);
  const cluster = await startPodCluster({ name: 'scheduler' });
  const { server } = cluster;
  let watch;
  let fakeNodes;
  try {
    fakeNodes = await startFakeNodes(server, NODE_COUNT, { clients: CLIENTS, taints: [{ key: HOLD_TAINT, effect: 'NoSchedule' }] });
    // Per pod: when the watch first showed it unschedulable and when it first showed a node name.
    const pods = new Map();
    watch = await openWatch(server, `/api/v1/namespaces/${NAMESPACE}/pods`, (event, arrived) => {
      const name = event.object?.metadata?.name;
      if (!name || event.type === 'DELETED') return;
      let record = pods.get(name);
      if (!record) pods.set(name, (record = { seenAt: arrived, unschedulableAt: undefined, boundAt: undefined, nodeName: undefined }));
      if (record.unschedulableAt === undefined && podScheduledFalse(event.object)) record.unschedulableAt = arrived;
      if (record.boundAt === undefined && event.object.spec?.nodeName) {
        record.boundAt = arrived;
        record.nodeName = event.object.spec.nodeName;
      }
    });

    // ---- backlog: pods while every fake node is tainted, then the taints go ----
    const backlogBodies = Array.from({ length: podCount }, (_, index) => smallPod(`backlog-${index}`, { labels: { 'bench-phase': 'backlog' } }));
    const backlogCreateStarted = now();
    const backlog = await createConcurrently(server, `/api/v1/namespaces/${NAMESPACE}/pods`, backlogBodies, { clients: CLIENTS, maxMs: PHASE_LIMIT_MS });
    const backlogCreateMs = now() - backlogCreateStarted;
    const backlogNames = backlog.created.map((pod) => pod.name);
    const allUnschedulable = await watch.until(() => backlogNames.every((name) => pods.get(name)?.unschedulableAt !== undefined), PHASE_LIMIT_MS);
    // Past the first back-off (1 s), so the figure is the scheduler's pace, not the back-off timer.
    await sleep(1_500);
    const backlogCpuBefore = cpuMsOf(server.pid);
    const loadBeforeBacklog = machineLoad();
    const nodesStarted = now();
    const untainted = await fakeNodes.removeTaint(HOLD_TAINT);
    const untaintMs = now() - nodesStarted;
    await watch.until(() => backlogNames.every((name) => pods.get(name)?.boundAt !== undefined), PHASE_LIMIT_MS);
    const backlogBound = backlogNames.map((name) => pods.get(name)?.boundAt).filter((time) => time !== undefined);
    const backlogLastBound = Math.max(...backlogBound);
    const backlogFirstBound = Math.min(...backlogBound);
    const backlogMs = backlogLastBound - nodesStarted;
    const backlogCpuMs = cpuMsOf(server.pid) - backlogCpuBefore;
    const backlogRate = perSecond(backlogBound.length, backlogMs);
    const backlogBindingRate = perSecond(backlogBound.length - 1, backlogLastBound - backlogFirstBound);
    const backlogPeakRate = peakRate(backlogBound, 1_000);
    const loadAfterBacklog = machineLoad();

    // ---- steady: nodes in place, pods arriving from 16 clients ----
    await sleep(2_000);
    const steadyBodies = Array.from({ length: podCount }, (_, index) => smallPod(`steady-${index}`, { labels: { 'bench-phase': 'steady' } }));
    const steadyCpuBefore = cpuMsOf(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const loadBeforeSteady = machineLoad();
    const steady = await createConcurrently(server, `/api/v1/namespaces/${NAMESPACE}/pods`, steadyBodies, { clients: CLIENTS, maxMs: PHASE_LIMIT_MS });
    const steadyNames = steady.created.map((pod) => pod.name);
    const firstSent = Math.min(...steady.created.map((pod) => pod.sent));
    const lastAcknowledged = Math.max(...steady.created.map((pod) => pod.acknowledged));
    await watch.until(() => steadyNames.every((name) => pods.get(name)?.boundAt !== undefined), PHASE_LIMIT_MS);
    const steadyCpuMs = cpuMsOf(server.pid) - steadyCpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const steadyBound = steadyNames.map((name) => pods.get(name)?.boundAt).filter((time) => time !== undefined);
    const steadyLastBound = Math.max(...steadyBound);
    const steadyMs = steadyLastBound - firstSent;
    const steadyRate = perSecond(steadyBound.length, steadyMs);
    const steadyPeakRate = peakRate(steadyBound, 1_000);
    const createRate = perSecond(steady.created.length, lastAcknowledged - firstSent);
    const createToBound = summarise(steady.created.map((pod) => (pods.get(pod.name)?.boundAt ?? NaN) - pod.acknowledged).filter(Number.isFinite));
    const createLatency = summarise(steady.created.map((pod) => pod.acknowledged - pod.sent));
    const loadAfterSteady = machineLoad();
    watch.close();
    watch = undefined;

    const perNode = new Map();
    for (const record of pods.values()) if (record.nodeName) perNode.set(record.nodeName, (perNode.get(record.nodeName) ?? 0) + 1);
    const spread = summarise([...perNode.values()]);
    const memory = memoryOf(server.pid);
    const figures = {
      nodeCount: NODE_COUNT,
      podCount,
      clients: CLIENTS,
      fakeNodeStatusRewritten: fakeNodes.statusRewritten,
      fakeNodeCreateMs: fakeNodes.createdMs,
      leaseRenewals: fakeNodes.renewals(),
      leaseRenewFailures: fakeNodes.renewFailures(),
      backlog: {
        created: backlog.created.length,
        failed: backlog.failed,
        failures: backlog.failures,
        createMs: backlogCreateMs,
        allUnschedulableBeforeNodes: allUnschedulable,
        bound: backlogBound.length,
        untaintedNodes: untainted,
        untaintMs,
        firstUntaintToLastBindingMs: backlogMs,
        podsPerSecond: backlogRate,
        firstToLastBindingMs: backlogLastBound - backlogFirstBound,
        bindingPodsPerSecond: backlogBindingRate,
        peakPodsPerSecondOver1s: backlogPeakRate,
        serverCpuCores: backlogCpuMs / backlogMs,
        bindingsPer250Ms: histogram(backlogBound, nodesStarted, 250),
        load: [loadBeforeBacklog, loadAfterBacklog],
      },
      steady: {
        created: steady.created.length,
        failed: steady.failed,
        failures: steady.failures,
        bound: steadyBound.length,
        firstPostToLastBindingMs: steadyMs,
        podsPerSecond: steadyRate,
        peakPodsPerSecondOver1s: steadyPeakRate,
        createsPerSecond: createRate,
        createLatencyMs: createLatency,
        ackToBindingMs: createToBound,
        serverCpuCores: steadyCpuMs / steadyMs,
        benchCpuCores: (clientCpu.user + clientCpu.system) / 1000 / steadyMs,
        load: [loadBeforeSteady, loadAfterSteady],
      },
      podsPerNode: spread,
      rssMb: memory.rssMb,
      peakRssMb: memory.peakMb,
    };
    return {
      name: 'scheduler',
      figures,
      rows: [
        [
          `scheduler, backlog of ${backlogNames.length} pods, ${NODE_COUNT} fake nodes`,
          rate(backlogRate),
          `untaint ${untainted} nodes (${round(untaintMs, 0)} ms) → last binding ${round(backlogMs, 0)} ms; first→last binding ${rate(backlogBindingRate)}, best 1 s ${rate(backlogPeakRate)}; server ${round(backlogCpuMs / backlogMs, 2)} cores; load ${loadBeforeBacklog} → ${loadAfterBacklog}`,
          `≥ ${TARGET_PODS_PER_SECOND} pods/s`,
          backlogBound.length === backlogNames.length && backlogRate >= TARGET_PODS_PER_SECOND,
        ],
        [
          `scheduler, ${steadyNames.length} pods POSTed by ${CLIENTS} clients`,
          rate(steadyRate),
          `first POST → last binding ${round(steadyMs, 0)} ms; ${steadyBound.length} bound; best 1 s ${rate(steadyPeakRate)}; server ${round(steadyCpuMs / steadyMs, 2)} cores; load ${loadBeforeSteady} → ${loadAfterSteady}`,
          `≥ ${TARGET_PODS_PER_SECOND} pods/s`,
          steadyBound.length === steadyNames.length && steadyRate >= TARGET_PODS_PER_SECOND,
        ],
        [
          `pod creates over HTTPS, ${CLIENTS} clients (same window)`,
          rate(createRate),
          `create p50 ${round(createLatency.p50, 1)} ms, p99 ${round(createLatency.p99, 1)} ms; 201 → bound p50 ${round(createToBound.p50, 0)} ms, p99 ${round(createToBound.p99, 0)} ms; ${steady.failed} failed`,
          '(bounds the line above)',
        ],
        [`pods per fake node`, `min ${spread.min}, p50 ${spread.p50}, max ${spread.max}`, `${perNode.size} nodes used; serve RSS ${round(memory.rssMb, 0)} MB`, '(printed)'],
      ],
    };
  } finally {
    watch?.close();
    await fakeNodes?.stop();
    await cluster.stop();
  }
}
