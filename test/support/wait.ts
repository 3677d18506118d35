// Polling helpers shared by the end-to-end suites: wait for a condition with a deadline (never a
// fixed sleep), and run kubectl expecting success.
import type { TestCluster } from './cluster';

/**
 * Polls `probe` until it returns a value other than undefined; throws with the last error after `timeoutMs`.
 * `describeState`, when given, adds what the cluster looked like to the timeout message.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  intervalMs = 500,
  describeState?: () => Promise<string> | string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      const state = describeState ? `\n${await describeState()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}${state}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs kubectl and returns its stdout; throws with stderr when it fails. `timeoutMs` overrides runCommand's 60 s kill. */
export async function kubectlOk(cluster: TestCluster, args: string[], input?: string, timeoutMs?: number): Promise<string> {
  const result = await cluster.kubectl(args, { input, timeoutMs });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** A `describeState` for until: what `kubectl <args>` prints, errors included. */
export function kubectlState(cluster: TestCluster, args: string[]): () => Promise<string> {
  return async () => {
    const result = await cluster.kubectl(args);
    return `${result.stdout}${result.stderr}`;
  };
}
