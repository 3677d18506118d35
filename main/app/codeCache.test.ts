import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codeCacheDirectory, codeCacheFile, loadBundle, openCodeCache, sealCodeCache } from './codeCache';

const directories: string[] = [];
function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'kubedesk-code-cache-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A bundle as scripts/build.mjs writes it: a CommonJS module inside node's wrapper function. */
function writeBundle(directory: string, body: string): string {
  const path = join(directory, 'bundle.cjs');
  writeFileSync(path, `(function (exports, require, module, __filename, __dirname) {${body}\n})`);
  return path;
}

async function waitForCacheFile(directory: string, expected?: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const file = existsSync(directory) ? readdirSync(directory).find((name) => name.endsWith('.v8cache') && (expected === undefined || join(directory, name) === expected)) : undefined;
    if (file) return join(directory, file);
    if (Date.now() > deadline) throw new Error(`no cache file in ${directory}`);
    await new Promise((resolveLater) => setTimeout(resolveLater, 10));
  }
}

describe('codeCacheDirectory', () => {
  it.each([
    { env: { KUBEDESK_CODE_CACHE_DIR: '/tmp/chosen' }, platform: 'linux', expected: '/tmp/chosen' },
    { env: { KUBEDESK_CODE_CACHE_DIR: '' }, platform: 'linux', expected: undefined },
    { env: { XDG_CACHE_HOME: '/home/u/.xdg' }, platform: 'linux', expected: '/home/u/.xdg/kubedesk/code-cache' },
    { env: {}, platform: 'linux', expected: '/home/u/.cache/kubedesk/code-cache' },
    { env: {}, platform: 'darwin', expected: '/home/u/Library/Caches/kubedesk/code-cache' },
  ] as const)('is $expected for $env on $platform', ({ env, platform, expected }) => {
    expect(codeCacheDirectory(env, platform, '/home/u')).toBe(expected);
  });

  it('names one file per bundle build, Node version and architecture', () => {
    expect(codeCacheFile('/c', '0123456789abcdef', 'v20.19.0', 'x64')).toBe('/c/kubedesk-0123456789abcdef-node20.19.0-x64.v8cache');
  });
});

describe('sealCodeCache and openCodeCache', () => {
  it('give back the data that was sealed', () => {
    const data = Buffer.from('bytecode');
    expect(openCodeCache(sealCodeCache(data))?.equals(data)).toBe(true);
  });

  it('refuse a truncated or altered file', () => {
    const sealed = sealCodeCache(Buffer.from('bytecode'));
    expect(openCodeCache(sealed.subarray(0, sealed.length - 1))).toBeUndefined();
    expect(openCodeCache(sealed.subarray(0, 32))).toBeUndefined();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] ^= 1;
    expect(openCodeCache(altered)).toBeUndefined();
  });
});

describe('loadBundle', () => {
  it('runs the bundle from source, writes the cache, and the next start uses it with the same result', async () => {
    const directory = temporaryDirectory();
    const cacheDirectory = join(directory, 'cache');
    const bundle = writeBundle(directory, `const out = require('node:path').join(__dirname, 'ran-' + process.env.RUN); require('node:fs').writeFileSync(out, typeof module.exports);`);
    const env = { KUBEDESK_CODE_CACHE_DIR: cacheDirectory };

    process.env.RUN = 'first';
    expect(loadBundle(bundle, 'abc', { env, writeDelayMs: 0 })).toBe('missing');
    expect(readFileSync(join(directory, 'ran-first'), 'utf8')).toBe('object');
    const cacheFile = await waitForCacheFile(cacheDirectory);
    expect(openCodeCache(readFileSync(cacheFile))).toBeDefined();

    process.env.RUN = 'second';
    expect(loadBundle(bundle, 'abc', { env, writeDelayMs: 0 })).toBe('used');
    expect(readFileSync(join(directory, 'ran-second'), 'utf8')).toBe('object');
    delete process.env.RUN;
  });

  it("removes the caches of other builds once it has written its own", async () => {
    const directory = temporaryDirectory();
    const cacheDirectory = join(directory, 'cache');
    mkdirSync(cacheDirectory);
    const earlier = codeCacheFile(cacheDirectory, 'earlier', process.version, process.arch);
    writeFileSync(earlier, sealCodeCache(Buffer.from('old bytecode')));
    writeFileSync(join(cacheDirectory, 'unrelated.txt'), 'kept');
    const bundle = writeBundle(directory, `module.exports = 1;`);
    loadBundle(bundle, 'current', { env: { KUBEDESK_CODE_CACHE_DIR: cacheDirectory }, writeDelayMs: 0 });
    const written = await waitForCacheFile(cacheDirectory, codeCacheFile(cacheDirectory, 'current', process.version, process.arch));
    expect(readdirSync(cacheDirectory).sort()).toEqual([basename(written), 'unrelated.txt'].sort());
  });

  it('runs from source when the cache file is corrupt, and replaces it', async () => {
    const directory = temporaryDirectory();
    const cacheDirectory = join(directory, 'cache');
    const bundle = writeBundle(directory, `module.exports = 1;`);
    const env = { KUBEDESK_CODE_CACHE_DIR: cacheDirectory };
    loadBundle(bundle, 'abc', { env, writeDelayMs: 0 });
    const cacheFile = await waitForCacheFile(cacheDirectory);
    const corrupt = readFileSync(cacheFile);
    corrupt[corrupt.length - 1] ^= 1;
    writeFileSync(cacheFile, corrupt);

    expect(loadBundle(bundle, 'abc', { env, writeDelayMs: 0 })).toBe('missing');
    const deadline = Date.now() + 5_000;
    while (openCodeCache(readFileSync(cacheFile)) === undefined) {
      if (Date.now() > deadline) throw new Error('the corrupt cache was not replaced');
      await new Promise((resolveLater) => setTimeout(resolveLater, 10));
    }
    expect(loadBundle(bundle, 'abc', { env, writeDelayMs: 0 })).toBe('used');
  });

  it('runs from source and writes nothing when the cache is off', async () => {
    const directory = temporaryDirectory();
    const bundle = writeBundle(directory, `module.exports = 1;`);
    expect(loadBundle(bundle, 'abc', { env: { KUBEDESK_CODE_CACHE_DIR: '' }, writeDelayMs: 0 })).toBe('off');
    await new Promise((resolveLater) => setImmediate(resolveLater));
    expect(readdirSync(directory)).toEqual(['bundle.cjs']);
  });

  it('still starts when the cache directory cannot be made', async () => {
    const directory = temporaryDirectory();
    const bundle = writeBundle(directory, `module.exports = 1;`);
    const blocked = join(directory, 'a-file');
    writeFileSync(blocked, '');
    expect(loadBundle(bundle, 'abc', { env: { KUBEDESK_CODE_CACHE_DIR: join(blocked, 'cache') }, writeDelayMs: 0 })).toBe('missing');
    await new Promise((resolveLater) => setTimeout(resolveLater, 0));
    expect(existsSync(join(blocked, 'cache'))).toBe(false);
  });
});
