// Streams through the API server against the same operation straight on Docker, in the same run:
// - logs: `kubectl logs POD` of a 100 MB log against `docker logs ID` of the same container, both
//   written to /dev/null (the path of upstream's kubelet: the container's json-file log read back
//   and streamed through the API server to the client);
// - exec: `kubectl exec POD -- true` against `docker exec ID true` (process start included), and
//   one level down a raw WebSocket exec (v5.channel.k8s.io, `?command=true&stdout=true`, timed
//   until the Status frame on channel 3, as kubectl's remotecommand ends) against an exec through
//   the Docker API (dockerode: create, start attached, inspect the exit code).
import WebSocket from 'ws';
import { request, round, sleep, summarise } from './lib.mjs';
import { docker, kubectlPath, now, podManifest, startPodCluster, timeCommand, watchReadyPods } from './podLib.mjs';

const LOG_BYTES = 104_857_600;
const LOG_LINE = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456';
const LOGS_RATIO_TARGET = 0.8;
const EXEC_ROUNDS = 30;
// One timed read each: a 100 MB json-file log takes dockerd 10–30 s to decode on a busy 2-core machine.
const LOG_ROUNDS = 1;
const NAMESPACE = 'default';

function median(values) {
  return summarise(values).p50;
}

async function createPod(server, manifest) {
  const reply = await request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/pods`, manifest);
  if (reply.status !== 201) throw new Error(`creating pod ${manifest.metadata.name}: ${reply.status} ${reply.body.slice(0, 300)}`);
}

async function containerIdOf(server, name) {
  const reply = await request(server, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods/${name}`);
  const id = JSON.parse(reply.body).status?.containerStatuses?.[0]?.containerID ?? '';
  if (!id.startsWith('docker://')) throw new Error(`pod ${name} has no docker container id (${id})`);
  return id.slice('docker://'.length);
}

/** Waits until the writer (`yes | head`) has exited, so both readers see the whole log. */
async function waitForLogWriter(id, timeoutMs) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const top = await docker.getContainer(id).top();
    const commandColumn = top.Titles.findIndex((title) => title === 'CMD' || title === 'COMMAND');
    const busy = top.Processes.some((row) => /\b(yes|head)\b/.test(row[commandColumn] ?? row.join(' ')));
    if (!busy) return;
    if (now() > deadline) throw new Error(`the log writer still runs after ${timeoutMs} ms`);
    await sleep(500);
  }
}

/** Opens a v5 WebSocket exec of `true`; milliseconds until the Status frame (channel 3) arrives. */
function websocketExec(server, pod) {
  const url = new URL(`/api/v1/namespaces/${NAMESPACE}/pods/${pod}/exec?command=true&stdout=true`, server.url.replace(/^https:/, 'wss:'));
  if (url.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${url.hostname}`);
  return new Promise((resolveExec, reject) => {
    const started = now();
    const socket = new WebSocket(url, ['v5.channel.k8s.io'], { ca: server.ca, headers: { Authorization: `Bearer ${server.token}` } });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('WebSocket exec: no status frame within 10 s'));
    }, 10_000);
    socket.on('message', (data) => {
      const frame = Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (frame[0] !== 3) return;
      const ms = now() - started;
      clearTimeout(timer);
      socket.close();
      const status = JSON.parse(frame.subarray(1).toString('utf8') || '{}');
      if (status.status !== 'Success') reject(new Error(`WebSocket exec ended with ${JSON.stringify(status)}`));
      else resolveExec(ms);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      reject(new Error(`WebSocket exec upgrade answered ${response.statusCode}`));
    });
  });
}

/** The Docker API's exec of `true`: create, start attached (hijacked), wait for the end, read the exit code. */
async function dockerApiExec(id) {
  const started = now();
  const container = docker.getContainer(id);
  const exec = await container.exec({ Cmd: ['true'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise((resolveEnd, reject) => {
    stream.on('end', resolveEnd);
    stream.on('close', resolveEnd);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec exit code ${info.ExitCode}`);
  return now() - started;
}

function ms(value) {
  return `${round(value, 1)} ms`;
}

export async function benchPodStreams() {
  const cluster = await startPodCluster({ name: 'pod-streams' });
  const { server, kubectlEnv } = cluster;
  let watch;
  try {
    watch = await watchReadyPods(server, NAMESPACE);
    await createPod(server, podManifest('logs', { command: ['sh', '-c', `yes ${LOG_LINE} | head -c ${LOG_BYTES}; sleep 3600`] }));
    await createPod(server, podManifest('exec'));
    const readyCount = await watch.whenReady(['logs', 'exec'], 90_000);
    watch.close();
    watch = undefined;
    if (readyCount !== 2) throw new Error('the logs and exec pods did not become Ready within 90 s');
    const logsId = await containerIdOf(server, 'logs');
    const execId = await containerIdOf(server, 'exec');
    const writeStarted = now();
    await waitForLogWriter(logsId, 120_000);
    const writeWaitMs = now() - writeStarted;
    // Docker's log copier may still hold the last buffered lines.
    await sleep(1_000);

    // ---- logs ----
    const kubectlLogs = [kubectlPath, ['logs', 'logs'], { env: kubectlEnv, timeoutMs: 120_000 }];
    const dockerLogs = ['docker', ['logs', logsId], { timeoutMs: 120_000 }];
    // Counted once each (stdout piped into this process) to know the bytes; timed to /dev/null.
    const kubectlCounted = await timeCommand(kubectlLogs[0], kubectlLogs[1], { ...kubectlLogs[2], countBytes: true });
    const dockerCounted = await timeCommand(dockerLogs[0], dockerLogs[1], { ...dockerLogs[2], countBytes: true });
    if (kubectlCounted.code !== 0) throw new Error(`kubectl logs failed (${kubectlCounted.code}): ${kubectlCounted.stderr}`);
    if (dockerCounted.code !== 0) throw new Error(`docker logs failed (${dockerCounted.code}): ${dockerCounted.stderr}`);
    const kubectlLogMs = [];
    const dockerLogMs = [];
    for (let attempt = 0; attempt < LOG_ROUNDS; attempt++) {
      const dockerRun = await timeCommand(...dockerLogs);
      const kubectlRun = await timeCommand(...kubectlLogs);
      if (dockerRun.code !== 0 || kubectlRun.code !== 0) throw new Error(`logs to /dev/null failed: docker ${dockerRun.code}, kubectl ${kubectlRun.code}: ${kubectlRun.stderr}`);
      dockerLogMs.push(dockerRun.ms);
      kubectlLogMs.push(kubectlRun.ms);
    }
    const mebibytes = (bytes) => bytes / 1_048_576;
    const kubectlRate = mebibytes(kubectlCounted.bytes) / (median(kubectlLogMs) / 1000);
    const dockerRate = mebibytes(dockerCounted.bytes) / (median(dockerLogMs) / 1000);
    const logsRatio = kubectlRate / dockerRate;

    // ---- exec through the CLIs ----
    const kubectlExec = () => timeCommand(kubectlPath, ['exec', 'exec', '--', 'true'], { env: kubectlEnv, timeoutMs: 30_000 });
    const dockerExec = () => timeCommand('docker', ['exec', execId, 'true'], { timeoutMs: 30_000 });
    for (let warm = 0; warm < 2; warm++) {
      await kubectlExec();
      await dockerExec();
    }
    const kubectlExecMs = [];
    const dockerExecMs = [];
    let execFailures = 0;
    for (let attempt = 0; attempt < EXEC_ROUNDS; attempt++) {
      const viaKubectl = await kubectlExec();
      const viaDocker = await dockerExec();
      if (viaKubectl.code !== 0 || viaDocker.code !== 0) execFailures++;
      kubectlExecMs.push(viaKubectl.ms);
      dockerExecMs.push(viaDocker.ms);
    }

    // ---- exec through the APIs ----
    await websocketExec(server, 'exec');
    await dockerApiExec(execId);
    const websocketMs = [];
    const dockerApiMs = [];
    for (let attempt = 0; attempt < EXEC_ROUNDS; attempt++) {
      websocketMs.push(await websocketExec(server, 'exec'));
      dockerApiMs.push(await dockerApiExec(execId));
    }

    const kubectlExecSummary = summarise(kubectlExecMs);
    const dockerExecSummary = summarise(dockerExecMs);
    const websocketSummary = summarise(websocketMs);
    const dockerApiSummary = summarise(dockerApiMs);
    return {
      name: 'podStreams',
      figures: {
        logWriterWaitMs: writeWaitMs,
        kubectlLogBytes: kubectlCounted.bytes,
        dockerLogBytes: dockerCounted.bytes,
        kubectlLogCountedMs: kubectlCounted.ms,
        dockerLogCountedMs: dockerCounted.ms,
        kubectlLogDevNullMs: kubectlLogMs,
        dockerLogDevNullMs: dockerLogMs,
        kubectlLogMiBps: kubectlRate,
        dockerLogMiBps: dockerRate,
        logsRatio,
        kubectlExec: kubectlExecSummary,
        dockerExec: dockerExecSummary,
        execFailures,
        websocketExec: websocketSummary,
        dockerApiExec: dockerApiSummary,
      },
      rows: [
        [
          `kubectl logs, ${round(mebibytes(kubectlCounted.bytes), 1)} MiB → /dev/null`,
          `${round(kubectlRate, 0)} MiB/s (${round(median(kubectlLogMs) / 1000, 2)} s)`,
          `docker logs: ${round(dockerRate, 0)} MiB/s (${round(median(dockerLogMs) / 1000, 2)} s, ${round(mebibytes(dockerCounted.bytes), 1)} MiB) → ${round(logsRatio, 2)}×`,
          `≥ ${LOGS_RATIO_TARGET}× docker`,
          logsRatio >= LOGS_RATIO_TARGET && kubectlCounted.bytes === dockerCounted.bytes,
        ],
        [`kubectl exec -- true (${EXEC_ROUNDS}×): p50 / p99`, `${ms(kubectlExecSummary.p50)} / ${ms(kubectlExecSummary.p99)}`, `docker exec: ${ms(dockerExecSummary.p50)} / ${ms(dockerExecSummary.p99)}; failures ${execFailures}`, '', execFailures === 0 ? undefined : false],
        [`WebSocket exec true → status frame (${EXEC_ROUNDS}×): p50 / p99`, `${ms(websocketSummary.p50)} / ${ms(websocketSummary.p99)}`, `Docker API exec: ${ms(dockerApiSummary.p50)} / ${ms(dockerApiSummary.p99)}`, '', undefined],
      ],
    };
  } finally {
    watch?.close();
    await cluster.stop();
  }
}
