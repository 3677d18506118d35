// PortForwards on a cluster that is not kubedesk: the kind (kubedesk.dev/v1alpha1) is served by the
// app itself for one kubeconfig context (portForwardApi.ts over an in-memory store), and the
// controller's work is done here, in the app's process, the way kubedesk's own PortForwardController
// does it (main/network/portForwards): one listener on 127.0.0.1 per object (spec.localPort or a
// free port), and each accepted connection resolves its target afresh with the controller's pure
// plan (portForwardPlan.ts) — the named pod while it is ready, else a ready pod with the original's
// labels minus the per-revision ones, or for a Service a ready endpoint's pod — then goes to that
// pod through the cluster's `pods/<name>/portforward` WebSocket (podTunnel.ts), with the context's
// credentials. Pods, Services and EndpointSlices are followed by namespace-scoped informers over
// the context's connection, started for the namespaces that have forwards: a pod being deleted
// has its connections closed, so the client's reconnect lands on the replacement. Status is written
// like the controller's: phase Active / Waiting / Failed, localPort, url, pod, podSelector, message.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../../../shared/kubernetes/types';
import { ApiClient } from '../../../client/apiClient';
import { Informer } from '../../../client/informer';
import { resources, type GroupVersionResource } from '../../../client/resources';
import type { Transport } from '../../../client/transport';
import { CoalescedSync, errorMessage } from '../../../network/coalescedSync';
import { ForwardListeners, forwardKey, type ForwardConnection, type ForwardListener } from '../../../network/portForwards/forwardListeners';
import { desiredStatus, resolvePodTarget, resolveServiceTarget, rotate, type TargetState } from '../../../network/portForwards/portForwardPlan';
import { portForwardSpec, portForwardStatus, type PortForwardSpec } from '../../../network/portForwards/portForwardResource';
import type { ClusterConnection } from '../../../remote/clusterConnection';
import { ConnectionTransport } from './connectionTransport';
import { openPodTunnel, type TunnelOpener } from './podTunnel';
import { PortForwardApi } from './portForwardApi';
import { PortForwardStore } from './portForwardStore';

export interface PortForwardEmulation {
  /** Serves `apiPath` (an /apis/kubedesk.dev/... path, without the relay's prefix). */
  handleRequest(request: IncomingMessage, response: ServerResponse, apiPath: string, query: URLSearchParams): Promise<void>;
  /** Serves a WebSocket upgrade (watch) of `apiPath`. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, apiPath: string, query: URLSearchParams): void;
  /** Stops every listener, connection, watch and informer; the objects are forgotten. */
  close(): void;
}

export interface PortForwardEmulationOptions {
  connection: ClusterConnection;
  /** the kubeconfig context's name (for messages) */
  context: string;
  now?: () => Date;
  /** the address listeners bind to; default 127.0.0.1 */
  host?: string;
  /** how the informers reach the cluster; default the connection (tests give a fake) */
  transport?: Transport;
  /** how a connection reaches a pod's port; default the connection's portforward WebSocket */
  openTunnel?: TunnelOpener;
  /** how long a connection waits for the first list of pods; default 10 s */
  syncTimeoutMs?: number;
  /** how often a port that could not be opened is tried again; default 10 s */
  retryIntervalMs?: number;
  /** failures that are retried anyway; default console.warn */
  onError?: (error: unknown) => void;
}

export function createPortForwardEmulation(options: PortForwardEmulationOptions): PortForwardEmulation {
  return new PortForwardEmulator(options);
}

/** The informers of one namespace that has forwards. */
interface NamespaceWatch {
  pods: Informer;
  services?: Informer;
  slices?: Informer;
  /** the last list/watch failure, shown while nothing was listed yet */
  error?: string;
}

class PortForwardEmulator implements PortForwardEmulation {
  private readonly store: PortForwardStore;
  private readonly api: PortForwardApi;
  private readonly client: ApiClient;
  private readonly openTunnel: TunnelOpener;
  private readonly host: string;
  private readonly listeners: ForwardListeners;
  /** per listener: why its last connection failed (a refused handshake, the kubelet's error text), until one works */
  private readonly lastErrors = new WeakMap<ForwardListener, string>();
  private readonly namespaces = new Map<string, NamespaceWatch>();
  private readonly syncs: CoalescedSync;
  private readonly unsubscribe: () => void;

  constructor(private readonly options: PortForwardEmulationOptions) {
    this.store = new PortForwardStore({ now: options.now });
    this.api = new PortForwardApi(this.store, { now: options.now });
    this.client = new ApiClient(options.transport ?? new ConnectionTransport(options.connection));
    this.openTunnel = options.openTunnel ?? ((target) => openPodTunnel(options.connection, target));
    this.host = options.host ?? '127.0.0.1';
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: `port forwards of context "${options.context}"`, retryIntervalMs: options.retryIntervalMs, onError: options.onError });
    this.listeners = new ForwardListeners({ host: this.host, accept: (listener, socket) => this.accept(listener, socket), report: (error) => this.syncs.report(error), disposed: () => this.syncs.disposed });
    // status writes are the emulation's own: only object changes ask for a pass
    this.unsubscribe = this.store.subscribe((event) => {
      if (event.type !== 'MODIFIED') this.syncs.request();
    });
  }

  handleRequest(request: IncomingMessage, response: ServerResponse, apiPath: string, query: URLSearchParams): Promise<void> {
    return this.api.handleRequest(request, response, apiPath, query);
  }

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, apiPath: string, query: URLSearchParams): void {
    this.api.handleUpgrade(request, socket, head, apiPath, query);
  }

  close(): void {
    if (this.syncs.disposed) return;
    this.unsubscribe();
    void this.syncs.dispose();
    this.api.close();
    void this.listeners.closeAll();
    for (const watch of this.namespaces.values()) this.disposeNamespace(watch);
    this.namespaces.clear();
  }

  // ---------------------------------------------------------------- reconciling

  private async sync(): Promise<void> {
    const forwards = this.store.list();
    await this.listeners.prune(new Map(forwards.map((forward) => [forwardKey(forward), forward])), (forward) => portForwardSpec(forward) !== undefined);
    this.followNamespaces(forwards);
    let failed = false;
    for (const forward of forwards) {
      if (this.syncs.disposed) return;
      const spec = portForwardSpec(forward);
      if (!spec) continue;
      const listener = await this.listeners.ensure(forward, spec);
      if (listener.failure !== undefined) failed = true;
      this.writeStatus(forward, listener, this.resolve(forward, spec));
    }
    if (failed) this.syncs.retryLater();
  }

  /** Starts informers for namespaces that gained forwards (Services and slices only where a Service is a target) and stops the rest. */
  private followNamespaces(forwards: readonly KubeObject[]): void {
    const needs = new Map<string, { services: boolean }>();
    for (const forward of forwards) {
      const namespace = forward.metadata.namespace ?? '';
      const spec = portForwardSpec(forward);
      const need = needs.get(namespace) ?? { services: false };
      if (spec?.target.kind === 'Service') need.services = true;
      needs.set(namespace, need);
    }
    for (const [namespace, watch] of this.namespaces) {
      const need = needs.get(namespace);
      if (!need) {
        this.disposeNamespace(watch);
        this.namespaces.delete(namespace);
      } else if (!need.services && watch.services) {
        watch.services.dispose();
        watch.slices?.dispose();
        watch.services = undefined;
        watch.slices = undefined;
      }
    }
    for (const [namespace, need] of needs) {
      let watch = this.namespaces.get(namespace);
      if (!watch) {
        watch = { pods: this.informer(resources.pods, namespace, () => watch) };
        this.namespaces.set(namespace, watch);
        const current = watch;
        current.pods.addEventHandler({
          onAdd: () => this.changed(current),
          onUpdate: (_old, pod) => (pod.metadata.deletionTimestamp ? this.podGone(pod) : this.changed(current)),
          onDelete: (pod) => this.podGone(pod),
        });
        current.pods.start();
      }
      if (need.services && !watch.services) {
        const current = watch;
        current.services = this.informer(resources.services, namespace, () => current);
        current.slices = this.informer(resources.endpointslices, namespace, () => current);
        for (const informer of [current.services, current.slices]) {
          informer.addEventHandler({ onAdd: () => this.changed(current), onUpdate: () => this.changed(current), onDelete: () => this.changed(current) });
          informer.start();
        }
      }
    }
  }

  private informer(gvr: GroupVersionResource, namespace: string, watch: () => NamespaceWatch | undefined): Informer {
    return new Informer(this.client.resource(gvr), {
      namespace,
      onError: (error) => {
        const current = watch();
        if (!current) return;
        const text = `cannot read ${gvr.resource} of namespace "${namespace}" in context "${this.options.context}": ${errorMessage(error)}`;
        if (current.error !== text) {
          current.error = text;
          this.syncs.request();
        }
      },
    });
  }

  private changed(watch: NamespaceWatch): void {
    watch.error = undefined;
    this.syncs.request();
  }

  private disposeNamespace(watch: NamespaceWatch): void {
    watch.pods.dispose();
    watch.services?.dispose();
    watch.slices?.dispose();
  }

  /** Ends the connections to a pod that is going away; clients reconnect to its replacement. */
  private podGone(pod: KubeObject): void {
    this.listeners.closeConnectionsTo(forwardKey(pod));
    this.syncs.request();
  }

  // ---------------------------------------------------------------- status

  private resolve(forward: KubeObject, spec: PortForwardSpec): TargetState {
    const namespace = forward.metadata.namespace ?? '';
    const watch = this.namespaces.get(namespace);
    const informers = spec.target.kind === 'Pod' ? [watch?.pods] : [watch?.services, watch?.slices];
    if (!watch || informers.some((informer) => !informer?.hasSynced())) {
      return { found: false, message: watch?.error ?? `reading the ${spec.target.kind === 'Pod' ? 'pods' : 'Service and its endpoints'} of namespace "${namespace}"` };
    }
    if (spec.target.kind === 'Pod') {
      const resolution = resolvePodTarget(spec, portForwardStatus(forward), watch.pods.listByNamespace(namespace));
      if (resolution.found) return { found: true, pod: resolution.choice.pod.metadata.name, selector: resolution.selector };
      return { found: false, message: resolution.message, selector: resolution.selector };
    }
    const resolution = resolveServiceTarget(spec, watch.services?.get(namespace, spec.target.name), watch.slices?.listByNamespace(namespace) ?? []);
    return resolution.found ? { found: true } : { found: false, message: resolution.message };
  }

  private writeStatus(forward: KubeObject, listener: ForwardListener, target: TargetState): void {
    const current = portForwardStatus(forward);
    if (!target.found && target.pod === undefined && current.pod !== undefined) target = { ...target, pod: current.pod };
    const desired = desiredStatus({ localPort: listener.port, failure: listener.failure, wantedPort: listener.wantedPort }, target, this.host === '0.0.0.0' ? '127.0.0.1' : this.host);
    // a forward that is Active but whose last connection failed says why
    const lastError = this.lastErrors.get(listener);
    if (desired.phase === 'Active' && lastError !== undefined) desired.message = lastError;
    this.store.setStatus(listener.namespace, listener.name, listener.uid, desired);
  }

  /** Remembers (or clears) why the last connection failed, and shows it. */
  private connectionOutcome(listener: ForwardListener, error: string | undefined): void {
    if (this.lastErrors.get(listener) === error) return;
    if (error === undefined) this.lastErrors.delete(listener);
    else this.lastErrors.set(listener, error);
    this.syncs.request();
  }

  // ---------------------------------------------------------------- connections

  private accept(listener: ForwardListener, client: Socket): void {
    const connection = this.listeners.track(listener, client);
    client.once('close', () => connection.upstream?.destroy());
    void this.connect(listener, connection);
  }

  private async waitForSync(informers: readonly (Informer | undefined)[]): Promise<boolean> {
    const timeoutMs = this.options.syncTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const synced = Promise.all(informers.map((informer) => informer?.waitForSync() ?? Promise.resolve(false))).then((results) => results.every(Boolean));
    try {
      return await Promise.race([synced, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The pods (and ports) this connection may go to, best first. */
  private async candidates(listener: ForwardListener): Promise<{ pod: string; port: number }[]> {
    const forward = this.store.peek(listener.namespace, listener.name);
    const spec = forward ? portForwardSpec(forward) : undefined;
    const watch = this.namespaces.get(listener.namespace);
    if (!forward || !spec || !watch) return [];
    if (spec.target.kind === 'Pod') {
      if (!(await this.waitForSync([watch.pods]))) return [];
      const status = portForwardStatus(forward);
      const resolution = resolvePodTarget(spec, status, watch.pods.listByNamespace(listener.namespace));
      if (!resolution.found) return [];
      if (resolution.choice.pod.metadata.name !== status.pod) this.syncs.request();
      return [{ pod: resolution.choice.pod.metadata.name ?? '', port: resolution.choice.port }];
    }
    if (!(await this.waitForSync([watch.services, watch.slices]))) return [];
    const resolution = resolveServiceTarget(spec, watch.services?.get(listener.namespace, spec.target.name), watch.slices?.listByNamespace(listener.namespace) ?? []);
    if (!resolution.found) return [];
    // an endpoint without a pod behind it (a manual EndpointSlice) cannot be reached through a pod's portforward
    return rotate(resolution.backends, listener.turn++)
      .filter((backend) => backend.podName !== undefined && (backend.podNamespace ?? listener.namespace) === listener.namespace)
      .map((backend) => ({ pod: backend.podName ?? '', port: backend.port }));
  }

  private async connect(listener: ForwardListener, connection: ForwardConnection): Promise<void> {
    const { client } = connection;
    const candidates = await this.candidates(listener);
    let failure: string | undefined;
    for (const candidate of candidates) {
      if (client.destroyed || listener.closed) return;
      let tunnel: Duplex;
      try {
        tunnel = await this.openTunnel({ namespace: listener.namespace, pod: candidate.pod, port: candidate.port });
      } catch (error) {
        failure = `connection to pod "${candidate.pod}" port ${candidate.port} failed: ${errorMessage(error)}`;
        continue;
      }
      if (client.destroyed || listener.closed || this.syncs.disposed) {
        tunnel.destroy();
        return;
      }
      connection.upstream = tunnel;
      connection.pod = `${listener.namespace}/${candidate.pod}`;
      this.pipe(listener, connection, tunnel, candidate);
      return;
    }
    if (failure !== undefined) this.connectionOutcome(listener, failure);
    // nothing ready behind the target: the client learns at once instead of hanging
    client.destroy();
  }

  private pipe(listener: ForwardListener, connection: ForwardConnection, tunnel: Duplex, candidate: { pod: string; port: number }): void {
    const { client } = connection;
    let answered = false;
    tunnel.on('data', () => {
      if (answered) return;
      answered = true;
      this.connectionOutcome(listener, undefined);
    });
    tunnel.on('error', (error) => {
      // the kubelet's words (e.g. connection refused inside the pod) end this connection
      this.connectionOutcome(listener, `connection to pod "${candidate.pod}" port ${candidate.port} failed: ${errorMessage(error)}`);
      client.destroy();
    });
    tunnel.on('close', () => {
      if (!client.destroyed) client.destroySoon();
    });
    client.pipe(tunnel);
    tunnel.pipe(client);
    client.resume();
  }
}
