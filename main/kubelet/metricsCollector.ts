// MetricsCollector: the resource usage of one node's containers, for metrics.k8s.io (`kubectl top`).
// Upstream the kubelet's Summary API (cAdvisor) exposes cumulative CPU time and the memory working
// set, and metrics-server scrapes it on a fixed resolution (15 s) and serves the CPU rate between its
// last two scrapes over a `window` of their distance (sigs.k8s.io/metrics-server pkg/storage). This
// does the same against the ContainerRuntime: it samples `runtime.stats` of every running app
// container every interval (10 s by default) and keeps the last two samples per container; CPU usage
// is the rate between them in nanocores, memory the latest working set. Nothing is reported until a
// container has two samples, so kubectl prints `metrics not available yet` meanwhile, as upstream.
//
// Node usage is the sum over this node's pod containers plus, optionally, a `system` source (the
// kubedesk process itself for the control-plane node, as upstream's control-plane node carries the
// API server and etcd) — not the whole machine as upstream's kubelet reports from the root cgroup:
// every virtual node of a kubedesk cluster runs on the same host, so the machine's usage would be
// counted once per node and would include programs that are not part of the cluster.
//
// Every round also feeds a UsageHistory (usageHistory.ts): per container, per pod (the sum of its
// containers; network once, as they share the pod's namespace) and for the node, at 10 s for the
// last hour and 1 min for the last day, which usage.kubedesk.dev serves for the UI's charts. So
// sampling never pauses; its cost is kept low by the runtime (DockerRuntime reads cgroup files
// where it can instead of asking Docker for stats).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { formatGoDurationMilliseconds } from '../../shared/kubernetes/duration';
import { formatBytes, formatNanocores } from '../../shared/kubernetes/quantity';
import { formatTime } from '../../shared/kubernetes/time';
import type { ContainerRuntime, ContainerStats } from './runtime/containerRuntime';
import { COARSE, counterRate, FINE, sumSamples, UsageHistory, type Resolution, type SeriesWindow, type UsageSample } from './usageHistory';

/** The same shapes metrics.k8s.io serves (main/apiserver/metrics), without kind/apiVersion. */
export type CollectedUsage = { cpu: string; memory: string };
export type CollectedPodMetrics = {
  metadata: { name: string; namespace: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  containers: Array<{ name: string; usage: CollectedUsage }>;
};
export type CollectedNodeMetrics = {
  metadata: { name: string; creationTimestamp: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  usage: CollectedUsage;
};

export interface MetricsCollectorOptions {
  nodeName: string;
  /** How often every running container is sampled (metrics-server's resolution is 15 s). */
  intervalMs?: number;
  /** The pods bound to this node, for podMetrics() without an argument (e.g. the kubelet's informer). */
  pods?: () => KubeObject[];
  /** Injected clock, for tests. */
  now?: () => Date;
  /** Usage outside the pods that belongs to this node (cumulative CPU, current memory); see processUsage(). */
  system?: () => { cpuUsageNanoSeconds: number; memoryWorkingSetBytes: number };
  /** How many stats requests run at once, to keep Docker's load flat with many pods. */
  concurrency?: number;
}

interface ContainerRecord {
  podUid: string;
  name: string;
  previous?: ContainerStats;
  latest: ContainerStats;
}

interface Rate {
  nanocores: number;
  memoryBytes: number;
  timestamp: Date;
  windowMs: number;
}

const DEFAULT_INTERVAL_MS = 10_000;
/** a gone container's or pod's history is kept this long after its last sample (an hour at 10 s) */
const KEEP_GONE_MS = FINE.stepMs * FINE.capacity;
/** at most this many series per node (≈ 52 KB each): the least recently sampled go first */
const MAX_SERIES = 3_000;
/** the node's own series in the history */
const NODE_SERIES = 'node';

export class MetricsCollector {
  private readonly records = new Map<string, ContainerRecord>();
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> | undefined;
  private disposed = false;
  /** end times of the last two completed rounds: the node's window */
  private rounds: Date[] = [];
  private system: ContainerRecord | undefined;
  /** usage over time: `node`, `pod/<uid>`, `pod/<uid>/<container>` */
  private readonly history = new UsageHistory();

  constructor(
    private readonly runtime: ContainerRuntime,
    private readonly options: MetricsCollectorOptions,
  ) {
    this.now = options.now ?? (() => new Date());
  }

  get nodeName(): string {
    return this.options.nodeName;
  }

  /** Samples now and then every interval, until dispose(). */
  start(): void {
    if (this.timer || this.disposed) return;
    // The history needs every round, read or not; the first runs at once so figures appear after
    // one interval, as metrics-server's appear a scrape or two after it starts.
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
    // Metrics must never keep the process alive on their own.
    this.timer.unref();
  }

  /** One sampling round over every running app container (rounds never overlap). */
  sample(): Promise<void> {
    this.sampling ??= this.sampleOnce().finally(() => {
      this.sampling = undefined;
    });
    return this.sampling;
  }

  private async sampleOnce(): Promise<void> {
    let containers;
    try {
      containers = await this.runtime.listContainers();
    } catch {
      // Docker is unreachable: the node is NotReady and its figures would be stale, so report none
      // until two rounds succeed again (metrics-server drops a node it cannot scrape).
      this.records.clear();
      this.rounds = [];
      return;
    }
    const running = containers.filter((container) => container.state === 'running' && !container.init);
    const seen = new Set<string>();
    const queue = [...running];
    const worker = async () => {
      for (let container = queue.shift(); container; container = queue.shift()) {
        seen.add(container.id);
        let stats: ContainerStats | undefined;
        try {
          stats = await this.runtime.stats(container.id);
        } catch {
          stats = undefined;
        }
        if (!stats) continue;
        const record = this.records.get(container.id);
        if (!record) {
          this.records.set(container.id, { podUid: container.podUid, name: container.name, latest: stats });
        } else if (stats.timestamp.getTime() > record.latest.timestamp.getTime()) {
          record.previous = record.latest;
          record.latest = stats;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.options.concurrency ?? 4) }, worker));
    if (this.disposed) return;
    if (this.options.system) {
      const stats = { timestamp: this.now(), ...this.options.system() };
      if (!this.system) this.system = { podUid: '', name: '', latest: stats };
      else if (stats.timestamp.getTime() > this.system.latest.timestamp.getTime()) this.system = { ...this.system, previous: this.system.latest, latest: stats };
    }
    for (const id of [...this.records.keys()]) if (!seen.has(id)) this.records.delete(id);
    this.rounds = [...this.rounds, this.now()].slice(-2);
    this.recordHistory(seen);
  }

  /** Adds this round's rates to the history: each container, each pod, the node. */
  private recordHistory(seen: ReadonlySet<string>): void {
    const time = this.now().getTime();
    const pods = new Map<string, { containers: UsageSample[]; network?: { rx: number; tx: number } }>();
    for (const [id, record] of this.records) {
      if (!seen.has(id)) continue;
      const sample = sampleOf(record);
      if (!sample) continue;
      const pod = pods.get(record.podUid) ?? { containers: [] };
      pods.set(record.podUid, pod);
      // the containers share the sandbox's network namespace: its traffic counts once, for the pod
      pod.network ??= { rx: sample.networkRx, tx: sample.networkTx };
      this.history.record(`pod/${record.podUid}/${record.name}`, undefined, time, { ...sample, networkRx: 0, networkTx: 0 });
      pod.containers.push(sample);
    }
    const podSamples: UsageSample[] = [];
    for (const [uid, pod] of pods) {
      const sample = { ...sumSamples(pod.containers), networkRx: pod.network?.rx ?? 0, networkTx: pod.network?.tx ?? 0 };
      this.history.record(`pod/${uid}`, undefined, time, sample);
      podSamples.push(sample);
    }
    const system = this.system ? sampleOf(this.system) : undefined;
    if (this.rounds.length === 2) this.history.record(NODE_SERIES, undefined, time, sumSamples(system ? [...podSamples, system] : podSamples));
    this.history.prune(time - KEEP_GONE_MS);
    if (this.history.size > MAX_SERIES) this.history.prune(Number.NEGATIVE_INFINITY, dropOldest(this.history, this.history.size - MAX_SERIES));
  }

  /**
   * The history of a pod (by uid) and of its containers between `from` and `to` (epoch ms), or
   * undefined when this node never sampled it.
   */
  podHistory(uid: string, containers: readonly string[], resolution: Resolution, from: number, to: number): { pod: SeriesWindow; containers: Array<{ name: string; series: SeriesWindow }> } | undefined {
    const pod = this.history.get(`pod/${uid}`);
    if (!pod) return undefined;
    return {
      pod: pod.series.read(resolution, from, to),
      containers: containers.flatMap((name) => {
        const entry = this.history.get(`pod/${uid}/${name}`);
        return entry ? [{ name, series: entry.series.read(resolution, from, to) }] : [];
      }),
    };
  }

  /** The node's history (the sum over its pods, plus the system source), or undefined before any. */
  nodeHistory(resolution: Resolution, from: number, to: number): SeriesWindow | undefined {
    return this.history.get(NODE_SERIES)?.series.read(resolution, from, to);
  }

  /**
   * PodMetrics of the given pods (default: the `pods` lister) that run here, are Running and have
   * a rate for at least one app container. Pods of other nodes are skipped, so one list can be
   * handed to every node's collector.
   */
  podMetrics(pods: KubeObject[] = this.options.pods?.() ?? []): CollectedPodMetrics[] {
    const byPod = new Map<string, Array<{ name: string; rate: Rate }>>();
    const incomplete = new Set<string>();
    for (const record of this.records.values()) {
      const rate = rateOf(record);
      if (!rate) {
        incomplete.add(record.podUid);
        continue;
      }
      const entries = byPod.get(record.podUid) ?? [];
      entries.push({ name: record.name, rate });
      byPod.set(record.podUid, entries);
    }
    const created = formatTime(this.now());
    const result: CollectedPodMetrics[] = [];
    for (const pod of pods) {
      const uid = pod.metadata.uid;
      const entries = uid ? byPod.get(uid) : undefined;
      if (!entries || !pod.metadata.name || !pod.metadata.namespace) continue;
      // metrics-server reports only Running pods: a finished pod's last figures would mislead.
      if (!isRecord(pod.status) || pod.status.phase !== 'Running') continue;
      const order = specContainerNames(pod);
      const containers = entries
        .filter((entry) => order.includes(entry.name))
        .sort((left, right) => order.indexOf(left.name) - order.indexOf(right.name));
      // metrics-server drops a pod while one of its running containers has no figures yet (e.g. it
      // started after the last sample), so a pod never shows with some containers missing.
      if (containers.length === 0 || incomplete.has(uid ?? '')) continue;
      const latest = containers.reduce((best, entry) => (entry.rate.timestamp > best.rate.timestamp ? entry : best));
      const metadata: CollectedPodMetrics['metadata'] = { name: pod.metadata.name, namespace: pod.metadata.namespace, creationTimestamp: created };
      if (pod.metadata.labels) metadata.labels = { ...pod.metadata.labels };
      result.push({
        metadata,
        timestamp: formatTime(latest.rate.timestamp),
        window: formatGoDurationMilliseconds(latest.rate.windowMs),
        containers: containers.map((entry) => ({ name: entry.name, usage: usage(entry.rate.nanocores, entry.rate.memoryBytes) })),
      });
    }
    return result;
  }

  /** NodeMetrics once two rounds have run: the sum over this node's running app containers. */
  nodeMetrics(labels?: Record<string, string>): CollectedNodeMetrics | undefined {
    if (this.rounds.length < 2) return undefined;
    let nanocores = 0;
    let memoryBytes = 0;
    for (const record of [...this.records.values(), ...(this.system ? [this.system] : [])]) {
      memoryBytes += record.latest.memoryWorkingSetBytes;
      nanocores += rateOf(record)?.nanocores ?? 0;
    }
    const [start, end] = this.rounds;
    const metadata: CollectedNodeMetrics['metadata'] = { name: this.options.nodeName, creationTimestamp: formatTime(this.now()) };
    if (labels) metadata.labels = { ...labels };
    return { metadata, timestamp: formatTime(end), window: formatGoDurationMilliseconds(end.getTime() - start.getTime()), usage: usage(nanocores, memoryBytes) };
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.records.clear();
    this.rounds = [];
    this.system = undefined;
    this.history.clear();
  }
}

/** A record's sample for the history: the rates between its last two stats, or undefined before two. */
function sampleOf(record: ContainerRecord): UsageSample | undefined {
  const rate = rateOf(record);
  if (!rate || !record.previous) return undefined;
  const { previous, latest } = record;
  return {
    cpu: rate.nanocores,
    memory: rate.memoryBytes,
    networkRx: counterRate(previous.networkRxBytes, latest.networkRxBytes, rate.windowMs),
    networkTx: counterRate(previous.networkTxBytes, latest.networkTxBytes, rate.windowMs),
    fsRead: counterRate(previous.fsReadBytes, latest.fsReadBytes, rate.windowMs),
    fsWrite: counterRate(previous.fsWriteBytes, latest.fsWriteBytes, rate.windowMs),
  };
}

/** A drop predicate for the `count` least recently sampled series of the history. */
function dropOldest(history: UsageHistory, count: number): (key: string) => boolean {
  const oldest = new Set(
    [...history.keys()]
      .filter((key) => key !== NODE_SERIES)
      .sort((left, right) => (history.get(left)?.series.lastSample ?? 0) - (history.get(right)?.series.lastSample ?? 0))
      .slice(0, count),
  );
  return (key) => oldest.has(key);
}

export { COARSE, FINE, type Resolution, type SeriesWindow };

/** This process's own usage (kubedesk: API server, controllers, kubelets), for the control-plane node's `system`. */
export function processUsage(): { cpuUsageNanoSeconds: number; memoryWorkingSetBytes: number } {
  const cpu = process.cpuUsage();
  return { cpuUsageNanoSeconds: (cpu.user + cpu.system) * 1000, memoryWorkingSetBytes: process.memoryUsage.rss() };
}

/** The objects the combined provider reads: pods of a namespace (all when undefined) and nodes. */
export interface MetricsObjects {
  pods(namespace?: string): KubeObject[];
  nodes(): KubeObject[];
}

/**
 * metrics.k8s.io's provider (main/apiserver/metrics MetricsProvider) over every node's collector,
 * as metrics-server aggregates its scrapes of every kubelet: pods of any node, and a NodeMetrics
 * per existing Node object that has figures.
 */
export function combinedMetrics(collectors: () => readonly MetricsCollector[], objects: MetricsObjects): { podMetrics(namespace?: string): Promise<CollectedPodMetrics[]>; nodeMetrics(): Promise<CollectedNodeMetrics[]> } {
  return {
    async podMetrics(namespace) {
      const pods = objects.pods(namespace);
      return collectors().flatMap((collector) => collector.podMetrics(pods));
    },
    async nodeMetrics() {
      const nodes = new Map(objects.nodes().map((node) => [node.metadata.name, node]));
      return collectors().flatMap((collector) => {
        const node = nodes.get(collector.nodeName);
        const metrics = node ? collector.nodeMetrics(node.metadata.labels) : undefined;
        return metrics ? [metrics] : [];
      });
    },
  };
}

/**
 * usage.kubedesk.dev's provider (main/apiserver/usage UsageProvider) over every node's collector:
 * a pod's history from the node it is bound to (any node that has it, for a pod that moved or
 * whose binding is unknown), a node's from its own collector.
 */
export function combinedUsage(collectors: () => readonly MetricsCollector[]): {
  pod(pod: KubeObject, containers: readonly string[], query: { resolution: '10s' | '1m'; from: number; to: number }): ReturnType<MetricsCollector['podHistory']>;
  node(name: string, query: { resolution: '10s' | '1m'; from: number; to: number }): SeriesWindow | undefined;
} {
  const resolutionOf = (resolution: '10s' | '1m') => (resolution === '10s' ? FINE : COARSE);
  return {
    pod(pod, containers, query) {
      const uid = pod.metadata.uid;
      if (!uid) return undefined;
      const nodeName = isRecord(pod.spec) && typeof pod.spec.nodeName === 'string' ? pod.spec.nodeName : undefined;
      const ordered = [...collectors()].sort((left, right) => Number(right.nodeName === nodeName) - Number(left.nodeName === nodeName));
      for (const collector of ordered) {
        const history = collector.podHistory(uid, containers, resolutionOf(query.resolution), query.from, query.to);
        if (history) return history;
      }
      return undefined;
    },
    node(name, query) {
      return collectors()
        .find((collector) => collector.nodeName === name)
        ?.nodeHistory(resolutionOf(query.resolution), query.from, query.to);
    },
  };
}

function rateOf(record: ContainerRecord): Rate | undefined {
  const { previous, latest } = record;
  if (!previous) return undefined;
  const windowMs = latest.timestamp.getTime() - previous.timestamp.getTime();
  const used = latest.cpuUsageNanoSeconds - previous.cpuUsageNanoSeconds;
  // A counter that went backwards means the cgroup was recreated; wait for two fresh samples.
  if (windowMs <= 0 || used < 0) return undefined;
  return { nanocores: Math.round((used * 1000) / windowMs), memoryBytes: latest.memoryWorkingSetBytes, timestamp: latest.timestamp, windowMs };
}

function specContainerNames(pod: KubeObject): string[] {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers : [];
  return containers.flatMap((container) => (isRecord(container) && typeof container.name === 'string' ? [container.name] : []));
}

function usage(nanocores: number, memoryBytes: number): CollectedUsage {
  return { cpu: formatNanocores(nanocores), memory: formatBytes(memoryBytes) };
}

export { formatBytes, formatNanocores, formatGoDurationMilliseconds as goDuration };

