import { describe, expect, it } from 'vitest';
import { encodeDataMessage, framingOf, PortForwardDecoder, PortForwardProtocolError } from './portForwardFraming';

function portPrefix(channel: number, port: number): Buffer {
  const message = Buffer.alloc(3);
  message[0] = channel;
  message.writeUInt16LE(port, 1);
  return message;
}

function frame(channel: number, text: string): Buffer {
  return Buffer.concat([Buffer.from([channel]), Buffer.from(text)]);
}

describe('port-forward framing', () => {
  it('knows the binary and base64 v4 subprotocols and treats no subprotocol as binary', () => {
    expect(framingOf('v4.channel.k8s.io')).toEqual({ base64: false });
    expect(framingOf('v4.base64.channel.k8s.io')).toEqual({ base64: true });
    expect(framingOf('')).toEqual({ base64: false });
    expect(framingOf('v5.channel.k8s.io')).toBeUndefined();
  });

  it('puts data on channel 0, as a byte in binary framing and as the digit 0 in base64 framing', () => {
    expect([...(encodeDataMessage({ base64: false }, Buffer.from('hi')) as Buffer)]).toEqual([0, 104, 105]);
    expect(encodeDataMessage({ base64: true }, Buffer.from('hi'))).toBe('0aGk=');
  });

  it('strips the port prefix of both channels before passing data on', () => {
    const decoder = new PortForwardDecoder({ base64: false }, 8080);
    expect(decoder.push(portPrefix(0, 8080), true)).toEqual({ kind: 'none' });
    expect(decoder.push(portPrefix(1, 8080), true)).toEqual({ kind: 'none' });
    expect(decoder.push(frame(0, 'HTTP/1.0 200 OK'), true)).toEqual({ kind: 'data', data: Buffer.from('HTTP/1.0 200 OK') });
  });

  it('finds the prefix when it is split over frames or joined with the first data', () => {
    const decoder = new PortForwardDecoder({ base64: false }, 0x1f90);
    expect(decoder.push(Buffer.from([0, 0x90]), true)).toEqual({ kind: 'none' });
    expect(decoder.push(Buffer.from([0, 0x1f, 0x41]), true)).toEqual({ kind: 'data', data: Buffer.from('A') });
  });

  it('reads base64 text frames', () => {
    const decoder = new PortForwardDecoder({ base64: true }, 80);
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(80);
    expect(decoder.push(`0${prefix.toString('base64')}`, false)).toEqual({ kind: 'none' });
    expect(decoder.push(`0${Buffer.from('pong').toString('base64')}`, false)).toEqual({ kind: 'data', data: Buffer.from('pong') });
  });

  it('reports the text of the error channel, gathered over frames', () => {
    const decoder = new PortForwardDecoder({ base64: false }, 8080);
    decoder.push(portPrefix(1, 8080), true);
    expect(decoder.push(frame(1, 'error forwarding port 8080 to pod web, '), true)).toEqual({ kind: 'error', message: 'error forwarding port 8080 to pod web,' });
    expect(decoder.push(frame(1, 'uid 1: connection refused'), true)).toEqual({ kind: 'error', message: 'error forwarding port 8080 to pod web, uid 1: connection refused' });
  });

  it('refuses a prefix naming another port and a channel beyond the first port', () => {
    expect(() => new PortForwardDecoder({ base64: false }, 8080).push(portPrefix(0, 9090), true)).toThrow(PortForwardProtocolError);
    expect(() => new PortForwardDecoder({ base64: false }, 8080).push(frame(2, 'x'), true)).toThrow(/unexpected channel 2/);
  });

  it('ignores empty frames', () => {
    expect(new PortForwardDecoder({ base64: false }, 1).push(Buffer.alloc(0), true)).toEqual({ kind: 'none' });
  });
});
