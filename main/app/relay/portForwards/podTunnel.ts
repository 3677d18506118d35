// One TCP connection into a pod through the cluster's `pods/<name>/portforward` WebSocket (the
// kubelet's websocket.go behind the API server's upgrade-aware proxy), with the context's
// credentials from its ClusterConnection. The tunnel is a Duplex: bytes written go to the pod's
// port, bytes read come from it, the WebSocket closing ends it, and text on the error channel
// destroys it with a PortForwardFailure carrying the kubelet's words. A handshake the server refuses
// (403, 404 for a pod that is gone…) rejects with the Status message it answered.
import type { IncomingMessage } from 'node:http';
import type { RequestOptions } from 'node:https';
import { Duplex } from 'node:stream';
import WebSocket, { type RawData } from 'ws';
import { isRecord } from '../../../../shared/kubernetes/types';
import type { ClusterConnection } from '../../../remote/clusterConnection';
import { encodeDataMessage, framingOf, PORT_FORWARD_PROTOCOLS, PortForwardDecoder, type PortForwardFraming } from './portForwardFraming';

export interface TunnelTarget {
  namespace: string;
  pod: string;
  port: number;
}

/** Opens a tunnel to a pod's port; the emulation's seam (tests give local sockets). */
export type TunnelOpener = (target: TunnelTarget) => Promise<Duplex>;

/** The forward failed on the pod's side: the kubelet's error-channel text. */
export class PortForwardFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PortForwardFailure';
  }
}

/** The handshake was refused or never completed. */
export class TunnelRefused extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'TunnelRefused';
  }
}

/** Bytes waiting in the WebSocket before the local side is paused. */
const HIGH_WATER_BYTES = 1024 * 1024;
const HANDSHAKE_TIMEOUT_MS = 15_000;

export function portForwardPath(target: TunnelTarget): string {
  return `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/portforward?ports=${target.port}`;
}

/** ws takes host, port and path from the URL and the rest (agent, headers, TLS) from the options. */
export function webSocketUrl(server: URL, options: RequestOptions, path: string): string {
  const secure = (options.protocol ?? server.protocol) === 'https:';
  const host = options.hostname ?? options.host ?? server.hostname;
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const port = options.port ?? (server.port || (secure ? 443 : 80));
  return `${secure ? 'wss' : 'ws'}://${bracketed}:${port}${options.path ?? path}`;
}

function refusalText(response: IncomingMessage, body: string): string {
  try {
    const status: unknown = JSON.parse(body);
    if (isRecord(status) && typeof status.message === 'string' && status.message !== '') return status.message;
  } catch {
    // not a Status: the text itself
  }
  const text = body.trim().slice(0, 300);
  return text ? `${response.statusCode ?? 0}: ${text}` : `the server answered ${response.statusCode ?? 0} ${response.statusMessage ?? ''}`.trim();
}

/**
 * Opens the WebSocket and resolves once it is open. A 401 that credentialsRejected() says may be
 * fixed by fresh credentials is tried once more.
 */
export async function openPodTunnel(connection: ClusterConnection, target: TunnelTarget, retried = false): Promise<Duplex> {
  const path = portForwardPath(target);
  const options = await connection.requestOptions('GET', path, { 'User-Agent': 'kubedesk-portforward' });
  const url = webSocketUrl(connection.server, options, path);
  const socket = new WebSocket(url, [...PORT_FORWARD_PROTOCOLS], { ...options, perMessageDeflate: false, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
  // the server writes the port prefixes at once: they can arrive with the handshake's answer,
  // before the code after `await` runs, so messages are held from the start
  const early: [RawData, boolean][] = [];
  const hold = (data: RawData, isBinary: boolean) => early.push([data, isBinary]);
  socket.on('message', hold);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('unexpected-response', (_request, response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          socket.terminate();
          reject(new TunnelRefused(refusalText(response, Buffer.concat(chunks).toString('utf8')), response.statusCode));
        });
        response.on('error', (error) => reject(new TunnelRefused(error.message)));
      });
      socket.once('error', (error) => reject(new TunnelRefused(error.message)));
    });
  } catch (error) {
    if (!retried && error instanceof TunnelRefused && error.code === 401 && connection.credentialsRejected()) return openPodTunnel(connection, target, true);
    throw error;
  }
  const framing = framingOf(socket.protocol);
  if (!framing) {
    socket.terminate();
    throw new TunnelRefused(`the server chose the subprotocol "${socket.protocol}", which is not a port-forward protocol`);
  }
  socket.off('message', hold);
  return new PodTunnel(socket, framing, target.port, early);
}

/** The open WebSocket of one forwarded connection, as a Duplex. */
class PodTunnel extends Duplex {
  private readonly decoder: PortForwardDecoder;
  private waiting = false;
  private inFlight = 0;
  private blocked: (() => void) | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly framing: PortForwardFraming,
    port: number,
    early: readonly [RawData, boolean][],
  ) {
    // no half-close in v4: ending our side must not end the WebSocket
    super({ allowHalfOpen: true });
    this.decoder = new PortForwardDecoder(framing, port);
    for (const [data, isBinary] of early) this.receive(data, isBinary);
    socket.on('message', (data: RawData, isBinary: boolean) => this.receive(data, isBinary));
    socket.on('close', () => this.socketClosed());
    socket.on('error', (error) => this.destroy(error));
    if (socket.readyState === WebSocket.CLOSED) this.socketClosed();
  }

  /** The WebSocket closed: the pod's side is done, or failed with error-channel text. */
  private socketClosed(): void {
    if (this.destroyed) return;
    const failure = this.decoder.errorText();
    if (failure) this.destroy(new PortForwardFailure(failure));
    else this.push(null);
  }

  private receive(data: RawData, isBinary: boolean): void {
    const message = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    let decoded;
    try {
      decoded = this.decoder.push(isBinary ? message : message.toString('latin1'), isBinary);
    } catch (error) {
      this.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (decoded.kind === 'error') {
      // the kubelet closes the streams right after; the first words are enough to stop
      this.destroy(new PortForwardFailure(decoded.message));
      return;
    }
    if (decoded.kind === 'data' && !this.push(decoded.data)) {
      this.waiting = true;
      this.socket.pause();
    }
  }

  override _read(): void {
    if (!this.waiting) return;
    this.waiting = false;
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.socket.readyState !== WebSocket.OPEN) {
      callback();
      return;
    }
    this.inFlight += chunk.length;
    this.socket.send(encodeDataMessage(this.framing, chunk), { binary: !this.framing.base64 }, () => {
      this.inFlight -= chunk.length;
      const blocked = this.blocked;
      if (blocked && this.inFlight < HIGH_WATER_BYTES / 2) {
        this.blocked = undefined;
        blocked();
      }
    });
    // above the high-water mark the local side waits (its reads pause) until the socket drains
    if (this.inFlight < HIGH_WATER_BYTES) callback();
    else this.blocked = () => callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.blocked = undefined;
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    else if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    callback(error);
  }
}
