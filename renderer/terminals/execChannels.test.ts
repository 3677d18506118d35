import { describe, expect, it } from 'vitest';
import { StreamChannel } from '../../shared/kubernetes/streamChannels';
import { decodeChannelFrame, encodeResize, encodeStdin, encodeStdinBinary, execQuery, parseExitStatus, SHELL_COMMAND } from './execChannels';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

describe('exec channel frames', () => {
  it('prefixes stdin with channel 0 and encodes it as UTF-8', () => {
    const frame = encodeStdin('ls é\r');
    expect(frame[0]).toBe(StreamChannel.stdin);
    expect(text(frame.subarray(1))).toBe('ls é\r');
  });

  it('sends binary stdin one byte per character', () => {
    expect([...encodeStdinBinary('\x1b\xff')]).toEqual([0, 0x1b, 0xff]);
  });

  it('sends a resize as client-go TerminalSize JSON on channel 4, in whole cells of at least one', () => {
    const frame = encodeResize(120.7, 0);
    expect(frame[0]).toBe(StreamChannel.resize);
    expect(JSON.parse(text(frame.subarray(1)))).toEqual({ Width: 120, Height: 1 });
  });

  it.each([
    ['stdout', new Uint8Array([1, 104, 105]), { channel: 1, data: 'hi' }],
    ['the v5 close', new Uint8Array([255, 0]), { channel: 255, data: '\u0000' }],
  ])('decodes a %s frame', (_name, frame, expected) => {
    const decoded = decodeChannelFrame(frame.buffer);
    expect(decoded && { channel: decoded.channel, data: text(decoded.data) }).toEqual(expected);
  });

  it('drops empty and text frames', () => {
    expect(decodeChannelFrame(new ArrayBuffer(0))).toBeUndefined();
    expect(decodeChannelFrame('1aGk=')).toBeUndefined();
  });
});

describe('the final status', () => {
  it.each([
    ['success', { metadata: {}, status: 'Success' }, { success: true, exitCode: 0, message: 'exited with code 0' }],
    [
      'a non-zero exit code',
      { metadata: {}, status: 'Failure', reason: 'NonZeroExitCode', message: 'command terminated with non-zero exit code: exit code 3', details: { causes: [{ reason: 'ExitCode', message: '3' }] } },
      { success: false, exitCode: 3, message: 'exited with code 3' },
    ],
    ['another failure', { status: 'Failure', reason: 'InternalError', message: 'container not found' }, { success: false, message: 'container not found' }],
  ])('reads %s', (_name, status, expected) => {
    expect(parseExitStatus(bytes(JSON.stringify(status)))).toEqual(expected);
  });

  it('takes text that is not JSON as the failure message, as older protocol versions send', () => {
    expect(parseExitStatus(bytes('error: no such container\n'))).toEqual({ success: false, message: 'error: no such container' });
  });
});

describe('the exec query', () => {
  it('repeats command once per argument and turns stderr off with a TTY', () => {
    const query = execQuery({ command: SHELL_COMMAND, container: 'app', tty: true });
    expect(query.getAll('command')).toEqual(SHELL_COMMAND);
    expect(Object.fromEntries([...query].filter(([key]) => key !== 'command'))).toEqual({ stdin: 'true', stdout: 'true', stderr: 'false', tty: 'true', container: 'app' });
  });

  it('leaves the container out when none is chosen', () => {
    expect(execQuery({ command: ['sh'], tty: false }).has('container')).toBe(false);
  });
});
