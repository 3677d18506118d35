// The object history's cost on the write path: ConfigMap creates per second from 16 clients (as
// creates.mjs) against a server with history (the default) and one started with --no-history,
// three windows of each, interleaved so both see the same background load; the figure is the ratio
// of the medians. The history's own bytes after the run come from the server's SQLite file.
import { createLoad, ensureNamespace } from './creates.mjs';
import { startServer } from './lib.mjs';

const TARGET_RATIO = 0.9;
const ROUNDS = 5;

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

async function createsPerSecond(history, round) {
  const server = await startServer({ name: `history-${history ? 'on' : 'off'}-${round}`, extraArgs: history ? [] : ['--no-history'] });
  try {
    await ensureNamespace(server, 'bench');
    await createLoad(server, { clients: 16, prefix: 'warm', maxCreates: 400, maxMs: 5_000 });
    const load = await createLoad(server, { clients: 16, prefix: 'cm', maxCreates: 20_000, maxMs: 4_000 });
    return load.latencies.length / load.seconds;
  } finally {
    await server.stop();
  }
}

export async function benchHistory() {
  const on = [];
  const off = [];
  for (let round = 0; round < ROUNDS; round++) {
    off.push(await createsPerSecond(false, round));
    on.push(await createsPerSecond(true, round));
  }
  const ratio = median(on) / median(off);
  return {
    name: 'history',
    figures: { createsPerSecondWithHistory: on, createsPerSecondWithoutHistory: off, ratio },
    rows: [
      ['creates/s with history (16 clients, median of 5)', median(on).toFixed(0), `--no-history: ${median(off).toFixed(0)}/s`, '', undefined],
      ['create throughput history on / off', `${(ratio * 100).toFixed(0)} %`, `runs on ${on.map((value) => value.toFixed(0)).join(', ')}; off ${off.map((value) => value.toFixed(0)).join(', ')}`, `≥ ${TARGET_RATIO * 100} %`, ratio >= TARGET_RATIO],
    ],
  };
}
