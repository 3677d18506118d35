// kubedesk's built-in Ingress controller (networking.k8s.io/v1), running in the host process. Like
// ingress-nginx it watches Ingresses, IngressClasses, Services, EndpointSlices and Secrets; it serves
// the Ingresses of class `kubedesk` (or without a class while `kubedesk` is the default class) on
// 127.0.0.1 over HTTP and HTTPS, proxying each request to a ready endpoint of the backend Service
// port (round robin, the next endpoint when a dial fails), and reports itself in the Ingress's
// status.loadBalancer. It creates the IngressClass `kubedesk` (default class) when missing and never
// touches it afterwards, so a user's edits (e.g. removing the default annotation) stick.
// Certificates come from the Ingresses' spec.tls Secrets by SNI, checked at every handshake, so a
// changed Secret is served at once; names without one get a self-signed fallback.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';
import { backendsFor, findServicePort, serviceType, slicesOfService, type Backend } from '../../../shared/kubernetes/serviceEndpoints';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import type { ApiClient } from '../../client/apiClient';
import { runWorkers } from '../../client/controllerLoop';
import { isAlreadyExists, isNotFound } from '../../client/errors';
import { EventRecorder } from '../../client/eventRecorder';
import { objectKey, splitKey, type Informer, type SharedInformerFactory } from '../../client/informer';
import { resources, type GroupVersionResource } from '../../client/resources';
import { WorkQueue } from '../../client/workQueue';
import type { PodDialer } from '../dialer';
import { createFallbackCertificate, secureContextFromSecret } from './ingressCertificates';
import { forwardRequestHeaders, proxyRequest, proxyUpgrade, sendErrorPage, writeErrorResponse, type ForwardInfo } from './ingressProxy';
import {
  buildRoutingTable,
  buildTlsTable,
  defaultClassAnnotation,
  ingressClassName,
  ingressControllerName,
  isHandledIngress,
  route,
  selectTls,
  type IngressBackendRef,
  type RouteMatch,
  type RoutingTable,
  type TlsEntry,
} from './ingressRules';

/** client/resources.ts has no entry for IngressClasses yet. */
export const ingressClassesResource: GroupVersionResource = resources.ingressclasses;

export const ingressControllerComponent = 'kubedesk-ingress-controller';
export const listenAddress = '127.0.0.1';

export interface IngressPorts {
  http: number;
  https: number;
}

export interface IngressControllerOptions {
  dialer: PodDialer;
  /** 0 picks a free port; see chooseIngressPorts */
  httpPort: number;
  httpsPort: number;
  /**
   * Ports to fall back to, in order, when httpPort/httpsPort turn out to be taken at start (ports
   * chooseIngressPorts found free may be taken by the time they are bound: another cluster starting
   * at the same moment). None when the user named the ports: then a taken port fails the start.
   */
  fallbackPorts?: IngressPorts[];
  recorder?: EventRecorder;
  workers?: number;
}

const ensureClassKey = '\u0000ingressclass';
const maxRetries = 15;

/** Whether both ports can be bound on 127.0.0.1 right now (0 always can). */
async function canBind(ports: readonly number[]): Promise<boolean> {
  const servers: ReturnType<typeof createNetServer>[] = [];
  try {
    for (const port of ports) {
      if (port === 0) continue;
      const server = createNetServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: listenAddress, port, exclusive: true }, () => resolve());
      });
    }
    return true;
  } catch {
    return false;
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}

/**
 * The ports to serve on: `preferred` (normally 80/443) when both can be bound on 127.0.0.1, else
 * 8080/8443 when both can, else 0/0 (the system picks free ports at start). Binding below 1024 needs
 * root or a lowered net.ipv4.ip_unprivileged_port_start on Linux; macOS and Windows allow it.
 */
export async function chooseIngressPorts(preferred: IngressPorts): Promise<IngressPorts> {
  for (const candidate of [preferred, { http: 8080, https: 8443 }]) {
    if (await canBind([candidate.http, candidate.https])) return { ...candidate };
  }
  return { http: 0, https: 0 };
}

function canonicalJson(value: unknown): string {
  const sort = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sort);
    if (isRecord(item)) return Object.fromEntries(Object.keys(item).sort().map((key) => [key, sort(item[key])]));
    return item;
  };
  return JSON.stringify(sort(value));
}

function loadBalancerOf(ingress: KubeObject): unknown {
  const status = isRecord(ingress.status) ? ingress.status : {};
  const loadBalancer = isRecord(status.loadBalancer) ? status.loadBalancer : {};
  return loadBalancer.ingress;
}

function describeBackend(backend: IngressBackendRef): string {
  if (backend.kind === 'service') return `service ${backend.namespace}/${backend.name}${backend.port === undefined ? '' : `:${backend.port}`}`;
  if (backend.kind === 'resource') return `resource ${backend.resourceKind} ${backend.namespace}/${backend.name}`;
  return 'an invalid backend';
}

type Resolution = { backends: Backend[]; key: string } | { status: number; message: string };

export class IngressController {
  static chooseIngressPorts(preferred: IngressPorts): Promise<IngressPorts> {
    return chooseIngressPorts(preferred);
  }

  private readonly queue: WorkQueue<string>;
  private readonly ingresses: Informer;
  private readonly ingressClasses: Informer;
  private readonly services: Informer;
  private readonly endpointSlices: Informer;
  private readonly secrets: Informer;
  private readonly recorder: EventRecorder;
  private readonly ownsRecorder: boolean;
  private readonly roundRobin = new Map<string, number>();
  private readonly secretContexts = new Map<string, { resourceVersion: string; context: SecureContext | undefined }>();
  private readonly upgraded = new Set<Duplex>();
  private tables: { routing: RoutingTable; tls: TlsEntry[] } | undefined;
  /** false once the API answered 404 for IngressClasses: it does not serve them */
  private classApiServed: boolean | undefined;
  private fallbackContext: SecureContext | undefined;
  private httpServer: HttpServer | undefined;
  private httpsServer: HttpsServer | undefined;
  private actualPorts: IngressPorts = { http: 0, https: 0 };
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly client: ApiClient,
    factory: SharedInformerFactory,
    private readonly options: IngressControllerOptions,
  ) {
    this.queue = new WorkQueue<string>({ name: 'ingress' });
    this.ownsRecorder = options.recorder === undefined;
    this.recorder = options.recorder ?? new EventRecorder(client, { component: ingressControllerComponent });
    this.ingresses = factory.informerFor(resources.ingresses);
    this.ingressClasses = factory.informerFor(ingressClassesResource);
    this.services = factory.informerFor(resources.services);
    this.endpointSlices = factory.informerFor(resources.endpointslices);
    this.secrets = factory.informerFor(resources.secrets);
    const invalidate = () => (this.tables = undefined);
    const enqueue = (ingress: KubeObject) => {
      invalidate();
      this.queue.add(objectKey(ingress));
    };
    this.ingresses.addEventHandler({ onAdd: enqueue, onUpdate: (_old, ingress) => enqueue(ingress), onDelete: invalidate });
    // Which Ingresses are ours depends on the classes (the default one in particular).
    const classChanged = () => {
      invalidate();
      for (const key of this.ingresses.listKeys()) this.queue.add(key);
    };
    this.ingressClasses.addEventHandler({ onAdd: classChanged, onUpdate: classChanged, onDelete: classChanged });
    this.secrets.addEventHandler({ onDelete: (secret) => this.secretContexts.delete(objectKey(secret)) });
  }

  /** Makes the fallback certificate, starts listening and starts the status worker. */
  async start(): Promise<void> {
    const fallback = await createFallbackCertificate();
    // disposed while the certificate was being made (the cluster starts it after readiness)
    if (this.disposed) return;
    this.fallbackContext = createSecureContext({ cert: fallback.certPem, key: fallback.keyPem });
    const httpServer = createHttpServer((req, res) => this.handleRequest(req, res, 'http'));
    const httpsServer = createHttpsServer(
      {
        cert: fallback.certPem,
        key: fallback.keyPem,
        SNICallback: (serverName, done) => done(null, this.contextFor(serverName)),
      },
      (req, res) => this.handleRequest(req, res, 'https'),
    );
    httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head, 'http'));
    httpsServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head, 'https'));
    for (const server of [httpServer, httpsServer]) server.on('clientError', (_error, socket: Duplex) => socket.destroy());
    this.httpServer = httpServer;
    this.httpsServer = httpsServer;
    this.actualPorts = await listenOnFirstFree(httpServer, httpsServer, [{ http: this.options.httpPort, https: this.options.httpsPort }, ...(this.options.fallbackPorts ?? [])]);
    this.queue.add(ensureClassKey);
    this.running = runWorkers(this.queue, (key) => (key === ensureClassKey ? this.ensureIngressClass() : this.reconcile(key)), this.options.workers ?? 1, { maxRetries });
  }

  ports(): IngressPorts {
    return { ...this.actualPorts };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.queue.shutDown();
    for (const socket of this.upgraded) socket.destroy();
    await Promise.all(
      [this.httpServer, this.httpsServer].map(
        (server) =>
          new Promise<void>((resolve) => {
            if (!server?.listening) return resolve();
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    await this.running;
    if (this.ownsRecorder) await this.recorder.flush();
  }

  /** The backend a request would reach (for the UI and tests); undefined means 404. */
  routeFor(host: string, url: string): RouteMatch | undefined {
    return route(this.currentTables().routing, host, url);
  }

  // ------------------------------------------------------------------ control loop

  private classList(): KubeObject[] | undefined {
    if (this.ingressClasses.hasSynced()) return this.ingressClasses.list();
    // Without an IngressClass API every class-less Ingress is ours (kubedesk is the only controller).
    return this.classApiServed === false ? undefined : [];
  }

  private handled(ingress: KubeObject): boolean {
    return isHandledIngress(ingress, this.classList());
  }

  private currentTables(): { routing: RoutingTable; tls: TlsEntry[] } {
    if (!this.tables) {
      const ours = this.ingresses.list().filter((ingress) => this.handled(ingress));
      this.tables = { routing: buildRoutingTable(ours), tls: buildTlsTable(ours) };
    }
    return this.tables;
  }

  /** Creates the IngressClass `kubedesk` when it does not exist; an existing one is left as it is. */
  private async ensureIngressClass(): Promise<void> {
    const classes = this.client.resource(ingressClassesResource);
    try {
      await classes.get(undefined, ingressClassName);
      this.classApiServed = true;
      return;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    const ingressClass: KubeObject = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: ingressClassName, annotations: { [defaultClassAnnotation]: 'true' }, labels: { 'app.kubernetes.io/managed-by': 'kubedesk' } },
      spec: { controller: ingressControllerName },
    };
    try {
      await classes.create(ingressClass);
      this.classApiServed = true;
    } catch (error) {
      if (isAlreadyExists(error)) {
        this.classApiServed = true;
        return;
      }
      if (isNotFound(error)) {
        // The API server does not serve networking.k8s.io/v1 ingressclasses.
        this.classApiServed = false;
        this.tables = undefined;
        for (const key of this.ingresses.listKeys()) this.queue.add(key);
        return;
      }
      throw error;
    }
  }

  private desiredLoadBalancer(): Record<string, unknown>[] {
    const entry: Record<string, unknown> = { ip: listenAddress };
    const { http, https } = this.actualPorts;
    // Clients assume 80 and 443; other ports are worth reporting.
    if (http !== 80 || https !== 443) entry.ports = [{ port: http, protocol: 'TCP' }, { port: https, protocol: 'TCP' }];
    return [entry];
  }

  private async reconcile(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const ingress = this.ingresses.get(namespace, name);
    if (!ingress) return;
    // Until the classes are known it is too early to tell whether a class-less Ingress is ours.
    if (!this.ingressClasses.hasSynced() && this.classApiServed !== false && isHandledIngress(ingress, undefined) !== isHandledIngress(ingress, [])) {
      this.queue.addAfter(key, 500);
      return;
    }
    const current = loadBalancerOf(ingress);
    const desired = this.desiredLoadBalancer();
    const ingresses = this.client.resource(resources.ingresses);
    if (this.handled(ingress)) {
      if (canonicalJson(current) === canonicalJson(desired)) return;
      await ingresses.patchStatus(namespace, name, { status: { loadBalancer: { ingress: desired } } }, 'merge');
      this.recorder.event(ingress, 'Normal', 'Sync', 'Scheduled for sync');
    } else if (canonicalJson(current) === canonicalJson(desired)) {
      // No longer ours (its class changed): take back the address we published.
      await ingresses.patchStatus(namespace, name, { status: { loadBalancer: { ingress: null } } }, 'merge');
    }
  }

  // ------------------------------------------------------------------ TLS

  private contextFor(serverName: string): SecureContext | undefined {
    const entry = selectTls(this.currentTables().tls, serverName);
    if (!entry) return this.fallbackContext;
    const secret = this.secrets.get(entry.namespace, entry.secretName);
    if (!secret) return this.fallbackContext;
    const key = objectKey(secret);
    const resourceVersion = secret.metadata.resourceVersion ?? '';
    const cached = this.secretContexts.get(key);
    if (cached && cached.resourceVersion === resourceVersion) return cached.context ?? this.fallbackContext;
    const made = secureContextFromSecret(secret);
    const context = typeof made === 'string' ? undefined : made;
    if (typeof made === 'string') {
      const ingress = this.ingresses.getByKey(entry.ingress);
      if (ingress) this.recorder.event(ingress, 'Warning', 'InvalidCertificate', made);
    }
    this.secretContexts.set(key, { resourceVersion, context });
    return context ?? this.fallbackContext;
  }

  // ------------------------------------------------------------------ proxy

  private resolve(match: RouteMatch | undefined, host: string, url: string): Resolution {
    if (!match) return { status: 404, message: `No Ingress rule matches host "${host}" and path "${url}", and no default backend is set.` };
    const backend = match.backend;
    if (backend.kind === 'resource') {
      return { status: 503, message: `Ingress ${match.ingress} routes to ${describeBackend(backend)}; kubedesk does not support resource backends, only service backends.` };
    }
    if (backend.kind === 'invalid') return { status: 503, message: `Ingress ${match.ingress}: ${backend.reason}.` };
    const service = this.services.get(backend.namespace, backend.name);
    if (!service) return { status: 503, message: `Service ${backend.namespace}/${backend.name} (from Ingress ${match.ingress}) does not exist.` };
    if (serviceType(service) === 'ExternalName') return { status: 503, message: `Service ${backend.namespace}/${backend.name} is of type ExternalName, which kubedesk's Ingress does not support.` };
    const port = findServicePort(service, backend.port);
    if (!port || port.protocol !== 'TCP') return { status: 503, message: `Service ${backend.namespace}/${backend.name} has no TCP port ${backend.port ?? '(unset)'}.` };
    const backends = backendsFor(port, slicesOfService(service, this.endpointSlices.listByNamespace(backend.namespace)));
    if (backends.length === 0) return { status: 503, message: `Service ${backend.namespace}/${backend.name} has no ready endpoints for port ${port.name || port.port}.` };
    return { backends, key: `${backend.namespace}/${backend.name}:${port.port}` };
  }

  /** Dials the backends round robin, moving on when a dial fails; undefined when all failed. */
  private async dial(backends: Backend[], key: string): Promise<Socket | undefined> {
    const start = this.roundRobin.get(key) ?? 0;
    this.roundRobin.set(key, (start + 1) % 1_000_000_000);
    for (let attempt = 0; attempt < backends.length; attempt++) {
      const backend = backends[(start + attempt) % backends.length];
      try {
        return await this.options.dialer.dial(backend.ip, backend.port);
      } catch {
        // Try the next endpoint, as ingress-nginx's proxy_next_upstream does on connect errors.
      }
    }
    return undefined;
  }

  private forwardInfo(req: IncomingMessage, scheme: 'http' | 'https'): ForwardInfo {
    const remote = req.socket.remoteAddress ?? '';
    return { clientIp: remote.startsWith('::ffff:') ? remote.slice(7) : remote, scheme, port: scheme === 'http' ? this.actualPorts.http : this.actualPorts.https };
  }

  private handleRequest(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https'): void {
    void this.serve(req, res, scheme).catch((error: unknown) => sendErrorPage(res, 502, error instanceof Error ? error.message : String(error)));
  }

  private async serve(req: IncomingMessage, res: ServerResponse, scheme: 'http' | 'https'): Promise<void> {
    const host = req.headers.host ?? '';
    const url = req.url ?? '/';
    const resolution = this.resolve(this.routeFor(host, url), host, url);
    if ('status' in resolution) return sendErrorPage(res, resolution.status, resolution.message);
    const socket = await this.dial(resolution.backends, resolution.key);
    if (!socket) return sendErrorPage(res, 502, `Could not connect to any endpoint of ${resolution.key}.`);
    if (res.destroyed) {
      socket.destroy();
      return;
    }
    const headers = forwardRequestHeaders(req.rawHeaders, this.forwardInfo(req, scheme), false);
    proxyRequest(req, res, socket, headers, (error) => sendErrorPage(res, 502, `The endpoint of ${resolution.key} failed: ${error.message}`));
  }

  private handleUpgrade(req: IncomingMessage, client: Duplex, head: Buffer, scheme: 'http' | 'https'): void {
    this.upgraded.add(client);
    client.once('close', () => this.upgraded.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      const host = req.headers.host ?? '';
      const url = req.url ?? '/';
      const resolution = this.resolve(this.routeFor(host, url), host, url);
      if ('status' in resolution) return writeErrorResponse(client, resolution.status, resolution.message);
      const socket = await this.dial(resolution.backends, resolution.key);
      if (!socket) return writeErrorResponse(client, 502, `Could not connect to any endpoint of ${resolution.key}.`);
      if (client.destroyed) {
        socket.destroy();
        return;
      }
      proxyUpgrade(req, client, head, socket, forwardRequestHeaders(req.rawHeaders, this.forwardInfo(req, scheme), true));
    })().catch(() => client.destroy());
  }
}

/** Both servers listening on the first pair of ports that can be bound (a pair is never split). */
async function listenOnFirstFree(httpServer: HttpServer, httpsServer: HttpsServer, candidates: IngressPorts[]): Promise<IngressPorts> {
  let lastError: unknown;
  for (const candidate of candidates) {
    try {
      const http = await listen(httpServer, candidate.http);
      try {
        return { http, https: await listen(httpsServer, candidate.https) };
      } catch (error) {
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
        throw error;
      }
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && 'code' in error && error.code === 'EADDRINUSE')) throw error;
    }
  }
  throw lastError;
}

function listen(server: HttpServer | HttpsServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listenAddress, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
