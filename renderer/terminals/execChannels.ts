// The browser side of the exec WebSocket channel protocol (v5/v4.channel.k8s.io, as kubectl's
// client-go WebSocket executor speaks it): every binary frame starts with a channel byte — 0
// stdin, 1 stdout, 2 stderr, 3 the final metav1.Status, 4 terminal resize ({"Width","Height"}),
// 255 (v5 only) "close stream N". The exit code comes from the Status' ExitCode cause, as
// client-go's remotecommand errorDecoderV4 reads it. Pure: frames in, frames out.
import { CHANNEL_PROTOCOL_V4, CHANNEL_PROTOCOL_V5, StreamChannel } from '../../shared/kubernetes/streamChannels';

/** Offered best first; the server answers the newest it knows. */
export const EXEC_PROTOCOLS = [CHANNEL_PROTOCOL_V5, CHANNEL_PROTOCOL_V4];

/**
 * The command a pod shell runs: bash when the image has it, else sh. A POSIX sh exits when `exec`
 * fails, so bash is looked up first instead of tried. TERM is set when the runtime left it unset,
 * so full-screen programs (top, vi) know what they draw on.
 */
export const SHELL_COMMAND = ['sh', '-c', '[ -n "$TERM" ] || export TERM=xterm-256color; command -v bash >/dev/null 2>&1 && exec bash || exec sh'];

const encoder = new TextEncoder();

export function encodeChannelFrame(channel: number, data: Uint8Array): Uint8Array {
  const frame = new Uint8Array(data.length + 1);
  frame[0] = channel;
  frame.set(data, 1);
  return frame;
}

export function encodeStdin(text: string): Uint8Array {
  return encodeChannelFrame(StreamChannel.stdin, encoder.encode(text));
}

/** xterm's onBinary data: one byte per UTF-16 code unit, not UTF-8. */
export function encodeStdinBinary(data: string): Uint8Array {
  const bytes = new Uint8Array(data.length);
  for (let index = 0; index < data.length; index++) bytes[index] = data.charCodeAt(index) & 0xff;
  return encodeChannelFrame(StreamChannel.stdin, bytes);
}

/** client-go's TerminalSize JSON, which the kubelet reads one object per message. */
export function encodeResize(columns: number, rows: number): Uint8Array {
  return encodeChannelFrame(StreamChannel.resize, encoder.encode(JSON.stringify({ Width: Math.max(1, Math.floor(columns)), Height: Math.max(1, Math.floor(rows)) })));
}

export interface ChannelFrame {
  channel: number;
  data: Uint8Array;
}

/** A received frame; text frames (base64 variants, never negotiated here) and empty frames are dropped. */
export function decodeChannelFrame(message: ArrayBuffer | Uint8Array | string): ChannelFrame | undefined {
  if (typeof message === 'string') return undefined;
  const bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
  if (bytes.length === 0) return undefined;
  return { channel: bytes[0], data: bytes.subarray(1) };
}

export interface ExitResult {
  success: boolean;
  /** the command's exit code; undefined when the stream failed for another reason */
  exitCode?: number;
  message: string;
}

/**
 * The final Status on channel 3. Success = exit 0; NonZeroExitCode carries the code in a cause
 * with reason ExitCode; anything else (or text that is not JSON, as v1–v3 servers send) is a failure
 * of the stream itself.
 */
export function parseExitStatus(data: Uint8Array): ExitResult {
  const text = new TextDecoder().decode(data);
  let status: unknown;
  try {
    status = JSON.parse(text) as unknown;
  } catch {
    return { success: false, message: text.trim() || 'the stream failed' };
  }
  if (typeof status !== 'object' || status === null) return { success: false, message: text };
  const fields = status as Record<string, unknown>;
  if (fields.status === 'Success') return { success: true, exitCode: 0, message: 'exited with code 0' };
  const message = typeof fields.message === 'string' ? fields.message : 'the command failed';
  if (fields.reason === 'NonZeroExitCode') {
    const details = typeof fields.details === 'object' && fields.details !== null ? (fields.details as Record<string, unknown>) : {};
    const causes = Array.isArray(details.causes) ? details.causes : [];
    for (const cause of causes) {
      if (typeof cause !== 'object' || cause === null) continue;
      const { reason, message: code } = cause as Record<string, unknown>;
      if (reason === 'ExitCode' && typeof code === 'string' && /^-?\d+$/.test(code)) return { success: false, exitCode: Number(code), message: `exited with code ${code}` };
    }
  }
  return { success: false, message };
}

/** The query of a pod exec: one `command` parameter per argument, as kubectl sends them. */
export function execQuery(options: { command: readonly string[]; container?: string; tty: boolean }): URLSearchParams {
  const query = new URLSearchParams();
  for (const argument of options.command) query.append('command', argument);
  query.set('stdin', 'true');
  query.set('stdout', 'true');
  // with a TTY stderr is merged into stdout by the terminal, and the kubelet refuses both
  query.set('stderr', options.tty ? 'false' : 'true');
  query.set('tty', String(options.tty));
  if (options.container) query.set('container', options.container);
  return query;
}

export function execPath(namespace: string, pod: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/exec`;
}
