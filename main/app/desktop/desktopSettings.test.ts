import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultDesktopSettings, desktopSettingsPath, loadDesktopSettings, saveDesktopSettings } from './desktopSettings';

const directories: string[] = [];
function dataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'kd-settings-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('desktop settings', () => {
  it('leave containers running on quit by default', () => {
    expect(defaultDesktopSettings.stopContainersOnQuit).toBe(false);
    expect(loadDesktopSettings(dataDir())).toEqual({ stopContainersOnQuit: false });
  });

  it('round-trip through JSON in the data dir', () => {
    const directory = dataDir();
    saveDesktopSettings(directory, { stopContainersOnQuit: true });
    expect(JSON.parse(readFileSync(desktopSettingsPath(directory), 'utf8'))).toEqual({ stopContainersOnQuit: true });
    expect(loadDesktopSettings(directory)).toEqual({ stopContainersOnQuit: true });
  });

  it('create a data dir that does not exist yet', () => {
    const directory = join(dataDir(), 'later');
    saveDesktopSettings(directory, { stopContainersOnQuit: true });
    expect(loadDesktopSettings(directory).stopContainersOnQuit).toBe(true);
  });

  it.each([['{ not json'], ['[]'], ['{"stopContainersOnQuit":"yes"}'], ['null']])('fall back to defaults for %s', (content) => {
    const directory = dataDir();
    writeFileSync(desktopSettingsPath(directory), content);
    expect(loadDesktopSettings(directory)).toEqual(defaultDesktopSettings);
  });
});
