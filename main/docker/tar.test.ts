// The tar writer's output must be a valid ustar archive (GNU tar lists it) and the reader must
// find the first regular file in Docker-style archives, including behind a PAX header.
import { execFileSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFirstTarFile, writeTar } from './tar';

function chunked(buffer: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < buffer.length; offset += size) chunks.push(buffer.subarray(offset, offset + size));
  return Readable.from(chunks);
}

describe('tar', () => {
  it('writes an archive that GNU tar lists with mode and owner', () => {
    const archive = writeTar([{ path: 'pause', content: Buffer.from('x'.repeat(700)), mode: 0o755 }]);
    expect(archive.length % 512).toBe(0);
    const listing = execFileSync('tar', ['-tvf', '-', '--numeric-owner'], { input: archive }).toString();
    expect(listing).toMatch(/^-rwxr-xr-x 0\/0\s+700 .* pause\n$/);
  });

  it.each([1, 7, 512, 100_000])('reads the first file back from chunks of %i bytes, up to a limit', async (size) => {
    const archive = writeTar([
      { path: 'message', content: Buffer.from('terminated: bye'), mode: 0o644 },
      { path: 'other', content: Buffer.from('no'), mode: 0o644 },
    ]);
    expect((await readFirstTarFile(chunked(archive, size), 1024))?.toString()).toBe('terminated: bye');
    expect((await readFirstTarFile(chunked(archive, size), 10))?.toString()).toBe('terminated');
  });

  it('skips PAX headers and gives undefined for a directory', async () => {
    const pax = writeTar([{ path: 'PaxHeader', content: Buffer.from('30 path=a/very/long/name/here\n'), mode: 0o644 }]).subarray(0, 1024);
    pax.write('x', 156, 'ascii');
    const file = writeTar([{ path: 'name', content: Buffer.from('content'), mode: 0o644 }]);
    expect((await readFirstTarFile(Readable.from([Buffer.concat([pax, file])]), 100))?.toString()).toBe('content');
    const directory = writeTar([{ path: 'dir/', content: Buffer.alloc(0), mode: 0o755 }]);
    directory.write('5', 156, 'ascii');
    expect(await readFirstTarFile(Readable.from([directory]), 100)).toBeUndefined();
  });
});
