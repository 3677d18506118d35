#!/usr/bin/env node
// Runs the benchmarks in order and prints one table: each figure, what it was measured against in
// the same run, and its target. Figures are printed, never asserted — a missed target is
// information, not a failure; only a bench that cannot run makes the exit code non-zero.
//
//   npm run build && node bench/run.mjs [startup] [creates] [creates-64] [history] [watch] [idle-rss] [snapshot-save] [relay] [ui-models] [--profile] [--json FILE]
//        [--node-https-client]            # create loads through node's https agent, not the raw TLS client
//   node bench/run.mjs pods pod-streams      # the Docker benches: only when named (they need Docker
//                                            # and the e2e test image, and take minutes)
//   node bench/run.mjs deployment scheduler controllers   # the workload benches (Docker too)
//   node bench/run.mjs snapshot-restore                  # a 20-pod namespace restored vs applied (Docker)
//   node bench/run.mjs registry              # push + pull of a 200 MB image vs docker save + load
//
// --profile runs every server under `node --cpu-prof` and leaves the .cpuprofile files (open them
// in Chrome DevTools → Performance) in /tmp/kubedesk-bench/profiles.
import { cpus } from 'node:os';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { machineLoad, prepareCodeCache, repoRoot, serverNodeFlags } from './lib.mjs';
import { benchStartup } from './startup.mjs';
import { benchCreates, createLoadClient } from './creates.mjs';
import { benchHistory } from './history.mjs';
import { benchHistoryDisk } from './historyDisk.mjs';
import { benchWatchFanout } from './watchFanout.mjs';
import { benchIdleRss } from './idleRss.mjs';
import { benchPods } from './podStartup.mjs';
import { benchPodStreams } from './podStreams.mjs';
import { benchDeployment } from './deploymentStartup.mjs';
import { benchScheduler } from './schedulerThroughput.mjs';
import { benchControllers } from './controllerLoad.mjs';
import { benchServiceNetwork } from './serviceNetwork.mjs';
import { runPendingCleanups } from './podLib.mjs';
import { benchUi } from './ui/uiBench.mjs';
import { benchSnapshotRestore, benchSnapshotSave } from './snapshots.mjs';
import { benchRegistry } from './registry.mjs';
import { benchRelay } from './relay.mjs';
import { benchClusterSwitch } from './ui/clusterSwitch.mjs';
import { benchUiModels } from './uiModels.mjs';

/** the V8 code cache every server of the run shares, made by a first start (lib.mjs, prepareCodeCache) */
let codeCache;

const BENCHES = {
  startup: () => benchStartup({ codeCache }),
  creates: () => benchCreates(),
  'creates-64': () => benchCreates({ clients: 64 }),
  history: () => benchHistory(),
  watch: () => benchWatchFanout(),
  'idle-rss': () => benchIdleRss(),
  'snapshot-save': () => benchSnapshotSave(),
  relay: () => benchRelay(),
  'ui-models': () => benchUiModels(),
};
// Run only when named, so the default run stays the ~40 s one without Docker; each adds its own
// time to the watchdog's limit.
const DOCKER_BENCHES = {
  pods: { run: () => benchPods(), limitMs: 480_000 },
  'pod-streams': { run: () => benchPodStreams(), limitMs: 420_000 },
  deployment: { run: () => benchDeployment(), limitMs: 480_000 },
  scheduler: { run: () => benchScheduler(), limitMs: 300_000 },
  controllers: { run: () => benchControllers(), limitMs: 300_000 },
  'service-network': { run: () => benchServiceNetwork(), limitMs: 300_000 },
  ui: { run: () => benchUi(), limitMs: 600_000 },
  // no Docker, but Chromium
  'cluster-switch': { run: () => benchClusterSwitch(), limitMs: 300_000 },
  'snapshot-restore': { run: () => benchSnapshotRestore(), limitMs: 480_000 },
  registry: { run: () => benchRegistry(), limitMs: 600_000 },
  // no Docker, but minutes long (it waits for the history's pruner)
  'history-disk': { run: () => benchHistoryDisk(), limitMs: 600_000 },
};
for (const [name, bench] of Object.entries(DOCKER_BENCHES)) BENCHES[name] = bench.run;
const TOTAL_LIMIT_MS = 180_000;
const RESULTS_DIR = '/tmp/kubedesk-bench';

function parseArguments(argv) {
  const selected = [];
  let profile = false;
  let jsonPath = join(RESULTS_DIR, 'latest.json');
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--profile') profile = true;
    else if (argument === '--json') jsonPath = argv[++index];
    else if (argument === '--node-https-client') createLoadClient.kind = 'node-https';
    else if (argument in BENCHES) selected.push(argument);
    else throw new Error(`unknown argument "${argument}"; benches: ${Object.keys(BENCHES).join(', ')}`);
  }
  const defaults = Object.keys(BENCHES).filter((name) => !(name in DOCKER_BENCHES));
  return { selected: selected.length > 0 ? selected : defaults, profile, jsonPath };
}

function printTable(rows) {
  const header = ['figure', 'measured', 'same-run baseline / context', 'target', ''];
  const cells = rows.map((row) => [row[0], row[1], row[2], row[3], row[4] === undefined ? '' : row[4] ? 'met' : 'MISSED']);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((row) => String(row[column]).length)));
  const line = (row) => row.map((cell, column) => String(cell).padEnd(widths[column])).join('  ').trimEnd();
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells) console.log(line(row));
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (!existsSync(join(repoRoot, 'dist', 'kubedesk.mjs'))) {
    console.error('bench: dist/kubedesk.mjs is missing; run `npm run build` first');
    return 2;
  }
  if (options.profile) {
    const profiles = join(RESULTS_DIR, 'profiles');
    mkdirSync(profiles, { recursive: true });
    serverNodeFlags.push('--cpu-prof', '--cpu-prof-dir', profiles);
    console.log(`bench: CPU profiles go to ${profiles}`);
  }
  const limitMs = TOTAL_LIMIT_MS + options.selected.reduce((sum, name) => sum + (DOCKER_BENCHES[name]?.limitMs ?? 0), 0);
  const watchdog = setTimeout(() => {
    console.error(`bench: gave up after ${limitMs / 1000} s`);
    // The Docker benches leave containers behind unless told to clean up (bounded to 60 s).
    Promise.race([runPendingCleanups(), new Promise((resolveLater) => setTimeout(resolveLater, 60_000))]).finally(() => process.exit(3));
  }, limitMs);
  watchdog.unref();

  const started = performance.now();
  const machine = { node: process.version, cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', loadBefore: machineLoad() };
  console.log(`bench: node ${machine.node}, ${machine.cores} cores (${machine.cpu}), load average ${machine.loadBefore}`);
  const results = [];
  const rows = [];
  let crashed = 0;
  process.stdout.write('bench: code cache … ');
  codeCache = await prepareCodeCache();
  console.log(`${codeCache.written ? 'written' : 'NOT written'} by a first start (cold: ready in ${codeCache.cold.readyMs.toFixed(0)} ms, ${codeCache.cold.cpuMsAtReady.toFixed(0)} ms CPU)`);
  machine.coldCodeCache = codeCache.cold;
  for (const name of options.selected) {
    const benchStarted = performance.now();
    const loadBefore = machineLoad();
    process.stdout.write(`bench: ${name} … `);
    try {
      const result = await BENCHES[name]();
      const seconds = (performance.now() - benchStarted) / 1000;
      console.log(`${seconds.toFixed(1)} s (load ${loadBefore} → ${machineLoad()})`);
      results.push({ ...result, seconds, loadBefore, loadAfter: machineLoad() });
      rows.push(...result.rows);
    } catch (error) {
      crashed++;
      console.log('FAILED');
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      results.push({ name, error: error instanceof Error ? error.message : String(error) });
      rows.push([`${name}: did not run`, 'error', '', '', false]);
    }
  }
  machine.loadAfter = machineLoad();
  const totalSeconds = (performance.now() - started) / 1000;
  console.log('');
  printTable(rows);
  console.log('');
  console.log(`bench: ${totalSeconds.toFixed(1)} s in all; load average ${machine.loadBefore} → ${machine.loadAfter} on ${machine.cores} cores (shared machines inflate latencies)`);

  mkdirSync(dirname(options.jsonPath), { recursive: true });
  writeFileSync(options.jsonPath, JSON.stringify({ date: new Date().toISOString(), machine, totalSeconds, results }, null, 2) + '\n');
  console.log(`bench: figures written to ${options.jsonPath}`);
  return crashed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error('bench:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
