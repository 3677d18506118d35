// Compiles kubedesk's two in-network programs into static Linux executables with the system C
// compiler (the toolchain better-sqlite3 already needs):
//   dist/netd/kd-netd-linux-<arch>    the service proxy (main/network/netd/netd.c)
//   dist/netd/kd-netpol-linux-<arch>  a pod's packet filter for NetworkPolicy (netpol.c)
// Both link packetFilter.c. A program whose output is newer than all its sources is skipped.
// Usage: node scripts/buildNetd.mjs   (exit code 1 and the compiler's output on failure)
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'main', 'network', 'netd');
const architectures = { x64: 'amd64', arm64: 'arm64' };
const architecture = architectures[process.arch];
if (!architecture) {
  process.stderr.write(`buildNetd: unsupported architecture ${process.arch} (kd-netd is built for amd64 and arm64)\n`);
  process.exit(1);
}

const programs = [
  { name: 'kd-netd', sources: ['netd.c', 'packetFilter.c'], headers: ['packetFilter.h'], libraries: ['-lpthread'] },
  { name: 'kd-netpol', sources: ['netpol.c', 'packetFilter.c'], headers: ['packetFilter.h'], libraries: [] },
];

function modifiedTime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

for (const program of programs) {
  const output = join(root, 'dist', 'netd', `${program.name}-linux-${architecture}`);
  const inputs = [...program.sources, ...program.headers].map((file) => join(sourceDir, file));
  const inputTimes = inputs.map(modifiedTime);
  const missing = inputs.find((_, index) => inputTimes[index] === undefined);
  if (missing) {
    process.stderr.write(`buildNetd: ${missing} is missing\n`);
    process.exit(1);
  }
  const outputTime = modifiedTime(output);
  if (outputTime !== undefined && inputTimes.every((time) => outputTime >= time)) continue;

  if (process.platform !== 'linux') {
    // The containers run Linux; a macOS/Windows host would need a cross compiler.
    process.stderr.write(`buildNetd: ${program.name} must be compiled on Linux (or copied into ${output})\n`);
    process.exit(1);
  }

  mkdirSync(dirname(output), { recursive: true });
  // Compile to a temporary name so an interrupted build never leaves a truncated executable behind.
  const temporary = `${output}.${process.pid}.tmp`;
  const compiler = process.env.CC || 'cc';
  const sources = program.sources.map((file) => join(sourceDir, file));
  const result = spawnSync(compiler, ['-O2', '-static', '-Wall', '-Wextra', '-o', temporary, ...sources, ...program.libraries], { encoding: 'utf8' });
  const compilerOutput = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  if (result.status !== 0) {
    rmSync(temporary, { force: true });
    const detail = compilerOutput || String(result.error?.message ?? `${compiler} exited with ${result.status ?? result.signal}`);
    process.stderr.write(`buildNetd: compiling ${program.name} failed:\n${detail}\n`);
    process.exit(1);
  }
  // The sources are meant to compile cleanly; show any warning rather than hide it.
  if (compilerOutput) process.stderr.write(`${compilerOutput}\n`);
  renameSync(temporary, output);
}
