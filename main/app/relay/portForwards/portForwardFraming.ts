// The client side of the kubelet's WebSocket port-forward protocol (kubelet
// pkg/cri/streaming/portforward/websocket.go over apimachinery's wsstream): one WebSocket per
// `pods/<name>/portforward?ports=P`, subprotocol v4.channel.k8s.io (binary frames whose first byte
// is the channel) or v4.base64.channel.k8s.io (text frames: an ASCII digit channel, then base64).
// Port i has a data channel 2i and an error channel 2i+1; the server's first bytes on each are the
// port as an unsigned 16-bit little-endian number. Data the client sends goes on the data channel;
// text on the error channel means the forward failed (the kubelet closes the streams after it).
// There is no half-close in v4: the WebSocket closing ends both directions. Pure.

/** What the emulation offers, best first: the kubelet serves both (and no subprotocol at all). */
export const PORT_FORWARD_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io'] as const;

export interface PortForwardFraming {
  base64: boolean;
}

/** The framing of the subprotocol the server chose ('' = none offered back: binary, as wsstream's default). */
export function framingOf(protocol: string): PortForwardFraming | undefined {
  if (protocol === '' || protocol === 'v4.channel.k8s.io') return { base64: false };
  if (protocol === 'v4.base64.channel.k8s.io') return { base64: true };
  return undefined;
}

/** One message carrying `data` to the pod on port index 0's data channel. */
export function encodeDataMessage(framing: PortForwardFraming, data: Buffer): Buffer | string {
  if (framing.base64) return `0${data.toString('base64')}`;
  const message = Buffer.allocUnsafe(data.length + 1);
  message[0] = 0;
  data.copy(message, 1);
  return message;
}

export type DecodedMessage =
  /** bytes from the pod */
  | { kind: 'data'; data: Buffer }
  /** the forward failed: the kubelet's text */
  | { kind: 'error'; message: string }
  /** a port prefix, an empty frame or a channel of no interest */
  | { kind: 'none' };

/** Raised for a server that does not speak the protocol (a wrong port prefix, an unknown channel). */
export class PortForwardProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortForwardProtocolError';
  }
}

/**
 * Reads the messages of one single-port forward: strips the 2-byte port prefix of the data and the
 * error channel (even when it arrives split over frames or joined with the first data), checks it
 * names the port asked for, and collects error text (it may come in several frames: `errorText`).
 */
export class PortForwardDecoder {
  private readonly prefixes: [Buffer, Buffer] = [Buffer.alloc(0), Buffer.alloc(0)];
  private errorChunks: Buffer[] = [];

  constructor(
    private readonly framing: PortForwardFraming,
    private readonly port: number,
  ) {}

  /** Decodes one WebSocket message (`isBinary` as ws reports it). Throws PortForwardProtocolError. */
  push(message: Buffer | string, isBinary: boolean): DecodedMessage {
    let channel: number;
    let payload: Buffer;
    if (!this.framing.base64 && isBinary && typeof message !== 'string') {
      if (message.length === 0) return { kind: 'none' };
      channel = message[0];
      payload = message.subarray(1);
    } else {
      const text = typeof message === 'string' ? message : message.toString('latin1');
      if (text.length === 0) return { kind: 'none' };
      channel = text.charCodeAt(0) - 48;
      payload = this.framing.base64 ? Buffer.from(text.slice(1), 'base64') : Buffer.from(text.slice(1), 'latin1');
    }
    if (channel !== 0 && channel !== 1) throw new PortForwardProtocolError(`unexpected channel ${channel} in a forward of one port`);
    const rest = this.stripPrefix(channel, payload);
    if (rest.length === 0) return { kind: 'none' };
    if (channel === 0) return { kind: 'data', data: rest };
    this.errorChunks.push(rest);
    return { kind: 'error', message: this.errorText() };
  }

  /** All error text received so far. */
  errorText(): string {
    return Buffer.concat(this.errorChunks).toString('utf8').trim();
  }

  private stripPrefix(channel: 0 | 1, payload: Buffer): Buffer {
    const seen = this.prefixes[channel];
    if (seen.length >= 2) return payload;
    const wanted = 2 - seen.length;
    const prefix = Buffer.concat([seen, payload.subarray(0, wanted)]);
    this.prefixes[channel] = prefix;
    if (prefix.length === 2) {
      const port = prefix.readUInt16LE(0);
      if (port !== this.port) throw new PortForwardProtocolError(`the server answered for port ${port} on ${channel === 0 ? 'the data' : 'the error'} channel, not ${this.port}`);
    }
    return payload.subarray(wanted);
  }
}
