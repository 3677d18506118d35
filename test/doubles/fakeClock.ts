// FakeClock: a Clock that moves only when told to, for unit tests (upstream k8s.io/utils/clock/testing).
// Timers fire in due order inside `advance`, so tests never sleep.
import type { Clock, Timer } from '../../main/client/clock';

interface PendingTimer {
  at: number;
  sequence: number;
  callback: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to. Timers fire in due order inside `advance`. */
export class FakeClock implements Clock {
  private current: number;
  private sequence = 0;
  private timers: PendingTimer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    const timer: PendingTimer = { at: this.current + Math.max(0, ms), sequence: this.sequence++, callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => { timer.cancelled = true; } };
  }

  /** Moves time forward by `ms`, firing each due timer at its own instant (timers added meanwhile included). */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      let next: PendingTimer | undefined;
      for (const t of this.timers) {
        if (t.at <= target && (!next || t.at < next.at || (t.at === next.at && t.sequence < next.sequence))) next = t;
      }
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.current = Math.max(this.current, next.at);
      next.callback();
    }
    this.current = target;
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextTimerAt(): number | undefined {
    let at: number | undefined;
    for (const t of this.timers) if (!t.cancelled && (at === undefined || t.at < at)) at = t.at;
    return at;
  }
}
