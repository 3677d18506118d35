// Worker thread for watchFanout.mjs: holds a share of the watch streams on its own event loop, so
// that decrypting and parsing hundreds of streams neither delays the writer's requests nor piles
// every watcher's receipt onto one thread (real watchers are separate processes). Timestamps use
// process.hrtime, the one monotonic clock every thread of the process shares.
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

const { url, ca, token, namespace, resourceVersion, count, counters } = workerData;
const shared = new Int32Array(counters);
const PROBES = 0;
const EVENTS = 1;
const OPENED = 2;

const agent = new https.Agent({ keepAlive: true, maxSockets: count + 10, ca });
const requests = [];
const names = [];
const sentAt = [];
const receivedAt = [];
let unexpected = 0;
let failures = 0;

function clock() {
  return Number(process.hrtime.bigint()) / 1e6;
}

function onLine(line, at) {
  const event = JSON.parse(line);
  const data = event?.object?.data;
  if (event.type !== 'ADDED' || !data) {
    unexpected++;
    return;
  }
  if (data.probe) {
    Atomics.add(shared, PROBES, 1);
    return;
  }
  names.push(Number(event.object.metadata.name.slice('fan-'.length)));
  sentAt.push(Number(data.sentAt));
  receivedAt.push(at);
  Atomics.add(shared, EVENTS, 1);
}

function openWatch() {
  const path = `/api/v1/namespaces/${namespace}/configmaps?watch=true&resourceVersion=${resourceVersion}&timeoutSeconds=600`;
  return new Promise((resolveOpen) => {
    const outgoing = https.request(new URL(path, url), { agent, ca, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }, (response) => {
      if (response.statusCode !== 200) {
        failures++;
        response.resume();
        resolveOpen();
        return;
      }
      let pending = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        const at = clock();
        pending += chunk;
        let newline;
        while ((newline = pending.indexOf('\n')) !== -1) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line.trim() !== '') onLine(line, at);
        }
      });
      response.on('error', () => undefined);
      Atomics.add(shared, OPENED, 1);
      resolveOpen();
    });
    outgoing.on('error', () => {
      failures++;
      resolveOpen();
    });
    outgoing.end();
    requests.push(outgoing);
  });
}

// Open in batches so the TLS handshakes do not all time out at once on a busy machine.
for (let opened = 0; opened < count; opened += 25) {
  await Promise.all(Array.from({ length: Math.min(25, count - opened) }, () => openWatch()));
}

parentPort.on('message', (message) => {
  if (message !== 'collect') return;
  for (const outgoing of requests) outgoing.destroy();
  agent.destroy();
  parentPort.postMessage({ names: Int32Array.from(names), sentAt: Float64Array.from(sentAt), receivedAt: Float64Array.from(receivedAt), unexpected, failures });
  parentPort.close();
});
parentPort.postMessage('opened');
