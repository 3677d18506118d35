#!/usr/bin/env node
// Prints where a `node --cpu-prof` profile (e.g. from `node bench/run.mjs --profile`) spent its
// time: self time per function, busiest first, plus idle, GC and native totals — enough to see
// a hot spot without opening DevTools.
//
//   node bench/profileSummary.mjs /tmp/kubedesk-bench/profiles/CPU.….cpuprofile [top=30]
//        [--window START_US END_US] [--per COUNT] [--bench-json /tmp/kubedesk-bench/latest.json]
//
// --window keeps only the samples taken between two CLOCK_MONOTONIC timestamps in microseconds
// (the clock V8 stamps profiles with on Linux; creates.mjs records its measured window so), and
// --per divides the busy time by a count, e.g. CPU µs per create. --bench-json takes both from a
// bench run's results: the creates result whose server had the profile's process id.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const positional = [];
let window;
let per;
let benchJson;
const argv = process.argv.slice(2);
for (let index = 0; index < argv.length; index++) {
  if (argv[index] === '--window') window = [Number(argv[++index]), Number(argv[++index])];
  else if (argv[index] === '--per') per = Number(argv[++index]);
  else if (argv[index] === '--bench-json') benchJson = argv[++index];
  else positional.push(argv[index]);
}
const [path, topText = '30'] = positional;
if (!path) {
  console.error('usage: node bench/profileSummary.mjs FILE.cpuprofile [top] [--window START_US END_US] [--per COUNT] [--bench-json RESULTS.json]');
  process.exit(2);
}
if (benchJson) {
  // CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile
  const pid = Number(basename(path).split('.')[3]);
  const results = JSON.parse(readFileSync(benchJson, 'utf8')).results ?? [];
  const run = results.find((result) => result.figures?.serverPid === pid && result.figures?.profileWindowUs);
  if (!run) {
    console.error(`no bench result in ${benchJson} for process ${pid}`);
    process.exit(2);
  }
  window = run.figures.profileWindowUs;
  per = run.figures.creates;
  console.log(`${run.name}: window of ${((window[1] - window[0]) / 1e6).toFixed(2)} s, ${per} creates`);
}
const profile = JSON.parse(readFileSync(path, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map();
const deltas = profile.timeDeltas;
// Each sample's time is the delta to the next one; the last sample has none, so it counts zero.
let sampledAt = profile.startTime;
for (let index = 0; index < profile.samples.length; index++) {
  sampledAt += deltas[index];
  if (window && (sampledAt < window[0] || sampledAt > window[1])) continue;
  const node = byId.get(profile.samples[index]);
  const ms = (deltas[index + 1] ?? 0) / 1000;
  const frame = node.callFrame;
  const file = frame.url ? frame.url.replace(/^.*\/(node_modules\/[^/]+|dist|node:[^/]*)/, '$1') : '';
  const key = `${frame.functionName || '(anonymous)'}  ${file}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  selfMs.set(key, (selfMs.get(key) ?? 0) + ms);
}
const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
const busy = [...selfMs.entries()].filter(([key]) => !key.startsWith('(idle)'));
const busyTotal = busy.reduce((sum, [, ms]) => sum + ms, 0);
console.log(`profile: ${(total / 1000).toFixed(2)} s sampled, ${(busyTotal / 1000).toFixed(2)} s busy${window ? ' (in the window)' : ''}`);
if (per) console.log(`busy time per item: ${((busyTotal * 1000) / per).toFixed(0)} µs (${per} items)`);
for (const special of ['(idle)', '(garbage collector)', '(program)']) {
  const ms = [...selfMs.entries()].filter(([key]) => key.startsWith(special)).reduce((sum, [, value]) => sum + value, 0);
  console.log(`  ${special.padEnd(22)} ${ms.toFixed(0).padStart(7)} ms`);
}
console.log(`top ${topText} by self time (share of busy time):`);
for (const [key, ms] of busy.sort((left, right) => right[1] - left[1]).slice(0, Number(topText))) {
  console.log(`${ms.toFixed(0).padStart(7)} ms ${((ms / busyTotal) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
