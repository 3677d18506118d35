// AtomicWriter projects a set of files (a config map, secret, downward API or projected volume)
// into a directory so that readers never see a half-updated volume, after upstream
// pkg/volume/util/atomic_writer.go:
//   <dir>/..2026_01_02_15_04_05.abc123/   the real files (a new directory per version)
//   <dir>/..data -> ..2026_01_02_15_04_05.abc123   swapped by renaming ..data_tmp over it
//   <dir>/<key>  -> ..data/<key>          one relative symlink per top-level path
// Stale top-level links are removed after the swap, then the previous version directory. An
// unchanged payload writes nothing. Links are relative so the volume still resolves inside a container
// (and across Docker Desktop's file sharing). Not safe for concurrent writers: callers serialise.
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface FileProjection {
  data: Buffer;
  /** permission bits, e.g. 0o644 */
  mode: number;
}

/** relative path inside the volume → content */
export type Payload = Record<string, FileProjection>;

const dataDirName = '..data';
const newDataDirName = '..data_tmp';
const maxFileNameLength = 255;
const maxPathLength = 4096;

/** Rejects paths upstream's validatePath rejects; returns the cleaned path. */
export function validatePayloadPath(target: string): string {
  if (target === '') throw new Error(`invalid path: must not be empty: "${target}"`);
  if (path.posix.isAbsolute(target)) throw new Error(`invalid path: must be relative path: ${target}`);
  if (target.length > maxPathLength) throw new Error(`invalid path: must be less than or equal to ${maxPathLength} characters`);
  const items = target.split('/');
  for (const item of items) {
    if (item === '..') throw new Error(`invalid path: must not contain '..': ${target}`);
    if (item.length > maxFileNameLength) throw new Error(`invalid path: filenames must be less than or equal to ${maxFileNameLength} characters`);
  }
  if (items[0].startsWith('..') && items[0].length > 2) throw new Error(`invalid path: must not start with '..': ${target}`);
  return path.posix.normalize(target).replace(/\/$/, '');
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

async function readLinkOrEmpty(linkPath: string): Promise<string> {
  try {
    return await readlink(linkPath);
  } catch (error) {
    if (isMissing(error)) return '';
    throw error;
  }
}

function timestampName(now: Date): string {
  const pad = (value: number, width = 2): string => String(value).padStart(width, '0');
  return `..${now.getUTCFullYear()}_${pad(now.getUTCMonth() + 1)}_${pad(now.getUTCDate())}_${pad(now.getUTCHours())}_${pad(now.getUTCMinutes())}_${pad(now.getUTCSeconds())}.`;
}

/** Every file and directory under `root`, as paths relative to it. */
async function walk(root: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(path.join(root, relative), { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      found.push(child);
      if (entry.isDirectory()) await visit(child);
    }
  };
  await visit('');
  return found;
}

async function fileDiffers(filePath: string, projection: FileProjection): Promise<boolean> {
  try {
    const info = await stat(filePath);
    if ((info.mode & 0o7777) !== (projection.mode & 0o7777)) return true;
    const current = await readFile(filePath);
    return !current.equals(projection.data);
  } catch (error) {
    if (isMissing(error)) return true;
    throw error;
  }
}

export class AtomicWriter {
  constructor(
    readonly targetDir: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Projects the payload; resolves true when something on disk changed. The target directory must exist. */
  async write(payload: Payload): Promise<boolean> {
    const clean = new Map<string, FileProjection>();
    for (const [key, projection] of Object.entries(payload)) clean.set(validatePayloadPath(key), projection);

    const dataDirPath = path.join(this.targetDir, dataDirName);
    const oldTsDir = await readLinkOrEmpty(dataDirPath);
    const oldTsPath = oldTsDir === '' ? '' : path.join(this.targetDir, oldTsDir);

    let pathsToRemove: string[] = [];
    if (oldTsPath !== '') {
      pathsToRemove = await this.pathsToRemove(clean, oldTsPath);
      let changed = false;
      for (const [relative, projection] of clean) {
        if (await fileDiffers(path.join(oldTsPath, relative), projection)) {
          changed = true;
          break;
        }
      }
      if (!changed && pathsToRemove.length === 0) {
        // Nothing new, but a visible link may have been removed by hand: put it back.
        await this.createUserVisibleFiles(clean);
        return false;
      }
    }

    const tsDir = await mkdtemp(path.join(this.targetDir, timestampName(this.now())));
    // 0755 so that 'group' and 'other' can traverse whatever the umask.
    await chmod(tsDir, 0o755);
    try {
      for (const [relative, projection] of clean) {
        const fullPath = path.join(tsDir, relative);
        await mkdir(path.dirname(fullPath), { recursive: true });
        await writeFile(fullPath, projection.data, { mode: projection.mode });
        // writeFile's mode is masked by the umask; the volume must show the requested mode.
        await chmod(fullPath, projection.mode);
      }
      await this.createUserVisibleFiles(clean);
      const newDataDirPath = path.join(this.targetDir, newDataDirName);
      await rm(newDataDirPath, { force: true });
      await symlink(path.basename(tsDir), newDataDirPath);
      await rename(newDataDirPath, dataDirPath);
    } catch (error) {
      await rm(path.join(this.targetDir, newDataDirName), { force: true });
      await rm(tsDir, { recursive: true, force: true });
      throw error;
    }

    for (const relative of pathsToRemove) {
      // Only links in the volume root: nested paths lived inside the old version directory.
      if (relative.includes('/')) continue;
      await unlink(path.join(this.targetDir, relative)).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
    }
    if (oldTsPath !== '' && path.basename(oldTsPath) !== path.basename(tsDir)) await rm(oldTsPath, { recursive: true, force: true });
    return true;
  }

  private async pathsToRemove(payload: Map<string, FileProjection>, oldTsPath: string): Promise<string[]> {
    const current = await walk(oldTsPath);
    const wanted = new Set<string>();
    for (const file of payload.keys()) {
      // Keep every ancestor so that non-empty directories are never scheduled for removal.
      for (let sub = file; sub !== '' && sub !== '.'; sub = path.posix.dirname(sub)) wanted.add(sub);
    }
    return current.filter((relative) => !wanted.has(relative));
  }

  private async createUserVisibleFiles(payload: Map<string, FileProjection>): Promise<void> {
    const topLevel = new Set([...payload.keys()].map((relative) => relative.split('/')[0]));
    for (const name of topLevel) {
      const visible = path.join(this.targetDir, name);
      try {
        await lstat(visible);
      } catch (error) {
        if (!isMissing(error)) throw error;
        await symlink(`${dataDirName}/${name}`, visible);
      }
    }
  }
}

/** True when the directory holds an AtomicWriter projection (a `..data` link). */
export async function hasProjection(targetDir: string): Promise<boolean> {
  try {
    return (await lstat(path.join(targetDir, dataDirName))).isSymbolicLink();
  } catch {
    return false;
  }
}

export const atomicWriterNames = { dataDirName, newDataDirName } as const;
