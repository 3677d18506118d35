// Disk used by the object history with the default retention (100 revisions per object, 7 days,
// 256 MiB), in two workloads against a real server:
//   - 10,000 updates of one ConfigMap (merge patches of its data, 8 clients);
//   - a day of a 50-pod cluster's status churn, simulated: every pod's status changes every
//     5 minutes (a readiness flap or a restart: 288 status writes per pod and day) and each change
//     is reported by an Event, as the kubelet does — 14,400 status writes and 14,400 Events. The
//     pods name a scheduler that does not exist, so they stay Pending without Docker and only
//     these writes touch them. Events expire from the API after an hour but stay in the history
//     for the retention window, so they are most of a day's history.
// The server prunes the history every minute, off the write path; the bench waits until the
// ConfigMap's history is down to the revision limit, stops the server and reads the pages of the
// history table and its index from the SQLite file (dbstat), beside the whole file's size.
import https from 'node:https';
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNamespace } from './creates.mjs';
import { repoRoot, request, sleep, startServer } from './lib.mjs';

const UPDATES = 10_000;
const PODS = 50;
const CHANGES_PER_POD = 288;
const CLIENTS = 8;
const PRUNE_WAIT_MS = 150_000;

const Database = createRequire(join(repoRoot, 'package.json'))('better-sqlite3');

/** Runs `count` requests from `CLIENTS` sequential loops; throws on the first failure. */
async function runRequests(server, count, requestFor) {
  let next = 0;
  const agents = [];
  const client = async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    agents.push(agent);
    while (next < count) {
      const index = next++;
      const { method, path, body, expect } = requestFor(index);
      const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      const reply = await request(server, method, path, body, { agent, contentType });
      if (reply.status !== expect) throw new Error(`${method} ${path}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, client));
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

async function revisionCount(server, type, name) {
  const reply = await request(server, 'GET', `/apis/history.kubedesk.dev/v1/namespaces/bench/revisions?type=${type}&name=${name}`);
  if (reply.status !== 200) throw new Error(`history of ${type}/${name}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  return JSON.parse(reply.body).items.length;
}

/** Waits for the server's pruner (every minute) to bring `type/name` down to the revision limit. */
async function waitForPruning(server, type, name) {
  const deadline = performance.now() + PRUNE_WAIT_MS;
  for (;;) {
    const count = await revisionCount(server, type, name);
    if (count <= 100) return count;
    if (performance.now() > deadline) throw new Error(`${type}/${name} still has ${count} revisions after ${PRUNE_WAIT_MS / 1000} s`);
    await sleep(2_000);
  }
}

/** Stops the server and reads the history's pages from its file. */
async function historyDisk(server) {
  server.child.kill('SIGTERM');
  await new Promise((resolveExit) => (server.child.exitCode !== null ? resolveExit() : server.child.once('exit', resolveExit)));
  const file = join(server.dataDir, 'state.db');
  const db = new Database(file, { readonly: true });
  try {
    const pages = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name IN ('history', 'history_key') GROUP BY name").all();
    const rows = db.prepare('SELECT count(*) AS rows, total(length(value)) AS payload FROM history').get();
    const bytes = pages.reduce((sum, page) => sum + page.bytes, 0);
    return { bytes, rows: rows.rows, payload: rows.payload, fileBytes: statSync(file).size };
  } finally {
    db.close();
  }
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function configMapUpdates() {
  const server = await startServer({ name: 'history-disk-configmap' });
  try {
    await ensureNamespace(server, 'bench');
    const created = await request(server, 'POST', '/api/v1/namespaces/bench/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { value: '0' } });
    if (created.status !== 201) throw new Error(`creating the ConfigMap: HTTP ${created.status}`);
    const started = performance.now();
    await runRequests(server, UPDATES, (index) => ({
      method: 'PATCH',
      path: '/api/v1/namespaces/bench/configmaps/one',
      body: JSON.stringify({ data: { value: String(index + 1), note: `update ${index + 1} of ${UPDATES}` } }),
      expect: 200,
    }));
    const seconds = (performance.now() - started) / 1000;
    const kept = await waitForPruning(server, 'configmaps', 'one');
    return { ...(await historyDisk(server)), kept, seconds };
  } finally {
    await server.stop();
  }
}

function pod(name) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'churn' } },
    spec: { schedulerName: 'bench-no-scheduler', containers: [{ name: 'app', image: 'example.test/app:1', ports: [{ containerPort: 8080 }], readinessProbe: { httpGet: { path: '/healthz', port: 8080 } } }] },
  };
}

/** The status a kubelet would write at the pod's `change`-th change: readiness flapping, a restart every fourth change. */
function statusPatch(change, at) {
  const ready = change % 2 === 0;
  const time = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: time },
        { type: 'Ready', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: time, ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status: [app]' }) },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: time },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: time },
      ],
      podIP: '10.244.0.10',
      containerStatuses: [
        { name: 'app', image: 'example.test/app:1', imageID: 'docker://sha256:' + '0'.repeat(64), ready, started: true, restartCount: Math.floor(change / 4), state: { running: { startedAt: time } } },
      ],
    },
  };
}

function event(podName, change, at) {
  const time = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const unhealthy = change % 2 === 1;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${podName}.${change.toString(16).padStart(8, '0')}` },
    involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'bench', name: podName, fieldPath: 'spec.containers{app}' },
    reason: unhealthy ? 'Unhealthy' : 'Started',
    message: unhealthy ? 'Readiness probe failed: Get "http://10.244.0.10:8080/healthz": dial tcp 10.244.0.10:8080: connect: connection refused' : 'Started container app',
    type: unhealthy ? 'Warning' : 'Normal',
    source: { component: 'kubelet', host: 'kubedesk' },
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  };
}

async function podChurn() {
  const server = await startServer({ name: 'history-disk-pods' });
  try {
    await ensureNamespace(server, 'bench');
    const names = Array.from({ length: PODS }, (_, index) => `churn-${index}`);
    for (const name of names) {
      const reply = await request(server, 'POST', '/api/v1/namespaces/bench/pods', pod(name));
      if (reply.status !== 201) throw new Error(`creating pod ${name}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
    const dayStart = Date.now() - 24 * 3600 * 1000;
    const started = performance.now();
    // change c of every pod, then change c + 1: the writes arrive in the day's order
    await runRequests(server, PODS * CHANGES_PER_POD * 2, (index) => {
      const write = Math.floor(index / 2);
      const change = Math.floor(write / PODS);
      const name = names[write % PODS];
      const at = new Date(dayStart + change * 5 * 60 * 1000);
      return index % 2 === 0
        ? { method: 'PATCH', path: `/api/v1/namespaces/bench/pods/${name}/status`, body: JSON.stringify(statusPatch(change, at)), expect: 200 }
        : { method: 'POST', path: '/api/v1/namespaces/bench/events', body: event(name, change, at), expect: 201 };
    });
    const seconds = (performance.now() - started) / 1000;
    const kept = await waitForPruning(server, 'pods', names[0]);
    return { ...(await historyDisk(server)), kept, seconds };
  } finally {
    await server.stop();
  }
}

export async function benchHistoryDisk() {
  const configMap = await configMapUpdates();
  const churn = await podChurn();
  const writes = PODS * CHANGES_PER_POD * 2;
  return {
    name: 'history-disk',
    figures: { configMap, churn },
    rows: [
      [
        `history on disk after ${UPDATES.toLocaleString('en-US')} updates of one ConfigMap`,
        mib(configMap.bytes),
        `${configMap.rows} revisions kept (limit 100 per object; the ConfigMap's: ${configMap.kept}), payload ${mib(configMap.payload)}; state.db ${mib(configMap.fileBytes)}; updates took ${configMap.seconds.toFixed(1)} s`,
        '(printed)',
        undefined,
      ],
      [
        `history on disk after a simulated day of ${PODS} pods' status churn`,
        mib(churn.bytes),
        `${writes.toLocaleString('en-US')} writes (status + Events); ${churn.rows} revisions kept (a pod's: ${churn.kept}), payload ${mib(churn.payload)}; state.db ${mib(churn.fileBytes)}; writes took ${churn.seconds.toFixed(1)} s`,
        '(printed)',
        undefined,
      ],
    ],
  };
}
