// The generated pause executables: well-formed ELF64 headers for both architectures (amd64 is
// exercised for real by dockerRuntime.test.ts; arm64 is only checked structurally here).
import { describe, expect, it } from 'vitest';
import { pauseArchitecture, pauseExecutable, pauseImageTag } from './pauseImage';

describe('pause executable', () => {
  it.each([
    ['amd64', 62, 129],
    ['arm64', 183, 148],
  ] as const)('builds a static %s ELF with machine %i and %i bytes', (architecture, machine, size) => {
    const elf = pauseExecutable(architecture);
    expect(elf.length).toBe(size);
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
    expect(elf.readUInt16LE(18)).toBe(machine);
    expect(elf.readBigUInt64LE(24)).toBe(0x400000n + 120n); // entry right after the headers
    expect(elf.readUInt32LE(64)).toBe(1); // PT_LOAD
    expect(elf.readBigUInt64LE(64 + 32)).toBe(BigInt(size));
  });

  it('derives a stable tag per architecture', () => {
    expect(pauseImageTag('amd64')).toBe(pauseImageTag('amd64'));
    expect(pauseImageTag('amd64')).not.toBe(pauseImageTag('arm64'));
    expect(pauseImageTag('arm64')).toMatch(/^kubedesk\/pause:[0-9a-f]{12}$/);
  });

  it('maps Docker architectures and rejects others', () => {
    expect(pauseArchitecture('x86_64')).toBe('amd64');
    expect(pauseArchitecture('aarch64')).toBe('arm64');
    expect(() => pauseArchitecture('s390x')).toThrow('unsupported Docker architecture s390x');
  });
});
