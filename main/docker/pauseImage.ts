// The pod sandbox ("pause") image, built locally without a registry. Upstream's
// build/pause/linux/pause.c only has to hold the pod's namespaces open: it sleeps in pause() and
// exits on SIGTERM/SIGINT. We generate an equivalent static ELF in a few bytes, put it alone in a
// tar and `docker import` it under a tag derived from its content. Sandboxes run with
// HostConfig.Init=true so docker-init (tini) is PID 1 and forwards SIGTERM: `docker stop` takes
// ~0.1 s with exit code 143 instead of waiting out the grace period.
import { createHash } from 'node:crypto';

/** Label on the pause image, so `kubedesk reset` and tests can tell it from user images. */
export const pauseImageLabel = 'dev.kubedesk.pause';

export type PauseArchitecture = 'amd64' | 'arm64';

const loadAddress = 0x400000n;
const elfHeaderSize = 64;
const programHeaderSize = 56;

/**
 * x86-64: `loop: mov eax, 34 (pause); syscall; jmp loop`.
 * aarch64: `loop: x0..x3 = 0; x8 = 73 (ppoll); svc #0; b loop` — aarch64 has no pause syscall;
 * ppoll(NULL, 0, NULL, NULL) sleeps until a signal arrives. The arm64 variant is UNTESTED here
 * (this machine is x86-64 and has no qemu-user); it is what Docker Desktop on Apple Silicon runs.
 */
function machineCode(architecture: PauseArchitecture): { machine: number; code: Buffer } {
  if (architecture === 'amd64') {
    return { machine: 62, code: Buffer.from([0xb8, 0x22, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xeb, 0xf7]) };
  }
  const instructions = [
    0xd2800000, // mov x0, #0
    0xd2800001, // mov x1, #0
    0xd2800002, // mov x2, #0
    0xd2800003, // mov x3, #0
    0xd2800928, // mov x8, #73
    0xd4000001, // svc #0
    0x17fffffa, // b -6 instructions
  ];
  const code = Buffer.alloc(instructions.length * 4);
  instructions.forEach((instruction, index) => code.writeUInt32LE(instruction, index * 4));
  return { machine: 183, code };
}

/** A static ELF64 executable with one PT_LOAD segment (the whole file), entry after the headers. */
export function pauseExecutable(architecture: PauseArchitecture): Buffer {
  const { machine, code } = machineCode(architecture);
  const size = elfHeaderSize + programHeaderSize + code.length;
  const file = Buffer.alloc(size);
  file.writeUInt32BE(0x7f454c46, 0); // \x7fELF
  file[4] = 2; // 64-bit
  file[5] = 1; // little endian
  file[6] = 1; // ELF version
  file.writeUInt16LE(2, 16); // ET_EXEC
  file.writeUInt16LE(machine, 18);
  file.writeUInt32LE(1, 20);
  file.writeBigUInt64LE(loadAddress + BigInt(elfHeaderSize + programHeaderSize), 24); // entry
  file.writeBigUInt64LE(BigInt(elfHeaderSize), 32); // program header table offset
  file.writeBigUInt64LE(0n, 40); // no section headers
  file.writeUInt32LE(0, 48);
  file.writeUInt16LE(elfHeaderSize, 52);
  file.writeUInt16LE(programHeaderSize, 54);
  file.writeUInt16LE(1, 56); // one program header
  file.writeUInt16LE(64, 58);
  file.writeUInt16LE(0, 60);
  file.writeUInt16LE(0, 62);
  const program = elfHeaderSize;
  file.writeUInt32LE(1, program); // PT_LOAD
  file.writeUInt32LE(5, program + 4); // read + execute
  file.writeBigUInt64LE(0n, program + 8); // file offset
  file.writeBigUInt64LE(loadAddress, program + 16); // virtual address
  file.writeBigUInt64LE(loadAddress, program + 24); // physical address
  file.writeBigUInt64LE(BigInt(size), program + 32); // size in file
  file.writeBigUInt64LE(BigInt(size), program + 40); // size in memory
  file.writeBigUInt64LE(0x10000n, program + 48); // alignment (64 KiB covers arm64 kernels with 64K pages)
  code.copy(file, elfHeaderSize + programHeaderSize);
  return file;
}

/** `kubedesk/pause:<12 hex digits of the executable's sha256>`: the same bytes give the same tag. */
export function pauseImageTag(architecture: PauseArchitecture): string {
  const digest = createHash('sha256').update(pauseExecutable(architecture)).digest('hex');
  return `kubedesk/pause:${digest.slice(0, 12)}`;
}

/** Docker's `Architecture` (uname -m of the daemon) to the executable we generate. */
export function pauseArchitecture(dockerArchitecture: string): PauseArchitecture {
  const normalized = dockerArchitecture.toLowerCase();
  if (normalized === 'x86_64' || normalized === 'amd64') return 'amd64';
  if (normalized === 'aarch64' || normalized === 'arm64') return 'arm64';
  throw new Error(`unsupported Docker architecture ${dockerArchitecture}: the pause image exists for amd64 and arm64`);
}
