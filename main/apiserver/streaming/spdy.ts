// A minimal SPDY/3.1 server session over a byte stream, enough for kubectl's port-forward (which
// still speaks SPDY, tunnelled in a WebSocket or over a direct `Upgrade: SPDY/3.1`). Wire format per
// the SPDY/3 draft as implemented by moby/spdystream (client-go's httpstream/spdy): 8-byte frame
// headers, header blocks compressed by ONE zlib stream per direction for the whole connection,
// primed with the SPDY/3 dictionary and flushed with Z_SYNC_FLUSH after every block. spdystream
// does no flow control, so WINDOW_UPDATE and SETTINGS are read and ignored, and none are sent.
import { Duplex } from 'node:stream';
import pako from 'pako';
import { SPDY3_DICTIONARY } from './spdyDictionary';

export const SPDY_VERSION = 3;

export const ControlType = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goAway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

/** RST_STREAM status codes. */
export const RstStatus = {
  protocolError: 1,
  invalidStream: 2,
  refusedStream: 3,
  internalError: 6,
  cancel: 5,
} as const;

const FLAG_FIN = 0x01;
const FLAG_UNIDIRECTIONAL = 0x02;
const HEADER_LENGTH = 8;
/** Outgoing DATA frames are cut at this size so one large write does not monopolise the connection. */
const MAX_DATA_PAYLOAD = 64 * 1024;
/** Frames larger than this are a protocol error (the 24-bit length allows 16 MiB; no sane peer sends that). */
const MAX_FRAME_PAYLOAD = 16 * 1024 * 1024 - 1;

export type SpdyHeaders = Record<string, string>;

/** A frame as split off the byte stream, control payloads still raw (header blocks compressed). */
export type RawFrame = { control: false; streamId: number; flags: number; payload: Buffer } | { control: true; version: number; type: number; flags: number; payload: Buffer };

export class SpdyProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpdyProtocolError';
  }
}

/** Splits an arbitrarily chunked byte stream into frames. */
export class FrameReader {
  private buffered: Buffer[] = [];
  private length = 0;

  push(chunk: Buffer): RawFrame[] {
    if (chunk.length > 0) {
      this.buffered.push(chunk);
      this.length += chunk.length;
    }
    const frames: RawFrame[] = [];
    while (this.length >= HEADER_LENGTH) {
      const head = this.peek(HEADER_LENGTH);
      const payloadLength = head.readUIntBE(5, 3);
      if (payloadLength > MAX_FRAME_PAYLOAD) throw new SpdyProtocolError(`frame too large: ${payloadLength}`);
      if (this.length < HEADER_LENGTH + payloadLength) break;
      const frame = this.take(HEADER_LENGTH + payloadLength);
      const flags = frame[4];
      const payload = frame.subarray(HEADER_LENGTH);
      if (frame[0] & 0x80) frames.push({ control: true, version: frame.readUInt16BE(0) & 0x7fff, type: frame.readUInt16BE(2), flags, payload });
      else frames.push({ control: false, streamId: frame.readUInt32BE(0) & 0x7fffffff, flags, payload });
    }
    return frames;
  }

  private peek(count: number): Buffer {
    if (this.buffered[0].length < count) this.buffered = [Buffer.concat(this.buffered)];
    return this.buffered[0].subarray(0, count);
  }

  private take(count: number): Buffer {
    if (this.buffered[0].length < count) this.buffered = [Buffer.concat(this.buffered)];
    const first = this.buffered[0];
    const taken = first.subarray(0, count);
    if (first.length === count) this.buffered.shift();
    else this.buffered[0] = first.subarray(count);
    this.length -= count;
    return taken;
  }
}

/** The compressing half of a connection's header codec (one persistent deflate stream). */
export class HeaderCompressor {
  private readonly deflate = new pako.Deflate({ level: 6, dictionary: SPDY3_DICTIONARY });
  private output: Buffer[] = [];

  constructor() {
    this.deflate.onData = (chunk) => {
      this.output.push(copyChunk(chunk));
    };
  }

  compress(headers: SpdyHeaders): Buffer {
    this.output = [];
    if (!this.deflate.push(encodeHeaderBlock(headers), pako.constants.Z_SYNC_FLUSH)) throw new SpdyProtocolError(`header compression failed: ${String(this.deflate.msg)}`);
    return Buffer.concat(this.output);
  }
}

/** The decompressing half of a connection's header codec (one persistent inflate stream). */
export class HeaderDecompressor {
  private readonly inflate = new pako.Inflate({ dictionary: SPDY3_DICTIONARY });
  private output: Buffer[] = [];

  constructor() {
    this.inflate.onData = (chunk) => {
      this.output.push(copyChunk(chunk));
    };
  }

  decompress(block: Buffer): SpdyHeaders {
    this.output = [];
    if (block.length > 0 && (!this.inflate.push(block, pako.constants.Z_SYNC_FLUSH) || this.inflate.err)) {
      throw new SpdyProtocolError(`header block does not decompress: ${String(this.inflate.msg)}`);
    }
    return decodeHeaderBlock(Buffer.concat(this.output));
  }
}

function copyChunk(chunk: Uint8Array | ArrayBuffer): Buffer {
  // pako may hand out views of buffers it later reuses; the session keeps its own copy.
  return chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(new Uint8Array(chunk));
}

/** `u32 count, (u32 length, name, u32 length, value)…` — names lower-case, several values NUL-joined. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const entries = Object.entries(headers);
  const count = Buffer.alloc(4);
  count.writeUInt32BE(entries.length);
  parts.push(count);
  for (const [name, value] of entries) {
    for (const text of [name.toLowerCase(), value]) {
      const bytes = Buffer.from(text, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      parts.push(length, bytes);
    }
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  if (block.length < 4) throw new SpdyProtocolError('header block too short');
  const count = block.readUInt32BE(0);
  const headers: SpdyHeaders = {};
  let offset = 4;
  const readString = (): string => {
    if (offset + 4 > block.length) throw new SpdyProtocolError('truncated header block');
    const length = block.readUInt32BE(offset);
    offset += 4;
    if (offset + length > block.length) throw new SpdyProtocolError('truncated header block');
    const text = block.toString('utf8', offset, offset + length);
    offset += length;
    return text;
  };
  for (let index = 0; index < count; index++) {
    const name = readString().toLowerCase();
    headers[name] = readString();
  }
  return headers;
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const frame = Buffer.alloc(HEADER_LENGTH + payload.length);
  frame.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  frame.writeUInt16BE(type, 2);
  frame.writeUInt32BE(payload.length, 4);
  frame[4] = flags;
  payload.copy(frame, HEADER_LENGTH);
  return frame;
}

export function encodeDataFrame(streamId: number, data: Buffer, fin: boolean): Buffer {
  const frame = Buffer.alloc(HEADER_LENGTH + data.length);
  frame.writeUInt32BE(streamId & 0x7fffffff, 0);
  frame.writeUInt32BE(data.length, 4);
  frame[4] = fin ? FLAG_FIN : 0;
  data.copy(frame, HEADER_LENGTH);
  return frame;
}

/** SYN_STREAM (what a client sends; used by tests and any future client side). */
export function encodeSynStream(streamId: number, compressedHeaders: Buffer, options: { fin?: boolean; associatedStreamId?: number; priority?: number } = {}): Buffer {
  const payload = Buffer.alloc(10 + compressedHeaders.length);
  payload.writeUInt32BE(streamId & 0x7fffffff, 0);
  payload.writeUInt32BE((options.associatedStreamId ?? 0) & 0x7fffffff, 4);
  payload[8] = ((options.priority ?? 0) & 0x7) << 5;
  compressedHeaders.copy(payload, 10);
  return controlFrame(ControlType.synStream, options.fin ? FLAG_FIN : 0, payload);
}

export function encodeSynReply(streamId: number, compressedHeaders: Buffer, fin = false): Buffer {
  const payload = Buffer.alloc(4 + compressedHeaders.length);
  payload.writeUInt32BE(streamId & 0x7fffffff, 0);
  compressedHeaders.copy(payload, 4);
  return controlFrame(ControlType.synReply, fin ? FLAG_FIN : 0, payload);
}

export function encodeRstStream(streamId: number, status: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(streamId & 0x7fffffff, 0);
  payload.writeUInt32BE(status, 4);
  return controlFrame(ControlType.rstStream, 0, payload);
}

export function encodePing(id: number): Buffer {
  const payload = Buffer.alloc(4);
  payload.writeUInt32BE(id >>> 0, 0);
  return controlFrame(ControlType.ping, 0, payload);
}

export function encodeGoAway(lastGoodStreamId: number, status = 0): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
  payload.writeUInt32BE(status, 4);
  return controlFrame(ControlType.goAway, 0, payload);
}

export function encodeWindowUpdate(streamId: number, delta: number): Buffer {
  const payload = Buffer.alloc(8);
  payload.writeUInt32BE(streamId & 0x7fffffff, 0);
  payload.writeUInt32BE(delta & 0x7fffffff, 4);
  return controlFrame(ControlType.windowUpdate, 0, payload);
}

export function encodeSettings(entries: Array<{ id: number; value: number; flags?: number }>): Buffer {
  const payload = Buffer.alloc(4 + 8 * entries.length);
  payload.writeUInt32BE(entries.length, 0);
  entries.forEach((entry, index) => {
    payload.writeUInt32BE(((entry.flags ?? 0) << 24) | (entry.id & 0xffffff), 4 + index * 8);
    payload.writeUInt32BE(entry.value >>> 0, 8 + index * 8);
  });
  return controlFrame(ControlType.settings, 0, payload);
}

export interface SpdySessionOptions {
  /** Sends bytes to the peer; `done` runs once they are handed to the transport (back-pressure). */
  write(data: Buffer, done: (error?: Error | null) => void): void;
  /** Closes the transport (after a protocol error or `close()`). */
  end(): void;
  /** A peer-initiated stream (SYN_STREAM); call `stream.reply()` to accept it. */
  onStream(stream: SpdyStream): void;
  onError?(error: Error): void;
}

/** The server side of one SPDY connection. Feed received bytes to `receive`. */
export class SpdySession {
  private readonly reader = new FrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private lastPeerStreamId = 0;
  private goneAway = false;
  private closedFlag = false;

  constructor(private readonly options: SpdySessionOptions) {}

  get closed(): boolean {
    return this.closedFlag;
  }

  receive(chunk: Buffer): void {
    if (this.closedFlag) return;
    try {
      for (const frame of this.reader.push(chunk)) this.dispatch(frame);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.options.onError?.(failure);
      this.close();
    }
  }

  /** Says no more streams will be accepted (GOAWAY OK); existing streams continue. */
  goAway(): void {
    if (this.goneAway || this.closedFlag) return;
    this.goneAway = true;
    this.send(encodeGoAway(this.lastPeerStreamId));
  }

  /** The transport went away (or we give up): every stream is destroyed and the transport ended. */
  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    for (const stream of [...this.streams.values()]) stream.destroy();
    this.streams.clear();
    this.options.end();
  }

  /** @internal used by SpdyStream */
  send(frame: Buffer, done: (error?: Error | null) => void = noop): void {
    if (this.closedFlag) {
      done(new Error('SPDY session closed'));
      return;
    }
    this.options.write(frame, done);
  }

  /** @internal */
  sendHeaders(streamId: number, headers: SpdyHeaders, fin: boolean): void {
    this.send(encodeSynReply(streamId, this.compressor.compress(headers), fin));
  }

  /** @internal */
  forget(streamId: number): void {
    this.streams.delete(streamId);
  }

  private dispatch(frame: RawFrame): void {
    if (!frame.control) {
      const stream = this.streams.get(frame.streamId);
      // Data for a stream already reset or finished is dropped, as spdystream does.
      if (!stream) return;
      stream.receiveData(frame.payload, (frame.flags & FLAG_FIN) !== 0);
      return;
    }
    if (frame.version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${frame.version}`);
    const payload = frame.payload;
    switch (frame.type) {
      case ControlType.synStream: {
        if (payload.length < 10) throw new SpdyProtocolError('short SYN_STREAM');
        const streamId = payload.readUInt32BE(0) & 0x7fffffff;
        // The header block must be inflated even when the stream is refused: the zlib state is shared.
        const headers = this.decompressor.decompress(payload.subarray(10));
        if (this.goneAway || streamId <= this.lastPeerStreamId || streamId % 2 === 0 || this.streams.has(streamId)) {
          this.send(encodeRstStream(streamId, this.goneAway ? RstStatus.refusedStream : RstStatus.protocolError));
          return;
        }
        this.lastPeerStreamId = streamId;
        const stream = new SpdyStream(this, streamId, headers, (frame.flags & FLAG_UNIDIRECTIONAL) !== 0);
        this.streams.set(streamId, stream);
        if (frame.flags & FLAG_FIN) stream.receiveData(Buffer.alloc(0), true);
        this.options.onStream(stream);
        return;
      }
      case ControlType.synReply:
      case ControlType.headers:
        if (payload.length < 4) throw new SpdyProtocolError('short header frame');
        this.decompressor.decompress(payload.subarray(4));
        return;
      case ControlType.rstStream: {
        if (payload.length < 8) throw new SpdyProtocolError('short RST_STREAM');
        this.streams.get(payload.readUInt32BE(0) & 0x7fffffff)?.resetByPeer();
        return;
      }
      case ControlType.ping: {
        if (payload.length < 4) throw new SpdyProtocolError('short PING');
        const id = payload.readUInt32BE(0);
        // Odd ids are the client's pings, to be echoed; even ones would be answers to ours.
        if (id % 2 === 1) this.send(encodePing(id));
        return;
      }
      case ControlType.goAway:
        this.goneAway = true;
        return;
      default:
        // SETTINGS, WINDOW_UPDATE, CREDENTIAL and unknown types: nothing to do without flow control.
        return;
    }
  }
}

function noop(): void {
  // intentionally empty
}

/**
 * One SPDY stream as a Duplex: readable = the peer's DATA, writable = our DATA (end() sends FIN).
 * Destroying it before both directions finished sends RST_STREAM CANCEL.
 */
export class SpdyStream extends Duplex {
  private replied = false;
  private localFinished = false;
  private remoteFinished = false;
  private reset = false;

  constructor(
    private readonly session: SpdySession,
    readonly id: number,
    readonly headers: SpdyHeaders,
    unidirectional: boolean,
  ) {
    super({ allowHalfOpen: true });
    if (unidirectional) this.localFinished = true;
  }

  /** Accepts the stream with a SYN_REPLY (empty header block unless given). */
  reply(headers: SpdyHeaders = {}): void {
    if (this.replied || this.reset) return;
    this.replied = true;
    this.session.sendHeaders(this.id, headers, false);
  }

  /** Aborts the stream with RST_STREAM. */
  resetStream(status: number = RstStatus.cancel): void {
    if (this.reset) return;
    this.reset = true;
    this.session.send(encodeRstStream(this.id, status));
    this.destroy();
  }

  get wasReset(): boolean {
    return this.reset;
  }

  /** @internal */
  receiveData(data: Buffer, fin: boolean): void {
    if (this.remoteFinished) return;
    if (data.length > 0) this.push(data);
    if (fin) {
      this.remoteFinished = true;
      this.push(null);
      this.maybeForget();
    }
  }

  /** @internal */
  resetByPeer(): void {
    this.reset = true;
    this.destroy();
  }

  override _read(): void {
    // Data is pushed as frames arrive; spdystream has no flow control to pause the peer with.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.reset) {
      callback(new Error('stream reset'));
      return;
    }
    this.reply();
    let offset = 0;
    while (chunk.length - offset > MAX_DATA_PAYLOAD) {
      this.session.send(encodeDataFrame(this.id, chunk.subarray(offset, offset + MAX_DATA_PAYLOAD), false));
      offset += MAX_DATA_PAYLOAD;
    }
    this.session.send(encodeDataFrame(this.id, chunk.subarray(offset), false), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.reset && !this.localFinished) {
      this.reply();
      this.localFinished = true;
      this.session.send(encodeDataFrame(this.id, Buffer.alloc(0), true));
    }
    this.maybeForget();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.reset && !(this.localFinished && this.remoteFinished) && !this.session.closed) {
      this.reset = true;
      this.session.send(encodeRstStream(this.id, RstStatus.cancel));
    }
    this.session.forget(this.id);
    callback(error);
  }

  private maybeForget(): void {
    if (this.localFinished && this.remoteFinished) this.session.forget(this.id);
  }
}
