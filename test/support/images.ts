// Container images for the end-to-end suites, built locally so tests never need a registry (the
// same idea as the design's locally-built sandbox image): a root filesystem made of the host's
// static busybox and its applet links, imported with `docker import`.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, copyFileSync, chmodSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { repositoryRoot } from './tools';

const run = promisify(execFile);

// :4 adds /bin/udp-echo and /bin/http-bench (test/support/*.c): busybox's nc cannot do UDP
export const busyboxImage = 'kubedesk-test/busybox:4';

export interface TestImages {
  busybox: string;
}

/** Builds the test images that are not in the local Docker image store yet. */
export async function ensureTestImages(): Promise<TestImages> {
  if (!(await imageExists(busyboxImage))) await buildBusyboxImage(busyboxImage);
  return { busybox: busyboxImage };
}

export async function imageExists(name: string): Promise<boolean> {
  try {
    await run('docker', ['image', 'inspect', '--format', '{{.Id}}', name], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

async function buildBusyboxImage(name: string): Promise<void> {
  const busybox = findStaticBusybox();
  const root = mkdtempSync(join(tmpdir(), 'kubedesk-busybox-rootfs-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(busybox, join(root, 'bin', 'busybox'));
    chmodSync(join(root, 'bin', 'busybox'), 0o755);
    const { stdout } = await run(busybox, ['--list-full'], { timeout: 30_000 });
    for (const applet of stdout.split('\n').map((line) => line.trim()).filter(Boolean)) {
      if (applet === 'bin/busybox' || applet.includes('..')) continue;
      const link = join(root, applet);
      if (existsSync(link)) continue;
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync('/bin/busybox', link);
    }
    // two small static helpers busybox lacks: a UDP echo server and an HTTP timing client
    // from the repository root, so this also works when bundled elsewhere (scripts/ci-setup.sh)
    const here = join(repositoryRoot, 'test', 'support');
    await run('cc', ['-O2', '-static', '-o', join(root, 'bin', 'udp-echo'), join(here, 'udpEcho.c')], { timeout: 120_000 });
    await run('cc', ['-O2', '-static', '-o', join(root, 'bin', 'http-bench'), join(here, 'httpBench.c')], { timeout: 120_000 });
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n');
    writeFileSync(join(root, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n');
    for (const directory of ['tmp', 'root', 'home', 'var/tmp']) mkdirSync(join(root, directory), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    chmodSync(join(root, 'var', 'tmp'), 0o1777);
    chmodSync(join(root, 'root'), 0o700);
    await importRootFilesystem(root, name, ['CMD ["sh"]']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// `tar -C dir -c . | docker import - NAME`, with files owned by root inside the image.
function importRootFilesystem(root: string, name: string, changes: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const importArgs = ['import', ...changes.flatMap((change) => ['--change', change]), '-', name];
    const docker = spawn('docker', importArgs, { stdio: ['pipe', 'pipe', 'pipe'] });
    let errors = '';
    tar.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    docker.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    tar.stdout.pipe(docker.stdin);
    let tarCode: number | null | undefined;
    tar.on('error', reject);
    docker.on('error', reject);
    tar.on('close', (code) => (tarCode = code));
    docker.on('close', (code) => {
      if (code === 0 && tarCode === 0) resolve();
      else reject(new Error(`building ${name} failed (tar ${String(tarCode)}, docker import ${String(code)}): ${errors}`));
    });
  });
}

// A dynamically linked busybox would not run in an image without libc, so insist on a static one
// (Debian: busybox-static): an ELF file without a PT_INTERP program header.
function findStaticBusybox(): string {
  const candidates = ['/bin/busybox', '/usr/bin/busybox', '/usr/local/bin/busybox', '/sbin/busybox'];
  for (const candidate of candidates) {
    if (existsSync(candidate) && isStaticElf(candidate)) return candidate;
  }
  throw new Error('no statically linked busybox found: install busybox-static (scripts/ci-setup.sh does)');
}

function isStaticElf(path: string): boolean {
  const header = Buffer.alloc(64);
  const descriptor = openSync(path, 'r');
  try {
    readSync(descriptor, header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2) return false; // ELF, 64-bit
    const programHeaderOffset = Number(header.readBigUInt64LE(0x20));
    const entrySize = header.readUInt16LE(0x36);
    const count = header.readUInt16LE(0x38);
    const table = Buffer.alloc(entrySize * count);
    readSync(descriptor, table, 0, table.length, programHeaderOffset);
    for (let index = 0; index < count; index++) {
      if (table.readUInt32LE(index * entrySize) === 3) return false; // PT_INTERP: needs a dynamic loader
    }
    return true;
  } finally {
    closeSync(descriptor);
  }
}
