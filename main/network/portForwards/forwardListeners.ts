// The listeners of PortForwards, one per object, shared by kubedesk's PortForwardController and the
// app's emulation of the kind for clusters that are not kubedesk (main/app/relay/portForwards):
// binding spec.localPort (or the port used before, or any) on the host address, the Failed text
// of a port that cannot be opened (naming who holds it), moving a listener whose fixed port
// changed, the connections each listener carries, and closing them — all of a forward's when it is
// gone, or those to one pod when that pod goes away so clients reconnect to its replacement.
import type { Server, Socket } from 'node:net';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { bindFailureText, errorCode, listenTcp } from '../coalescedSync';
import { describePortHolder } from '../hostPorts/portHolder';
import { wantedLocalPort } from './portForwardPlan';
import { portForwardStatus, type PortForwardSpec } from './portForwardResource';

/** One forwarded connection: the local client and, once connected, what it is spliced to. */
export interface ForwardConnection {
  client: Socket;
  upstream?: { destroy(): void };
  /** `namespace/name` of the pod behind it */
  pod?: string;
}

/** The listener of one PortForward. */
export interface ForwardListener {
  key: string;
  uid: string;
  namespace: string;
  name: string;
  server?: Server;
  /** the port bound, while listening */
  port?: number;
  /** the port asked for last */
  wantedPort: number;
  failure?: string;
  connections: Set<ForwardConnection>;
  /** round-robin position among a Service's endpoints */
  turn: number;
  closed: boolean;
}

export interface ForwardingPort {
  namespace: string;
  name: string;
  localPort: number;
}

export interface ForwardListenersOptions {
  /** the address listeners bind to */
  host: string;
  /** a connection was accepted (paused: bytes wait until the upstream is connected) */
  accept(listener: ForwardListener, client: Socket): void;
  /** errors of a listening server */
  report(error: unknown): void;
  /** true once the owner is shutting down: a port bound meanwhile is closed again */
  disposed(): boolean;
  /** who holds a port (for the Failed message); default reads /proc on Linux */
  describePortHolder?: (port: number) => Promise<string | undefined>;
}

/** `namespace/name` */
export function forwardKey(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

export class ForwardListeners {
  private readonly listeners = new Map<string, ForwardListener>();

  constructor(private readonly options: ForwardListenersOptions) {}

  values(): IterableIterator<ForwardListener> {
    return this.listeners.values();
  }

  /** Closes the listeners whose forward is not among `wanted` (by key) with the same uid and a valid spec. */
  async prune(wanted: ReadonlyMap<string, KubeObject>, valid: (forward: KubeObject) => boolean): Promise<void> {
    for (const [key, listener] of this.listeners) {
      const forward = wanted.get(key);
      if (forward && forward.metadata.uid === listener.uid && valid(forward)) continue;
      this.listeners.delete(key);
      await this.close(listener);
    }
  }

  /** The forward's listener, bound (or Failed with a message) on the port its spec and status ask for. */
  async ensure(forward: KubeObject, spec: PortForwardSpec): Promise<ForwardListener> {
    const key = forwardKey(forward);
    let listener = this.listeners.get(key);
    if (!listener) {
      listener = { key, uid: forward.metadata.uid ?? '', namespace: forward.metadata.namespace ?? '', name: forward.metadata.name ?? '', wantedPort: 0, connections: new Set(), turn: 0, closed: false };
      this.listeners.set(key, listener);
    }
    const wanted = wantedLocalPort(spec, portForwardStatus(forward));
    // a fixed port that changed: the listener moves (its connections stay until they end)
    if (listener.server && wanted.fixed && listener.port !== wanted.port) await this.closeServer(listener);
    if (!listener.server) await this.open(listener, wanted.port, wanted.fixed);
    return listener;
  }

  /** Adds an accepted client to the listener's connections until it closes. */
  track(listener: ForwardListener, client: Socket): ForwardConnection {
    const connection: ForwardConnection = { client };
    listener.connections.add(connection);
    client.once('close', () => listener.connections.delete(connection));
    client.on('error', () => client.destroy());
    return connection;
  }

  /** Ends the connections to a pod that is going away; clients reconnect to its replacement. */
  closeConnectionsTo(podKey: string): void {
    for (const listener of this.listeners.values()) {
      for (const connection of listener.connections) {
        if (connection.pod !== podKey) continue;
        listener.connections.delete(connection);
        end(connection);
      }
    }
  }

  /** The forwards listening now. */
  listening(): ForwardingPort[] {
    return [...this.listeners.values()]
      .filter((listener) => listener.port !== undefined)
      .map((listener) => ({ namespace: listener.namespace, name: listener.name, localPort: listener.port ?? 0 }))
      .sort((first, second) => first.localPort - second.localPort);
  }

  /** Stops every listener and ends every connection. */
  async closeAll(): Promise<void> {
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    await Promise.all(listeners.map((listener) => this.close(listener)));
  }

  private async open(listener: ForwardListener, port: number, fixed: boolean): Promise<void> {
    listener.wantedPort = port;
    try {
      listener.server = await listenTcp(this.options.host, port, (socket) => this.options.accept(listener, socket), (error) => this.options.report(error));
    } catch (error) {
      // a remembered port that is now someone else's: any free port beats no forward
      if (!fixed && port !== 0 && errorCode(error) === 'EADDRINUSE') return this.open(listener, 0, false);
      listener.failure = await this.failureText(listener, port, error);
      return;
    }
    const address = listener.server.address();
    listener.port = typeof address === 'object' && address ? address.port : port;
    listener.failure = undefined;
    if (this.options.disposed() || listener.closed) await this.closeServer(listener);
  }

  private async failureText(listener: ForwardListener, port: number, error: unknown): Promise<string> {
    const text = bindFailureText(`port ${port} on ${this.options.host}`, error);
    if (errorCode(error) !== 'EADDRINUSE') return text;
    // a retry that fails the same way keeps the message: finding the holder walks /proc
    if (listener.failure?.startsWith(text)) return listener.failure;
    const holder = await (this.options.describePortHolder ?? ((wanted: number) => describePortHolder(wanted, 'TCP')))(port).catch(() => undefined);
    return `${text}${holder ? ` by ${holder}` : ''}`;
  }

  private async closeServer(listener: ForwardListener): Promise<void> {
    const server = listener.server;
    listener.server = undefined;
    listener.port = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops listening and ends every connection: the PortForward is gone. */
  private async close(listener: ForwardListener): Promise<void> {
    listener.closed = true;
    for (const connection of listener.connections) end(connection);
    listener.connections.clear();
    await this.closeServer(listener);
  }
}

function end(connection: ForwardConnection): void {
  connection.client.destroy();
  connection.upstream?.destroy();
}
