// Clock: the time source for the work queue, rate limiters and informer back-off. Injected so tests
// advance time by hand instead of sleeping (as upstream k8s.io/utils/clock; the test double,
// FakeClock, is in test/doubles/fakeClock.ts).

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since an arbitrary epoch; only differences matter. */
  now(): number;
  setTimeout(callback: () => void, ms: number): Timer;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};
