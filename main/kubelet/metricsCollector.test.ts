import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../shared/kubernetes/types';
import type { ContainerConfig } from './runtime/containerRuntime';
import { FakeRuntime } from '../../test/doubles/fakeRuntime';
import { combinedMetrics, combinedUsage, FINE, formatBytes, formatNanocores, goDuration, MetricsCollector, processUsage } from './metricsCollector';

/** A clock the test moves by hand: FakeRuntime stamps stats with it, the collector reads it. */
function clock(start = Date.parse('2025-01-01T00:00:00Z')) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

function containerConfig(podUid: string, podName: string, name: string, init = false): ContainerConfig {
  return { podUid, podName, namespace: 'default', name, image: 'app:1', env: [], mounts: [], stdin: false, stdinOnce: false, tty: false, resources: {}, security: {}, restartCount: 0, init, specHash: 'h', labels: {} };
}

async function runPod(runtime: FakeRuntime, podUid: string, podName: string, containers: string[], init: string[] = []): Promise<Record<string, string>> {
  runtime.addImage('app:1');
  const sandbox = await runtime.runSandbox({ podUid, podName, namespace: 'default', attempt: 0, hostname: podName, hostNetwork: false, portMappings: [], labels: {} });
  const ids: Record<string, string> = {};
  for (const name of [...init, ...containers]) {
    ids[name] = await runtime.createContainer(sandbox.id, containerConfig(podUid, podName, name, init.includes(name)));
    await runtime.startContainer(ids[name]);
  }
  return ids;
}

function pod(uid: string, name: string, containers: string[], phase = 'Running', labels: Record<string, string> = { app: name }): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid, labels }, spec: { containers: containers.map((container) => ({ name: container, image: 'app:1' })) }, status: { phase } };
}

const MiB = 1024 * 1024;

/** A collector on a fake runtime running pod `web` (container `main`), after two sampling rounds 10 s apart. */
async function sampledWebPod() {
  const time = clock();
  const runtime = new FakeRuntime({ now: time.now });
  await runPod(runtime, 'uid-web', 'web', ['main']);
  const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
  await collector.sample();
  time.advance(10_000);
  await collector.sample();
  return { time, runtime, collector };
}

describe('MetricsCollector', () => {
  it('reports nothing until a container has two samples, then the CPU rate between them over their window', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main', 'sidecar']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
    const pods = [pod('uid-web', 'web', ['main', 'sidecar'])];

    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 5_000_000_000, memoryWorkingSetBytes: 10 * MiB });
    runtime.setStats(ids.sidecar, { cpuUsageNanoSeconds: 1_000_000_000, memoryWorkingSetBytes: 2 * MiB });
    await collector.sample();
    expect(collector.podMetrics(pods)).toEqual([]);
    expect(collector.nodeMetrics()).toBeUndefined();

    time.advance(10_000);
    // 2 s of CPU in 10 s is 200m; 12.345 ms of CPU in 10 s is 1234.5 µ-cores → 1234500n.
    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 7_000_000_000, memoryWorkingSetBytes: 12_345 * 1024 });
    runtime.setStats(ids.sidecar, { cpuUsageNanoSeconds: 1_012_345_000, memoryWorkingSetBytes: 3 * MiB });
    await collector.sample();

    expect(collector.podMetrics(pods)).toEqual([
      {
        metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:10Z', labels: { app: 'web' } },
        timestamp: '2025-01-01T00:00:10Z',
        window: '10s',
        containers: [
          { name: 'main', usage: { cpu: '200m', memory: '12345Ki' } },
          { name: 'sidecar', usage: { cpu: '1234500n', memory: '3Mi' } },
        ],
      },
    ]);
    expect(collector.nodeMetrics({ role: 'control-plane' })).toEqual({
      metadata: { name: 'kubedesk', creationTimestamp: '2025-01-01T00:00:10Z', labels: { role: 'control-plane' } },
      timestamp: '2025-01-01T00:00:10Z',
      window: '10s',
      usage: { cpu: '201234500n', memory: `${12_345 + 3 * 1024}Ki` },
    });
  });

  it('uses the two latest samples, so the rate follows the load', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
    const pods = [pod('uid-web', 'web', ['main'])];
    const cumulative = [0, 1_000_000_000, 1_500_000_000];
    for (const cpu of cumulative) {
      runtime.setStats(ids.main, { cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: MiB });
      await collector.sample();
      time.advance(5_000);
    }
    expect(collector.podMetrics(pods)[0].containers[0].usage.cpu).toBe('100m');
  });

  it('keeps the old pair when Docker returns the same sample again', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 0, memoryWorkingSetBytes: MiB });
    await collector.sample();
    time.advance(4_000);
    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 1_000_000_000, memoryWorkingSetBytes: MiB });
    await collector.sample();
    time.advance(4_000);
    await collector.sample();
    expect(collector.podMetrics([pod('uid-web', 'web', ['main'])])[0]).toMatchObject({ window: '4s', containers: [{ usage: { cpu: '250m' } }] });
  });

  it.each([
    ['a pod that is not Running', pod('uid-web', 'web', ['main'], 'Succeeded')],
    ['a pod of another node (no containers here)', pod('uid-other', 'other', ['main'])],
    ['a pod whose containers are not in its spec', pod('uid-web', 'web', ['renamed'])],
  ])('leaves out %s', async (_what, subject) => {
    const { collector } = await sampledWebPod();
    expect(collector.podMetrics([subject])).toEqual([]);
  });

  it('skips init containers and containers that stopped, and forgets containers that are gone', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main', 'second'], ['setup']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now, pods: () => [pod('uid-web', 'web', ['main', 'second'])] });
    await collector.sample();
    time.advance(10_000);
    runtime.exitContainer(ids.second, 0);
    await collector.sample();
    expect(collector.podMetrics().map((metrics) => metrics.containers.map((container) => container.name))).toEqual([['main']]);
    expect(runtime.calls.filter((call) => call.method === 'stats' && call.args[0] === ids.setup)).toEqual([]);
    runtime.exitContainer(ids.main, 0);
    await collector.sample();
    expect(collector.podMetrics()).toEqual([]);
    expect(collector.nodeMetrics()?.usage).toEqual({ cpu: '0', memory: '0' });
  });

  it('drops every figure while the runtime is unreachable, and needs two rounds again after', async () => {
    const { time, runtime, collector } = await sampledWebPod();
    expect(collector.nodeMetrics()).toBeDefined();
    runtime.available = false;
    await collector.sample();
    expect(collector.nodeMetrics()).toBeUndefined();
    expect(collector.podMetrics([pod('uid-web', 'web', ['main'])])).toEqual([]);
    runtime.available = true;
    await collector.sample();
    expect(collector.nodeMetrics()).toBeUndefined();
    time.advance(10_000);
    await collector.sample();
    expect(collector.nodeMetrics()).toBeDefined();
  });

  it('adds the system source to the node, not to any pod', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main']);
    let cpu = 0;
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now, system: () => ({ cpuUsageNanoSeconds: cpu, memoryWorkingSetBytes: 100 * MiB }) });
    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 0, memoryWorkingSetBytes: MiB });
    await collector.sample();
    time.advance(10_000);
    cpu = 500_000_000;
    runtime.setStats(ids.main, { cpuUsageNanoSeconds: 1_000_000_000, memoryWorkingSetBytes: MiB });
    await collector.sample();
    expect(collector.nodeMetrics()?.usage).toEqual({ cpu: '150m', memory: '101Mi' });
    expect(collector.podMetrics([pod('uid-web', 'web', ['main'])])[0].containers).toEqual([{ name: 'main', usage: { cpu: '100m', memory: '1Mi' } }]);
  });

  it('measures its own process as a system source', () => {
    const usage = processUsage();
    expect(usage.cpuUsageNanoSeconds).toBeGreaterThan(0);
    expect(usage.memoryWorkingSetBytes).toBeGreaterThan(MiB);
  });

  it('runs one round at a time however often it is asked', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    await runPod(runtime, 'uid-web', 'web', ['main']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
    await Promise.all([collector.sample(), collector.sample(), collector.sample()]);
    expect(runtime.calls.filter((call) => call.method === 'listContainers')).toHaveLength(1);
  });

  it('samples in the background after start() until dispose()', async () => {
    const runtime = new FakeRuntime();
    await runPod(runtime, 'uid-web', 'web', ['main']);
    const listed = () => runtime.calls.filter((call) => call.method === 'listContainers').length;
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', intervalMs: 5 });
    collector.start();
    const deadline = Date.now() + 5_000;
    while (collector.nodeMetrics() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(collector.nodeMetrics()).toBeDefined();
    collector.dispose();
    const after = listed();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(listed() - after).toBeLessThanOrEqual(1);
    expect(collector.nodeMetrics()).toBeUndefined();
  });
});

describe('MetricsCollector usage history', () => {
  it('records each container, the pod (network once) and the node every round, at 10 s', async () => {
    const time = clock();
    const runtime = new FakeRuntime({ now: time.now });
    const ids = await runPod(runtime, 'uid-web', 'web', ['main', 'sidecar']);
    const collector = new MetricsCollector(runtime, { nodeName: 'kubedesk', now: time.now });
    const start = time.now().getTime();
    for (let round = 0; round < 4; round++) {
      // main: a quarter core, 8 MiB, 1 KB/s in and 2 KB/s out of the pod's network, 4 KB/s written
      runtime.setStats(ids.main, { cpuUsageNanoSeconds: round * 2_500_000_000, memoryWorkingSetBytes: 8 * MiB, networkRxBytes: round * 10_000, networkTxBytes: round * 20_000, fsReadBytes: 0, fsWriteBytes: round * 40_000 });
      // sidecar shares the network namespace: the same counters must not be added twice
      runtime.setStats(ids.sidecar, { cpuUsageNanoSeconds: round * 1_000_000_000, memoryWorkingSetBytes: 2 * MiB, networkRxBytes: round * 10_000, networkTxBytes: round * 20_000 });
      await collector.sample();
      if (round < 3) time.advance(10_000);
    }
    const history = collector.podHistory('uid-web', ['main', 'sidecar'], FINE, start, time.now().getTime());
    expect(history?.pod.values.cpu).toEqual([null, 350_000_000, 350_000_000, 350_000_000]);
    expect(history?.pod.values.memory.slice(1)).toEqual([10 * MiB, 10 * MiB, 10 * MiB]);
    expect(history?.pod.values.networkRx.slice(1)).toEqual([1000, 1000, 1000]);
    expect(history?.pod.values.networkTx.slice(1)).toEqual([2000, 2000, 2000]);
    expect(history?.pod.values.fsWrite.slice(1)).toEqual([4000, 4000, 4000]);
    expect(history?.containers.map((container) => [container.name, container.series.values.cpu[3]])).toEqual([
      ['main', 250_000_000],
      ['sidecar', 100_000_000],
    ]);
    expect(collector.nodeHistory(FINE, start, time.now().getTime())?.values.cpu.slice(1)).toEqual([350_000_000, 350_000_000, 350_000_000]);
    expect(collector.podHistory('uid-other', [], FINE, start, time.now().getTime())).toBeUndefined();
  });

  it('keeps a gone pod for an hour after its last sample, then forgets it', async () => {
    const { time, runtime, collector } = await sampledWebPod();
    const id = (await runtime.listContainers()).find((container) => container.name === 'main')?.id ?? '';
    await runtime.stopContainer(id, 0);
    time.advance(10_000);
    await collector.sample();
    const now = () => time.now().getTime();
    expect(collector.podHistory('uid-web', [], FINE, now() - 60_000, now())).toBeDefined();
    time.advance(FINE.stepMs * FINE.capacity + 10_000);
    await collector.sample();
    expect(collector.podHistory('uid-web', [], FINE, now() - 60_000, now())).toBeUndefined();
  });

  it('serves a pod from the node it is bound to and a node from its own collector', async () => {
    const { time, collector } = await sampledWebPod();
    const other = new MetricsCollector(new FakeRuntime({ now: time.now }), { nodeName: 'kubedesk-m02', now: time.now });
    const usage = combinedUsage(() => [other, collector]);
    const query = { resolution: '10s' as const, from: time.now().getTime() - 60_000, to: time.now().getTime() };
    const bound = { ...pod('uid-web', 'web', ['main']), spec: { nodeName: 'kubedesk', containers: [{ name: 'main' }] } };
    expect(usage.pod(bound, ['main'], query)?.containers.map((container) => container.name)).toEqual(['main']);
    expect(usage.node('kubedesk', query)?.values.cpu.some((value) => value !== null)).toBe(true);
    expect(usage.node('kubedesk-m02', query)).toBeUndefined();
  });
});

describe('combinedMetrics', () => {
  it('asks every node for pod metrics and reports nodes that have a Node object', async () => {
    const time = clock();
    const first = new FakeRuntime({ now: time.now });
    const second = new FakeRuntime({ now: time.now });
    await runPod(first, 'uid-a', 'a', ['main']);
    await runPod(second, 'uid-b', 'b', ['main']);
    const collectors = [new MetricsCollector(first, { nodeName: 'kubedesk', now: time.now }), new MetricsCollector(second, { nodeName: 'kubedesk-m02', now: time.now })];
    for (const collector of collectors) await collector.sample();
    time.advance(10_000);
    for (const collector of collectors) await collector.sample();
    const namespaces: Array<string | undefined> = [];
    const provider = combinedMetrics(() => collectors, {
      pods: (namespace) => {
        namespaces.push(namespace);
        return [pod('uid-a', 'a', ['main']), pod('uid-b', 'b', ['main'])];
      },
      nodes: () => [{ metadata: { name: 'kubedesk', labels: { zone: 'a' } } }],
    });
    expect((await provider.podMetrics('default')).map((metrics) => metrics.metadata.name)).toEqual(['a', 'b']);
    expect(namespaces).toEqual(['default']);
    expect((await provider.nodeMetrics()).map((metrics) => [metrics.metadata.name, metrics.metadata.labels])).toEqual([['kubedesk', { zone: 'a' }]]);
  });
});

describe('formatting', () => {
  it.each([
    [0, '0'],
    [1_234_567, '1234567n'],
    [7_000, '7u'],
    [200_000_000, '200m'],
    [3_000_000_000, '3'],
  ])('prints %i nanocores as %s', (value, text) => expect(formatNanocores(value)).toBe(text));

  it.each([
    [0, '0'],
    [4097, '4097'],
    [12_345 * 1024, '12345Ki'],
    [5 * MiB, '5Mi'],
  ])('prints %i bytes as %s', (value, text) => expect(formatBytes(value)).toBe(text));

  it.each([
    [0, '0s'],
    [250, '250ms'],
    [10_000, '10s'],
    [10_016, '10.016s'],
    [15_100, '15.1s'],
    [60_000, '1m0s'],
    [3_725_500, '1h2m5.5s'],
  ])('prints %i ms as Go does: %s', (value, text) => expect(goDuration(value)).toBe(text));
});
