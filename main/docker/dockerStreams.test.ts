// Docker's multiplexed stream frames: split across chunks, merged for logs with a byte limit, and
// split into stdout and stderr for exec and attach.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { mergeStreams, splitStreams } from './dockerStreams';

function frame(type: number, text: string): Buffer {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(Buffer.byteLength(text), 4);
  return Buffer.concat([header, Buffer.from(text)]);
}

function read(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
  });
}

const frames = Buffer.concat([frame(1, 'out one\n'), frame(2, 'err one\n'), frame(1, 'out two\n')]);

function bytewise(buffer: Buffer): Readable {
  return Readable.from([...buffer].map((byte) => Buffer.from([byte])));
}

describe('Docker stream frames', () => {
  it('merges stdout and stderr in arrival order even when headers are split across chunks', async () => {
    expect(await read(mergeStreams(bytewise(frames), { raw: false }))).toBe('out one\nerr one\nout two\n');
  });

  it('cuts the merged text at limitBytes and stops reading the source', async () => {
    const source = Readable.from([frames]);
    expect(await read(mergeStreams(source, { raw: false, limitBytes: 12 }))).toBe('out one\nerr ');
    expect(source.destroyed).toBe(true);
  });

  it('passes tty streams through untouched', async () => {
    expect(await read(mergeStreams(Readable.from([Buffer.from('raw\r\n')]), { raw: true }))).toBe('raw\r\n');
  });

  it('splits frames into stdout and stderr', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    splitStreams(bytewise(frames), stdout, stderr);
    expect(await Promise.all([read(stdout), read(stderr)])).toEqual(['out one\nout two\n', 'err one\n']);
  });
});
