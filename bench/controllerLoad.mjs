// Controller-manager load: the memory and CPU of `kubedesk serve` (API server, scheduler,
// controllers and the one real kubelet share the process, as kube-controller-manager's figures
// would be read off its own process upstream) while 10 Deployments × 100 replicas are created onto
// 100 kubelet-less nodes (workloadLib's kwok-like fake nodes), and over 30 s of idling with those
// 1,000 pods' worth of objects in place. The pods are bound but never run — nothing runs pods on
// the fake nodes — so they stay Pending and not Ready, which leaves the Deployment, ReplicaSet,
// garbage-collector, endpoints, disruption and node-lifecycle informers holding 1,000 pods, 10
// ReplicaSets and 100 nodes: the controller-side load without Docker's.
import { cpuMsOf, machineLoad, memoryOf, round, sleep } from './lib.mjs';
import { now, startPodCluster } from './podLib.mjs';
import { createConcurrently, FAKE_NODE_LABEL, openWatch, startFakeNodes } from './workloadLib.mjs';

const NODE_COUNT = 100;
const DEPLOYMENTS = 10;
const REPLICAS = 100;
const NAMESPACE = 'default';
const SETTLE_MS = 3_000;
const EMPTY_IDLE_MS = 10_000;
const IDLE_MS = 30_000;
const CREATION_LIMIT_MS = 180_000;

function deployment(name) {
  const labels = { app: name, 'bench-set': 'controllers' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { [FAKE_NODE_LABEL]: 'true' },
          containers: [{ name: 'main', image: 'kubedesk-test/busybox:4', imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  };
}

/** CPU of the server over `windowMs` with no client traffic but the fake nodes' lease renewals. */
async function idleCpu(pid, windowMs) {
  const before = cpuMsOf(pid);
  const loadBefore = machineLoad();
  const started = now();
  await sleep(windowMs);
  const elapsedMs = now() - started;
  const cpuMs = cpuMsOf(pid) - before;
  return { elapsedMs, cpuMs, percent: (cpuMs / elapsedMs) * 100, load: [loadBefore, machineLoad()] };
}

export async function benchControllers() {
  const cluster = await startPodCluster({ name: 'controllers' });
  const { server } = cluster;
  const watches = [];
  let fakeNodes;
  try {
    const startRss = memoryOf(server.pid);
    fakeNodes = await startFakeNodes(server, NODE_COUNT);
    await sleep(SETTLE_MS);
    const emptyIdle = await idleCpu(server.pid, EMPTY_IDLE_MS);
    const beforeRss = memoryOf(server.pid);

    const boundPods = new Set();
    const seenPods = new Set();
    const podWatch = await openWatch(server, `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=bench-set%3Dcontrollers`, (event) => {
      const name = event.object?.metadata?.name;
      if (!name) return;
      if (event.type === 'DELETED') {
        seenPods.delete(name);
        boundPods.delete(name);
        return;
      }
      seenPods.add(name);
      if (event.object.spec?.nodeName) boundPods.add(name);
    });
    watches.push(podWatch);
    // Per Deployment: when its status first counted every replica created from the current template.
    const settledAt = new Map();
    const deploymentWatch = await openWatch(server, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments?labelSelector=bench-set%3Dcontrollers`, (event, arrived) => {
      const object = event.object;
      const name = object?.metadata?.name;
      if (!name || settledAt.has(name)) return;
      const status = object.status ?? {};
      if (status.observedGeneration >= object.metadata.generation && status.replicas === REPLICAS && status.updatedReplicas === REPLICAS) settledAt.set(name, arrived);
    });
    watches.push(deploymentWatch);

    const total = DEPLOYMENTS * REPLICAS;
    const cpuBefore = cpuMsOf(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const loadBefore = machineLoad();
    const started = now();
    const created = await createConcurrently(server, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, Array.from({ length: DEPLOYMENTS }, (_, index) => deployment(`load-${index}`)), { clients: DEPLOYMENTS, maxMs: 30_000 });
    if (created.created.length !== DEPLOYMENTS) throw new Error(`created ${created.created.length} of ${DEPLOYMENTS} Deployments: ${JSON.stringify(created.failures)}`);
    const allCreatedAt = { pods: NaN, bound: NaN };
    await podWatch.until(() => {
      if (Number.isNaN(allCreatedAt.pods) && seenPods.size >= total) allCreatedAt.pods = now();
      return boundPods.size >= total;
    }, CREATION_LIMIT_MS);
    allCreatedAt.bound = now();
    await deploymentWatch.until(() => settledAt.size >= DEPLOYMENTS, Math.max(1_000, started + CREATION_LIMIT_MS - now()));
    const settled = now();
    const creationCpuMs = cpuMsOf(server.pid) - cpuBefore;
    const clientCpu = process.cpuUsage(clientCpuBefore);
    const loadAfter = machineLoad();
    for (const watch of watches.splice(0)) watch.close();
    const afterRss = memoryOf(server.pid);

    const idle = await idleCpu(server.pid, IDLE_MS);
    const idleRss = memoryOf(server.pid);
    const creationMs = settled - started;
    const figures = {
      nodeCount: NODE_COUNT,
      deployments: DEPLOYMENTS,
      replicas: REPLICAS,
      podsSeen: seenPods.size,
      podsBound: boundPods.size,
      deploymentsSettled: settledAt.size,
      allPodsCreatedMs: allCreatedAt.pods - started,
      allPodsBoundMs: allCreatedAt.bound - started,
      allDeploymentsSettledMs: creationMs,
      creationCpuMs,
      creationCpuCores: creationCpuMs / creationMs,
      benchCpuMs: (clientCpu.user + clientCpu.system) / 1000,
      creationLoad: [loadBefore, loadAfter],
      startRssMb: startRss.rssMb,
      fakeNodesRssMb: beforeRss.rssMb,
      afterCreationRssMb: afterRss.rssMb,
      afterIdleRssMb: idleRss.rssMb,
      peakRssMb: idleRss.peakMb,
      fakeNodesIdle: emptyIdle,
      loadedIdle: idle,
      leaseRenewals: fakeNodes.renewals(),
      leaseRenewFailures: fakeNodes.renewFailures(),
    };
    const objects = `${DEPLOYMENTS} Deployments × ${REPLICAS}`;
    return {
      name: 'controllers',
      figures,
      rows: [
        [
          `controllers: ${objects} on ${NODE_COUNT} fake nodes, POST → all bound`,
          `${round(creationMs / 1000, 1)} s`,
          `${boundPods.size} / ${total} pods bound, ${settledAt.size} / ${DEPLOYMENTS} Deployments settled; all pods created at ${round(allCreatedAt.pods - started, 0)} ms, bound at ${round(allCreatedAt.bound - started, 0)} ms`,
          '(printed)',
        ],
        [
          `controllers: serve CPU during creation`,
          `${round(creationCpuMs / 1000, 1)} CPU s`,
          `${round(creationCpuMs / creationMs, 2)} cores over ${round(creationMs / 1000, 1)} s; bench ${round(figures.benchCpuMs / 1000, 1)} CPU s; load ${loadBefore} → ${loadAfter}`,
          '(printed)',
        ],
        [
          `controllers: serve RSS with ${total} pods' objects`,
          `${round(afterRss.rssMb, 0)} MB`,
          `after 30 s idle ${round(idleRss.rssMb, 0)} MB; before ${round(beforeRss.rssMb, 0)} MB with ${NODE_COUNT} fake nodes, ${round(startRss.rssMb, 0)} MB at start; peak ${round(idleRss.peakMb, 0)} MB`,
          '(printed)',
        ],
        [
          `controllers: serve idle CPU over ${round(idle.elapsedMs / 1000, 0)} s with ${total} pods`,
          `${round(idle.percent, 2)} % (${round(idle.cpuMs / 1000, 2)} CPU s)`,
          `${NODE_COUNT} fake nodes, no pods: ${round(emptyIdle.percent, 2)} % over ${round(emptyIdle.elapsedMs / 1000, 0)} s (both include ${NODE_COUNT} lease renewals / 10 s); load ${idle.load[0]} → ${idle.load[1]}`,
          '(printed)',
        ],
      ],
    };
  } finally {
    for (const watch of watches) watch.close();
    await fakeNodes?.stop();
    await cluster.stop();
  }
}
