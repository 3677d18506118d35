// A 100-replica Deployment from create to all Ready: the Deployment controller makes the
// ReplicaSet, the ReplicaSet controller its pods (upstream's slow-start batches of 1, 2, 4, …),
// the scheduler binds them and the kubelet starts a sandbox and a container for each on Docker.
// Beside it, in the same run and at the same parallelism, the same 200 containers (100 pause +
// 100 busybox pairs) started straight on the Docker API with dockerode (podStartup.mjs's
// baseline "pod"), so the ratio is what the Kubernetes machinery adds to Docker's own work.
import { cpuMsOf, machineLoad, memoryOf, request, round, summarise } from './lib.mjs';
import { benchLabel, busyboxImage, docker, now, registerCleanup, removeBenchDockerObjects, requireImage, startPodCluster } from './podLib.mjs';
import { baselinePod, findPauseImage, removeBaselineContainers } from './podStartup.mjs';
import { openWatch } from './workloadLib.mjs';

const RATIO_TARGET = 1.5;
const NAMESPACE = 'default';
const ROLLOUT_LIMIT_MS = 240_000;

function envCount(name, fallback, max) {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? Math.min(value, max) : fallback;
}

function deployment(name, replicas) {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }],
          // `sleep` as PID 1 ignores SIGTERM; a short grace keeps the clean-up quick.
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  };
}

function isReady(pod) {
  return pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') === true;
}

function ms(value) {
  return Number.isFinite(value) ? `${round(value, 0)} ms` : 'n/a';
}

function ratioRow(label, measured, baseline) {
  const ratio = measured / baseline;
  return [label, ms(measured), `docker API: ${ms(baseline)} → ${round(ratio, 2)}×`, `≤ ${RATIO_TARGET}× baseline`, Number.isFinite(ratio) && ratio <= RATIO_TARGET];
}

async function createDeployment(server, name, replicas) {
  const sent = now();
  const reply = await request(server, 'POST', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(name, replicas), { timeoutMs: 30_000 });
  const acknowledged = now();
  if (reply.status !== 201) throw new Error(`creating deployment ${name}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return { sent, acknowledged };
}

export async function benchDeployment() {
  const replicas = envCount('KUBEDESK_BENCH_DEPLOYMENT_REPLICAS', 100, 150);
  await requireImage(busyboxImage);
  const runId = `deployment-${process.pid}-${Date.now()}`;
  const unregisterDocker = registerCleanup(() => removeBenchDockerObjects(runId));
  const cluster = await startPodCluster({ name: 'deployment' });
  const { server } = cluster;
  const watches = [];
  try {
    const startRss = memoryOf(server.pid);
    const pauseImage = await findPauseImage();
    const networkName = `kubedesk-bench-${runId}`;
    await docker.createNetwork({ Name: networkName, Driver: 'bridge', Labels: { [benchLabel]: runId } });

    // Per pod (by name): when the watch first showed it, and when it first showed it Ready.
    const pods = new Map();
    const podWatch = await openWatch(server, `/api/v1/namespaces/${NAMESPACE}/pods`, (event, arrived) => {
      const name = event.object?.metadata?.name;
      if (!name || event.type === 'DELETED') return;
      let record = pods.get(name);
      if (!record) pods.set(name, (record = { app: event.object.metadata.labels?.app, seenAt: arrived, readyAt: undefined }));
      if (record.readyAt === undefined && isReady(event.object)) record.readyAt = arrived;
    });
    watches.push(podWatch);
    // Per Deployment: when its status first showed every replica available.
    const availableAt = new Map();
    const deploymentWatch = await openWatch(server, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, (event, arrived) => {
      const object = event.object;
      const name = object?.metadata?.name;
      if (!name || availableAt.has(name)) return;
      const wanted = object.spec?.replicas ?? 1;
      const status = object.status ?? {};
      if (status.observedGeneration >= object.metadata.generation && status.updatedReplicas === wanted && status.readyReplicas === wanted && status.availableReplicas === wanted) {
        availableAt.set(name, arrived);
      }
    });
    watches.push(deploymentWatch);

    // One of each first, not counted: the first container on a fresh network and the first pods
    // pay one-off costs (bridge set-up, informer warm-up) that the figures should not carry.
    await baselinePod(runId, pauseImage, networkName);
    await removeBaselineContainers(runId);
    await createDeployment(server, 'warm-up', 1);
    if (!(await deploymentWatch.until(() => availableAt.has('warm-up'), 60_000))) throw new Error('the warm-up Deployment was not available within 60 s');

    // ---- baseline: the same pairs on the Docker API, all at once ----
    const baselineStarted = now();
    const baseline = await Promise.all(Array.from({ length: replicas }, () => baselinePod(runId, pauseImage, networkName)));
    const baselineMakespan = now() - baselineStarted;
    await removeBaselineContainers(runId);

    // ---- the Deployment ----
    const name = 'bench-deploy';
    const cpuBefore = cpuMsOf(server.pid);
    const loadBefore = machineLoad();
    const created = await createDeployment(server, name, replicas);
    const ownPods = () => [...pods.values()].filter((record) => record.app === name);
    const allReady = await podWatch.until(() => {
      const mine = ownPods();
      return mine.length >= replicas && mine.filter((record) => record.readyAt !== undefined).length >= replicas;
    }, ROLLOUT_LIMIT_MS);
    await deploymentWatch.until(() => availableAt.has(name), allReady ? 30_000 : 1_000);
    const cpuMs = cpuMsOf(server.pid) - cpuBefore;
    const loadAfter = machineLoad();
    const memory = memoryOf(server.pid);
    for (const watch of watches.splice(0)) watch.close();

    const mine = ownPods();
    const ready = mine.filter((record) => record.readyAt !== undefined);
    const fromCreate = summarise(ready.map((record) => record.readyAt - created.acknowledged));
    const fromPodAdded = summarise(ready.map((record) => record.readyAt - record.seenAt));
    const lastReady = Math.max(...ready.map((record) => record.readyAt));
    const lastSeen = Math.max(...mine.map((record) => record.seenAt));
    const totalMs = lastReady - created.sent;
    const availableMs = (availableAt.get(name) ?? NaN) - created.sent;
    const baselineSummary = summarise(baseline);
    const figures = {
      replicas,
      podsSeen: mine.length,
      podsReady: ready.length,
      readyFromDeploymentCreateMs: fromCreate,
      readyFromPodAddedMs: fromPodAdded,
      lastPodAddedMs: lastSeen - created.sent,
      firstPostToLastReadyMs: totalMs,
      firstPostToDeploymentAvailableMs: availableMs,
      baselinePerPodMs: baselineSummary,
      baselineMakespanMs: baselineMakespan,
      baselineMethod: 'dockerode (Docker Engine API over the unix socket): create+start pause (--init, bench bridge network), create+start busybox in container:<pause>, inspect until both running; all pairs at once',
      serverCpuCores: cpuMs / (now() - created.sent),
      serverCpuMs: cpuMs,
      startRssMb: startRss.rssMb,
      rssWithPodsMb: memory.rssMb,
      peakRssMb: memory.peakMb,
      load: [loadBefore, loadAfter],
    };
    return {
      name: 'deployment',
      figures,
      rows: [
        ratioRow(`Deployment ×${replicas}: create → pod Ready, p50`, fromCreate.p50, baselineSummary.p50),
        ratioRow(`Deployment ×${replicas}: create → pod Ready, p99`, fromCreate.p99, baselineSummary.p99),
        ratioRow(`Deployment ×${replicas}: POST → last pod Ready`, totalMs, baselineMakespan),
        [
          `Deployment ×${replicas}: pods Ready`,
          `${ready.length} / ${replicas}`,
          `POST → status available ${ms(availableMs)}; last pod created at ${ms(lastSeen - created.sent)}; pod added → Ready p50 ${ms(fromPodAdded.p50)}, p99 ${ms(fromPodAdded.p99)}; server ${round(cpuMs / 1000, 1)} CPU s; RSS ${round(memory.rssMb, 0)} MB; load ${loadBefore} → ${loadAfter}`,
          'all',
          ready.length === replicas,
        ],
      ],
    };
  } finally {
    for (const watch of watches) watch.close();
    await cluster.stop();
    await removeBenchDockerObjects(runId).catch((error) => console.error(`bench: removing the baseline containers failed: ${error.message}`));
    unregisterDocker();
  }
}
