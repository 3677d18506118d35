import { lstat, mkdtemp, readFile, readdir, readlink, rm, stat, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AtomicWriter, validatePayloadPath, type Payload } from './atomicWriter';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'atomic-writer-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function payload(entries: Record<string, string>, mode = 0o644): Payload {
  return Object.fromEntries(Object.entries(entries).map(([key, text]) => [key, { data: Buffer.from(text), mode }]));
}

async function versionDirs(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith('..') && name !== '..data');
}

describe('AtomicWriter', () => {
  it('lays out timestamped data, the ..data link and one link per top-level path', async () => {
    const writer = new AtomicWriter(dir, () => new Date(Date.UTC(2026, 0, 2, 15, 4, 5)));
    expect(await writer.write(payload({ 'app.conf': 'a=1', 'nested/deep/file': 'x' }))).toBe(true);

    const data = await readlink(path.join(dir, '..data'));
    expect(data).toMatch(/^\.\.2026_01_02_15_04_05\./);
    expect(await readlink(path.join(dir, 'app.conf'))).toBe('..data/app.conf');
    expect(await readlink(path.join(dir, 'nested'))).toBe('..data/nested');
    expect(await readFile(path.join(dir, 'app.conf'), 'utf8')).toBe('a=1');
    expect(await readFile(path.join(dir, 'nested/deep/file'), 'utf8')).toBe('x');
    expect((await stat(path.join(dir, data))).mode & 0o777).toBe(0o755);
    expect(await versionDirs()).toEqual([data]);
  });

  it('applies file modes whatever the umask', async () => {
    await new AtomicWriter(dir).write({ token: { data: Buffer.from('t'), mode: 0o600 }, script: { data: Buffer.from('s'), mode: 0o755 } });
    expect((await stat(path.join(dir, 'token'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'script'))).mode & 0o777).toBe(0o755);
  });

  it('swaps to a new version directory on update and removes the old one', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ key: 'one' }));
    const first = await readlink(path.join(dir, '..data'));
    expect(await writer.write(payload({ key: 'two' }))).toBe(true);
    const second = await readlink(path.join(dir, '..data'));
    expect(second).not.toBe(first);
    expect(await readFile(path.join(dir, 'key'), 'utf8')).toBe('two');
    expect(await versionDirs()).toEqual([second]);
    expect((await readdir(dir)).includes('..data_tmp')).toBe(false);
  });

  it('removes links of keys that are gone but keeps the others', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ keep: '1', drop: '2', 'sub/a': '3', 'sub/b': '4' }));
    await writer.write(payload({ keep: '1', 'sub/a': '3' }));
    expect((await readdir(dir)).filter((name) => !name.startsWith('..')).sort()).toEqual(['keep', 'sub']);
    expect(await readdir(path.join(dir, 'sub'))).toEqual(['a']);
    await expect(lstat(path.join(dir, 'drop'))).rejects.toThrow();
  });

  it('writes nothing when the payload is unchanged', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ key: 'same' }));
    const before = await readlink(path.join(dir, '..data'));
    expect(await writer.write(payload({ key: 'same' }))).toBe(false);
    expect(await readlink(path.join(dir, '..data'))).toBe(before);
  });

  it('rewrites when only a mode changes', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ key: 'same' }, 0o644));
    expect(await writer.write(payload({ key: 'same' }, 0o400))).toBe(true);
    expect((await stat(path.join(dir, 'key'))).mode & 0o777).toBe(0o400);
  });

  it('restores a visible link removed by hand without a new version', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ key: 'v' }));
    await unlink(path.join(dir, 'key'));
    expect(await writer.write(payload({ key: 'v' }))).toBe(false);
    expect(await readFile(path.join(dir, 'key'), 'utf8')).toBe('v');
  });

  it('handles an empty payload', async () => {
    const writer = new AtomicWriter(dir);
    await writer.write(payload({ key: 'v' }));
    expect(await writer.write({})).toBe(true);
    expect((await readdir(dir)).filter((name) => !name.startsWith('..'))).toEqual([]);
  });

  it.each([
    ['', 'must not be empty'],
    ['/etc/passwd', 'must be relative path'],
    ['a/../b', "must not contain '..'"],
    ['..hidden', "must not start with '..'"],
    ['x'.repeat(256), 'filenames must be less than or equal to 255 characters'],
  ])('rejects the path %j', (target, message) => {
    expect(() => validatePayloadPath(target)).toThrow(message);
  });
});
