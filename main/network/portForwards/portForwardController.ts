// PortForwardController: keeps one listener on 127.0.0.1 per PortForward (kubedesk.dev/v1alpha1)
// and forwards each connection to the pod behind the forward's target, reached through the
// PodDialer. Unlike `kubectl port-forward` (which binds one pod for its lifetime, upstream
// staging/src/k8s.io/kubectl/pkg/cmd/portforward), every new connection resolves the target afresh
// (portForwardPlan.ts), so a forward outlives pod replacement; connections to a pod that is being
// deleted are closed, and the client's reconnect lands on the replacement. The listener is bound
// once and kept; a port that is taken leaves the forward Failed, retried every 10 s and on every
// change, like the NodePort listeners (../hostPorts). Status is written through /status with a merge
// patch, as upstream controllers write theirs.
import type { Server, Socket } from 'node:net';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { ApiClient } from '../../client/apiClient';
import { isNotFound } from '../../client/errors';
import type { Informer, SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { bindFailureText, CoalescedSync, errorCode, listenTcp } from '../coalescedSync';
import type { PodDialer } from '../dialer';
import { splice } from '../hostPorts/hostPortController';
import { describePortHolder } from '../hostPorts/portHolder';
import { desiredStatus, resolvePodTarget, resolveServiceTarget, rotate, statusPatch, wantedLocalPort, type TargetState } from './portForwardPlan';
import { portForwardSpec, portForwardsResource, portForwardStatus, type PortForwardSpec } from './portForwardResource';

export const PORT_FORWARD_CONTROLLER_NAME = 'portforward-controller';

export interface PortForwardControllerOptions {
  dialer: PodDialer;
  /** the address listeners bind to; default 127.0.0.1 */
  host?: string;
  /** how often ports that could not be opened are tried again; default 10 s */
  retryIntervalMs?: number;
  /** who holds a port (for the Failed message); default reads /proc on Linux */
  describePortHolder?: (port: number) => Promise<string | undefined>;
  /** list/patch failures that are retried anyway; default console.warn */
  onError?: (error: unknown) => void;
}

interface Connection {
  client: Socket;
  upstream?: Socket;
  /** `namespace/name` of the pod behind it */
  pod?: string;
}

/** The listener of one PortForward. */
interface Listener {
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
  opening?: Promise<void>;
  connections: Set<Connection>;
  turn: number;
  closed: boolean;
}

export interface ForwardingPort {
  namespace: string;
  name: string;
  localPort: number;
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

export class PortForwardController {
  private readonly forwards: Informer;
  private readonly pods: Informer;
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly host: string;
  private readonly listeners = new Map<string, Listener>();
  private readonly syncs: CoalescedSync;
  private started = false;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: PortForwardControllerOptions,
  ) {
    this.host = options.host ?? '127.0.0.1';
    this.forwards = factory.informerFor(portForwardsResource);
    this.pods = factory.informerFor(resources.pods);
    this.services = factory.informerFor(resources.services);
    this.slices = factory.informerFor(resources.endpointslices);
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: 'port forwards', retryIntervalMs: options.retryIntervalMs, onError: options.onError });
  }

  private get disposed(): boolean {
    return this.syncs.disposed;
  }

  /** Follows PortForwards from now on; call after the factory has started (or before: it waits for sync). */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    const changed = () => this.syncs.request();
    const podGone = (pod: KubeObject) => {
      this.closeConnectionsTo(keyOf(pod));
      this.syncs.request();
    };
    this.syncs.follow(this.forwards);
    this.syncs.own(
      this.pods.addEventHandler({
        onAdd: changed,
        onUpdate: (_old, pod) => (pod.metadata.deletionTimestamp ? podGone(pod) : changed()),
        onDelete: podGone,
      }),
    );
    this.syncs.follow(this.services);
    this.syncs.follow(this.slices);
    void Promise.all([this.forwards.waitForSync(), this.pods.waitForSync()]).then(([forwards, pods]) => {
      if (forwards && pods) this.syncs.request();
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.syncs.dispose();
    await Promise.all([...this.listeners.values()].map((listener) => this.close(listener)));
    this.listeners.clear();
  }

  /** The forwards listening now. */
  listening(): ForwardingPort[] {
    return [...this.listeners.values()]
      .filter((listener) => listener.port !== undefined)
      .map((listener) => ({ namespace: listener.namespace, name: listener.name, localPort: listener.port ?? 0 }))
      .sort((first, second) => first.localPort - second.localPort);
  }

  /** Resolves when every change seen so far has been applied (for tests). */
  idle(): Promise<void> {
    return this.syncs.idle();
  }

  // ---------------------------------------------------------------- reconciling

  private async sync(): Promise<void> {
    const forwards = this.forwards.list().filter((forward) => !forward.metadata.deletionTimestamp);
    const wanted = new Map(forwards.map((forward) => [keyOf(forward), forward]));
    for (const [key, listener] of this.listeners) {
      const forward = wanted.get(key);
      if (forward && forward.metadata.uid === listener.uid && portForwardSpec(forward)) continue;
      this.listeners.delete(key);
      await this.close(listener);
    }
    let failed = false;
    for (const forward of forwards) {
      if (this.disposed) return;
      const spec = portForwardSpec(forward);
      if (!spec) continue;
      const listener = await this.ensureListener(forward, spec);
      if (listener.failure !== undefined) failed = true;
      await this.writeStatus(forward, listener, this.resolve(forward, spec));
    }
    if (failed) this.syncs.retryLater();
  }

  private async ensureListener(forward: KubeObject, spec: PortForwardSpec): Promise<Listener> {
    const key = keyOf(forward);
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

  private async open(listener: Listener, port: number, fixed: boolean): Promise<void> {
    listener.wantedPort = port;
    try {
      listener.server = await listenTcp(this.host, port, (socket) => this.accept(listener, socket), (error) => this.syncs.report(error));
    } catch (error) {
      // a remembered port that is now someone else's: any free port beats no forward
      if (!fixed && port !== 0 && errorCode(error) === 'EADDRINUSE') return this.open(listener, 0, false);
      listener.failure = await this.failureText(listener, port, error);
      return;
    }
    const address = listener.server.address();
    listener.port = typeof address === 'object' && address ? address.port : port;
    listener.failure = undefined;
    if (this.disposed || listener.closed) await this.closeServer(listener);
  }

  private async failureText(listener: Listener, port: number, error: unknown): Promise<string> {
    const text = bindFailureText(`port ${port} on ${this.host}`, error);
    if (errorCode(error) !== 'EADDRINUSE') return text;
    // a retry that fails the same way keeps the message: finding the holder walks /proc
    if (listener.failure?.startsWith(text)) return listener.failure;
    const holder = await (this.options.describePortHolder ?? ((wanted: number) => describePortHolder(wanted, 'TCP')))(port).catch(() => undefined);
    return `${text}${holder ? ` by ${holder}` : ''}`;
  }

  private async closeServer(listener: Listener): Promise<void> {
    const server = listener.server;
    listener.server = undefined;
    listener.port = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops listening and ends every connection: the PortForward is gone. */
  private async close(listener: Listener): Promise<void> {
    listener.closed = true;
    for (const connection of listener.connections) this.end(connection);
    listener.connections.clear();
    await this.closeServer(listener);
  }

  private end(connection: Connection): void {
    connection.client.destroy();
    connection.upstream?.destroy();
  }

  /** Ends the connections to a pod that is going away; clients reconnect to its replacement. */
  private closeConnectionsTo(podKey: string): void {
    for (const listener of this.listeners.values()) {
      for (const connection of listener.connections) {
        if (connection.pod !== podKey) continue;
        listener.connections.delete(connection);
        this.end(connection);
      }
    }
  }

  // ---------------------------------------------------------------- status

  private resolve(forward: KubeObject, spec: PortForwardSpec): TargetState {
    const namespace = forward.metadata.namespace ?? '';
    if (spec.target.kind === 'Pod') {
      const resolution = resolvePodTarget(spec, portForwardStatus(forward), this.pods.listByNamespace(namespace));
      if (resolution.found) return { found: true, pod: resolution.choice.pod.metadata.name, selector: resolution.selector };
      return { found: false, message: resolution.message, selector: resolution.selector };
    }
    const resolution = resolveServiceTarget(spec, this.services.get(namespace, spec.target.name), this.slices.listByNamespace(namespace));
    return resolution.found ? { found: true } : { found: false, message: resolution.message };
  }

  private async writeStatus(forward: KubeObject, listener: Listener, target: TargetState): Promise<void> {
    const current = portForwardStatus(forward);
    // the pod last used stays in status while nothing is ready, so the replacement search keeps its place
    if (!target.found && target.pod === undefined && current.pod !== undefined) target = { ...target, pod: current.pod };
    const desired = desiredStatus({ localPort: listener.port, failure: listener.failure, wantedPort: listener.wantedPort }, target, this.host === '0.0.0.0' ? '127.0.0.1' : this.host);
    const patch = statusPatch(current, desired);
    if (!patch) return;
    try {
      await this.client.resource(portForwardsResource).patchStatus(listener.namespace, listener.name, { status: patch }, 'merge');
    } catch (error) {
      if (isNotFound(error)) return;
      this.syncs.retryAfter(error);
    }
  }

  // ---------------------------------------------------------------- connections

  private accept(listener: Listener, client: Socket): void {
    const connection: Connection = { client };
    listener.connections.add(connection);
    client.once('close', () => listener.connections.delete(connection));
    client.on('error', () => client.destroy());
    void this.connect(listener, connection);
  }

  private async connect(listener: Listener, connection: Connection): Promise<void> {
    const { client } = connection;
    const forward = this.forwards.get(listener.namespace, listener.name);
    const spec = forward ? portForwardSpec(forward) : undefined;
    const candidates: { ip: string; port: number; pod?: string }[] = [];
    if (forward && spec?.target.kind === 'Pod') {
      const resolution = resolvePodTarget(spec, portForwardStatus(forward), this.pods.listByNamespace(listener.namespace));
      if (resolution.found) candidates.push({ ip: resolution.choice.ip, port: resolution.choice.port, pod: `${listener.namespace}/${resolution.choice.pod.metadata.name ?? ''}` });
      if (resolution.found && resolution.choice.pod.metadata.name !== portForwardStatus(forward).pod) this.syncs.request();
    } else if (forward && spec) {
      const resolution = resolveServiceTarget(spec, this.services.get(listener.namespace, spec.target.name), this.slices.listByNamespace(listener.namespace));
      if (resolution.found) {
        for (const backend of rotate(resolution.backends, listener.turn++)) {
          candidates.push({ ip: backend.ip, port: backend.port, pod: backend.podName ? `${backend.podNamespace ?? listener.namespace}/${backend.podName}` : undefined });
        }
      }
    }
    for (const candidate of candidates) {
      if (client.destroyed || listener.closed) return;
      let upstream: Socket;
      try {
        upstream = await this.options.dialer.dial(candidate.ip, candidate.port);
      } catch {
        continue;
      }
      if (client.destroyed || listener.closed || this.disposed) {
        upstream.destroy();
        return;
      }
      connection.upstream = upstream;
      connection.pod = candidate.pod;
      splice(client, upstream);
      return;
    }
    // nothing ready behind the target: the client learns at once instead of hanging
    client.destroy();
  }
}
