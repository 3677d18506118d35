// The web UI under load, measured in the real Chromium (playwright-core) against a real
// `kubedesk serve`: (1) first paint of the pod list holding 5,000 pods (navigation start → the
// list body shows its first rows); (2) input latency while 100 watch events/s arrive (a loop
// PATCHing pod annotations): keydown in the list filter → the next frame, with the Event Timing
// API's durations and the long tasks of a 20 s window; (3) a 100,000-line log: time to show its
// end, scroll frame times, search latency, and the page's JS heap at the start and end of
// following a chatty pod; (4) first paint of the Events list holding 5,000 events, sorted newest
// first by their real times (navigation start → the first rows, checked to be in time order).
// Figures are printed next to targets, never asserted.
//
// The 5,000 pods are bound (spec.nodeName) to FAKE Node objects — no kubelet behind them, tainted
// NoSchedule so the scheduler never puts the log pods there — and tolerate the not-ready /
// unreachable taints the node lifecycle controller adds, so they are never evicted mid-run. The
// real node's kubelet only runs pods bound to it (the two log pods).
//
//   npm run build && node bench/run.mjs ui
//   node bench/ui/uiBench.mjs [--follow-seconds 300] [--pods 5000] [--events 5000]     # standalone
import https from 'node:https';
import { chromium } from 'playwright-core';
import { percentile, request, round, sleep, summarise } from '../lib.mjs';
import { busyboxImage, mapLimit, now, requireImage, startPodCluster } from '../podLib.mjs';

const FAKE_NODES = 10;
const NAMESPACE = 'default';
const BENCH_NAMESPACE = 'ui-bench';
const EVENTS_PER_SECOND = 100;
const INPUT_WINDOW_MS = 20_000;
const LOG_LINES = 100_000;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
// The issue asks that 100,000 log lines stay responsive, not for a load time; the UI's own cost is
// judged against the same log fetched over plain HTTP in the same run.
const TARGETS = { firstPaintMs: 1000, inputMs: 100, longTaskMs: 200, logShowRatio: 1.5 };

/** summarise() plus the 95th percentile the UI targets are stated in. */
function stats(values) {
  return { ...summarise(values), p95: percentile(Float64Array.from(values).sort(), 0.95) };
}

function ok(reply, what, expected = [200, 201]) {
  if (!expected.includes(reply.status)) throw new Error(`${what}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return reply.body ? JSON.parse(reply.body) : undefined;
}

function fakeNode(name) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'dev.kubedesk.bench/fake': 'true' } },
    spec: { taints: [{ key: 'dev.kubedesk.bench/fake', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '8', memory: '32Gi', pods: '1000' }, allocatable: { cpu: '8', memory: '32Gi', pods: '1000' } },
  };
}

function fakePod(index) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `bench-pod-${String(index).padStart(5, '0')}`, labels: { app: `bench-${index % 20}`, tier: index % 2 ? 'web' : 'db' } },
    spec: {
      nodeName: `ui-bench-fake-${index % FAKE_NODES}`,
      containers: [{ name: 'main', image: busyboxImage, command: ['sleep', '3600'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      ],
    },
  };
}

/** A core/v1 Event about a bench pod, last seen `secondsAgo` before `now` (every tenth a Warning). */
function benchEvent(index, now) {
  const secondsAgo = (index * 7919) % 3600;
  const last = new Date(now - secondsAgo * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const first = new Date(now - (secondsAgo + (index % 5) * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const pod = `bench-pod-${String(index % 5000).padStart(5, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${pod}.${index.toString(16)}` },
    involvedObject: { kind: 'Pod', name: pod, namespace: BENCH_NAMESPACE, apiVersion: 'v1' },
    reason: index % 10 === 0 ? 'BackOff' : 'Pulled',
    message: index % 10 === 0 ? 'Back-off restarting failed container' : 'Container image already present on machine',
    type: index % 10 === 0 ? 'Warning' : 'Normal',
    source: { component: 'kubelet', host: 'ui-bench-fake-0' },
    firstTimestamp: first,
    lastTimestamp: last,
    count: 1 + (index % 5),
  };
}

function logPod(name, nodeName, script) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: busyboxImage, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script] }] },
  };
}

async function waitFor(check, timeoutMs, what) {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

function loginUrlOf(server) {
  const match = /kubedesk: UI at (\S+)/.exec(server.output.join(''));
  if (!match) throw new Error('serve printed no "kubedesk: UI at …" line');
  return match[1];
}

/** A JSON merge patch (lib.request sends application/json, which PATCH refuses with 415). */
function mergePatch(server, path, body) {
  const target = new URL(path, server.url);
  if (target.hostname !== '127.0.0.1') throw new Error(`refusing to send traffic to ${target.hostname}`);
  const payload = JSON.stringify(body);
  return new Promise((resolvePatch, reject) => {
    const outgoing = https.request(
      target,
      { method: 'PATCH', agent: server.agent, ca: server.ca, timeout: 10_000, headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json', 'Content-Type': 'application/merge-patch+json', 'Content-Length': Buffer.byteLength(payload) } },
      (response) => {
        response.resume();
        response.on('end', () => resolvePatch(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error(`PATCH ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** PATCHes pod annotations at `perSecond`, paced by the clock (at most 16 in flight). */
function startEventLoad(server, names, perSecond) {
  let stopped = false;
  let sent = 0;
  let failed = 0;
  let inFlight = 0;
  const started = now();
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((now() - started) / 1000) * perSecond);
      while (sent < due && inFlight < 16 && !stopped) {
        const name = names[sent % names.length];
        sent++;
        inFlight++;
        mergePatch(server, `/api/v1/namespaces/${NAMESPACE}/pods/${name}`, { metadata: { annotations: { 'bench.kubedesk.dev/tick': String(sent) } } })
          .then((status) => status !== 200 && failed++, () => failed++)
          .finally(() => inFlight--);
      }
      await sleep(5);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const seconds = (now() - started) / 1000;
      return { sent, failed, perSecond: sent / seconds };
    },
  };
}

// Installed in the page before typing: keydown → next frame (rAF, then a task after it, which runs
// once that frame is produced), Event Timing entries (≥ 16 ms, the API's floor) and long tasks.
function installObservers() {
  const state = { keyLatencies: [], eventDurations: [], longTasks: [] };
  window.__uiBench = state;
  window.addEventListener(
    'keydown',
    (event) => {
      const start = event.timeStamp;
      requestAnimationFrame(() => setTimeout(() => state.keyLatencies.push(performance.now() - start), 0));
    },
    true,
  );
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name.startsWith('key') || entry.name === 'input') state.eventDurations.push(entry.duration);
  }).observe({ type: 'event', durationThreshold: 16, buffered: false });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: false });
}

async function heapMb(cdp) {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const used = metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value ?? NaN;
  return used / 1024 / 1024;
}

/** Frame times while the log's scroller jumps to random positions (rAF deltas in the page). */
async function measureScroll(page) {
  return page.evaluate(async () => {
    const pane = document.querySelector('[data-testid="dock-pane-logs"]');
    const scrollers = pane ? [...pane.querySelectorAll('*')].filter((element) => element.scrollHeight > element.clientHeight + 50 && getComputedStyle(element).overflowY !== 'visible') : [];
    const scroller = scrollers.sort((left, right) => right.scrollHeight - left.scrollHeight)[0];
    if (!scroller) return { frames: [], found: false };
    const frames = [];
    let last = performance.now();
    for (let jump = 0; jump < 60; jump++) {
      scroller.scrollTop = Math.random() * (scroller.scrollHeight - scroller.clientHeight);
      await new Promise((resolveFrame) => requestAnimationFrame(() => resolveFrame()));
      const current = performance.now();
      frames.push(current - last);
      last = current;
    }
    return { frames, found: true, scrollHeight: scroller.scrollHeight };
  });
}

export async function benchUi({ followSeconds = Number(process.env.KUBEDESK_BENCH_FOLLOW_SECONDS ?? 60), podCount = Number(process.env.KUBEDESK_BENCH_UI_PODS ?? 5000), eventCount = Number(process.env.KUBEDESK_BENCH_UI_EVENTS ?? 5000) } = {}) {
  await requireImage(busyboxImage);
  const cluster = await startPodCluster({ name: 'ui' });
  const { server } = cluster;
  const rows = [];
  const details = {};
  const pageErrors = [];
  // the phase running, named in the error when one fails
  let step = 'setup';
  let browser;
  try {
    const loginUrl = loginUrlOf(server);
    const nodes = ok(await request(server, 'GET', '/api/v1/nodes'), 'listing nodes').items;
    const realNode = nodes[0].metadata.name;
    for (let index = 0; index < FAKE_NODES; index++) ok(await request(server, 'POST', '/api/v1/nodes', fakeNode(`ui-bench-fake-${index}`)), 'creating a fake node');
    ok(await request(server, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } }), 'creating the namespace');

    const createStarted = now();
    const names = await mapLimit(
      Array.from({ length: podCount }, (_, index) => index),
      16,
      async (index) => {
        const manifest = fakePod(index);
        ok(await request(server, 'POST', `/api/v1/namespaces/${NAMESPACE}/pods`, manifest, { timeoutMs: 30_000 }), `creating ${manifest.metadata.name}`);
        return manifest.metadata.name;
      },
    );
    details.createSeconds = (now() - createStarted) / 1000;

    // the two log pods run on the real node
    ok(await request(server, 'POST', `/api/v1/namespaces/${BENCH_NAMESPACE}/pods`, logPod('logs-100k', realNode, `seq 1 ${LOG_LINES}; exec sleep 3600`)), 'creating logs-100k');
    ok(await request(server, 'POST', `/api/v1/namespaces/${BENCH_NAMESPACE}/pods`, logPod('chatty', realNode, 'i=0; while true; do i=$((i+1)); seq 1 200 | sed "s/^/chatty $i line /"; sleep 1; done')), 'creating chatty');

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info'] });
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 900 } });
    // uncaught errors in any page, printed if a step fails
    context.on('weberror', (error) => pageErrors.push(String(error.error()?.stack ?? error.error())));
    const signIn = await context.newPage();
    await signIn.goto(loginUrl);
    await signIn.close();

    step = '(1) pod list first paint';
    // (1) first paint of the pod list: a fresh page, navigation start → first rows in the list body
    const page = await context.newPage();
    // the list's CPU and memory sparklines ask usage.kubedesk.dev for the rows on screen only
    const usageRequests = [];
    page.on('request', (sent) => {
      if (sent.url().includes('/apis/usage.kubedesk.dev/')) usageRequests.push(sent.url());
    });
    const origin = new URL(loginUrl).origin;
    await page.goto(`${origin}/ui/#/pods`, { waitUntil: 'commit' });
    const firstRowsMs = await page.waitForFunction(() => (document.querySelectorAll('[data-testid="list-body"] [role="row"]').length > 0 ? performance.now() : 0), undefined, { polling: 'raf', timeout: 60_000 }).then((handle) => handle.jsonValue());
    const allRowsMs = await page
      .waitForFunction((count) => (Number.parseInt(document.querySelector('[data-testid="list-count"]')?.textContent ?? '0', 10) >= count ? performance.now() : 0), podCount, { polling: 'raf', timeout: 120_000 })
      .then((handle) => handle.jsonValue());
    rows.push([`ui: pod list first rows (${podCount} pods)`, `${round(firstRowsMs, 0)} ms`, `all ${podCount} listed at ${round(allRowsMs, 0)} ms; created in ${round(details.createSeconds, 1)} s`, `≤ ${TARGETS.firstPaintMs} ms`, firstRowsMs <= TARGETS.firstPaintMs]);
    details.firstRowsMs = firstRowsMs;
    details.allRowsMs = allRowsMs;

    step = '(2) input latency';
    // (2) input latency with 100 watch events/s arriving
    await page.evaluate(installObservers);
    const load = startEventLoad(server, names, EVENTS_PER_SECOND);
    const filter = page.locator('input.filter');
    await filter.click();
    const words = ['bench-pod-01', 'tier=web', 'app=bench-7', 'Running', 'ui-bench-fake-3', 'pod-049'];
    const typingStarted = now();
    let word = 0;
    while (now() - typingStarted < INPUT_WINDOW_MS) {
      await filter.fill('');
      await filter.pressSequentially(words[word++ % words.length], { delay: 120 });
      await sleep(300);
    }
    const loadFigures = await load.stop();
    const measured = await page.evaluate(() => window.__uiBench);
    const keys = stats(measured.keyLatencies);
    const eventMax = measured.eventDurations.length > 0 ? Math.max(...measured.eventDurations) : 0;
    const longMax = measured.longTasks.length > 0 ? Math.max(...measured.longTasks) : 0;
    rows.push([
      'ui: keydown → next frame (filter, 100 events/s)',
      `p50 ${round(keys.p50, 0)} / p95 ${round(keys.p95, 0)} / max ${round(keys.max, 0)} ms`,
      `${keys.count} keys; ${round(loadFigures.perSecond, 0)} PATCH/s (${loadFigures.failed} failed); Event Timing ≥16 ms: ${measured.eventDurations.length}, max ${round(eventMax, 0)} ms`,
      `≤ ${TARGETS.inputMs} ms`,
      keys.p95 <= TARGETS.inputMs,
    ]);
    rows.push(['ui: long tasks over the 20 s window', `${measured.longTasks.length}, max ${round(longMax, 0)} ms`, 'while typing with 100 events/s', `none > ${TARGETS.longTaskMs} ms`, longMax <= TARGETS.longTaskMs]);
    details.input = { keys, events: measured.eventDurations, longTasks: measured.longTasks, load: loadFigures };
    const sparkCells = await page.locator('[data-testid="list-body"] [data-testid="usage-cpu"]').count();
    const namesPerRequest = usageRequests.map((url) => (new URL(url).searchParams.get('names') ?? '').split(',').filter(Boolean).length);
    const mostNames = Math.max(0, ...namesPerRequest);
    rows.push([
      'ui: sparkline fetches (pod list, steps 1–2)',
      `${usageRequests.length} requests, ≤ ${mostNames} pods each`,
      `${sparkCells} CPU sparkline cells on screen of ${podCount} pods (most fake, without samples)`,
      'rows on screen only',
      sparkCells > 0 && mostNames <= Math.max(sparkCells, 60),
    ]);
    details.sparklines = { requests: usageRequests.length, namesPerRequest, cellsOnScreen: sparkCells };
    await page.close();

    step = '(4) events list first paint';
    // (4) the Events list holding 5,000 events, newest first by their times: a fresh page
    if (eventCount > 0) {
      const eventsStarted = now();
      const wallNow = Date.now();
      await mapLimit(
        Array.from({ length: eventCount }, (_, index) => index),
        16,
        async (index) => ok(await request(server, 'POST', `/api/v1/namespaces/${BENCH_NAMESPACE}/events`, benchEvent(index, wallNow), { timeoutMs: 30_000 }), `creating event ${index}`),
      );
      details.eventCreateSeconds = (now() - eventsStarted) / 1000;
      const eventsPage = await context.newPage();
      await eventsPage.goto(`${origin}/ui/#/events`, { waitUntil: 'commit' });
      const eventsFirstMs = await eventsPage
        .waitForFunction(() => (document.querySelectorAll('[data-testid="list-body"] [role="row"]').length > 0 ? performance.now() : 0), undefined, { polling: 'raf', timeout: 60_000 })
        .then((handle) => handle.jsonValue());
      const eventsAllMs = await eventsPage
        .waitForFunction((count) => (Number.parseInt(document.querySelector('[data-testid="list-count"]')?.textContent ?? '0', 10) >= count ? performance.now() : 0), eventCount, { polling: 'raf', timeout: 120_000 })
        .then((handle) => handle.jsonValue());
      // the rows on screen once all are listed: their Last Seen times (cell titles), top to bottom
      const shownTimes = await eventsPage.evaluate(() => {
        const headers = [...document.querySelectorAll('.table-head [role="columnheader"]')];
        const column = headers.findIndex((header) => header.textContent?.startsWith('Last Seen'));
        return [...document.querySelectorAll('[data-testid="list-body"] [role="row"]')].map((row) => Date.parse(row.querySelectorAll('[role="gridcell"]')[column]?.getAttribute('title') ?? ''));
      });
      const newestFirst = shownTimes.length > 1 && shownTimes.every((time, index) => index === 0 || shownTimes[index - 1] >= time);
      rows.push([
        `ui: events list first rows (${eventCount} events, newest first)`,
        `${round(eventsFirstMs, 0)} ms`,
        `all ${eventCount} listed and sorted at ${round(eventsAllMs, 0)} ms; ${shownTimes.length} rows on screen in time order: ${newestFirst ? 'yes' : 'NO'}; created in ${round(details.eventCreateSeconds, 1)} s`,
        `≤ ${TARGETS.firstPaintMs} ms`,
        eventsFirstMs <= TARGETS.firstPaintMs && newestFirst,
      ]);
      details.events = { firstRowsMs: eventsFirstMs, allRowsMs: eventsAllMs, newestFirst };
      await eventsPage.close();
    }

    step = '(3) the 100,000-line log';
    // (3) the 100,000-line log
    await waitFor(async () => {
      const reply = await request(server, 'GET', `/api/v1/namespaces/${BENCH_NAMESPACE}/pods/logs-100k/log?tailLines=1`);
      return reply.status === 200 && reply.body.trim() === String(LOG_LINES);
    }, 120_000, 'logs-100k to print its lines');
    // the same log over plain HTTP from this process: what the server alone takes, as a baseline for the viewer
    const plainLog = await request(server, 'GET', `/api/v1/namespaces/${BENCH_NAMESPACE}/pods/logs-100k/log?timestamps=true`, undefined, { timeoutMs: 60_000 });
    const logsPage = await context.newPage();
    await logsPage.goto(`${origin}/ui/#/pods/${BENCH_NAMESPACE}/logs-100k`);
    const logsButton = logsPage.locator('[data-testid="container-logs-main"]');
    await logsButton.waitFor({ timeout: 30_000 });
    const clicked = await logsPage.evaluate(() => performance.now());
    await logsButton.click();
    const shownAt = await logsPage
      .waitForFunction((last) => (document.querySelector('[data-testid="dock-pane-logs"]')?.textContent?.includes(last) ? performance.now() : 0), String(LOG_LINES), { polling: 'raf', timeout: 60_000 })
      .then((handle) => handle.jsonValue())
      .catch(() => NaN);
    const showMs = shownAt - clicked;
    const scroll = await measureScroll(logsPage);
    const frames = stats(scroll.frames);
    rows.push([`ui: ${LOG_LINES} log lines shown (last line visible)`, Number.isNaN(showMs) ? 'not shown in 60 s' : `${round(showMs, 0)} ms`, `click on Logs → the last line painted; the server alone: ${round(plainLog.ms, 0)} ms over HTTP (${round(plainLog.body.length / 1e6, 1)} MB)`, `≤ ${TARGETS.logShowRatio}× the server alone`, showMs <= TARGETS.logShowRatio * plainLog.ms]);
    rows.push(['ui: log scroll frame (60 random jumps)', scroll.found ? `p50 ${round(frames.p50, 0)} / p95 ${round(frames.p95, 0)} / max ${round(frames.max, 0)} ms` : 'no scroller found', scroll.found ? `scroll height ${scroll.scrollHeight} px` : '', '≤ 50 ms', scroll.found && frames.p95 <= 50]);

    // search: type into the pane's search box, time until the pane's DOM settles after the last key
    const search = logsPage.locator('[data-testid="dock-pane-logs"] input[type="search"], [data-testid="dock-pane-logs"] input[placeholder*="earch" i]').first();
    if (await search.count()) {
      await search.click();
      const searchMs = await logsPage.evaluate(async () => {
        const pane = document.querySelector('[data-testid="dock-pane-logs"]');
        const input = pane.querySelector('input[type="search"], input[placeholder*="earch" i]');
        const started = performance.now();
        let lastChange = started;
        const observer = new MutationObserver(() => (lastChange = performance.now()));
        observer.observe(pane, { subtree: true, childList: true, characterData: true, attributes: true });
        const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        setter.call(input, '99999');
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        // settled = no DOM change for 300 ms
        while (performance.now() - lastChange < 300) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
        observer.disconnect();
        return lastChange - started;
      });
      rows.push([`ui: log search over ${LOG_LINES} lines`, `${round(searchMs, 0)} ms`, 'input → last DOM change of the pane', '≤ 100 ms', searchMs <= 100]);
      details.searchMs = searchMs;
    } else rows.push(['ui: log search', 'no search box found', 'the log viewer has no input[type=search] yet', '≤ 100 ms', false]);
    await logsPage.close();

    step = 'following a chatty pod';
    // following a chatty pod: heap at start and end
    const followPage = await context.newPage();
    const followCdp = await context.newCDPSession(followPage);
    await followCdp.send('Performance.enable');
    await followPage.goto(`${origin}/ui/#/pods/${BENCH_NAMESPACE}/chatty`);
    await followPage.locator('[data-testid="container-logs-main"]').click({ timeout: 30_000 }).catch(async (error) => {
      // what the page showed instead, for the report
      const shown = await followPage.locator('main').innerText().catch(() => '<no main>');
      await followPage.screenshot({ path: '/tmp/kubedesk-bench/ui-follow-failed.png' }).catch(() => undefined);
      throw new Error(`${error.message}\nthe page showed: ${shown.slice(0, 600)}`);
    });
    await followPage.waitForFunction(() => document.querySelector('[data-testid="dock-pane-logs"]')?.textContent?.includes('chatty'), undefined, { timeout: 60_000 });
    await sleep(3000);
    await followCdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
    const heapStart = await heapMb(followCdp);
    const samples = [];
    const followStarted = now();
    while (now() - followStarted < followSeconds * 1000) {
      await sleep(Math.min(10_000, followSeconds * 1000));
      samples.push(round(await heapMb(followCdp), 1));
    }
    await followCdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
    const heapEnd = await heapMb(followCdp);
    // the viewer really followed: the newest "chatty N" burst it shows against the seconds followed
    const newestBurst = await followPage.evaluate(() => Math.max(0, ...[...(document.querySelector('[data-testid="dock-pane-logs"]')?.textContent ?? '').matchAll(/chatty (\d+) line/g)].map((match) => Number(match[1]))));
    rows.push([
      `ui: JS heap following a chatty pod (${followSeconds} s, ~200 lines/s)`,
      `${round(heapStart, 1)} → ${round(heapEnd, 1)} MB`,
      `${samples.length} samples ${Math.min(...samples)}–${Math.max(...samples)} MB (GC at the ends); newest burst shown: ${newestBurst}`,
      'bounded',
      heapEnd - heapStart < 50,
    ]);
    details.heap = { heapStart, heapEnd, samples };
    return { name: 'ui', rows, details };
  } catch (error) {
    if (error instanceof Error) error.message = `${step}: ${error.message}${pageErrors.length > 0 ? `\nerrors in the page:\n${pageErrors.join('\n')}` : ''}`;
    throw error;
  } finally {
    await browser?.close().catch(() => undefined);
    await cluster.stop();
  }
}

function optionsFrom(argv) {
  const options = {};
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '--follow-seconds') options.followSeconds = Number(argv[++index]);
    else if (argv[index] === '--pods') options.podCount = Number(argv[++index]);
    else if (argv[index] === '--events') options.eventCount = Number(argv[++index]);
    else throw new Error(`unknown argument ${argv[index]} (--follow-seconds N, --pods N, --events N)`);
  }
  return options;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchUi(optionsFrom(process.argv.slice(2))).then(
    (result) => {
      for (const row of result.rows) console.log(`${row[0]}: ${row[1]}  [${row[2]}]  target ${row[3]} ${row[4] ? 'met' : 'MISSED'}`);
      process.exit(0);
    },
    (error) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exit(1);
    },
  );
}
