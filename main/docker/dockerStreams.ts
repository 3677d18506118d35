// Docker's stream multiplexing for non-tty logs, attach and exec: each frame is an 8-byte header
// (stream type 0/1/2, three zero bytes, big-endian payload length) and the payload. A tty
// container's streams are raw. kubectl logs shows stdout and stderr merged in arrival order, as the
// kubelet's CRI log reader does, and `limitBytes` cuts the merged text.
import { PassThrough, type Readable, type Writable } from 'node:stream';

export type StreamType = 0 | 1 | 2; // stdin, stdout, stderr

/** Incremental parser of Docker's multiplexed frames; hands out payload slices without copying. */
export class FrameParser {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private header: { type: StreamType; remaining: number } | undefined;

  constructor(private readonly onFrame: (type: StreamType, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      if (this.header) {
        const take = Math.min(this.header.remaining, chunk.length - offset);
        if (take > 0) this.onFrame(this.header.type, chunk.subarray(offset, offset + take));
        offset += take;
        this.header.remaining -= take;
        if (this.header.remaining === 0) this.header = undefined;
        continue;
      }
      // Collect 8 header bytes, possibly split across chunks.
      const need = 8 - this.pendingBytes;
      const take = Math.min(need, chunk.length - offset);
      this.pending.push(chunk.subarray(offset, offset + take));
      this.pendingBytes += take;
      offset += take;
      if (this.pendingBytes < 8) return;
      const header = Buffer.concat(this.pending, 8);
      this.pending = [];
      this.pendingBytes = 0;
      const type = header[0];
      const length = header.readUInt32BE(4);
      const streamType: StreamType = type === 0 || type === 1 || type === 2 ? type : 1;
      if (length > 0) this.header = { type: streamType, remaining: length };
    }
  }
}

export interface MergeOptions {
  /** the source is a tty stream (raw bytes, no frames) */
  raw: boolean;
  limitBytes?: number;
}

/**
 * One readable stream of the payloads (stdout and stderr in arrival order), honouring back-pressure,
 * cut at limitBytes. Destroying the result destroys the source (ends a `follow`).
 */
export function mergeStreams(source: Readable, options: MergeOptions): Readable {
  const output = new PassThrough();
  let written = 0;
  let finished = false;
  const limit = options.limitBytes !== undefined && options.limitBytes > 0 ? options.limitBytes : Infinity;

  const finish = (): void => {
    if (finished) return;
    finished = true;
    output.end();
    source.destroy();
  };
  const emit = (payload: Buffer): void => {
    if (finished) return;
    let slice = payload;
    if (written + slice.length > limit) slice = slice.subarray(0, limit - written);
    written += slice.length;
    if (slice.length > 0 && !output.write(slice)) source.pause();
    if (written >= limit) finish();
  };
  // Log frames are one line each: gather a chunk's payloads and write them once, so a 100 MB log
  // is not a million tiny writes.
  let batch: Buffer[] = [];
  const parser = new FrameParser((type, payload) => {
    if (type !== 0) batch.push(payload);
  });
  source.on('data', (chunk: Buffer | string) => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (options.raw) return emit(buffer);
    parser.push(buffer);
    if (batch.length === 0) return;
    const payload = batch.length === 1 ? batch[0] : Buffer.concat(batch);
    batch = [];
    emit(payload);
  });
  output.on('drain', () => {
    if (!finished) source.resume();
  });
  source.on('end', () => {
    if (!finished) {
      finished = true;
      output.end();
    }
  });
  source.on('error', (error: Error) => {
    if (!finished) {
      finished = true;
      output.destroy(error);
    }
  });
  source.on('close', () => {
    // The daemon hung up without an end (e.g. dockerd stopped): end the output so readers finish.
    if (!finished) {
      finished = true;
      output.end();
    }
  });
  output.on('close', () => source.destroy());
  return output;
}

/** Splits a multiplexed source into stdout and stderr, with back-pressure; ends both at the end. */
export function splitStreams(source: Readable, stdout: Writable, stderr: Writable): void {
  let blocked = 0;
  const onDrain = (): void => {
    blocked--;
    if (blocked === 0) source.resume();
  };
  const parser = new FrameParser((type, payload) => {
    const target = type === 2 ? stderr : stdout;
    if (type === 0) return;
    if (!target.write(payload)) {
      blocked++;
      source.pause();
      target.once('drain', onDrain);
    }
  });
  source.on('data', (chunk: Buffer | string) => parser.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  const end = (): void => {
    if (!stdout.writableEnded) stdout.end();
    if (!stderr.writableEnded) stderr.end();
  };
  source.on('end', end);
  source.on('close', end);
  source.on('error', end);
}
