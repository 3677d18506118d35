// Per-key exponential back-off, after client-go util/flowcontrol/backoff.go as the kubelet uses it
// for container restarts and image pulls: 10 s doubling to 5 min, forgotten after twice the
// maximum without a new failure.
export class Backoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  constructor(
    private readonly initialMs = 10_000,
    private readonly maxMs = 300_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a failure at `eventTime` and returns the new delay. */
  next(key: string, eventTime = this.now()): number {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, eventTime)) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: eventTime });
      return this.initialMs;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.maxMs);
    entry.lastUpdate = eventTime;
    return entry.backoffMs;
  }

  /** True while the delay recorded for `key` has not passed since `eventTime` (upstream IsInBackOffSince). */
  isInBackoffSince(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.expired(entry, this.now())) return false;
    return this.now() - eventTime < entry.backoffMs;
  }

  /** milliseconds left of the back-off that started at eventTime */
  remaining(key: string, eventTime: number): number {
    const entry = this.entries.get(key);
    if (!entry) return 0;
    return Math.max(0, eventTime + entry.backoffMs - this.now());
  }

  delay(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** drops every key with the prefix (a deleted pod's containers) */
  resetPrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  private expired(entry: { lastUpdate: number }, now: number): boolean {
    return now - entry.lastUpdate > 2 * this.maxMs;
  }
}
