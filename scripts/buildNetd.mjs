// Compiles kd-netd (main/network/netd/netd.c), kubedesk's in-network service proxy, into a static
// Linux executable at dist/netd/kd-netd-linux-<arch> with the system C compiler (the toolchain
// better-sqlite3 already needs). Skips the work when the output is newer than the source.
// Usage: node scripts/buildNetd.mjs   (exit code 1 and the compiler's output on failure)
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'main', 'network', 'netd', 'netd.c');
const architectures = { x64: 'amd64', arm64: 'arm64' };
const architecture = architectures[process.arch];
if (!architecture) {
  process.stderr.write(`buildNetd: unsupported architecture ${process.arch} (kd-netd is built for amd64 and arm64)\n`);
  process.exit(1);
}
const output = join(root, 'dist', 'netd', `kd-netd-linux-${architecture}`);

function modifiedTime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

const outputTime = modifiedTime(output);
const sourceTime = modifiedTime(source);
if (sourceTime === undefined) {
  process.stderr.write(`buildNetd: ${source} is missing\n`);
  process.exit(1);
}
if (outputTime !== undefined && outputTime >= sourceTime) process.exit(0);

if (process.platform !== 'linux') {
  // The container runs Linux; a macOS/Windows host would need a cross compiler.
  process.stderr.write(`buildNetd: kd-netd must be compiled on Linux (or copied into ${output})\n`);
  process.exit(1);
}

mkdirSync(dirname(output), { recursive: true });
// Compile to a temporary name so an interrupted build never leaves a truncated executable behind.
const temporary = `${output}.${process.pid}.tmp`;
const compiler = process.env.CC || 'cc';
const result = spawnSync(compiler, ['-O2', '-static', '-Wall', '-Wextra', '-o', temporary, source, '-lpthread'], { encoding: 'utf8' });
const compilerOutput = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
if (result.status !== 0) {
  rmSync(temporary, { force: true });
  const detail = compilerOutput || String(result.error?.message ?? `${compiler} exited with ${result.status ?? result.signal}`);
  process.stderr.write(`buildNetd: compiling ${source} failed:\n${detail}\n`);
  process.exit(1);
}
// netd.c is meant to compile cleanly; show any warning rather than hide it.
if (compilerOutput) process.stderr.write(`${compilerOutput}\n`);
renameSync(temporary, output);
