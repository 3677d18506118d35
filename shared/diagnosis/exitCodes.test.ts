import { describe, expect, it } from 'vitest';
import { exitCodeHint, exitCodeMeaning, exitCodeShort } from './exitCodes';

describe('exit codes', () => {
  it.each([
    [0, '', 'exited successfully', 'error'],
    [1, 'Error', 'general error: the program reported a failure', 'general error'],
    [126, 'Error', 'command not runnable: found but not executable (permission denied, or not a program for this platform)', 'command not runnable'],
    [127, 'Error', 'command not found: the executable is not in the image or not on its PATH', 'command not found'],
    [137, 'OOMKilled', 'killed for using more memory than its limit (OOMKilled)', 'out of memory'],
    [137, 'Error', 'killed: out of memory, a failed liveness probe, or a stop that outlasted its grace period (SIGKILL)', 'killed (SIGKILL)'],
    [143, 'Error', 'terminated: asked to stop (SIGTERM), e.g. by a deletion, a rollout or a failed liveness probe (SIGTERM)', 'terminated (SIGTERM)'],
    [139, 'Error', 'segmentation fault (the program crashed) (SIGSEGV)', 'segmentation fault (SIGSEGV)'],
    [150, 'Error', 'killed by signal 22', 'signal 22'],
  ])('explains exit code %i (%s)', (code, reason, meaning, short) => {
    expect(exitCodeMeaning(code, reason)).toBe(meaning);
    expect(exitCodeShort(code, reason)).toBe(short);
  });

  it('hints at the usual fix where there is one', () => {
    expect(exitCodeHint(127)).toContain('command and args');
    expect(exitCodeHint(137, 'OOMKilled')).toContain('resources.limits.memory');
    expect(exitCodeHint(1)).toBeUndefined();
  });
});
