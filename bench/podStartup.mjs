// Pod create → Ready: time from the POST's 201 to the watch event that first shows the pod's Ready
// condition True (what `kubectl wait --for=condition=Ready` waits on), for pods created one after
// another and all at once, beside the same sandbox + container pairs started straight on Docker
// through its API in the same run (the kubelet's own work on Docker, minus Kubernetes). Then, with
// the parallel batch still running, the server's resident memory and its CPU use over 60 s in which
// nothing asks it for anything (upstream's kubelet keeps relisting and syncing in that time too).
// 60 s is one whole resync period (every pod is synced once a minute, its configMap, secret and
// token volumes re-projected): a shorter window would count that minute's resync or miss it.
import { spawn } from 'node:child_process';
import https from 'node:https';
import { cpuMsOf, machineLoad, memoryOf, request, round, sleep, summarise } from './lib.mjs';
import {
  benchLabel,
  busyboxImage,
  docker,
  dockerDaemonPids,
  mapLimit,
  now,
  podManifest,
  registerCleanup,
  removeBenchDockerObjects,
  requireImage,
  startPodCluster,
  watchReadyPods,
} from './podLib.mjs';

const RATIO_TARGET = 1.5;
const RSS_TARGET_MB = 250;
const IDLE_CPU_TARGET_PERCENT = 1;
const IDLE_WINDOW_MS = 60_000;
const SETTLE_MS = 10_000;
const EMPTY_IDLE_WINDOW_MS = 10_000;
const NAMESPACE = 'default';

function envCount(name, fallback, max) {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? Math.min(value, max) : fallback;
}

export async function findPauseImage() {
  const images = await docker.listImages({ filters: { label: ['dev.kubedesk.pause=true'] } });
  if (images.length === 0) throw new Error('no image labelled dev.kubedesk.pause=true after the cluster started');
  return images[0].Id;
}

async function waitRunning(containers, deadline) {
  for (;;) {
    const states = await Promise.all(containers.map((container) => container.inspect()));
    if (states.every((state) => state.State.Running)) return;
    if (now() > deadline) throw new Error('baseline containers not running after 60 s');
    await sleep(5);
  }
}

/**
 * The baseline "pod": `docker run -d --network NET --init PAUSE` then
 * `docker run -d --network container:<sandbox> busybox sleep 3600`, through dockerode (no CLI
 * process per call), until both are running. Milliseconds from the first call.
 */
export async function baselinePod(runId, pauseImage, networkName) {
  const started = now();
  const labels = { [benchLabel]: runId };
  const sandbox = await docker.createContainer({ Image: pauseImage, Labels: labels, HostConfig: { NetworkMode: networkName, Init: true } });
  await sandbox.start();
  const app = await docker.createContainer({
    Image: busyboxImage,
    Cmd: ['sleep', '3600'],
    Labels: labels,
    HostConfig: { NetworkMode: `container:${sandbox.id}` },
  });
  await app.start();
  await waitRunning([sandbox, app], started + 60_000);
  return now() - started;
}

export async function removeBaselineContainers(runId) {
  const containers = await docker.listContainers({ all: true, filters: { label: [`${benchLabel}=${runId}`] } });
  await mapLimit(containers, 8, (container) =>
    docker
      .getContainer(container.Id)
      .remove({ force: true })
      .catch(() => undefined),
  );
}

/** POSTs one pod; resolves with the send and acknowledgement times, or throws on a non-201. */
async function createPod(server, name, labels, agent) {
  const sent = now();
  const reply = await request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/pods`, podManifest(name, { labels }), { agent, timeoutMs: 60_000 });
  const acknowledged = now();
  if (reply.status !== 201) throw new Error(`creating pod ${name}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return { name, sent, acknowledged };
}

function readyTimes(watch, created) {
  const fromAck = [];
  const fromSend = [];
  for (const pod of created) {
    const ready = watch.ready(pod.name);
    if (ready === undefined) continue;
    fromAck.push(ready - pod.acknowledged);
    fromSend.push(ready - pod.sent);
  }
  return { fromAck: summarise(fromAck), fromSend: summarise(fromSend), ready: fromAck.length };
}

async function deletePods(server, selector, deadlineMs) {
  const deadline = now() + deadlineMs;
  const list = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=${encodeURIComponent(selector)}`);
  const names = JSON.parse(list.body).items.map((pod) => pod.metadata.name);
  await mapLimit(names, 8, (name) => request(server, 'DELETE', `/api/v1/namespaces/${NAMESPACE}/pods/${name}`).catch(() => undefined));
  for (;;) {
    const reply = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=${encodeURIComponent(selector)}`).catch(() => undefined);
    const left = reply?.status === 200 ? JSON.parse(reply.body).items.length : -1;
    if (left === 0) return 0;
    if (now() > deadline) return left;
    await sleep(250);
  }
}

/** CPU of the server, of dockerd + containerd when visible, and of an idle bare node process (the baseline), over `windowMs`, in % of one core. */
async function idleCpu(pid, windowMs) {
  const daemons = dockerDaemonPids();
  // the same window's baseline: a node process that only keeps a 1 s timer
  const bare = spawn(process.execPath, ['-e', 'setInterval(()=>{},1e3)'], { stdio: 'ignore' });
  await sleep(500);
  const bareBefore = cpuMsOf(bare.pid);
  const serverBefore = cpuMsOf(pid);
  const daemonsBefore = daemons.map((daemon) => cpuMsOf(daemon));
  const started = now();
  const windowStart = Number(process.hrtime.bigint() / 1000n);
  await sleep(windowMs);
  const idleMs = now() - started;
  // CLOCK_MONOTONIC µs, the clock of V8's profiles: `profileSummary.mjs --window` cuts a --profile run to it
  const profileWindowUs = [windowStart, Number(process.hrtime.bigint() / 1000n)];
  const serverCpuPercent = ((cpuMsOf(pid) - serverBefore) / idleMs) * 100;
  const daemonCpuPercent = (daemons.reduce((sum, daemon, index) => sum + cpuMsOf(daemon) - daemonsBefore[index], 0) / idleMs) * 100;
  const bareCpuPercent = ((cpuMsOf(bare.pid) - bareBefore) / idleMs) * 100;
  bare.kill();
  return { idleMs, serverCpuPercent, daemonCpuPercent: daemons.length > 0 ? daemonCpuPercent : NaN, daemons, profileWindowUs, bareCpuPercent };
}

function ms(value) {
  return Number.isFinite(value) ? `${round(value, 0)} ms` : 'n/a';
}

function ratioRow(label, measured, baseline) {
  const ratio = measured / baseline;
  return [label, ms(measured), `docker API: ${ms(baseline)} → ${round(ratio, 2)}×`, `≤ ${RATIO_TARGET}× baseline`, Number.isFinite(ratio) && ratio <= RATIO_TARGET];
}

export async function benchPods() {
  const sequentialCount = envCount('KUBEDESK_BENCH_SEQUENTIAL_PODS', 30, 100);
  const parallelCount = envCount('KUBEDESK_BENCH_PARALLEL_PODS', 100, 150);
  await requireImage(busyboxImage);
  const runId = `pods-${process.pid}-${Date.now()}`;
  const unregisterDocker = registerCleanup(() => removeBenchDockerObjects(runId));
  const cluster = await startPodCluster({ name: 'pods' });
  const { server } = cluster;
  let watch;
  const parallelAgent = new https.Agent({ keepAlive: true, maxSockets: 16, ca: server.ca });
  try {
    const startRss = memoryOf(server.pid);
    // The same idle figure with no pods yet, so the per-pod share of the idle cost shows.
    const emptyIdle = await idleCpu(server.pid, EMPTY_IDLE_WINDOW_MS);
    const pauseImage = await findPauseImage();
    const networkName = `kubedesk-bench-${runId}`;
    await docker.createNetwork({ Name: networkName, Driver: 'bridge', Labels: { [benchLabel]: runId } });
    watch = await watchReadyPods(server, NAMESPACE);

    // One of each first, not counted: the first container on a fresh network and the first pod
    // pay one-off costs (bridge set-up, informer warm-up) that the figures should not carry.
    await baselinePod(runId, pauseImage, networkName);
    await removeBaselineContainers(runId);
    const warm = await createPod(server, 'warm-up', { 'bench-phase': 'warm-up' });
    await watch.whenReady([warm.name], 60_000);

    // ---- one after another ----
    const baselineSequential = [];
    for (let index = 0; index < sequentialCount; index++) baselineSequential.push(await baselinePod(runId, pauseImage, networkName));
    await removeBaselineContainers(runId);
    const sequentialCreated = [];
    for (let index = 0; index < sequentialCount; index++) {
      const pod = await createPod(server, `seq-${index}`, { 'bench-phase': 'sequential' });
      sequentialCreated.push(pod);
      await watch.whenReady([pod.name], 60_000);
    }
    const sequential = readyTimes(watch, sequentialCreated);
    const sequentialLeft = await deletePods(server, 'bench-phase in (sequential,warm-up)', 120_000);

    // ---- all at once ----
    const baselineStarted = now();
    const baselineParallel = await Promise.all(Array.from({ length: parallelCount }, () => baselinePod(runId, pauseImage, networkName)));
    const baselineMakespan = now() - baselineStarted;
    await removeBaselineContainers(runId);
    const names = Array.from({ length: parallelCount }, (_, index) => `par-${index}`);
    const parallelStarted = now();
    const parallelCreated = await Promise.all(names.map((name) => createPod(server, name, { 'bench-phase': 'parallel' }, parallelAgent)));
    const readyCount = await watch.whenReady(names, 180_000);
    const parallelMakespan = Math.max(...names.map((name) => watch.ready(name) ?? NaN)) - parallelStarted;
    const parallel = readyTimes(watch, parallelCreated);
    watch.close();
    watch = undefined;
    // No client traffic during the idle window: drop the batch's connections.
    parallelAgent.destroy();

    // ---- memory and idle CPU with the batch running ----
    await sleep(SETTLE_MS);
    const loadBefore = machineLoad();
    const { idleMs, serverCpuPercent, daemonCpuPercent, daemons, profileWindowUs, bareCpuPercent } = await idleCpu(server.pid, IDLE_WINDOW_MS);
    const memory = memoryOf(server.pid);
    const list = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=bench-phase%3Dparallel`);
    const stillReady = JSON.parse(list.body).items.filter((pod) => pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')).length;

    const baselineSequentialSummary = summarise(baselineSequential);
    const baselineParallelSummary = summarise(baselineParallel);
    const figures = {
      sequentialCount,
      parallelCount,
      sequential,
      sequentialPodsLeftAfterDelete: sequentialLeft,
      baselineSequential: baselineSequentialSummary,
      parallel,
      parallelReady: readyCount,
      parallelMakespanMs: parallelMakespan,
      baselineParallel: baselineParallelSummary,
      baselineMakespanMs: baselineMakespan,
      baselineMethod: 'dockerode (Docker Engine API over the unix socket): create+start pause (--init, bench bridge network), create+start busybox in container:<pause>, inspect until both running',
      startRssMb: startRss.rssMb,
      rssWithPodsMb: memory.rssMb,
      peakRssMb: memory.peakMb,
      podsReadyDuringIdle: stillReady,
      idleCpuPercent: serverCpuPercent,
      bareNodeIdleCpuPercent: bareCpuPercent,
      dockerDaemonsIdleCpuPercent: daemonCpuPercent,
      noPodsIdleCpuPercent: emptyIdle.serverCpuPercent,
      noPodsDockerDaemonsIdleCpuPercent: emptyIdle.daemonCpuPercent,
      idleWindowMs: idleMs,
      idleProfileWindowUs: profileWindowUs,
      loadDuringIdle: [loadBefore, machineLoad()],
    };
    const parallelLabel = `${parallelCount} at once`;
    return {
      name: 'pods',
      figures,
      rows: [
        ratioRow(`pod create→Ready, ${sequentialCount} one after another: p50`, sequential.fromAck.p50, baselineSequentialSummary.p50),
        ratioRow(`pod create→Ready, ${sequentialCount} one after another: p99`, sequential.fromAck.p99, baselineSequentialSummary.p99),
        ratioRow(`pod create→Ready, ${parallelLabel}: p50`, parallel.fromAck.p50, baselineParallelSummary.p50),
        ratioRow(`pod create→Ready, ${parallelLabel}: p99`, parallel.fromAck.p99, baselineParallelSummary.p99),
        ratioRow(`${parallelLabel}: first POST → last Ready`, parallelMakespan, baselineMakespan),
        [`pods Ready (${parallelLabel})`, `${readyCount} / ${parallelCount}`, `from POST send: p50 ${ms(parallel.fromSend.p50)}, p99 ${ms(parallel.fromSend.p99)}`, 'all', readyCount === parallelCount],
        [`serve RSS, ${stillReady} pods running`, `${round(memory.rssMb, 0)} MB`, `no pods: ${round(startRss.rssMb, 0)} MB; peak ${round(memory.peakMb, 0)} MB`, `≤ ${RSS_TARGET_MB} MB`, memory.rssMb <= RSS_TARGET_MB],
        [
          `serve idle CPU over ${round(idleMs / 1000, 0)} s, ${stillReady} pods`,
          `${round(serverCpuPercent, 2)} %`,
          `bare node (setInterval 1 s): ${round(bareCpuPercent, 2)} % → ${bareCpuPercent > 0 ? `${round(serverCpuPercent / bareCpuPercent, 1)}×` : 'n/a'}; no pods: ${round(emptyIdle.serverCpuPercent, 2)} %; dockerd+containerd ${daemons.length > 0 ? `${round(daemonCpuPercent, 2)} %` : 'n/a'}; load ${loadBefore} → ${machineLoad()}`,
          `≤ ${IDLE_CPU_TARGET_PERCENT} %`,
          serverCpuPercent <= IDLE_CPU_TARGET_PERCENT,
        ],
      ],
    };
  } finally {
    watch?.close();
    parallelAgent.destroy();
    await cluster.stop();
    await removeBenchDockerObjects(runId).catch((error) => console.error(`bench: removing the baseline containers failed: ${error.message}`));
    unregisterDocker();
  }
}
