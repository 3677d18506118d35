// The desktop app's own settings, kept as JSON in the data dir next to the cluster's state. Unknown
// or malformed fields fall back to their defaults, so a hand-edited or older file never stops the app.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DesktopSettings {
  /** Quitting stops the cluster's containers (pods, kd-netd); else they keep running for the next start. */
  stopContainersOnQuit: boolean;
}

export const defaultDesktopSettings: Readonly<DesktopSettings> = { stopContainersOnQuit: false };

export const desktopSettingsFileName = 'desktop-settings.json';

export function desktopSettingsPath(dataDir: string): string {
  return join(dataDir, desktopSettingsFileName);
}

/** Settings from `<dataDir>/desktop-settings.json`, defaults for whatever is missing or invalid. */
export function loadDesktopSettings(dataDir: string): DesktopSettings {
  const path = desktopSettingsPath(dataDir);
  const settings: DesktopSettings = { ...defaultDesktopSettings };
  if (!existsSync(path)) return settings;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return settings;
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const stop: unknown = Reflect.get(parsed, 'stopContainersOnQuit');
    if (typeof stop === 'boolean') settings.stopContainersOnQuit = stop;
  }
  return settings;
}

/** Writes the settings atomically (temporary file + rename), creating the data dir when needed. */
export function saveDesktopSettings(dataDir: string, settings: DesktopSettings): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = desktopSettingsPath(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ stopContainersOnQuit: settings.stopContainersOnQuit }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}
