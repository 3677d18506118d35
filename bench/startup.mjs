// Start-up: `kubedesk serve` on an empty data dir until /readyz answers ok (what kubeadm and kind
// wait on before declaring a control plane up), beside the bare cost of starting node itself
// (`node -e 0`, spawn to exit) measured in the same run on the same machine.
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
  // Interleaved, so both series see the same background load from other work on the machine.
  for (let run = 0; run < runs; run++) {
    baseline.push(await nodeBaselineOnce());
    const server = await startServer({ name: `startup-${run}` });
    serve.push(server.readyMs);
    serveCpu.push(server.cpuMsAtReady);
    exits.push(await server.stop());
    stopMs.push(server.stopMs);
  }
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
    },
    rows: [
      [
        'serve → /readyz, median',
        `${serveSummary.p50.toFixed(0)} ms (${(serveSummary.p50 / baselineSummary.p50).toFixed(1)}×)`,
        `node -e 0: ${baselineSummary.p50.toFixed(0)} ms`,
        `≤ ${TARGET_NODE_MULTIPLE}× node (${(TARGET_NODE_MULTIPLE * baselineSummary.p50).toFixed(0)} ms)`,
        serveSummary.p50 <= TARGET_NODE_MULTIPLE * baselineSummary.p50,
      ],
      ['serve CPU time until ready, median', `${summarise(serveCpu).p50.toFixed(0)} ms`, 'user + system, less sensitive to load than wall time', '', undefined],
      ['serve → /readyz, max', `${serveSummary.max.toFixed(0)} ms`, `node -e 0: ${baselineSummary.max.toFixed(0)} ms`, `≤ ${TARGET_MS} ms`, serveSummary.max <= TARGET_MS],
      ...(codeCache ? [['first start, cold code cache (not in the median)', `${codeCache.cold.readyMs.toFixed(0)} ms`, `${codeCache.cold.cpuMsAtReady.toFixed(0)} ms CPU`, '', undefined]] : []),
      ['SIGTERM → exit, median', `${summarise(stopMs).p50.toFixed(0)} ms`, `exit codes: ${[...new Set(exits.map((exit) => exit?.code ?? exit?.signal))].join(', ')}`, 'code 0', exits.every((exit) => exit?.code === 0)],
    ],
  };
}
