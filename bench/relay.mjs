// The UI relay's cost (docs/architecture.md, "Other clusters: the UI relay"): two clusters, the
// second one's context in the first one's kubeconfig; the same client (node's https, kept-alive
// agents) lists 1,000 pods and receives watch events straight from the second cluster and through
// the first cluster's /ui/clusters/<context>/ relay, in the same run, alternating so drift in the
// machine's load hits both. The pods carry a scheduling gate, so nothing schedules or runs them.
// Figures: the relayed list's p50 over the direct one's, and the watch event's added delivery
// time (p50), each with the added milliseconds.
import https from 'node:https';
import { gunzip } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parse, stringify } from 'yaml';
import { request, sleep, startServer, summarise } from './lib.mjs';

const PODS = 1000;
const LIST_ROUNDS = 30;
const WATCH_EVENTS = 60;
export const NAMESPACE = 'bench-relay';
const TARGET_RATIO = 1.2;
const TARGET_ADDED_MS = 5;

/**
 * A GET as kubectl sends it (`Accept-Encoding: gzip`, which browsers send too), timed until the
 * client holds the JSON: a gzipped reply is gunzipped, as kubectl and the browser do.
 */
function get(url, headers, agent) {
  return new Promise((resolveGet, reject) => {
    const started = performance.now();
    const outgoing = https.request(url, { method: 'GET', agent, headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip', ...headers }, timeout: 30_000 }, (response) => {
      let bytes = 0;
      let firstByteMs = NaN;
      const chunks = [];
      response.on('data', (chunk) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
        chunks.push(chunk);
      });
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        const done = (json) => resolveGet({ status: response.statusCode ?? 0, bytes, jsonBytes: json.length, gzipped: response.headers['content-encoding'] === 'gzip', ms: performance.now() - started, firstByteMs });
        if (response.headers['content-encoding'] !== 'gzip') return done(body);
        gunzip(body, (error, json) => (error ? reject(error) : done(json)));
      });
      response.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${url} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A watch stream whose events call `onEvent(name, arrivedAt)`. */
function watch(url, headers, agent, onEvent) {
  return new Promise((resolveOpen, reject) => {
    const outgoing = https.request(url, { method: 'GET', agent, headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip', ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`watch ${url}: HTTP ${response.statusCode}`));
        return;
      }
      let buffered = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const arrivedAt = performance.now();
        buffered += chunk;
        let newline;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() === '') continue;
          const event = JSON.parse(line);
          if (event.type === 'ADDED') onEvent(event.object.metadata.name, arrivedAt);
        }
      });
      resolveOpen({ close: () => outgoing.destroy() });
    });
    outgoing.on('error', (error) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    outgoing.end();
  });
}

/** PODS pods in NAMESPACE carrying a scheduling gate: listed and watched, never scheduled or run. */
export async function createPods(server) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca: server.ca });
  const namespace = await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  if (namespace.status !== 201) throw new Error(`creating the namespace: HTTP ${namespace.status} ${namespace.body.slice(0, 300)}`);
  for (let batch = 0; batch < PODS; batch += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, PODS - batch) }, async (_, offset) => {
        const index = batch + offset;
        const pod = {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `pod-${String(index).padStart(4, '0')}`, labels: { app: 'bench', shard: String(index % 10) } },
          spec: { schedulingGates: [{ name: 'bench.kubedesk.dev/hold' }], containers: [{ name: 'app', image: 'registry.example/app:1', ports: [{ containerPort: 8080 }], env: [{ name: 'INDEX', value: String(index) }] }] },
        };
        const reply = await request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/pods`, pod, { agent });
        if (reply.status !== 201) throw new Error(`creating pod ${index}: HTTP ${reply.status} ${reply.body.slice(0, 300)}`);
      }),
    );
  }
  agent.destroy();
}

export async function benchRelay() {
  const [relay, target] = await Promise.all([startServer({ name: 'relay' }), startServer({ name: 'relay-target' })]);
  const agents = [];
  try {
    // the target's context joins the relay cluster's kubeconfig, as `kubectl config set-context` would add it
    const config = parse(readFileSync(relay.kubeconfigPath, 'utf8'));
    config.clusters.push({ name: 'target', cluster: { server: target.url, 'certificate-authority-data': Buffer.from(target.ca).toString('base64') } });
    config.users.push({ name: 'target', user: { token: target.token } });
    config.contexts.push({ name: 'target', context: { cluster: 'target', user: 'target' } });
    writeFileSync(relay.kubeconfigPath, stringify(config), { mode: 0o600 });
    const origin = new URL(relay.url).origin;
    const signIn = await new Promise((resolveSignIn, reject) => {
      const outgoing = https.request(new URL('/ui/session', relay.url), { method: 'POST', ca: relay.ca, headers: { Origin: origin, 'Content-Type': 'application/json' } }, (response) => {
        response.resume();
        resolveSignIn({ status: response.statusCode, cookie: (response.headers['set-cookie']?.[0] ?? '').split(';')[0] });
      });
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify({ token: relay.token }));
    });
    if (signIn.status !== 204) throw new Error(`signing in to the relay cluster: HTTP ${signIn.status}`);
    await createPods(target);

    const directAgent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: target.ca });
    const relayAgent = new https.Agent({ keepAlive: true, maxSockets: 4, ca: relay.ca });
    agents.push(directAgent, relayAgent);
    const direct = { base: target.url, headers: { Authorization: `Bearer ${target.token}` }, agent: directAgent };
    const relayed = { base: `${relay.url}/ui/clusters/target`, headers: { Cookie: signIn.cookie }, agent: relayAgent };
    const listPath = `/api/v1/namespaces/${NAMESPACE}/pods`;

    // warm both paths (connections, the relay's connection to the target, JIT)
    for (let warm = 0; warm < 3; warm++) {
      for (const way of [direct, relayed]) {
        const reply = await get(`${way.base}${listPath}`, way.headers, way.agent);
        if (reply.status !== 200) throw new Error(`listing through ${way.base}: HTTP ${reply.status}`);
      }
    }
    const listTimes = { direct: [], relayed: [] };
    const firstBytes = { direct: [], relayed: [] };
    let listBytes = 0;
    let listJsonBytes = 0;
    let listGzipped = false;
    for (let round = 0; round < LIST_ROUNDS; round++) {
      const order = round % 2 === 0 ? [['direct', direct], ['relayed', relayed]] : [['relayed', relayed], ['direct', direct]];
      for (const [name, way] of order) {
        const reply = await get(`${way.base}${listPath}`, way.headers, way.agent);
        if (reply.status !== 200) throw new Error(`listing ${name}: HTTP ${reply.status}`);
        listBytes = reply.bytes;
        listJsonBytes = reply.jsonBytes;
        listGzipped = reply.gzipped;
        listTimes[name].push(reply.ms);
        firstBytes[name].push(reply.firstByteMs);
      }
    }

    // one watch each way on the same collection; each create's event is timed on both
    const sentAt = new Map();
    const arrival = { direct: [], relayed: [] };
    const seen = { direct: new Set(), relayed: new Set() };
    const watchPath = `/api/v1/namespaces/${NAMESPACE}/configmaps?watch=true`;
    const streams = [];
    for (const [name, way] of [['direct', direct], ['relayed', relayed]]) {
      const watchAgent = new https.Agent({ keepAlive: false, ca: name === 'direct' ? target.ca : relay.ca });
      agents.push(watchAgent);
      streams.push(
        await watch(`${way.base}${watchPath}`, way.headers, watchAgent, (object, arrivedAt) => {
          const sent = sentAt.get(object);
          if (sent === undefined || seen[name].has(object)) return;
          seen[name].add(object);
          arrival[name].push(arrivedAt - sent);
        }),
      );
    }
    const writer = new https.Agent({ keepAlive: true, maxSockets: 1, ca: target.ca });
    agents.push(writer);
    for (let index = 0; index < WATCH_EVENTS + 5; index++) {
      const name = `event-${index}`;
      sentAt.set(name, performance.now());
      const reply = await request(target, 'POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { index: String(index) } }, { agent: writer });
      if (reply.status !== 201) throw new Error(`creating ${name}: HTTP ${reply.status}`);
      const deadline = performance.now() + 5_000;
      while ((!seen.direct.has(name) || !seen.relayed.has(name)) && performance.now() < deadline) await sleep(1);
      if (!seen.direct.has(name) || !seen.relayed.has(name)) throw new Error(`the event of ${name} did not arrive both ways within 5 s`);
      await sleep(20);
    }
    for (const stream of streams) stream.close();
    // the first events warm the streams
    const events = { direct: summarise(arrival.direct.slice(5)), relayed: summarise(arrival.relayed.slice(5)) };
    const lists = { direct: summarise(listTimes.direct), relayed: summarise(listTimes.relayed) };
    const listFirstBytes = { direct: summarise(firstBytes.direct), relayed: summarise(firstBytes.relayed) };
    const listRatio = lists.relayed.p50 / lists.direct.p50;
    const listAdded = lists.relayed.p50 - lists.direct.p50;
    const eventRatio = events.relayed.p50 / events.direct.p50;
    const eventAdded = events.relayed.p50 - events.direct.p50;
    return {
      name: 'relay',
      figures: { pods: PODS, listBytes, listJsonBytes, listGzipped, lists, listFirstBytes, events, listRatio, listAdded, eventRatio, eventAdded },
      rows: [
        [`relayed list of ${PODS} pods (p50 of ${LIST_ROUNDS})`, `${listRatio.toFixed(2)}× (+${listAdded.toFixed(1)} ms)`, `direct ${lists.direct.p50.toFixed(1)} ms, relayed ${lists.relayed.p50.toFixed(1)} ms (first byte ${listFirstBytes.direct.p50.toFixed(1)} / ${listFirstBytes.relayed.p50.toFixed(1)} ms), ${(listJsonBytes / 1e6).toFixed(2)} MB of JSON${listGzipped ? `, ${(listBytes / 1e6).toFixed(2)} MB gzipped on the wire` : ''}`, `≤ ${TARGET_RATIO}×, ≤ ${TARGET_ADDED_MS} ms`, listRatio <= TARGET_RATIO && listAdded <= TARGET_ADDED_MS],
        [`relayed watch event (p50 of ${WATCH_EVENTS})`, `+${eventAdded.toFixed(2)} ms (${eventRatio.toFixed(2)}×)`, `direct ${events.direct.p50.toFixed(2)} ms, relayed ${events.relayed.p50.toFixed(2)} ms from the create`, `≤ ${TARGET_ADDED_MS} ms`, eventAdded <= TARGET_ADDED_MS],
      ],
    };
  } finally {
    for (const agent of agents) agent.destroy();
    await Promise.all([relay.stop(), target.stop()]);
  }
}
