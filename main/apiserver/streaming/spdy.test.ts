import { describe, expect, it } from 'vitest';
import { PassThrough, type Duplex } from 'node:stream';
import {
  ControlType,
  FrameReader,
  HeaderCompressor,
  HeaderDecompressor,
  RstStatus,
  SpdySession,
  encodeDataFrame,
  encodeGoAway,
  encodePing,
  encodeRstStream,
  encodeSettings,
  encodeSynStream,
  encodeWindowUpdate,
  type RawFrame,
  type SpdyStream,
} from './spdy';
import { createSpdyPortForwardSession } from './portForward';

/** Cuts bytes into pieces of 1 to 3 bytes, the way a tunnelled stream may arrive. */
function chunks(bytes: Buffer, seed = 7): Buffer[] {
  const pieces: Buffer[] = [];
  let offset = 0;
  let state = seed;
  while (offset < bytes.length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 3);
    pieces.push(bytes.subarray(offset, offset + size));
    offset += size;
  }
  return pieces;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The peer's view: what the server sent, parsed with the client's own inflate stream. */
class Peer {
  readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly reader = new FrameReader();
  readonly frames: Array<RawFrame & { headers?: Record<string, string> }> = [];

  accept(bytes: Buffer): void {
    for (const frame of this.reader.push(bytes)) {
      if (frame.control && frame.type === ControlType.synReply) this.frames.push({ ...frame, headers: this.decompressor.decompress(frame.payload.subarray(4)) });
      else this.frames.push(frame);
    }
  }

  synStream(id: number, headers: Record<string, string>, fin = false): Buffer {
    return encodeSynStream(id, this.compressor.compress(headers), { fin });
  }

  control(type: number): Array<RawFrame & { headers?: Record<string, string> }> {
    return this.frames.filter((frame) => frame.control && frame.type === type);
  }

  data(streamId: number): { bytes: Buffer; fin: boolean } {
    const frames = this.frames.filter((frame): frame is Extract<RawFrame, { control: false }> => !frame.control && frame.streamId === streamId);
    return { bytes: Buffer.concat(frames.map((frame) => frame.payload)), fin: frames.some((frame) => (frame.flags & 1) !== 0) };
  }
}

function newSession(peer: Peer, onStream: (stream: SpdyStream) => void): { session: SpdySession; ended: () => boolean } {
  let ended = false;
  const session = new SpdySession({
    write: (data, done) => {
      peer.accept(data);
      done();
    },
    end: () => {
      ended = true;
    },
    onStream,
  });
  return { session, ended: () => ended };
}

describe('SPDY header blocks', () => {
  it('decompresses the header block kubectl 1.35 sent for its first port-forward stream', () => {
    // SYN_STREAM payload after the stream ids, priority and slot, captured from kubectl (pf2.log).
    const block = Buffer.from('78f9e3c6a7c202253a703a2b294a4dcc851625aca9a0808614cb45a024cc6461c0c0c0c0590489c44c50e2663400000000ffff', 'hex');
    expect(new HeaderDecompressor().decompress(block)).toEqual({ streamtype: 'error', port: '80', requestid: '0' });
  });

  it('keeps one zlib stream across blocks in each direction', () => {
    const compressor = new HeaderCompressor();
    const decompressor = new HeaderDecompressor();
    const blocks: Array<Record<string, string>> = [{ streamtype: 'error', port: '80', requestid: '0' }, { streamtype: 'data', port: '80', requestid: '0' }, {}, { 'x-long': 'y'.repeat(70_000) }];
    for (const headers of blocks) expect(decompressor.decompress(compressor.compress(headers))).toEqual(headers);
  });

  it('rejects a block that is not part of the stream', () => {
    expect(() => new HeaderDecompressor().decompress(Buffer.from('not zlib at all'))).toThrow(/does not decompress/);
  });
});

describe('FrameReader', () => {
  it('reassembles control and data frames split into 1 to 3 byte chunks', () => {
    const bytes = Buffer.concat([encodePing(1), encodeDataFrame(3, Buffer.from('hello'), true), encodeRstStream(5, RstStatus.cancel), encodeDataFrame(7, Buffer.alloc(0), false)]);
    const reader = new FrameReader();
    const frames = chunks(bytes).flatMap((piece) => reader.push(piece));
    expect(frames).toHaveLength(4);
    expect(frames[0]).toMatchObject({ control: true, version: 3, type: ControlType.ping });
    expect(frames[1]).toMatchObject({ control: false, streamId: 3, flags: 1 });
    expect(frames[1].payload.toString()).toBe('hello');
    expect(frames[2]).toMatchObject({ control: true, type: ControlType.rstStream });
    expect(frames[3]).toMatchObject({ control: false, streamId: 7, flags: 0 });
    expect(frames[3].payload).toHaveLength(0);
  });
});

describe('SpdySession', () => {
  it('accepts streams, echoes client pings, ignores SETTINGS and WINDOW_UPDATE, whatever the chunking', async () => {
    const peer = new Peer();
    const streams: SpdyStream[] = [];
    const received: string[] = [];
    const { session } = newSession(peer, (stream) => {
      streams.push(stream);
      stream.reply();
      stream.on('data', (chunk: Buffer) => received.push(`${stream.id}:${chunk.toString()}`));
    });
    const script = Buffer.concat([
      encodeSettings([{ id: 7, value: 65536 }]),
      peer.synStream(1, { streamtype: 'error', port: '80', requestid: '0' }),
      encodeDataFrame(1, Buffer.alloc(0), true),
      peer.synStream(3, { streamtype: 'data', port: '80', requestid: '0' }),
      encodeWindowUpdate(3, 1000),
      encodeDataFrame(3, Buffer.from('GET / HTTP/1.0\r\n\r\n'), false),
      encodePing(1),
      encodePing(2),
    ]);
    for (const piece of chunks(script, 11)) session.receive(piece);
    await until(() => received.length === 1, 'data on stream 3');
    expect(streams.map((stream) => stream.headers)).toEqual([
      { streamtype: 'error', port: '80', requestid: '0' },
      { streamtype: 'data', port: '80', requestid: '0' },
    ]);
    expect(received).toEqual(['3:GET / HTTP/1.0\r\n\r\n']);
    expect(peer.control(ControlType.synReply).map((frame) => frame.headers)).toEqual([{}, {}]);
    // Only the odd (client-initiated) ping is answered.
    const pings = peer.control(ControlType.ping);
    expect(pings.map((frame) => frame.payload.readUInt32BE(0))).toEqual([1]);
  });

  it('sends DATA with FIN on end, and RST_STREAM CANCEL when destroyed early', async () => {
    const peer = new Peer();
    const streams: SpdyStream[] = [];
    const { session } = newSession(peer, (stream) => {
      stream.reply();
      streams.push(stream);
    });
    session.receive(Buffer.concat([peer.synStream(1, { a: '1' }), peer.synStream(3, { a: '2' })]));
    streams[0].end(Buffer.from('bye'));
    streams[1].destroy();
    await until(() => peer.data(1).fin && peer.control(ControlType.rstStream).length === 1, 'FIN and RST');
    expect(peer.data(1).bytes.toString()).toBe('bye');
    const reset = peer.control(ControlType.rstStream)[0];
    expect(reset.payload.readUInt32BE(0)).toBe(3);
    expect(reset.payload.readUInt32BE(4)).toBe(RstStatus.cancel);
  });

  it('ends a stream the peer finished and closes one the peer reset', async () => {
    const peer = new Peer();
    const streams: SpdyStream[] = [];
    const { session } = newSession(peer, (stream) => {
      stream.reply();
      stream.resume();
      streams.push(stream);
    });
    session.receive(Buffer.concat([peer.synStream(1, {}, true), peer.synStream(3, {}), encodeRstStream(3, RstStatus.cancel)]));
    let ended = false;
    streams[0].on('end', () => (ended = true));
    await until(() => ended && streams[1].destroyed, 'end and reset');
    expect(streams[1].wasReset).toBe(true);
  });

  it('refuses stream ids that do not grow, and streams after GOAWAY', () => {
    const peer = new Peer();
    const accepted: number[] = [];
    const { session } = newSession(peer, (stream) => accepted.push(stream.id));
    session.receive(Buffer.concat([peer.synStream(5, {}), peer.synStream(3, {}), encodeGoAway(5), peer.synStream(7, {})]));
    expect(accepted).toEqual([5]);
    const resets = peer.control(ControlType.rstStream).map((frame) => [frame.payload.readUInt32BE(0), frame.payload.readUInt32BE(4)]);
    expect(resets).toEqual([
      [3, RstStatus.protocolError],
      [7, RstStatus.refusedStream],
    ]);
  });

  it('closes the transport on a protocol error', () => {
    const peer = new Peer();
    const { session, ended } = newSession(peer, () => undefined);
    const bad = encodePing(1);
    bad.writeUInt16BE(0x8002, 0); // SPDY/2
    session.receive(bad);
    expect(ended()).toBe(true);
    expect(session.closed).toBe(true);
  });
});

describe('SPDY port-forward session', () => {
  const target = (connect: (port: number) => Promise<Duplex>) => ({ connect, podDescription: 'web_default', podUid: 'uid-1' });

  it('pairs the error and data streams by requestid and finishes both when the pod side closes', async () => {
    const peer = new Peer();
    const ports: number[] = [];
    const session = createSpdyPortForwardSession(
      { write: (data, done) => (peer.accept(data), done()), end: () => undefined },
      target(async (port) => {
        ports.push(port);
        // An echo connection that closes after its first answer.
        const connection = new PassThrough();
        connection.once('data', () => connection.end());
        return connection;
      }),
    );
    const script = Buffer.concat([
      peer.synStream(1, { streamtype: 'error', port: '8080', requestid: '0' }),
      encodeDataFrame(1, Buffer.alloc(0), true),
      peer.synStream(3, { streamtype: 'data', port: '8080', requestid: '0' }),
      encodeDataFrame(3, Buffer.from('ping'), false),
    ]);
    for (const piece of chunks(script, 3)) session.receive(piece);
    await until(() => peer.data(3).fin && peer.data(1).fin, 'FIN on both streams');
    expect(ports).toEqual([8080]);
    expect(peer.data(3).bytes.toString()).toBe('ping');
    expect(peer.data(1).bytes.toString()).toBe('');
  });

  it('writes a connection failure on the error stream, as the kubelet does', async () => {
    const peer = new Peer();
    const session = createSpdyPortForwardSession(
      { write: (data, done) => (peer.accept(data), done()), end: () => undefined },
      target(async () => {
        throw new Error('dial tcp 10.0.0.1:81: connect: connection refused');
      }),
    );
    session.receive(Buffer.concat([peer.synStream(1, { streamtype: 'error', port: '81', requestid: '0' }), peer.synStream(3, { streamtype: 'data', port: '81', requestid: '0' })]));
    await until(() => peer.data(1).fin && peer.data(3).fin, 'FIN on both streams');
    expect(peer.data(1).bytes.toString()).toBe('error forwarding port 81 to pod web_default, uid uid-1: dial tcp 10.0.0.1:81: connect: connection refused');
  });
});
