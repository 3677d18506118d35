// Start-up: `kubedesk serve` on an empty data dir until /readyz answers ok (what kubeadm and kind
// wait on before declaring a control plane up), beside the bare cost of starting node itself
// (`node -e 0`, spawn to exit) measured in the same run on the same machine. For context (no
// target), the same fresh start with `--serving-key-type ecdsa` (no RSA key search, which costs
// 0.1 to 0.4 s of CPU per key), interleaved with the others.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { startServer, summarise } from './lib.mjs';

const TARGET_MS = 1_000;
/** the median's target: this many times the bare node start measured in the same run */
const TARGET_NODE_MULTIPLE = 5;

function nodeBaselineOnce() {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('error', reject);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveRun(performance.now() - started);
    });
  });
}

export async function benchStartup({ runs = 5, codeCache } = {}) {
  const baseline = [];
  const serve = [];
  const serveCpu = [];
  const stopMs = [];
  const exits = [];
  const ecdsa = [];
  // Interleaved, so both series see the same background load from other work on the machine.
  for (let run = 0; run < runs; run++) {
    baseline.push(await nodeBaselineOnce());
    const server = await startServer({ name: `startup-${run}` });
    serve.push(server.readyMs);
    serveCpu.push(server.cpuMsAtReady);
    exits.push(await server.stop());
    stopMs.push(server.stopMs);
    const ecdsaServer = await startServer({ name: `startup-ecdsa-${run}`, extraArgs: ['--serving-key-type', 'ecdsa'] });
    ecdsa.push(ecdsaServer.readyMs);
    await ecdsaServer.stop();
  }
  const ecdsaSummary = summarise(ecdsa);
  const serveSummary = summarise(serve);
  const baselineSummary = summarise(baseline);
  return {
    name: 'startup',
    figures: {
      serveToReadyz: { ...serveSummary, runs: serve },
      serveCpuAtReadyMs: { ...summarise(serveCpu), runs: serveCpu },
      nodeEmpty: { ...baselineSummary, runs: baseline },
      overNodeMedianMs: serveSummary.p50 - baselineSummary.p50,
      sigtermToExit: summarise(stopMs),
      exits,
      coldCodeCache: codeCache?.cold,
      ecdsaServeToReadyz: { ...ecdsaSummary, runs: ecdsa },
    },
    rows: [
      [
        'serve → /readyz, median',
        `${serveSummary.p50.toFixed(0)} ms (${(serveSummary.p50 / baselineSummary.p50).toFixed(1)}×)`,
        `node -e 0: ${baselineSummary.p50.toFixed(0)} ms`,
        `≤ ${TARGET_NODE_MULTIPLE}× node (${(TARGET_NODE_MULTIPLE * baselineSummary.p50).toFixed(0)} ms)`,
        serveSummary.p50 <= TARGET_NODE_MULTIPLE * baselineSummary.p50,
      ],
      ['serve --serving-key-type ecdsa → /readyz, median', `${ecdsaSummary.p50.toFixed(0)} ms (${(ecdsaSummary.p50 / baselineSummary.p50).toFixed(1)}×)`, 'the same fresh start without RSA keys (context)', '', undefined],
      ['serve CPU time until ready, median', `${summarise(serveCpu).p50.toFixed(0)} ms`, 'user + system, less sensitive to load than wall time', '', undefined],
      ['serve → /readyz, max', `${serveSummary.max.toFixed(0)} ms`, `node -e 0: ${baselineSummary.max.toFixed(0)} ms`, `≤ ${TARGET_MS} ms`, serveSummary.max <= TARGET_MS],
      ...(codeCache ? [['first start, cold code cache (not in the median)', `${codeCache.cold.readyMs.toFixed(0)} ms`, `${codeCache.cold.cpuMsAtReady.toFixed(0)} ms CPU`, '', undefined]] : []),
      ['SIGTERM → exit, median', `${summarise(stopMs).p50.toFixed(0)} ms`, `exit codes: ${[...new Set(exits.map((exit) => exit?.code ?? exit?.signal))].join(', ')}`, 'code 0', exits.every((exit) => exit?.code === 0)],
    ],
  };
}
