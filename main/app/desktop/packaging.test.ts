import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isRecord } from '../../../shared/kubernetes/types';

const root = join(__dirname, '..', '..', '..');

function stringsAt(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

function targetsOf(section: unknown): string[] {
  if (!isRecord(section)) return [];
  return stringsAt(section.target);
}

describe('electron-builder.yml', () => {
  const config: unknown = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8'));

  it('parses and packs the built app, package.json and the icons the shell loads', () => {
    expect(isRecord(config)).toBe(true);
    if (!isRecord(config)) return;
    expect(stringsAt(config.files)).toEqual(expect.arrayContaining(['dist/**', 'package.json', 'assets/tray.png', 'assets/tray@2x.png', 'assets/icon.png']));
  });

  it('builds AppImage and deb for Linux, dmg for macOS and nsis for Windows', () => {
    if (!isRecord(config)) throw new Error('not a mapping');
    expect(targetsOf(config.linux)).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(targetsOf(config.mac)).toContain('dmg');
    expect(targetsOf(config.win)).toContain('nsis');
  });

  it('points at an app icon of at least 512 px and tray icons of 16 and 32 px', () => {
    const size = (file: string) => {
      const png = readFileSync(join(root, 'assets', file));
      // PNG signature, then the IHDR chunk: width and height as 32-bit big-endian at 16 and 20
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
      return [png.readUInt32BE(16), png.readUInt32BE(20)];
    };
    expect(size('icon.png')[0]).toBeGreaterThanOrEqual(512);
    expect(size('tray.png')).toEqual([16, 16]);
    expect(size('tray@2x.png')).toEqual([32, 32]);
  });
});
