// UsageHistory: a bounded rolling history of resource usage per series (a container, a pod, a
// node), kept in ring buffers of typed arrays — never an object per sample — at two resolutions:
// the last hour at 10 s and the last day at 1 min (what upstream leaves to Prometheus or to
// metrics-server's two-sample window; kubedesk's kubelet keeps it itself so charts need no setup).
//
// A ring slot is addressed by its time: slot = floor(t / step) mod capacity, and each slot carries
// the step number it was last written for, so a slot left over from an earlier lap reads as a gap
// and no sweeping is needed. The 1-minute ring holds the running mean of the 10-second samples that
// fell into each minute. Every series costs a fixed 4 + 1 + 6 × 4 = 29 bytes per slot, ≈ 52 KB for
// both rings, however long it lives.

import { USAGE_METRICS, type SeriesWindow, type UsageMetric, type UsageSample } from '../../shared/usage';

export type { SeriesWindow, UsageSample };

/** One resolution of the history. */
export interface Resolution {
  /** the step between slots in milliseconds */
  stepMs: number;
  /** how many slots the ring keeps (stepMs × capacity = the time it spans) */
  capacity: number;
}

/** 10 s for the last hour, 1 min for the last day. */
export const FINE: Resolution = { stepMs: 10_000, capacity: 360 };
export const COARSE: Resolution = { stepMs: 60_000, capacity: 1440 };

class Ring {
  /** the step number (t / stepMs) each slot holds, -1 = never written */
  private readonly steps: Int32Array;
  /** how many samples were averaged into each slot (coarse rings) */
  private readonly counts: Uint8Array;
  private readonly metrics: Float32Array[];

  constructor(readonly resolution: Resolution) {
    this.steps = new Int32Array(resolution.capacity).fill(-1);
    this.counts = new Uint8Array(resolution.capacity);
    this.metrics = USAGE_METRICS.map(() => new Float32Array(resolution.capacity));
  }

  /** Writes (fine) or averages in (coarse) one sample at time `t`. */
  add(t: number, sample: UsageSample): void {
    const step = Math.floor(t / this.resolution.stepMs);
    const slot = step % this.resolution.capacity;
    if (this.steps[slot] !== step) {
      this.steps[slot] = step;
      this.counts[slot] = 0;
    }
    const count = Math.min(this.counts[slot] + 1, 255);
    this.counts[slot] = count;
    USAGE_METRICS.forEach((metric, index) => {
      const values = this.metrics[index];
      values[slot] = count === 1 ? sample[metric] : values[slot] + (sample[metric] - values[slot]) / count;
    });
  }

  /** The slots from `from` to `to` (epoch ms, inclusive, clamped to what the ring spans). */
  read(from: number, to: number): SeriesWindow {
    const { stepMs, capacity } = this.resolution;
    const last = Math.floor(to / stepMs);
    const first = Math.max(Math.floor(from / stepMs), last - capacity + 1);
    const values = Object.fromEntries(USAGE_METRICS.map((metric) => [metric, [] as Array<number | null>])) as Record<UsageMetric, Array<number | null>>;
    for (let step = first; step <= last; step++) {
      const slot = step % capacity;
      const present = this.steps[slot] === step;
      USAGE_METRICS.forEach((metric, index) => values[metric].push(present ? roundFigure(this.metrics[index][slot]) : null));
    }
    return { start: first * stepMs, stepMs, values };
  }
}

function roundFigure(value: number): number {
  return Math.round(value);
}

/** One series: both rings. */
export class UsageSeries {
  private readonly fine = new Ring(FINE);
  private readonly coarse = new Ring(COARSE);
  /** epoch ms of the last sample */
  lastSample = 0;

  add(t: number, sample: UsageSample): void {
    this.fine.add(t, sample);
    this.coarse.add(t, sample);
    this.lastSample = Math.max(this.lastSample, t);
  }

  /** The window [from, to] at the given resolution (FINE or COARSE). */
  read(resolution: Resolution, from: number, to: number): SeriesWindow {
    return (resolution.stepMs === FINE.stepMs ? this.fine : this.coarse).read(from, to);
  }
}

/**
 * Series by key (the collector uses `node`, `pod/<uid>`, `pod/<uid>/<container>`), each with the
 * descriptive fields its owner attaches (a pod's namespace and name).
 */
export class UsageHistory<Meta = undefined> {
  private readonly series = new Map<string, { series: UsageSeries; meta: Meta }>();

  record(key: string, meta: Meta, t: number, sample: UsageSample): void {
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { series: new UsageSeries(), meta }));
    else entry.meta = meta;
    entry.series.add(t, sample);
  }

  get(key: string): { series: UsageSeries; meta: Meta } | undefined {
    return this.series.get(key);
  }

  keys(): IterableIterator<string> {
    return this.series.keys();
  }

  /** Drops series whose last sample is older than `before` (epoch ms), or that `drop` names. */
  prune(before: number, drop: (key: string, meta: Meta) => boolean = () => false): void {
    for (const [key, entry] of this.series) if (entry.series.lastSample < before || drop(key, entry.meta)) this.series.delete(key);
  }

  get size(): number {
    return this.series.size;
  }

  clear(): void {
    this.series.clear();
  }
}

/** Per-second rate of a cumulative counter between two readings; 0 when either is missing or it went back (a restart). */
export function counterRate(previous: number | undefined, latest: number | undefined, windowMs: number): number {
  if (previous === undefined || latest === undefined || windowMs <= 0 || latest < previous) return 0;
  return ((latest - previous) * 1000) / windowMs;
}

/** The sum of samples (a pod from its containers, a node from its pods). */
export function sumSamples(samples: Iterable<UsageSample>): UsageSample {
  const total: UsageSample = { cpu: 0, memory: 0, networkRx: 0, networkTx: 0, fsRead: 0, fsWrite: 0 };
  for (const sample of samples) for (const metric of USAGE_METRICS) total[metric] += sample[metric];
  return total;
}

/** Picks the resolution for a window: 10 s up to the hour the fine ring spans, else 1 min. */
export function resolutionFor(windowMs: number, asked?: '10s' | '1m'): Resolution {
  if (asked === '10s') return FINE;
  if (asked === '1m') return COARSE;
  return windowMs <= FINE.stepMs * FINE.capacity ? FINE : COARSE;
}
