// Whole-cluster snapshots (snapshots.kubedesk.dev).
//
// snapshot-save: a server holding 10,000 ConfigMaps (plus their log and history rows); the figure
// is the time of the save request (SQLite online backup, manifest, checksum, rename), median of
// three, against a plain copy of the same database file (state.db and its WAL) in the same run,
// median of three (and, for context, the same copy synced to disk). Also the `kubedesk snapshot
// save` command's wall time (a Node start included).
//
// snapshot-restore (Docker): a namespace whose Deployment runs 20 pods. Baseline: a fresh
// `kubectl apply` of the namespace and the Deployment until all 20 pods are Ready. Then a
// snapshot is saved, the namespace deleted (its pods gone), and `kubedesk snapshot restore` timed
// until all 20 pods are Ready again. The figure is restore / apply.
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cliPath, request, round, startServer } from './lib.mjs';
import { createLoad, ensureNamespace } from './creates.mjs';
import { busyboxImage, kubectlPath, requireImage, runFile, startPodCluster } from './podLib.mjs';

const SAVE_LIMIT_MS = 1000;
const SAVE_RATIO_TARGET = 2;
const RESTORE_RATIO_TARGET = 1.5;
const OBJECTS = 10_000;
const PODS = 20;
const SNAPSHOTS = '/apis/snapshots.kubedesk.dev/v1/snapshots';

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A plain copy of the database (state.db and its WAL), optionally synced to disk as SQLite's backup is. */
function fileCopyMs(dataDir, target, sync = false) {
  const started = performance.now();
  const files = [['state.db', target], ['state.db-wal', `${target}-wal`]];
  for (const [source, destination] of files) {
    if (!existsSync(join(dataDir, source))) continue;
    copyFileSync(join(dataDir, source), destination);
    if (sync) {
      const fd = openSync(destination, 'r+');
      fsyncSync(fd);
      closeSync(fd);
    }
  }
  const ms = performance.now() - started;
  rmSync(target, { force: true });
  rmSync(`${target}-wal`, { force: true });
  return ms;
}

export async function benchSnapshotSave() {
  const server = await startServer({ name: 'snapshot-save', timeoutMs: 60_000 });
  try {
    await ensureNamespace(server, 'bench');
    const load = await createLoad(server, { clients: 16, prefix: 'cm', maxCreates: OBJECTS, maxMs: 120_000 });
    if (load.latencies.length < OBJECTS) throw new Error(`only ${load.latencies.length} of ${OBJECTS} ConfigMaps were created`);
    const databaseBytes = statSync(join(server.dataDir, 'state.db')).size + (existsSync(join(server.dataDir, 'state.db-wal')) ? statSync(join(server.dataDir, 'state.db-wal')).size : 0);
    const saves = [];
    const copies = [];
    const syncedCopies = [];
    let snapshotBytes = 0;
    for (let index = 0; index < 3; index++) {
      copies.push(fileCopyMs(server.dataDir, join(server.base, 'copy.db')));
      syncedCopies.push(fileCopyMs(server.dataDir, join(server.base, 'copy.db'), true));
      const started = performance.now();
      const reply = await request(server, 'POST', SNAPSHOTS, { metadata: { name: `save-${index}` } }, { timeoutMs: 60_000 });
      saves.push(performance.now() - started);
      if (reply.status !== 201) throw new Error(`save: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
      snapshotBytes = JSON.parse(reply.body).status.sizeBytes;
    }
    const started = performance.now();
    await runFile(process.execPath, [cliPath, 'snapshot', 'save', 'cli', '--kubeconfig', server.kubeconfigPath], { timeoutMs: 60_000 });
    const cliMs = performance.now() - started;
    const save = median(saves);
    const copy = median(copies);
    const ratio = save / copy;
    return {
      name: 'snapshot-save',
      figures: { saves, copies, syncedCopies, cliMs, databaseBytes, snapshotBytes, ratio },
      rows: [
        [`snapshot save, ${OBJECTS} ConfigMaps (request, median of 3)`, `${round(save)} ms`, `runs ${saves.map((value) => round(value)).join(', ')} ms; kubedesk snapshot save ${round(cliMs)} ms; ${round(snapshotBytes / 1048576)} MiB`, `≤ ${SAVE_LIMIT_MS} ms`, save <= SAVE_LIMIT_MS],
        ['snapshot save / plain copy of the database', `${round(ratio, 2)}×`, `copy of ${round(databaseBytes / 1048576)} MiB: ${copies.map((value) => round(value)).join(', ')} ms (with fsync: ${syncedCopies.map((value) => round(value)).join(', ')} ms)`, `≤ ${SAVE_RATIO_TARGET}×`, ratio <= SAVE_RATIO_TARGET],
      ],
    };
  } finally {
    await server.stop();
  }
}

function manifests(namespace) {
  return `apiVersion: v1
kind: Namespace
metadata: { name: ${namespace} }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${namespace} }
spec:
  replicas: ${PODS}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: ${busyboxImage}
          imagePullPolicy: IfNotPresent
          command: ['sleep', '3600']
`;
}

async function readyPods(server, namespace) {
  const reply = await request(server, 'GET', `/api/v1/namespaces/${namespace}/pods`).catch(() => undefined);
  if (reply?.status !== 200) return 0;
  return JSON.parse(reply.body).items.filter((pod) => !pod.metadata.deletionTimestamp && (pod.status?.conditions ?? []).some((condition) => condition.type === 'Ready' && condition.status === 'True')).length;
}

async function untilReady(server, namespace, limitMs = 240_000) {
  const deadline = performance.now() + limitMs;
  while ((await readyPods(server, namespace)) < PODS) {
    if (performance.now() > deadline) throw new Error(`${namespace}: ${PODS} pods not Ready within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function untilGone(server, namespace, limitMs = 240_000) {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const reply = await request(server, 'GET', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
    if (reply?.status === 404) return;
    if (performance.now() > deadline) throw new Error(`${namespace} not gone within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function benchSnapshotRestore() {
  await requireImage(busyboxImage);
  const cluster = await startPodCluster({ name: 'snapshot-restore' });
  const { server, kubectlEnv } = cluster;
  const kubedesk = (args) => runFile(process.execPath, [cliPath, ...args], { env: kubectlEnv, timeoutMs: 120_000 });
  try {
    const namespace = 'bench-snap';
    const file = join(server.base, 'manifests.yaml');
    writeFileSync(file, manifests(namespace));
    let started = performance.now();
    await runFile(kubectlPath, ['apply', '-f', file], { env: kubectlEnv });
    await untilReady(server, namespace);
    const applyMs = performance.now() - started;

    await kubedesk(['snapshot', 'save', 'twenty']);
    await runFile(kubectlPath, ['delete', 'namespace', namespace, '--wait=false'], { env: kubectlEnv });
    await untilGone(server, namespace);

    started = performance.now();
    await kubedesk(['snapshot', 'restore', 'twenty']);
    const restoreCommandMs = performance.now() - started;
    await untilReady(server, namespace);
    const restoreMs = performance.now() - started;
    const ratio = restoreMs / applyMs;
    return {
      name: 'snapshot-restore',
      figures: { applyMs, restoreMs, restoreCommandMs, ratio },
      rows: [
        [`snapshot restore of a ${PODS}-pod namespace to all Ready`, `${round(restoreMs)} ms`, `kubectl apply of the same to all Ready: ${round(applyMs)} ms; the restore command itself ${round(restoreCommandMs)} ms`, '', undefined],
        ['snapshot restore / fresh kubectl apply', `${round(ratio, 2)}×`, '', `≤ ${RESTORE_RATIO_TARGET}×`, ratio <= RESTORE_RATIO_TARGET],
      ],
    };
  } finally {
    await cluster.stop();
  }
}
