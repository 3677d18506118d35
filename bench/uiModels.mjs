// The UI's in-memory models that must keep up with big inputs, timed here rather than in unit
// tests (a timed unit test fails on a loaded machine and proves nothing on a fast one): the command
// palette's fuzzy ranking of 10,000 keys, the log viewer's ring of 200,000 lines taking 250,000
// pushes, and a search through 100,000 log lines. The renderer's TypeScript modules are bundled
// with esbuild into a temp file and imported; each figure is the median of several runs beside a
// plain-JavaScript baseline doing the least the same job needs (a substring scan, array pushes),
// in the same process.
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './lib.mjs';

const RUNS = 15;
const TARGETS = { rankMs: 100, pushMs: 1000, searchMs: 1000 };

function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)];
}

function timed(run) {
  const times = [];
  let result;
  for (let index = 0; index < RUNS; index++) {
    const started = performance.now();
    result = run();
    times.push(performance.now() - started);
  }
  return { ms: median(times), result };
}

async function loadModels() {
  const directory = mkdtempSync(join(tmpdir(), 'kubedesk-bench-ui-models-'));
  const outfile = join(directory, 'models.mjs');
  const entry = [
    `export { rank } from ${JSON.stringify(join(repoRoot, 'renderer/palette/fuzzy.ts'))};`,
    `export { LineStore } from ${JSON.stringify(join(repoRoot, 'renderer/terminals/lineStore.ts'))};`,
    `export { searchLines } from ${JSON.stringify(join(repoRoot, 'renderer/terminals/logSearch.ts'))};`,
  ].join('\n');
  await build({ stdin: { contents: entry, resolveDir: repoRoot, loader: 'ts' }, bundle: true, format: 'esm', platform: 'node', outfile, logLevel: 'silent' });
  try {
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export async function benchUiModels() {
  const { rank, LineStore, searchLines } = await loadModels();
  const keys = Array.from({ length: 10_000 }, (_, index) => `pod-${index} namespace-${index % 50} pod`);
  const ranked = timed(() => rank(keys, 'pod 4999', (key) => key, 50));
  if (ranked.result[0]?.item !== 'pod-4999 namespace-49 pod') throw new Error('the palette ranked the wrong key first');
  const scan = timed(() => keys.filter((key) => key.includes('pod') && key.includes('4999')));

  const pushed = timed(() => {
    const store = new LineStore(200_000);
    for (let index = 0; index < 250_000; index++) store.push({ text: `line ${index}`, source: 0 });
    return store;
  });
  if (pushed.result.length !== 200_000) throw new Error('the ring did not keep 200,000 lines');
  const arrayPush = timed(() => {
    const lines = [];
    for (let index = 0; index < 250_000; index++) lines.push({ text: `line ${index}`, source: 0 });
    return lines.slice(-200_000);
  });

  const store = new LineStore(200_000);
  const texts = [];
  for (let index = 0; index < 100_000; index++) {
    const text = `GET /api/items/${index} 200 ${index % 1000 === 0 ? 'SLOW' : 'ok'}`;
    texts.push(text);
    store.push({ text, source: 0 });
  }
  const searched = timed(() => searchLines(store, { text: 'slow', timestamps: false }));
  if (searched.result.length !== 100) throw new Error(`the search found ${searched.result.length} lines, not 100`);
  const filtered = timed(() => texts.filter((text) => text.toLowerCase().includes('slow')));

  const ratio = (ms, baseline) => `${(ms / baseline).toFixed(1)}×`;
  return {
    name: 'uiModels',
    figures: { rankMs: ranked.ms, rankBaselineMs: scan.ms, pushMs: pushed.ms, pushBaselineMs: arrayPush.ms, searchMs: searched.ms, searchBaselineMs: filtered.ms, runs: RUNS },
    rows: [
      ['palette: rank 10,000 keys (median)', `${ranked.ms.toFixed(1)} ms`, `substring scan: ${scan.ms.toFixed(1)} ms (${ratio(ranked.ms, scan.ms)})`, `≤ ${TARGETS.rankMs} ms`, ranked.ms <= TARGETS.rankMs],
      ['logs: 250,000 pushes into a 200,000-line ring', `${pushed.ms.toFixed(0)} ms`, `array push + slice: ${arrayPush.ms.toFixed(0)} ms (${ratio(pushed.ms, arrayPush.ms)})`, `≤ ${TARGETS.pushMs} ms`, pushed.ms <= TARGETS.pushMs],
      ['logs: search 100,000 lines', `${searched.ms.toFixed(1)} ms`, `lower-case filter: ${filtered.ms.toFixed(1)} ms (${ratio(searched.ms, filtered.ms)})`, `≤ ${TARGETS.searchMs} ms`, searched.ms <= TARGETS.searchMs],
    ],
  };
}
