// Background work on the database in small steps, one short transaction per turn of the event loop,
// so requests keep being served in between (compaction of the change log, history pruning).

/** Rows removed per background transaction: small, so a batch never holds the writer for long. */
export const BATCH_ROWS = 500;

/**
 * Calls `step` on each turn of the event loop while it returns true. Resolves when it returns false,
 * when `stopped()` says so, or after a step threw (logged with `what`: this runs off the request path
 * with nobody to throw to; the next run retries). Never rejects.
 */
export function runInBatches(step: () => boolean, what: string, stopped: () => boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    const next = (): void => {
      try {
        if (stopped() || !step()) {
          resolve();
          return;
        }
        setImmediate(next);
      } catch (error) {
        console.error(`storage: ${what} failed`, error);
        resolve();
      }
    };
    setImmediate(next);
  });
}
