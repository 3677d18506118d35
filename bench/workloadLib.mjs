// Helpers for the workload benches (deployment, scheduler, controllers): a generic watch that
// hands every event to a callback and lets the bench wait on a condition (as client-go's
// watchtools.UntilWithSync does), bounded concurrent creates over 16 keep-alive connections, and
// Node objects with no kubelet behind them, after kwok: created through the API with a Ready
// status and kwok-like capacity (cpu 32, memory 64Gi, pods 110), plus a Lease in kube-node-lease
// renewed every 10 s as upstream's kubelet does, so the node lifecycle controller keeps them Ready
// (its grace period is 40 s). Pods bound to them never run: nothing watches their node name.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { request, sleep } from './lib.mjs';

export const FAKE_NODE_LABEL = 'kubedesk.dev/bench-fake-node';
const LEASE_RENEW_MS = 10_000;

/**
 * Lists `collectionPath` (limit=1, for the resourceVersion) and watches it from there. `onEvent`
 * gets each event and the time the chunk carrying it arrived. `until(predicate, timeoutMs)`
 * resolves true once `predicate()` holds (checked after every chunk) or false when the time is up
 * or the watch has failed.
 */
export async function openWatch(server, collectionPath, onEvent) {
  const separator = collectionPath.includes('?') ? '&' : '?';
  const list = await request(server, 'GET', `${collectionPath}${separator}limit=1`);
  if (list.status !== 200) throw new Error(`listing ${collectionPath}: ${list.status} ${list.body.slice(0, 300)}`);
  const resourceVersion = JSON.parse(list.body).metadata.resourceVersion;
  const url = new URL(`${collectionPath}${separator}watch=true&allowWatchBookmarks=false&resourceVersion=${resourceVersion}`, server.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${url.hostname}`);
  const waiters = new Set();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  let failure;
  const agent = new https.Agent({ keepAlive: false, ca: server.ca });
  const outgoing = https.request(url, { method: 'GET', agent, ca: server.ca, headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json' } });
  const opened = new Promise((resolveOpen, reject) => {
    outgoing.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`watch of ${collectionPath} answered ${response.statusCode}`));
        response.resume();
        return;
      }
      resolveOpen();
      let pending = '';
      response.setEncoding('utf8');
      response.on('data', (text) => {
        const arrived = performance.now();
        pending += text;
        let newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (line) onEvent(JSON.parse(line), arrived);
        }
        notify();
      });
      response.on('end', () => {
        failure ??= new Error(`the watch of ${collectionPath} ended`);
        notify();
      });
    });
    outgoing.on('error', (error) => {
      failure ??= error;
      reject(error);
      notify();
    });
  });
  outgoing.end();
  await opened;
  return {
    failure: () => failure,
    until(predicate, timeoutMs) {
      return new Promise((resolveUntil) => {
        const check = () => {
          if (predicate()) finish(true);
          else if (failure) finish(false);
        };
        const finish = (result) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolveUntil(result);
        };
        const timer = setTimeout(() => finish(false), timeoutMs);
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

/**
 * POSTs `bodies` to `collectionPath` from `clients` loops, each on its own keep-alive connection
 * (one after another per loop), stopping early after `maxMs`. Returns per-object send and
 * acknowledgement times (performance.now()), HTTP status, and the failures by reason.
 */
export async function createConcurrently(server, collectionPath, bodies, { clients = 16, maxMs = 60_000 } = {}) {
  const results = [];
  const failures = new Map();
  const deadline = performance.now() + maxMs;
  let next = 0;
  const agents = [];
  const loop = async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
    agents.push(agent);
    while (next < bodies.length && performance.now() < deadline) {
      const body = bodies[next++];
      const sent = performance.now();
      try {
        const reply = await request(server, 'POST', collectionPath, body, { agent, timeoutMs: 30_000 });
        const acknowledged = performance.now();
        if (reply.status === 201) results.push({ name: body.metadata.name, sent, acknowledged, object: JSON.parse(reply.body) });
        else {
          const key = `HTTP ${reply.status}: ${reply.body.slice(0, 160)}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
      } catch (error) {
        const key = error instanceof Error ? error.message.slice(0, 120) : String(error);
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  for (const agent of agents) agent.destroy();
  return { created: results, failures: Object.fromEntries(failures), failed: [...failures.values()].reduce((sum, count) => sum + count, 0) };
}

export function fakeNodeName(index) {
  return `fake-node-${String(index).padStart(3, '0')}`;
}

function microTime(date) {
  return date.toISOString().replace(/Z$/, '000Z');
}

function fakeNode(index, taints = []) {
  const name = fakeNodeName(index);
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const resources = { cpu: '32', memory: '64Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  const condition = (type, status, reason, message) => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: now });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node-role.kubernetes.io/agent': '', type: 'kwok', [FAKE_NODE_LABEL]: 'true' },
      annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: taints.length > 0 ? { taints } : {},
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.251.${Math.floor(index / 250)}.${(index % 250) + 1}` },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: { architecture: 'amd64', operatingSystem: 'linux', kubeletVersion: 'fake', kubeProxyVersion: 'fake', containerRuntimeVersion: 'fake://0', osImage: 'fake', kernelVersion: 'fake', machineID: '', systemUUID: '', bootID: '' },
      phase: 'Running',
    },
  };
}

/**
 * Creates `count` kubelet-less Nodes (Ready, cpu 32 / memory 64Gi / pods 110, labelled
 * FAKE_NODE_LABEL=true) and their Leases, and keeps renewing the Leases until `stop()`. When the
 * API server drops the status on create (as upstream's node strategy may), it is written again
 * through the status subresource. Resolves once every Node reads back Ready.
 */
export async function startFakeNodes(server, count, { clients = 16, timeoutMs = 60_000, taints = [] } = {}) {
  const deadline = performance.now() + timeoutMs;
  const started = performance.now();
  const nodes = await createConcurrently(server, '/api/v1/nodes', Array.from({ length: count }, (_, index) => fakeNode(index, taints)), { clients, maxMs: timeoutMs });
  if (nodes.created.length !== count) throw new Error(`created ${nodes.created.length} of ${count} fake nodes: ${JSON.stringify(nodes.failures)}`);
  const createdMs = performance.now() - started;
  const statusRewritten = [];
  for (const { object } of nodes.created) {
    const ready = object.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True');
    if (!ready) statusRewritten.push(object);
  }
  for (const object of statusRewritten) {
    const index = Number(object.metadata.name.slice('fake-node-'.length));
    const reply = await request(server, 'PUT', `/api/v1/nodes/${object.metadata.name}/status`, { ...object, status: fakeNode(index).status });
    if (reply.status !== 200) throw new Error(`writing the status of ${object.metadata.name}: ${reply.status} ${reply.body.slice(0, 300)}`);
  }
  const leaseBodies = nodes.created.map(({ object }) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: object.metadata.name, namespace: 'kube-node-lease', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: object.metadata.name, uid: object.metadata.uid }] },
    spec: { holderIdentity: object.metadata.name, leaseDurationSeconds: 40, renewTime: microTime(new Date()) },
  }));
  const leases = await createConcurrently(server, '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', leaseBodies, { clients, maxMs: timeoutMs });
  if (leases.created.length !== count) throw new Error(`created ${leases.created.length} of ${count} fake leases: ${JSON.stringify(leases.failures)}`);
  // Only this loop writes these Leases, so each PUT carries the resourceVersion of the last answer.
  const current = new Map(leases.created.map(({ object }) => [object.metadata.name, object]));
  const agent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: server.ca });
  let stopped = false;
  let renewals = 0;
  let renewFailures = 0;
  const renewLoop = (async () => {
    while (!stopped) {
      const wakeAt = performance.now() + LEASE_RENEW_MS;
      while (!stopped && performance.now() < wakeAt) await sleep(Math.min(250, wakeAt - performance.now()));
      if (stopped) break;
      const renewTime = microTime(new Date());
      await Promise.all(
        [...current.values()].map(async (lease) => {
          try {
            const reply = await request(server, 'PUT', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${lease.metadata.name}`, { ...lease, spec: { ...lease.spec, renewTime } }, { agent });
            if (reply.status === 200) {
              current.set(lease.metadata.name, JSON.parse(reply.body));
              renewals++;
            } else renewFailures++;
          } catch {
            renewFailures++;
          }
        }),
      );
    }
  })();

  for (;;) {
    const reply = await request(server, 'GET', `/api/v1/nodes?labelSelector=${encodeURIComponent(`${FAKE_NODE_LABEL}=true`)}`);
    const items = reply.status === 200 ? JSON.parse(reply.body).items : [];
    const readyCount = items.filter((node) => node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')).length;
    if (readyCount === count) break;
    if (performance.now() > deadline) {
      stopped = true;
      throw new Error(`only ${readyCount} of ${count} fake nodes Ready after ${timeoutMs} ms`);
    }
    await sleep(100);
  }
  return {
    names: nodes.created.map(({ name }) => name),
    createdMs,
    statusRewritten: statusRewritten.length,
    renewals: () => renewals,
    /**
     * Removes the taint `key` from every fake node (GET + PUT, retried on conflicts), from
     * `clients` loops; resolves with the number of nodes updated.
     */
    async removeTaint(key) {
      const names = nodes.created.map(({ name }) => name);
      let next = 0;
      let updated = 0;
      const taintAgent = new https.Agent({ keepAlive: true, maxSockets: clients, ca: server.ca });
      const loop = async () => {
        while (next < names.length) {
          const name = names[next++];
          for (let attempt = 0; attempt < 5; attempt++) {
            const got = await request(server, 'GET', `/api/v1/nodes/${name}`, undefined, { agent: taintAgent });
            if (got.status !== 200) break;
            const node = JSON.parse(got.body);
            const taints = (node.spec?.taints ?? []).filter((taint) => taint.key !== key);
            const reply = await request(server, 'PUT', `/api/v1/nodes/${name}`, { ...node, spec: { ...node.spec, taints } }, { agent: taintAgent });
            if (reply.status === 200) {
              updated++;
              break;
            }
            if (reply.status !== 409) throw new Error(`removing taint ${key} from ${name}: ${reply.status} ${reply.body.slice(0, 300)}`);
          }
        }
      };
      try {
        await Promise.all(Array.from({ length: clients }, loop));
      } finally {
        taintAgent.destroy();
      }
      return updated;
    },
    renewFailures: () => renewFailures,
    async stop() {
      stopped = true;
      await renewLoop;
      agent.destroy();
    },
  };
}

/** Pod `name` with small requests, `sleep 3600`, and optionally a nodeSelector onto the fake nodes. */
export function smallPod(name, { labels = {}, onFakeNodes = true } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: {
      containers: [{ name: 'main', image: 'kubedesk-test/busybox:4', imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      terminationGracePeriodSeconds: 1,
      ...(onFakeNodes ? { nodeSelector: { [FAKE_NODE_LABEL]: 'true' } } : {}),
    },
  };
}
