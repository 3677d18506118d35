// HostPortController: NodePort and LoadBalancer Services on 127.0.0.1, in the host process. It
// plays two upstream parts at once: kube-proxy's node ports (pkg/proxy: every `nodePort` is open on
// the node and forwards to a ready endpoint of the Service port, round robin, ClientIP affinity
// honoured) and a cloud provider's load balancer driven by the service controller
// (staging/src/k8s.io/cloud-provider/controllers/service/controller.go): the Service port itself
// is opened on 127.0.0.1, as Docker Desktop and k3s ServiceLB do, and `status.loadBalancer.ingress`
// becomes 127.0.0.1 once every port is open. A port that is taken leaves the Service Pending with a
// `SyncLoadBalancerFailed` Warning event, retried every 10 s and on every change. As the service
// controller does, a Service gets the `service.kubernetes.io/load-balancer-cleanup` finalizer
// before its load balancer opens, and loses it once the load balancer is closed and its status
// cleared, when it stops being a LoadBalancer or is deleted (which therefore waits for that).
//
// TCP connections reach pods through the PodDialer (direct on Linux, kd-netd's tunnel on Docker
// Desktop). UDP is relayed with one socket per client address straight to the pod IP, so it needs
// routable pod IPs (Linux Docker Engine); the tunnel carries TCP only.
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import type { Server, Socket } from 'node:net';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { backendsFor, servicePorts, slicesOfService, type Backend } from '../../../shared/kubernetes/serviceEndpoints';
import type { ApiClient } from '../../client/apiClient';
import { isConflict, isNotFound } from '../../client/errors';
import { EventRecorder } from '../../client/eventRecorder';
import type { Informer, SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import { bindFailureText, CoalescedSync, listenTcp } from '../coalescedSync';
import type { PodDialer } from '../dialer';
import { hasLoadBalancerClass, hasLoadBalancerFinalizer, hostPortKey, LOAD_BALANCER_CLEANUP_FINALIZER, planHostPorts, sameTarget, wantsLoadBalancer, type HostPortListener, type HostPortPlan } from './hostPortPlan';
import { describePortHolder } from './portHolder';

export const SERVICE_CONTROLLER_NAME = 'service-controller';

export interface HostPortControllerOptions {
  dialer: PodDialer;
  /** records the Warning/Normal events; default: a recorder with component `service-controller` */
  recorder?: EventRecorder;
  /** the address listeners bind to and the load balancer ingress IP; default 127.0.0.1 */
  host?: string;
  /** how often ports that could not be opened are tried again; default 10 s */
  retryIntervalMs?: number;
  /** a UDP client session without traffic for this long is dropped; default 30 s */
  udpIdleMs?: number;
  /** who holds a port (for the event message); default reads /proc on Linux */
  describePortHolder?: (port: number, protocol: 'TCP' | 'UDP') => Promise<string | undefined>;
  /** list/patch failures that are retried anyway; default console.warn */
  onError?: (error: unknown) => void;
}

export interface ListeningPort {
  namespace: string;
  name: string;
  /** the Service port */
  port: number;
  protocol: 'TCP' | 'UDP';
  hostPort: number;
}

interface UdpSession {
  socket: UdpSocket;
  backend: Backend;
  timer: NodeJS.Timeout;
}

/** One host port: open, or waiting to be retried. */
interface Binding {
  key: string;
  spec: HostPortListener;
  state: 'closed' | 'listening' | 'failed';
  /** why the port could not be opened (without the holder) */
  failure?: string;
  /** the event message last recorded for this failure, so a retry does not repeat it */
  reported?: string;
  server?: Server;
  udp?: UdpSocket;
  connections: Set<Socket>;
  sessions: Map<string, UdpSession>;
  nextBackend: number;
  /** client IP → backend `ip:port` and when it was last used */
  affinity: Map<string, { backend: string; at: number }>;
}

const defaultUdpIdleMs = 30_000;

/** An RST tells the client at once that nobody is there, as upstream's REJECT rule does. */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}

/** List items may come without kind and apiVersion; events name their object by both. */
function asService(service: KubeObject): KubeObject {
  return { ...service, apiVersion: 'v1', kind: 'Service' };
}

function ingressOf(service: KubeObject): unknown[] {
  const status = isRecord(service.status) ? service.status : {};
  const loadBalancer = isRecord(status.loadBalancer) ? status.loadBalancer : {};
  return Array.isArray(loadBalancer.ingress) ? loadBalancer.ingress : [];
}

export class HostPortController {
  private readonly services: Informer;
  private readonly slices: Informer;
  private readonly recorder: EventRecorder;
  private readonly host: string;
  private readonly ingressIp: string;
  private readonly bindings = new Map<string, Binding>();
  /** Service key + listener key → the conflict message last recorded */
  private reportedConflicts = new Map<string, string>();
  private readonly syncs: CoalescedSync;
  private started = false;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: HostPortControllerOptions,
  ) {
    this.host = options.host ?? '127.0.0.1';
    this.ingressIp = this.host === '0.0.0.0' ? '127.0.0.1' : this.host;
    this.recorder = options.recorder ?? new EventRecorder(client, { component: SERVICE_CONTROLLER_NAME });
    this.services = factory.informerFor(resources.services);
    this.slices = factory.informerFor(resources.endpointslices);
    this.syncs = new CoalescedSync({ sync: () => this.sync(), name: 'host ports', retryIntervalMs: options.retryIntervalMs, onError: options.onError });
  }

  private get disposed(): boolean {
    return this.syncs.disposed;
  }

  /** Follows Services from now on; call after the factory has started (or before: it waits for sync). */
  start(): void {
    if (this.started || this.disposed) return;
    this.started = true;
    // Endpoint changes only matter at connection time (backends are read then), but they can
    // also mean a port freed by a Service elsewhere; services drive the listeners.
    this.syncs.follow(this.services);
    void this.services.waitForSync().then((synced) => {
      if (synced) this.syncs.request();
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.syncs.dispose();
    await Promise.all([...this.bindings.values()].map((binding) => this.close(binding, true)));
    this.bindings.clear();
    if (!this.options.recorder) await this.recorder.flush();
  }

  /** The ports that are open now. */
  listening(): ListeningPort[] {
    return [...this.bindings.values()]
      .filter((binding) => binding.state === 'listening')
      .map(({ spec }) => ({ namespace: spec.namespace, name: spec.name, port: spec.port, protocol: spec.protocol, hostPort: spec.hostPort }))
      .sort((first, second) => first.hostPort - second.hostPort || first.protocol.localeCompare(second.protocol));
  }

  /** Resolves when every change seen so far has been applied (for tests). */
  idle(): Promise<void> {
    return this.syncs.idle();
  }

  // ---------------------------------------------------------------- reconciling

  private async sync(): Promise<void> {
    let services = this.services.list();
    // the finalizer goes on before the load balancer opens (upstream addFinalizer before ensureLoadBalancer)
    if (await this.addFinalizers(services)) services = this.services.list();
    const plan = planHostPorts(services);
    const wanted = new Map(plan.listeners.map((listener) => [hostPortKey(listener.protocol, listener.hostPort), listener]));
    for (const [key, binding] of this.bindings) {
      if (wanted.has(key)) continue;
      this.bindings.delete(key);
      await this.close(binding, false);
    }
    const opening: Promise<void>[] = [];
    for (const [key, spec] of wanted) {
      let binding = this.bindings.get(key);
      if (!binding) {
        binding = { key, spec, state: 'closed', connections: new Set(), sessions: new Map(), nextBackend: 0, affinity: new Map() };
        this.bindings.set(key, binding);
      } else if (!sameTarget(binding.spec, spec)) {
        // The port now belongs to another Service port: the socket stays, its routing starts afresh.
        binding.affinity.clear();
        binding.nextBackend = 0;
        binding.reported = undefined;
        for (const session of binding.sessions.values()) this.endSession(session);
        binding.sessions.clear();
      }
      binding.spec = spec;
      if (binding.state !== 'listening') opening.push(this.open(binding));
    }
    await Promise.all(opening);
    if (this.disposed) return;
    await this.reportFailures(plan);
    await this.syncStatuses(services, plan);
    await this.removeFinalizers(services);
    if ([...this.bindings.values()].some((binding) => binding.state === 'failed')) this.syncs.retryLater();
  }

  /** Warning events for ports that cannot be opened, once per distinct reason. */
  private async reportFailures(plan: HostPortPlan): Promise<void> {
    for (const binding of this.bindings.values()) {
      if (binding.state !== 'failed' || binding.failure === undefined) continue;
      const service = this.services.get(binding.spec.namespace, binding.spec.name);
      if (!service) continue;
      let text = binding.failure;
      if (binding.reported === undefined || !binding.reported.startsWith(text)) {
        const holder = binding.failure.endsWith('already in use') ? await (this.options.describePortHolder ?? describePortHolder)(binding.spec.hostPort, binding.spec.protocol).catch(() => undefined) : undefined;
        if (holder) text += ` by ${holder}`;
        this.recordFailure(service, binding.spec, text);
        binding.reported = text;
      }
    }
    const current = new Map<string, string>();
    for (const { listener, heldBy } of plan.conflicts) {
      const service = this.services.get(listener.namespace, listener.name);
      if (!service) continue;
      const key = `${listener.namespace}/${listener.name}\u0000${hostPortKey(listener.protocol, listener.hostPort)}`;
      const owner = heldBy.namespace === listener.namespace && heldBy.name === listener.name ? `this Service's port ${heldBy.port}` : `Service ${heldBy.namespace}/${heldBy.name}`;
      const text = `${this.portText(listener)} is already in use by ${owner}`;
      current.set(key, text);
      if (this.reportedConflicts.get(key) !== text) this.recordFailure(service, listener, text);
    }
    this.reportedConflicts = current;
  }

  private portText(listener: HostPortListener): string {
    return `port ${listener.hostPort}${listener.protocol === 'UDP' ? '/UDP' : ''} on ${this.host}`;
  }

  private recordFailure(cached: KubeObject, listener: HostPortListener, text: string): void {
    const service = asService(cached);
    if (listener.kind === 'LoadBalancer') {
      // the wording of upstream's service controller (syncLoadBalancerIfNeeded)
      this.recorder.event(service, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${text}`);
    } else {
      this.recorder.event(service, 'Warning', 'FailedToOpenNodePort', `can't open node port ${listener.hostPort} for service port ${listener.port}/${listener.protocol}: ${text}`);
    }
  }

  /** status.loadBalancer.ingress: 127.0.0.1 once every load balancer port is open, empty otherwise. */
  private async syncStatuses(services: KubeObject[], plan: HostPortPlan): Promise<void> {
    const failedServices = new Set(plan.conflicts.filter(({ listener }) => listener.kind === 'LoadBalancer').map(({ listener }) => `${listener.namespace}/${listener.name}`));
    const lbPorts = new Map<string, HostPortListener[]>();
    for (const listener of plan.listeners) {
      if (listener.kind !== 'LoadBalancer') continue;
      const key = `${listener.namespace}/${listener.name}`;
      lbPorts.set(key, [...(lbPorts.get(key) ?? []), listener]);
    }
    for (const service of services) {
      // another load balancer implementation owns the status of a Service that names its class
      if (hasLoadBalancerClass(service)) continue;
      const key = `${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}`;
      let desired: unknown[] = [];
      if (wantsLoadBalancer(service)) {
        const ports = lbPorts.get(key) ?? [];
        const ready = ports.length > 0 && !failedServices.has(key) && ports.every((listener) => this.bindings.get(hostPortKey(listener.protocol, listener.hostPort))?.state === 'listening');
        if (ready) desired = [{ ip: this.ingressIp, ipMode: 'VIP' }];
      }
      const current = ingressOf(service);
      if (JSON.stringify(current) === JSON.stringify(desired)) continue;
      try {
        await this.client.resource(resources.services).patchStatus(service.metadata.namespace, service.metadata.name ?? '', { status: { loadBalancer: { ingress: desired.length > 0 ? desired : null } } }, 'merge');
      } catch (error) {
        if (isNotFound(error)) continue;
        this.syncs.retryAfter(error);
        continue;
      }
      if (desired.length > 0) this.recorder.event(asService(service), 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
    }
  }

  /** Adds the cleanup finalizer to every Service that wants a load balancer from us; true when one was added. */
  private async addFinalizers(services: KubeObject[]): Promise<boolean> {
    let added = false;
    for (const service of services) {
      if (!wantsLoadBalancer(service) || hasLoadBalancerFinalizer(service)) continue;
      this.recorder.event(asService(service), 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
      if (await this.setFinalizers(service, [...(service.metadata.finalizers ?? []), LOAD_BALANCER_CLEANUP_FINALIZER])) added = true;
    }
    return added;
  }

  /**
   * Services that hold the finalizer but no longer want a load balancer (another type, or being
   * deleted): their listeners are closed and their status cleared by now, so the finalizer goes.
   */
  private async removeFinalizers(services: KubeObject[]): Promise<void> {
    for (const service of services) {
      if (wantsLoadBalancer(service) || !hasLoadBalancerFinalizer(service)) continue;
      const event = asService(service);
      this.recorder.event(event, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
      this.recorder.event(event, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
      await this.setFinalizers(service, (service.metadata.finalizers ?? []).filter((name) => name !== LOAD_BALANCER_CLEANUP_FINALIZER));
    }
  }

  /** Writes the finalizers, on the version read (a concurrent change is retried on the next pass). */
  private async setFinalizers(service: KubeObject, finalizers: string[]): Promise<boolean> {
    const patch = { metadata: { resourceVersion: service.metadata.resourceVersion, finalizers: finalizers.length > 0 ? finalizers : null } };
    try {
      await this.client.resource(resources.services).patch(service.metadata.namespace, service.metadata.name ?? '', patch, 'merge');
      return true;
    } catch (error) {
      // our cache was behind: the informer brings the new version and another pass
      if (isConflict(error)) this.syncs.retryLater();
      else if (!isNotFound(error)) this.syncs.retryAfter(error);
      return false;
    }
  }

  // ---------------------------------------------------------------- sockets

  private async open(binding: Binding): Promise<void> {
    const { protocol, hostPort } = binding.spec;
    try {
      if (protocol === 'TCP') binding.server = await listenTcp(this.host, hostPort, (socket) => this.accept(binding, socket), (error) => this.syncs.report(error));
      else binding.udp = await this.bindUdp(binding, hostPort);
    } catch (error) {
      binding.state = 'failed';
      binding.failure = bindFailureText(this.portText(binding.spec), error);
      return;
    }
    if (this.disposed || this.bindings.get(binding.key) !== binding) {
      await this.close(binding, true);
      return;
    }
    binding.state = 'listening';
    binding.failure = undefined;
    binding.reported = undefined;
  }

  private bindUdp(binding: Binding, port: number): Promise<UdpSocket> {
    return new Promise((resolve, reject) => {
      const socket = createSocket('udp4');
      socket.once('error', (error) => {
        socket.close();
        reject(error);
      });
      socket.bind({ address: this.host, port, exclusive: true }, () => {
        socket.removeAllListeners('error');
        socket.on('error', (error) => this.syncs.report(error));
        socket.on('message', (data, remote) => this.relayDatagram(binding, data, remote));
        resolve(socket);
      });
    });
  }

  /** Stops listening (the port is free once this resolves); `everything` also ends live traffic. */
  private async close(binding: Binding, everything: boolean): Promise<void> {
    binding.state = 'closed';
    const server = binding.server;
    const udp = binding.udp;
    binding.server = undefined;
    binding.udp = undefined;
    for (const session of binding.sessions.values()) this.endSession(session);
    binding.sessions.clear();
    if (everything) for (const connection of binding.connections) connection.destroy();
    // Open TCP connections outlive the listener, as conntrack keeps established flows after
    // kube-proxy removes a Service's rules; the listening socket itself is closed at once.
    if (server) await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if (!everything) setImmediate(resolve);
    });
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
  }

  /** The Service port's backends, in the order to try them for this client. */
  private backendsForClient(binding: Binding, clientIp: string): Backend[] {
    const { namespace, name, portName, protocol, affinitySeconds } = binding.spec;
    const service = this.services.get(namespace, name);
    if (!service) return [];
    const port = servicePorts(service).find((candidate) => candidate.name === portName && candidate.protocol === protocol);
    if (!port) return [];
    const backends = backendsFor(port, slicesOfService(service, this.slices.listByNamespace(namespace)));
    if (backends.length === 0) return [];
    const start = binding.nextBackend++ % backends.length;
    const ordered = [...backends.slice(start), ...backends.slice(0, start)];
    if (affinitySeconds > 0) {
      const sticky = binding.affinity.get(clientIp);
      if (sticky && Date.now() - sticky.at < affinitySeconds * 1000) {
        const index = ordered.findIndex((backend) => `${backend.ip}:${backend.port}` === sticky.backend);
        if (index > 0) ordered.unshift(...ordered.splice(index, 1));
      }
    }
    return ordered;
  }

  private remember(binding: Binding, clientIp: string, backend: Backend): void {
    if (binding.spec.affinitySeconds > 0) binding.affinity.set(clientIp, { backend: `${backend.ip}:${backend.port}`, at: Date.now() });
  }

  private accept(binding: Binding, client: Socket): void {
    binding.connections.add(client);
    client.once('close', () => binding.connections.delete(client));
    client.on('error', () => client.destroy());
    void this.connectClient(binding, client);
  }

  private async connectClient(binding: Binding, client: Socket): Promise<void> {
    const clientIp = client.remoteAddress ?? '';
    for (const backend of this.backendsForClient(binding, clientIp)) {
      if (client.destroyed) return;
      let upstream: Socket;
      try {
        upstream = await this.options.dialer.dial(backend.ip, backend.port);
      } catch {
        // kube-proxy would have sent this SYN elsewhere; try the next endpoint
        continue;
      }
      if (client.destroyed || this.disposed) {
        upstream.destroy();
        return;
      }
      this.remember(binding, clientIp, backend);
      binding.connections.add(upstream);
      upstream.once('close', () => binding.connections.delete(upstream));
      splice(client, upstream);
      return;
    }
    reset(client);
  }

  private relayDatagram(binding: Binding, data: Buffer, remote: RemoteInfo): void {
    const key = `${remote.address}:${remote.port}`;
    let session = binding.sessions.get(key);
    if (!session) {
      // upstream sends datagrams for a Service without endpoints nowhere (ICMP unreachable)
      const backend = this.backendsForClient(binding, remote.address)[0];
      if (!backend) return;
      this.remember(binding, remote.address, backend);
      const socket = createSocket('udp4');
      const created: UdpSession = {
        socket,
        backend,
        timer: setTimeout(() => {
          this.endSession(created);
          binding.sessions.delete(key);
        }, this.options.udpIdleMs ?? defaultUdpIdleMs),
      };
      created.timer.unref();
      socket.on('message', (reply, from) => {
        // the session socket is unconnected: only the backend's replies go back to the client
        if (from.address !== backend.ip || from.port !== backend.port) return;
        created.timer.refresh();
        binding.udp?.send(reply, remote.port, remote.address);
      });
      socket.on('error', () => {
        this.endSession(created);
        if (binding.sessions.get(key) === created) binding.sessions.delete(key);
      });
      binding.sessions.set(key, created);
      session = created;
    }
    session.timer.refresh();
    session.socket.send(data, session.backend.port, session.backend.ip, (error) => {
      if (error) this.syncs.report(error);
    });
  }

  private endSession(session: UdpSession): void {
    clearTimeout(session.timer);
    try {
      session.socket.close();
    } catch {
      // already closed
    }
  }
}

/**
 * Copies bytes both ways. Each side's end (FIN) is passed on to the other while the opposite
 * direction keeps flowing (half-close); an error on one side resets the other.
 */
export function splice(client: Socket, upstream: Socket): void {
  upstream.allowHalfOpen = true;
  client.setNoDelay(true);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => reset(upstream));
  upstream.on('error', () => reset(client));
  client.once('close', (hadError) => {
    if (hadError) reset(upstream);
  });
  upstream.once('close', (hadError) => {
    if (hadError) reset(client);
  });
}
