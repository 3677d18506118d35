// What a container's exit code means, in plain words. Codes follow the shell's conventions
// (POSIX `sh`: 126 = found but cannot be executed, 127 = not found), 128+N = killed by signal N
// (as Docker and the kubelet report a signalled process), and the kubelet's own termination
// reasons (OOMKilled when the kernel's OOM killer stopped the container at its memory limit).

const SIGNALS: Record<number, { name: string; meaning: string }> = {
  1: { name: 'SIGHUP', meaning: 'hung up' },
  2: { name: 'SIGINT', meaning: 'interrupted' },
  3: { name: 'SIGQUIT', meaning: 'quit' },
  4: { name: 'SIGILL', meaning: 'illegal instruction (a binary built for another CPU?)' },
  6: { name: 'SIGABRT', meaning: 'aborted by the program itself (abort(), a failed assertion)' },
  7: { name: 'SIGBUS', meaning: 'bus error' },
  8: { name: 'SIGFPE', meaning: 'arithmetic error' },
  9: { name: 'SIGKILL', meaning: 'killed: out of memory, a failed liveness probe, or a stop that outlasted its grace period' },
  11: { name: 'SIGSEGV', meaning: 'segmentation fault (the program crashed)' },
  13: { name: 'SIGPIPE', meaning: 'wrote to a closed pipe' },
  15: { name: 'SIGTERM', meaning: 'terminated: asked to stop (SIGTERM), e.g. by a deletion, a rollout or a failed liveness probe' },
};

/** The meaning of an exit code; `reason` is the kubelet's terminated reason (OOMKilled, Error, Completed…). */
export function exitCodeMeaning(exitCode: number, reason = ''): string {
  if (reason === 'OOMKilled') return 'killed for using more memory than its limit (OOMKilled)';
  if (reason === 'ContainerCannotRun' || reason === 'StartError') return 'the container runtime could not start the command';
  switch (exitCode) {
    case 0:
      return 'exited successfully';
    case 1:
      return 'general error: the program reported a failure';
    case 2:
      return 'misuse of a shell command or invalid arguments';
    case 126:
      return 'command not runnable: found but not executable (permission denied, or not a program for this platform)';
    case 127:
      return 'command not found: the executable is not in the image or not on its PATH';
    case 128:
      return 'invalid exit argument';
    case 255:
      return 'exit status out of range (the program exited with -1 or a fatal error)';
  }
  if (exitCode > 128 && exitCode < 160) {
    const signal = exitCode - 128;
    const known = SIGNALS[signal];
    return known ? `${known.meaning} (${known.name})` : `killed by signal ${signal}`;
  }
  return 'the program exited with an error';
}

/** The meaning in a few words, for one-line reasons: `command not found`, `killed (SIGKILL)`. */
export function exitCodeShort(exitCode: number, reason = ''): string {
  if (reason === 'OOMKilled') return 'out of memory';
  switch (exitCode) {
    case 1:
      return 'general error';
    case 2:
      return 'invalid usage';
    case 126:
      return 'command not runnable';
    case 127:
      return 'command not found';
    case 255:
      return 'exit status out of range';
  }
  if (exitCode > 128 && exitCode < 160) {
    const signal = exitCode - 128;
    const known = SIGNALS[signal];
    if (signal === 9) return 'killed (SIGKILL)';
    if (signal === 15) return 'terminated (SIGTERM)';
    if (signal === 11) return 'segmentation fault (SIGSEGV)';
    return known ? known.name : `signal ${signal}`;
  }
  return 'error';
}

/** A short hint for the codes that have a usual fix. */
export function exitCodeHint(exitCode: number, reason = ''): string | undefined {
  if (reason === 'OOMKilled') return 'raise resources.limits.memory, or make the program use less memory';
  switch (exitCode) {
    case 126:
      return 'make the command executable (chmod +x in the image) and built for this platform';
    case 127:
      return "check the container's command and args: the executable must exist in the image (and be on its PATH)";
    case 137:
      return 'the container was killed with SIGKILL: check memory use against resources.limits.memory, and the liveness probe';
    case 139:
      return 'the program crashed (segmentation fault): its last log lines may say where';
    case 143:
      return 'the container was asked to stop (SIGTERM): look for a liveness probe or a deletion that stopped it';
    default:
      return undefined;
  }
}
