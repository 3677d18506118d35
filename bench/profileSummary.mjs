#!/usr/bin/env node
// Prints where a `node --cpu-prof` profile (e.g. from `node bench/run.mjs --profile`) spent its
// time: self time per function, busiest first, plus idle, GC and native totals — enough to see
// a hot spot without opening DevTools.
//
//   node bench/profileSummary.mjs /tmp/kubedesk-bench/profiles/CPU.….cpuprofile [top=30]
import { readFileSync } from 'node:fs';

const [path, topText = '30'] = process.argv.slice(2);
if (!path) {
  console.error('usage: node bench/profileSummary.mjs FILE.cpuprofile [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(path, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map();
const deltas = profile.timeDeltas;
// Each sample's time is the delta to the next one; the last sample has none, so it counts zero.
for (let index = 0; index < profile.samples.length; index++) {
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
console.log(`profile: ${(total / 1000).toFixed(2)} s sampled, ${(busyTotal / 1000).toFixed(2)} s busy`);
for (const special of ['(idle)', '(garbage collector)', '(program)']) {
  const ms = [...selfMs.entries()].filter(([key]) => key.startsWith(special)).reduce((sum, [, value]) => sum + value, 0);
  console.log(`  ${special.padEnd(22)} ${ms.toFixed(0).padStart(7)} ms`);
}
console.log(`top ${topText} by self time (share of busy time):`);
for (const [key, ms] of busy.sort((left, right) => right[1] - left[1]).slice(0, Number(topText))) {
  console.log(`${ms.toFixed(0).padStart(7)} ms ${((ms / busyTotal) * 100).toFixed(1).padStart(5)} %  ${key}`);
}
