import { describe, expect, it } from 'vitest';
import { StartupPhases, startupDebugRequested } from './startupPhases';
import { parseArgs } from './cli';

describe('StartupPhases', () => {
  it('prints each phase with when it ended and how long it took, in order', () => {
    const lines: string[] = [];
    const phases = new StartupPhases(true, (line) => lines.push(line));
    phases.mark('modules loaded');
    phases.mark('store opened');
    phases.print('serve');
    expect(lines[0]).toBe('kubedesk: start-up phases (serve; ms since the process started, ms in the phase, CPU ms in the phase)');
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/).slice(3).join(' '))).toEqual(['modules loaded', 'store opened']);
    const [first, second] = phases.list();
    expect(second.at).toBeGreaterThanOrEqual(first.at);
    // the first phase runs from the process's start, so its duration is its end
    const [firstAt, firstTook] = lines[1].trim().split(/\s+/).slice(0, 2).map(Number);
    expect(firstTook).toBe(firstAt);
  });

  it('records and prints nothing when not asked for', () => {
    const lines: string[] = [];
    const phases = new StartupPhases(false, (line) => lines.push(line));
    phases.mark('modules loaded');
    phases.print('serve');
    expect(phases.list()).toEqual([]);
    expect(lines).toEqual([]);
  });

  it('marks a phase when its work settles, failed or not', async () => {
    const phases = new StartupPhases(true, () => undefined);
    await expect(phases.time('fails', Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await phases.time('works', Promise.resolve(3))).toBe(3);
    expect(phases.list().map((phase) => phase.name)).toEqual(['fails', 'works']);
  });

  it('is asked for with KUBEDESK_DEBUG_STARTUP=1 or true, or serve --debug-startup', () => {
    expect(startupDebugRequested({ KUBEDESK_DEBUG_STARTUP: '1' })).toBe(true);
    expect(startupDebugRequested({ KUBEDESK_DEBUG_STARTUP: 'true' })).toBe(true);
    expect(startupDebugRequested({ KUBEDESK_DEBUG_STARTUP: '0' })).toBe(false);
    expect(startupDebugRequested({})).toBe(false);
    expect(parseArgs(['serve', '--debug-startup'], {}).debugStartup).toBe(true);
    expect(parseArgs(['serve'], {}).debugStartup).toBeUndefined();
    expect(() => parseArgs(['serve', '--debug-startup=yes'], {})).toThrow('flag --debug-startup takes no value');
  });
});
