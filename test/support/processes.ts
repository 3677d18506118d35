// Runs kubectl in the background for the end-to-end suites, for commands that stay up while the
// test acts (watches, `delete --cascade=foreground`, `wait`, `logs -f`, `attach`, `port-forward`):
// their output is collected as it arrives so a test can poll it.
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestCluster } from './cluster';
import { toolPaths } from './tools';

export interface BackgroundOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Gives the command a stdin pipe (`child.stdin`) instead of none. */
  stdin?: boolean;
}

export interface BackgroundCommand {
  child: ChildProcess;
  /** The exit code, or null when a signal ended it. */
  exited: Promise<number | null>;
  running(): boolean;
  /** Standard output so far. */
  output(): string;
  /** Standard error so far. */
  errors(): string;
  /** Sends SIGTERM unless it has exited already, and waits for the exit. */
  stop(): Promise<void>;
}

/** Starts kubectl against the test cluster without waiting for it to finish. */
export function backgroundKubectl(cluster: TestCluster, args: string[], options: BackgroundOptions = {}): BackgroundCommand {
  const child = spawn(toolPaths().kubectl, ['--kubeconfig', cluster.kubeconfig, ...args], {
    env: { ...process.env, ...options.env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((exitCode = code))));
  async function stop(): Promise<void> {
    if (exitCode === undefined) child.kill('SIGTERM');
    await exited;
  }
  return { child, exited, running: () => exitCode === undefined, output: () => stdout, errors: () => stderr, stop };
}
