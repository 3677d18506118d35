// Start-up phases, timed from the process's own start (performance.timeOrigin, so module loading
// counts), printed to stderr when KUBEDESK_DEBUG_STARTUP=1 (or `serve --debug-startup`): where the
// time to a ready /readyz goes, as upstream's kube-apiserver logs its post-start hooks and
// `/readyz?verbose` lists its checks. Off by default: marking a phase then costs one clock read.
import { performance } from 'node:perf_hooks';

export interface StartupPhase {
  name: string;
  /** milliseconds since the process started */
  at: number;
  /** CPU time (user + system) the process had used by then, in milliseconds */
  cpu: number;
}

export class StartupPhases {
  private readonly phases: StartupPhase[] = [];

  constructor(
    readonly enabled: boolean,
    private readonly write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  /** Notes that `name` has finished now. */
  mark(name: string): void {
    if (!this.enabled) return;
    const { user, system } = process.cpuUsage();
    this.phases.push({ name, at: performance.now(), cpu: (user + system) / 1000 });
  }

  /** Runs `work` as the phase `name` (marked when it settles). */
  async time<T>(name: string, work: Promise<T>): Promise<T> {
    try {
      return await work;
    } finally {
      this.mark(name);
    }
  }

  list(): readonly StartupPhase[] {
    return this.phases;
  }

  /**
   * Prints one line per phase: when it ended and how long it took since the previous one, then
   * the CPU time it used (which a busy machine inflates less than the elapsed time).
   */
  print(title: string): void {
    if (!this.enabled) return;
    this.write(`kubedesk: start-up phases (${title}; ms since the process started, ms in the phase, CPU ms in the phase)`);
    let previous = { at: 0, cpu: 0 };
    for (const phase of this.phases) {
      this.write(`  ${phase.at.toFixed(0).padStart(6)}  ${(phase.at - previous.at).toFixed(0).padStart(5)}  ${(phase.cpu - previous.cpu).toFixed(0).padStart(5)}  ${phase.name}`);
      previous = phase;
    }
  }
}

/** True when the environment asks for the start-up phases (KUBEDESK_DEBUG_STARTUP=1 or true). */
export function startupDebugRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.KUBEDESK_DEBUG_STARTUP;
  return value === '1' || value === 'true';
}
