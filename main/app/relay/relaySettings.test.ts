import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RelaySettings, SETTINGS_FILE } from './relaySettings';

describe('RelaySettings', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  function dataDir(): string {
    const directory = mkdtempSync(join(tmpdir(), 'relay-settings-'));
    directories.push(directory);
    return directory;
  }

  it('keeps the read-only switch across restarts in ui-clusters.json, private to the user', () => {
    const directory = dataDir();
    const settings = new RelaySettings(directory);
    expect(settings.readOnly('prod')).toBe(false);
    settings.setReadOnly('prod', true);
    settings.setReadOnly('staging', true);
    settings.setReadOnly('staging', false);
    expect(JSON.parse(readFileSync(join(directory, SETTINGS_FILE), 'utf8'))).toEqual({ clusters: { prod: { readOnly: true } } });
    expect(statSync(join(directory, SETTINGS_FILE)).mode & 0o777).toBe(0o600);
    const reopened = new RelaySettings(directory);
    expect(reopened.readOnly('prod')).toBe(true);
    expect(reopened.readOnly('staging')).toBe(false);
  });

  it('starts without settings when the file is not JSON or not the expected shape', () => {
    const directory = dataDir();
    writeFileSync(join(directory, SETTINGS_FILE), '{not json');
    expect(new RelaySettings(directory).readOnly('prod')).toBe(false);
    writeFileSync(join(directory, SETTINGS_FILE), JSON.stringify({ clusters: { prod: { readOnly: 'yes' }, dev: { readOnly: true } } }));
    const settings = new RelaySettings(directory);
    expect(settings.readOnly('prod')).toBe(false);
    expect(settings.readOnly('dev')).toBe(true);
  });
});
