// A minimal POSIX ustar writer and a reader for the first regular file of a tar stream. The writer
// builds the pause image's root filesystem in memory (`docker import` takes a tar); the reader
// parses Docker's `GET /containers/{id}/archive` answer, which is how the kubelet reads a
// container's termination message (dockershim copied it out of the container the same way).
import type { Readable } from 'node:stream';

const blockSize = 512;

export interface TarEntry {
  path: string;
  content: Buffer;
  mode: number;
}

/** A tar archive holding regular files owned by root, ready to stream into `docker import`. */
export function writeTar(entries: TarEntry[], modifiedTime = new Date(0)): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(tarHeader(entry, modifiedTime));
    parts.push(entry.content);
    const padding = (blockSize - (entry.content.length % blockSize)) % blockSize;
    if (padding > 0) parts.push(Buffer.alloc(padding));
  }
  // Two empty blocks mark the end of the archive.
  parts.push(Buffer.alloc(blockSize * 2));
  return Buffer.concat(parts);
}

function tarHeader(entry: TarEntry, modifiedTime: Date): Buffer {
  const header = Buffer.alloc(blockSize);
  if (Buffer.byteLength(entry.path) > 100) throw new Error(`tar path too long: ${entry.path}`);
  header.write(entry.path, 0, 100, 'utf8');
  writeOctal(header, 100, 8, entry.mode);
  writeOctal(header, 108, 8, 0); // uid
  writeOctal(header, 116, 8, 0); // gid
  writeOctal(header, 124, 12, entry.content.length);
  writeOctal(header, 136, 12, Math.floor(modifiedTime.getTime() / 1000));
  header.write('        ', 148, 8, 'ascii'); // checksum is computed with this field as spaces
  header.write('0', 156, 1, 'ascii'); // regular file
  header.write('ustar\u000000', 257, 8, 'ascii');
  header.write('root', 265, 32, 'ascii');
  header.write('root', 297, 32, 'ascii');
  let checksum = 0;
  for (const byte of header) checksum += byte;
  header.write(checksum.toString(8).padStart(6, '0') + '\u0000 ', 148, 8, 'ascii');
  return header;
}

function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  header.write(value.toString(8).padStart(length - 1, '0') + '\u0000', offset, length, 'ascii');
}

function readSize(header: Buffer): number {
  const field = header.subarray(124, 136);
  // GNU base-256 encoding for sizes over 8 GiB: high bit set in the first byte.
  if ((field[0] & 0x80) !== 0) {
    let size = 0;
    for (let index = 1; index < field.length; index++) size = size * 256 + field[index];
    return size;
  }
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function isZeroBlock(block: Buffer): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

/**
 * Reads the first regular file of a tar stream, up to maxBytes, then stops reading. Resolves
 * undefined when the archive's first real entry is not a regular file (a directory, a symlink).
 */
export function readFirstTarFile(stream: Readable | NodeJS.ReadableStream, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    let done = false;
    // Bytes of the current entry's data still to skip (extended headers) or to read (the file).
    let state: { kind: 'header' } | { kind: 'skip'; remaining: number } | { kind: 'file'; size: number } = { kind: 'header' };

    const finish = (error: Error | undefined, result?: Buffer): void => {
      if (done) return;
      done = true;
      stream.removeListener('data', onData);
      const destroyable = stream as { destroy?: () => void };
      if (typeof destroyable.destroy === 'function') destroyable.destroy();
      if (error) reject(error);
      else resolve(result);
    };

    const consume = (): void => {
      for (;;) {
        if (state.kind === 'header') {
          if (buffered.length < blockSize) return;
          const header = buffered.subarray(0, blockSize);
          buffered = buffered.subarray(blockSize);
          if (isZeroBlock(header)) return finish(undefined, undefined);
          const type = String.fromCharCode(header[156]);
          const size = readSize(header);
          const padded = Math.ceil(size / blockSize) * blockSize;
          // PAX ('x', 'g') and GNU long-name ('L', 'K') headers describe the next entry.
          if (type === 'x' || type === 'g' || type === 'L' || type === 'K') state = { kind: 'skip', remaining: padded };
          else if (type === '0' || type === '\0' || type === '7') state = { kind: 'file', size };
          else return finish(undefined, undefined);
        } else if (state.kind === 'skip') {
          const take = Math.min(state.remaining, buffered.length);
          buffered = buffered.subarray(take);
          state = state.remaining - take === 0 ? { kind: 'header' } : { kind: 'skip', remaining: state.remaining - take };
          if (state.kind === 'skip') return;
        } else {
          const wanted = Math.min(state.size, maxBytes);
          if (buffered.length < wanted) return;
          return finish(undefined, Buffer.from(buffered.subarray(0, wanted)));
        }
      }
    };

    const onData = (chunk: Buffer | string): void => {
      buffered = Buffer.concat([buffered, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
      consume();
    };
    stream.on('data', onData);
    stream.on('error', (error: Error) => finish(error));
    stream.on('end', () => {
      consume();
      if (!done) {
        if (state.kind === 'file') finish(undefined, Buffer.from(buffered.subarray(0, Math.min(state.size, maxBytes))));
        else finish(undefined, undefined);
      }
    });
  });
}
