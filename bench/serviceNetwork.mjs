// Service networking from inside the cluster, on one `kubedesk serve`:
// - the data path: sequential HTTP/1.0 GETs (a new TCP connection each, as most service traffic
//   is) from a client pod through a ClusterIP (kd-netd's user-space proxy, kubedesk's kube-proxy)
//   against the same GETs straight to the backend pod's IP, in the same run;
// - the control path: how long after a new endpoint shows ready in its EndpointSlice (what
//   upstream's kube-proxy watches) the first request through the ClusterIP is answered by it.
// The requests are made by a static C client in the test image (`http-bench`, timed in the pod)
// and a shell loop in the client pod, so kubectl's own latency is not in the figures.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { request, round, sleep, summarise } from './lib.mjs';
import { busyboxImage, kubectlPath, now, requireImage, runFile, startPodCluster } from './podLib.mjs';
import { openWatch } from './workloadLib.mjs';

const NAMESPACE = 'default';
const APP = 'web';
const REQUESTS = 2_000;
const MEASURED_ROUNDS = 3;
const SCALE_ROUNDS = 3;
const THROUGHPUT_RATIO_TARGET = 0.5;
const ADDED_P50_TARGET_MS = 1;
const NEW_ENDPOINT_TARGET_MS = 1_000;
// The client loop ends by itself after this long even if the stop file is never written.
const LOOP_LIMIT_SECONDS = 200;

function webDeployment(replicas) {
  const labels = { app: APP };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: APP, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'web',
              image: busyboxImage,
              imagePullPolicy: 'IfNotPresent',
              // /name answers the pod's name, so the client loop sees which backend served it.
              // index.html (what http-bench GETs) is empty: the whole answer is busybox httpd's one
              // header write, which http-bench's check (the last read must start "HTTP/1.") needs.
              command: ['sh', '-c', 'mkdir -p /www && : > /www/index.html && hostname > /www/name && exec httpd -f -p 8080 -h /www'],
              ports: [{ name: 'http', containerPort: 8080 }],
              // Not ready until the bench creates the file: it decides when the endpoint turns ready.
              readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1 },
            },
          ],
          terminationGracePeriodSeconds: 1,
        },
      },
    },
  };
}

const webService = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: APP },
  spec: { selector: { app: APP }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
};

const clientPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'client' },
  spec: { containers: [{ name: 'client', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }], terminationGracePeriodSeconds: 0 },
};

async function create(server, path, manifest) {
  const reply = await request(server, 'POST', path, manifest);
  if (reply.status !== 201) throw new Error(`creating ${manifest.kind} ${manifest.metadata.name}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return JSON.parse(reply.body);
}

/** Runs kubectl; resolves with the exit code and output (non-zero codes are the caller's business). */
function kubectl(cluster, args, timeoutMs = 60_000) {
  return new Promise((resolveRun) => {
    execFile(kubectlPath, args, { env: cluster.kubectlEnv, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolveRun({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr: stderr || (error?.message ?? '') });
    });
  });
}

async function until(what, check, timeoutMs, intervalMs = 100) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

async function webPods(server) {
  const reply = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods?labelSelector=app%3D${APP}`);
  if (reply.status !== 200) throw new Error(`listing pods: ${reply.status}`);
  return JSON.parse(reply.body).items;
}

function isRunning(pod) {
  return pod.status?.phase === 'Running' && pod.status?.containerStatuses?.[0]?.state?.running !== undefined && pod.status?.podIP;
}

/** Waits for a running web pod not in `known` (a scale-up's new pod); returns it. */
function newRunningPod(server, known) {
  return until(
    'a new running web pod',
    async () => (await webPods(server)).find((pod) => !known.has(pod.metadata.name) && !pod.metadata.deletionTimestamp && isRunning(pod)),
    90_000,
  );
}

/** `http-bench IP PORT COUNT` in the client pod: its own timing, so kubectl exec's cost is outside the figure. */
async function httpBench(cluster, ip, port, count) {
  const result = await kubectl(cluster, ['exec', 'client', '--', 'http-bench', ip, String(port), String(count)], 120_000);
  const match = /ok=(\d+) failed=(\d+) seconds=([\d.]+) p50_us=(\d+) p99_us=(\d+)/.exec(result.stdout);
  if (!match) throw new Error(`http-bench ${ip}:${port} printed no result (exit ${result.code}): ${result.stdout}${result.stderr}`);
  const [ok, failed, seconds, p50Us, p99Us] = match.slice(1).map(Number);
  return { ok, failed, seconds, requestsPerSecond: ok / seconds, p50Ms: p50Us / 1000, p99Ms: p99Us / 1000 };
}

/**
 * Host CLOCK_BOOTTIME (what /proc/uptime shows, the same clock in every container on this kernel)
 * as a function of performance.now(): the offset is taken right when /proc/uptime ticks over, so
 * host times are exact to well under a millisecond while /proc/uptime itself has 10 ms steps.
 */
function calibrateUptime() {
  const read = () => Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  const first = read();
  const deadline = performance.now() + 100;
  let value = first;
  let at = performance.now();
  while (value === first && at < deadline) {
    value = read();
    at = performance.now();
  }
  const offsetMs = value * 1000 - at;
  return (performanceMs) => performanceMs + offsetMs;
}

/**
 * A loop in the client pod that GETs the ClusterIP one request after another (busybox wget, a new
 * connection each) and prints `<uptime> <answer>` after each answer: the pod's own clock, so the
 * time the line takes to reach the bench through `kubectl exec` does not count.
 */
function startClientLoop(cluster, clusterIp) {
  const script = [
    'read start rest < /proc/uptime; end=$(( ${start%.*} + ' + LOOP_LIMIT_SECONDS + ' ))',
    'while [ ! -f /tmp/stop-loop ]; do',
    `  answer=$(timeout 3 wget -qO- http://${clusterIp}/name 2>/dev/null || echo FAIL)`,
    '  read up rest < /proc/uptime',
    '  echo "$up $answer"',
    '  [ ${up%.*} -lt $end ] || break',
    'done',
  ].join('\n');
  const child = spawn(kubectlPath, ['exec', 'client', '--', 'sh', '-c', script], { env: cluster.kubectlEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  // Per backend name, the first time (pod uptime, ms) it answered; and the failure count.
  const firstAnswer = new Map();
  const state = { requests: 0, failures: 0, firstUptimeMs: NaN, lastUptimeMs: NaN, stderr: '', exited: false };
  const waiters = new Set();
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    pending += text;
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      const [uptime, answer] = line.split(' ');
      if (!answer) continue;
      state.requests++;
      if (state.requests === 1) state.firstUptimeMs = Number(uptime) * 1000;
      state.lastUptimeMs = Number(uptime) * 1000;
      if (answer === 'FAIL') state.failures++;
      else if (!firstAnswer.has(answer)) firstAnswer.set(answer, Number(uptime) * 1000);
    }
    for (const waiter of waiters) waiter();
  });
  child.stderr.on('data', (chunk) => {
    if (state.stderr.length < 2_000) state.stderr += chunk.toString();
  });
  child.once('exit', () => {
    state.exited = true;
    for (const waiter of waiters) waiter();
  });
  return {
    state,
    firstAnswer,
    /** Resolves with the pod-uptime ms of `name`'s first answer, or undefined after timeoutMs. */
    answeredBy(name, timeoutMs) {
      return new Promise((resolveAnswer) => {
        const check = () => {
          if (firstAnswer.has(name) || state.exited) finish();
        };
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
          resolveAnswer(firstAnswer.get(name));
        };
        const timer = setTimeout(finish, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      await kubectl(cluster, ['exec', 'client', '--', 'touch', '/tmp/stop-loop'], 30_000);
      const exited = state.exited ? Promise.resolve() : new Promise((resolveExit) => child.once('exit', resolveExit));
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    kill() {
      if (!state.exited) child.kill('SIGKILL');
    },
  };
}

function ms(value, digits = 2) {
  return Number.isFinite(value) ? `${round(value, digits)} ms` : 'n/a';
}

export async function benchServiceNetwork() {
  await requireImage(busyboxImage);
  const cluster = await startPodCluster({ name: 'service-network' });
  const { server } = cluster;
  let sliceWatch;
  let loop;
  try {
    // Per pod name, when (performance.now()) the EndpointSlice watch first showed it ready.
    const endpointReadyAt = new Map();
    sliceWatch = await openWatch(server, `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${APP}`, (event, arrived) => {
      if (event.type === 'DELETED') return;
      for (const endpoint of event.object?.endpoints ?? []) {
        const name = endpoint.targetRef?.name;
        if (name && endpoint.conditions?.ready === true && !endpointReadyAt.has(name)) endpointReadyAt.set(name, arrived);
      }
    });
    const readyEndpoints = async () => {
      const reply = await request(server, 'GET', `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3D${APP}`);
      return JSON.parse(reply.body).items.flatMap((slice) => (slice.endpoints ?? []).filter((endpoint) => endpoint.conditions?.ready === true).map((endpoint) => endpoint.targetRef?.name));
    };

    const service = await create(server, `/api/v1/namespaces/${NAMESPACE}/services`, webService);
    const clusterIp = service.spec.clusterIP;
    await create(server, `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, webDeployment(1));
    await create(server, `/api/v1/namespaces/${NAMESPACE}/pods`, clientPod);
    const first = await newRunningPod(server, new Set());
    const touched = await kubectl(cluster, ['exec', first.metadata.name, '--', 'touch', '/tmp/ready']);
    if (touched.code !== 0) throw new Error(`touch /tmp/ready in ${first.metadata.name}: ${touched.stderr}`);
    await sliceWatch.until(() => endpointReadyAt.has(first.metadata.name), 60_000);
    await until('the client pod to run', async () => {
      const reply = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods/client`);
      return isRunning(JSON.parse(reply.body)) ? true : undefined;
    }, 90_000);
    // kd-netd has no listener until the proxy has written the backend: wait for one answer.
    await until('the ClusterIP to answer', async () => ((await httpBench(cluster, clusterIp, 80, 1)).ok === 1 ? true : undefined), 30_000, 200);

    // ---- ClusterIP against the pod IP ----
    const podIp = first.status.podIP;
    const direct = [];
    const viaService = [];
    for (let roundIndex = 0; roundIndex <= MEASURED_ROUNDS; roundIndex++) {
      const straight = await httpBench(cluster, podIp, 8080, REQUESTS);
      const proxied = await httpBench(cluster, clusterIp, 80, REQUESTS);
      // Round 0 warms up (page cache, the proxy's first connections) and is not counted.
      if (roundIndex === 0) continue;
      direct.push(straight);
      viaService.push(proxied);
    }
    const median = (runs, key) => summarise(runs.map((run) => run[key])).p50;
    const directRate = median(direct, 'requestsPerSecond');
    const serviceRate = median(viaService, 'requestsPerSecond');
    const rateRatio = serviceRate / directRate;
    const directP50 = median(direct, 'p50Ms');
    const serviceP50 = median(viaService, 'p50Ms');
    const addedP50 = serviceP50 - directP50;
    const directP99 = median(direct, 'p99Ms');
    const serviceP99 = median(viaService, 'p99Ms');
    const failedRequests = [...direct, ...viaService].reduce((sum, run) => sum + run.failed, 0);

    // ---- new ready endpoint → first request it answers ----
    const toHostUptimeMs = calibrateUptime();
    loop = startClientLoop(cluster, clusterIp);
    await until('the client loop to get answers', async () => (loop.firstAnswer.has(first.metadata.name) || loop.state.exited ? true : undefined), 30_000);
    if (loop.state.exited) throw new Error(`the client loop ended: ${loop.state.stderr}`);
    const rounds = [];
    for (let roundIndex = 0; roundIndex < SCALE_ROUNDS; roundIndex++) {
      const before = new Set((await webPods(server)).map((pod) => pod.metadata.name));
      const scaled = await runFile(kubectlPath, ['scale', `deployment/${APP}`, '--replicas=2'], { env: cluster.kubectlEnv });
      if (!/scaled/.test(scaled)) throw new Error(`kubectl scale: ${scaled}`);
      const pod = await newRunningPod(server, before);
      const name = pod.metadata.name;
      const touch = await kubectl(cluster, ['exec', name, '--', 'touch', '/tmp/ready']);
      if (touch.code !== 0) throw new Error(`touch /tmp/ready in ${name}: ${touch.stderr}`);
      const touchedAt = now();
      const sawReady = await sliceWatch.until(() => endpointReadyAt.has(name), 30_000);
      const answeredUptimeMs = sawReady ? await loop.answeredBy(name, 15_000) : undefined;
      const readyUptimeMs = sawReady ? toHostUptimeMs(endpointReadyAt.get(name)) : NaN;
      rounds.push({
        pod: name,
        touchToEndpointReadyMs: sawReady ? endpointReadyAt.get(name) - touchedAt : NaN,
        endpointReadyToAnswerMs: answeredUptimeMs === undefined ? NaN : answeredUptimeMs - readyUptimeMs,
      });
      // Back to one replica (the ReplicaSet picks which pod goes) before the next fresh pod.
      await runFile(kubectlPath, ['scale', `deployment/${APP}`, '--replicas=1'], { env: cluster.kubectlEnv });
      await until('one web pod left', async () => {
        const pods = await webPods(server);
        const ready = await readyEndpoints();
        return pods.length === 1 && ready.length === 1 ? true : undefined;
      }, 60_000, 200);
    }
    await loop.stop();
    const loopRequests = loop.state.requests;
    const loopFailures = loop.state.failures;
    const loopIntervalMs = (loop.state.lastUptimeMs - loop.state.firstUptimeMs) / Math.max(1, loopRequests - 1);
    loop = undefined;

    const delays = rounds.map((entry) => entry.endpointReadyToAnswerMs);
    const answered = delays.filter(Number.isFinite);
    const delaySummary = summarise(answered);
    const touchSummary = summarise(rounds.map((entry) => entry.touchToEndpointReadyMs).filter(Number.isFinite));
    const allAnswered = answered.length === rounds.length;
    return {
      name: 'serviceNetwork',
      figures: {
        requestsPerRound: REQUESTS,
        direct,
        viaService,
        directRequestsPerSecond: directRate,
        serviceRequestsPerSecond: serviceRate,
        rateRatio,
        directP50Ms: directP50,
        serviceP50Ms: serviceP50,
        addedP50Ms: addedP50,
        directP99Ms: directP99,
        serviceP99Ms: serviceP99,
        failedRequests,
        newEndpointRounds: rounds,
        newEndpointDelay: delaySummary,
        touchToEndpointReady: touchSummary,
        clientLoopRequests: loopRequests,
        clientLoopFailures: loopFailures,
        clientLoopIntervalMs: loopIntervalMs,
        newEndpointMethod:
          'T0 = arrival of the EndpointSlice watch event first showing the pod ready, converted to CLOCK_BOOTTIME (/proc/uptime, calibrated against performance.now() when it ticks); T1 = /proc/uptime read in the client pod right after the first busybox wget through the ClusterIP answered by the new pod (10 ms steps, truncated). Same kernel clock on both sides; kubectl exec and log latency are not in the figure. The loop round-robins over 2 backends with one fork-heavy wget per request, so the delay includes up to about one loop iteration.',
      },
      rows: [
        [
          `ClusterIP req/s, ${REQUESTS} sequential GETs (new conn each), median of ${MEASURED_ROUNDS}`,
          `${round(serviceRate, 0)} req/s`,
          `pod IP: ${round(directRate, 0)} req/s → ${round(rateRatio, 2)}×; failed ${failedRequests}`,
          `≥ ${THROUGHPUT_RATIO_TARGET}× pod IP`,
          Number.isFinite(rateRatio) && rateRatio >= THROUGHPUT_RATIO_TARGET && failedRequests === 0,
        ],
        [
          'ClusterIP added latency, p50',
          `+${ms(addedP50, 3)}`,
          `ClusterIP p50 ${ms(serviceP50, 3)}, pod IP p50 ${ms(directP50, 3)}`,
          `≤ ${ADDED_P50_TARGET_MS} ms`,
          Number.isFinite(addedP50) && addedP50 <= ADDED_P50_TARGET_MS,
        ],
        ['ClusterIP latency, p99', ms(serviceP99, 3), `pod IP p99 ${ms(directP99, 3)}`, '(printed)', undefined],
        [
          `new ready endpoint → first answer from it (${rounds.length} rounds): median`,
          ms(delaySummary.p50, 0),
          `max ${ms(delaySummary.max, 0)}; answered ${answered.length}/${rounds.length}; pod clock 10 ms steps`,
          `≤ ${NEW_ENDPOINT_TARGET_MS} ms`,
          allAnswered && delaySummary.p50 <= NEW_ENDPOINT_TARGET_MS,
        ],
        [
          `new ready endpoint → first answer from it (${rounds.length} rounds): max`,
          ms(delaySummary.max, 0),
          `readiness file → endpoint ready in API: p50 ${ms(touchSummary.p50, 0)}, max ${ms(touchSummary.max, 0)}; client loop: ${loopRequests} requests, one per ${ms(loopIntervalMs, 1)}, ${loopFailures} failed`,
          `≤ ${NEW_ENDPOINT_TARGET_MS} ms`,
          allAnswered && delaySummary.max <= NEW_ENDPOINT_TARGET_MS,
        ],
      ],
    };
  } finally {
    loop?.kill();
    sliceWatch?.close();
    await cluster.stop();
  }
}
