// Polling helpers shared by the end-to-end suites: wait for a condition with a deadline (never a
// fixed sleep), and run kubectl expecting success.
import type { TestCluster } from './cluster';

/** Polls `probe` until it returns a value other than undefined; throws with the last error after `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, intervalMs = 500): Promise<T> {
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
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Runs kubectl and returns its stdout; throws with stderr when it fails. */
export async function kubectlOk(cluster: TestCluster, args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input === undefined ? undefined : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}${result.stdout}`);
  return result.stdout;
}
