// V8's code cache for the cluster bundle (bundleLoader.ts), as Electron apps keep one and as
// Node 22's module.enableCompileCache does for ES modules (Node 20 has no such switch, and its ES
// module loader takes no cached data). Compiling the bundle is most of what a start spends before
// it runs any of kubedesk's own code; with the cache V8 deserialises the bytecode the previous
// start made instead, functions compiled lazily during that start included.
//
// The cache is one file per bundle build, Node version and architecture in the user's cache
// directory (codeCacheDirectory), checked by a SHA-256 of its content before V8 sees it. A start
// that finds none, or one V8 refuses (other V8 flags), runs from source and writes a new one a few
// seconds later, once start-up has compiled what it needs (atomically: a temporary file, then a
// rename), and removes the caches of other builds. A missing, unreadable, corrupt or unwritable
// cache only costs the compile time.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script, constants } from 'node:vm';

/** How long after a start without a usable cache the new one is written: start-up has compiled what it needs by then. */
const WRITE_DELAY_MS = 4_000;
const DIGEST_BYTES = 32;

/**
 * Where code caches go: KUBEDESK_CODE_CACHE_DIR when set (empty: no cache), else the platform's
 * per-user cache directory — $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
 * %LOCALAPPDATA% on Windows — under `kubedesk/code-cache`.
 */
export function codeCacheDirectory(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string | undefined {
  const chosen = env.KUBEDESK_CODE_CACHE_DIR;
  if (chosen !== undefined) return chosen === '' ? undefined : chosen;
  if (!home) return undefined;
  const base = platform === 'darwin' ? join(home, 'Library', 'Caches') : platform === 'win32' ? (env.LOCALAPPDATA ?? join(home, 'AppData', 'Local')) : (env.XDG_CACHE_HOME || join(home, '.cache'));
  return join(base, 'kubedesk', 'code-cache');
}

/** The cache file of one bundle build for this Node version and architecture. */
export function codeCacheFile(directory: string, bundleHash: string, nodeVersion: string, arch: string): string {
  return join(directory, `kubedesk-${bundleHash}-node${nodeVersion.replace(/^v/, '')}-${arch}.v8cache`);
}

/** A cache file's content: the SHA-256 of V8's data, then the data. */
export function sealCodeCache(data: Buffer): Buffer {
  return Buffer.concat([createHash('sha256').update(data).digest(), data]);
}

/** V8's data from a cache file's content, or undefined when it is truncated or altered. */
export function openCodeCache(content: Buffer): Buffer | undefined {
  if (content.length <= DIGEST_BYTES) return undefined;
  const data = content.subarray(DIGEST_BYTES);
  return createHash('sha256').update(data).digest().equals(content.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

function readCodeCache(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return openCodeCache(readFileSync(file));
  } catch {
    return undefined;
  }
}

function writeCodeCache(file: string, script: Script): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, sealCodeCache(script.createCachedData()), { mode: 0o644 });
    renameSync(temporary, file);
    // the caches of earlier builds and Node versions are of no use once this one is written
    for (const name of readdirSync(dirname(file))) {
      if (name !== basename(file) && /^kubedesk-.*\.v8cache$/.test(name)) rmSync(join(dirname(file), name), { force: true });
    }
  } catch {
    // a read-only or full cache directory: the next start compiles from source again
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing was written
    }
  }
}

/** What a start found in the code cache. */
export type CodeCacheUse = 'used' | 'rejected' | 'missing' | 'off';

export interface LoadBundleOptions {
  env?: NodeJS.ProcessEnv;
  /** after a start without a usable cache, when to write the new one (default 4 s) */
  writeDelayMs?: number;
}

/**
 * Runs the bundle at `bundlePath` — a CommonJS module's text inside node's module wrapper function —
 * with the code cache; the bundle starts the command line itself.
 */
export function loadBundle(bundlePath: string, bundleHash: string, options: LoadBundleOptions = {}): CodeCacheUse {
  const directory = codeCacheDirectory(options.env ?? process.env, process.platform, homedir());
  const file = directory === undefined ? undefined : codeCacheFile(directory, bundleHash, process.version, process.arch);
  const cachedData = readCodeCache(file);
  // the file is node's CommonJS wrapper around the module (scripts/build.mjs): the same five names a required file sees
  // the build writes it as ASCII, which latin1 decodes exactly and several times faster than UTF-8
  const script = new Script(readFileSync(bundlePath).toString('latin1'), {
    filename: bundlePath,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const use: CodeCacheUse = file === undefined ? 'off' : cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  if (file !== undefined && use !== 'used') setTimeout(() => writeCodeCache(file, script), options.writeDelayMs ?? WRITE_DELAY_MS).unref();
  const run: unknown = script.runInThisContext();
  if (typeof run !== 'function') throw new Error(`${bundlePath} did not compile to a function`);
  const bundleModule = { exports: {} };
  run.call(bundleModule.exports, bundleModule.exports, createRequire(bundlePath), bundleModule, bundlePath, dirname(bundlePath));
  return use;
}
