// The service proxy: kubedesk's kube-proxy. It watches Services and EndpointSlices and turns them
// into kd-netd's configuration (one line per ClusterIP, port and protocol with its ready
// backends), writes it atomically into the directory kd-netd has mounted, and tells kd-netd to
// reload. Like kube-proxy it is level-triggered: every change re-renders the whole table, and an
// unchanged table is not written again. It also keeps the kd-netd container running (recreating
// it if someone removes it), as the kubelet keeps static pods running. With NetworkPolicies in
// play it also lists, per Service backend, the clients that may use it (`allow` lines, from the
// NetworkPolicy controller), because kd-netd, not the client, is who connects to the backend.
// The Services the kubedesk process serves itself (the API server, cluster DNS) are also served at
// kd-netd's own address on their target ports: that is what their Endpoints publish.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { backendsFor, clusterIpOf, servicePorts, slicesOfService } from '../../shared/kubernetes/serviceEndpoints';
import type { Informer, SharedInformerFactory } from '../client/informer';
import { resources } from '../client/resources';
import { cidrContains } from '../../shared/net/ipv4';
import type { ServiceBackend, ServiceTarget } from './netpol/networkPolicyRules';

/** Where kd-netd finds the host's unix sockets and its configuration (the mounted run directory). */
export const netdRunPath = '/run/kubedesk';
export const netdConfigName = 'netd.conf';
export const netdTunnelPort = 15000;

/** A Service port served by the host process instead of pods (the API server, cluster DNS). */
export interface HostBackend {
  namespace: string;
  name: string;
  protocol: 'TCP' | 'UDP';
  port: number;
  /** kd-netd backend, e.g. `unix:/run/kubedesk/apiserver.sock` */
  backend: string;
  /**
   * kd-netd also serves the backend at its own address on this port (the Service's target port),
   * the address the Service's Endpoints publish, as a real cluster's endpoints are reachable
   */
  directPort?: number;
  /**
   * who the backend is to NetworkPolicies (e.g. cluster DNS as kube-system/k8s-app=kube-dns), or
   * how to name it once kd-netd's address is known; absent: not restricted
   */
  policyBackend?: ServiceBackend | ((proxyAddress: string | undefined) => ServiceBackend | undefined);
}

/** Which clients may use which backend of a Service port (NetworkPolicy); undefined when every client may. */
export type ServiceAccess = (service: ServiceTarget, backends: ServiceBackend[]) => string[][] | undefined;

/** Clients per `allow` line: kd-netd reads at most 4096 fields a line. */
const clientsPerAllowLine = 1000;

export interface NetdConfigInput {
  serviceRanges: string[];
  token: string;
  tunnelPort: number;
  services: Iterable<KubeObject>;
  endpointSlices: Iterable<KubeObject>;
  hostBackends?: HostBackend[];
  access?: ServiceAccess;
  /** kd-netd's address on the cluster network, once known (for the host backends' direct ports) */
  proxyAddress?: string;
}

function policyBackendOf(host: HostBackend, proxyAddress: string | undefined): ServiceBackend | undefined {
  return typeof host.policyBackend === 'function' ? host.policyBackend(proxyAddress) : host.policyBackend;
}

/** `allow` lines for one vip:port whose backends may each serve only some clients (NetworkPolicy). */
function allowLines(target: { ip: string; port: number; protocol: string }, backends: string[], policyBackends: ServiceBackend[] | undefined, access: ServiceAccess | undefined): string[] {
  const protocol = target.protocol === 'UDP' ? 'UDP' : 'TCP';
  const allowed = policyBackends && policyBackends.length > 0 ? access?.({ ip: target.ip, port: target.port, protocol }, policyBackends) : undefined;
  const lines: string[] = [];
  allowed?.forEach((clients, index) => {
    for (let start = 0; start === 0 || start < clients.length; start += clientsPerAllowLine) {
      lines.push(['allow', target.ip, String(target.port), protocol.toLowerCase(), backends[index], ...clients.slice(start, start + clientsPerAllowLine)].join(' '));
    }
  });
  return lines;
}

const defaultAffinitySeconds = 10800;

function affinitySeconds(service: KubeObject): number {
  const spec = isRecord(service.spec) ? service.spec : {};
  if (spec.sessionAffinity !== 'ClientIP') return 0;
  const config = isRecord(spec.sessionAffinityConfig) && isRecord(spec.sessionAffinityConfig.clientIP) ? spec.sessionAffinityConfig.clientIP : {};
  return typeof config.timeoutSeconds === 'number' && config.timeoutSeconds > 0 ? config.timeoutSeconds : defaultAffinitySeconds;
}

/** kd-netd's configuration text for the given cluster state; stable order, so equal states render equal text. */
export function renderNetdConfig(input: NetdConfigInput): string {
  const slices = [...input.endpointSlices];
  const lines = ['# kd-netd configuration, written by kubedesk (main/network/serviceProxy.ts)', `token ${input.token}`];
  for (const range of input.serviceRanges) lines.push(`range ${range}`);
  if (input.tunnelPort > 0) lines.push(`tunnel ${input.tunnelPort}`);
  const serviceLines: string[] = [];
  for (const service of input.services) {
    const ip = clusterIpOf(service);
    if (!ip || !input.serviceRanges.some((range) => cidrContains(range, ip))) continue;
    const own = slicesOfService(service, slices);
    const affinity = affinitySeconds(service);
    for (const port of servicePorts(service)) {
      if (port.protocol === 'SCTP') continue;
      const override = input.hostBackends?.find(
        (candidate) => candidate.namespace === service.metadata.namespace && candidate.name === service.metadata.name && candidate.protocol === port.protocol && candidate.port === port.port,
      );
      const found = override ? [] : backendsFor(port, own);
      const backends = override ? [override.backend] : found.map((backend) => `${backend.ip}:${backend.port}`);
      const protocol = port.protocol.toLowerCase();
      serviceLines.push(['service', ip, String(port.port), protocol, String(affinity), ...backends].join(' '));
      // NetworkPolicy: the clients each backend may serve, when that is not everyone
      const hostPolicy = override && policyBackendOf(override, input.proxyAddress);
      const policyBackends: ServiceBackend[] | undefined = override ? hostPolicy && [hostPolicy] : found.map((backend) => ({ kind: 'address', ip: backend.ip, port: backend.port }));
      serviceLines.push(...allowLines({ ip, port: port.port, protocol: port.protocol }, backends, policyBackends, input.access));
    }
  }
  // the host backends at kd-netd's own address, under the same policy as their ClusterIP
  if (input.proxyAddress) {
    for (const host of input.hostBackends ?? []) {
      if (host.directPort === undefined) continue;
      const protocol = host.protocol.toLowerCase();
      serviceLines.push(['service', input.proxyAddress, String(host.directPort), protocol, '0', host.backend].join(' '));
      const hostPolicy = policyBackendOf(host, input.proxyAddress);
      serviceLines.push(...allowLines({ ip: input.proxyAddress, port: host.directPort, protocol: host.protocol }, [host.backend], hostPolicy && [hostPolicy], input.access));
    }
  }
  serviceLines.sort();
  return `${[...lines, ...serviceLines].join('\n')}\n`;
}

/** What the proxy needs from the kd-netd container (main/docker/netdContainer.ts; a fake in tests). */
export interface NetdProcess {
  ensureRunning(): Promise<unknown>;
  reload(): Promise<void>;
  isRunning(): Promise<boolean>;
}

export interface ServiceProxyOptions {
  /** host directory mounted at /run/kubedesk in the kd-netd container */
  runDir: string;
  serviceRanges: string[];
  hostBackends: HostBackend[];
  netd: NetdProcess;
  /** the secret kd-netd's tunnel asks for (default: random) */
  token?: string;
  /** how often to check that kd-netd still runs (default 5 s) */
  checkIntervalMs?: number;
  /** NetworkPolicy for Service traffic (the NetworkPolicy controller) */
  policy?: { serviceBackendClients: ServiceAccess; onDidChange(listener: () => void): { dispose(): void } };
  /** kd-netd's address on the cluster network once it runs (host backends' direct ports) */
  proxyAddress?: () => string | undefined;
  onError?: (error: unknown) => void;
}

export class ServiceProxy {
  readonly token: string;
  private readonly services: Informer;
  private readonly endpointSlices: Informer;
  private readonly subscriptions: Array<{ dispose(): void }> = [];
  private written = '';
  private timer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private again = false;
  private disposed = false;
  /** resolves once kd-netd first ran with a full table (tests and readiness) */
  readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;

  constructor(
    factory: SharedInformerFactory,
    private readonly options: ServiceProxyOptions,
  ) {
    this.token = options.token ?? randomBytes(16).toString('hex');
    this.services = factory.informerFor(resources.services);
    this.endpointSlices = factory.informerFor(resources.endpointslices);
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    mkdirSync(options.runDir, { recursive: true, mode: 0o755 });
  }

  get configPath(): string {
    return join(this.options.runDir, netdConfigName);
  }

  start(): void {
    const schedule = () => this.schedule();
    for (const informer of [this.services, this.endpointSlices]) {
      this.subscriptions.push(informer.addEventHandler({ onAdd: schedule, onUpdate: schedule, onDelete: schedule }));
    }
    if (this.options.policy) this.subscriptions.push(this.options.policy.onDidChange(schedule));
    this.schedule();
    this.checkTimer = setInterval(() => void this.check(), this.options.checkIntervalMs ?? 5_000);
    this.checkTimer.unref();
  }

  /** The configuration the current caches describe. */
  render(): string {
    return renderNetdConfig({
      serviceRanges: this.options.serviceRanges,
      token: this.token,
      tunnelPort: netdTunnelPort,
      services: this.services.list(),
      endpointSlices: this.endpointSlices.list(),
      hostBackends: this.options.hostBackends,
      access: this.options.policy && ((service, backends) => this.options.policy?.serviceBackendClients(service, backends)),
      proxyAddress: this.options.proxyAddress?.(),
    });
  }

  // Changes arrive in bursts (a rollout touches many slices): coalesce them for a few milliseconds.
  private schedule(): void {
    if (this.disposed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, 20);
  }

  private async sync(): Promise<void> {
    if (this.syncing) {
      this.again = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      do {
        this.again = false;
        try {
          await this.syncOnce();
        } catch (error) {
          this.options.onError?.(error);
        }
      } while (this.again && !this.disposed);
    })();
    try {
      await this.syncing;
    } finally {
      this.syncing = undefined;
    }
  }

  private async syncOnce(): Promise<void> {
    if (!this.services.hasSynced() || !this.endpointSlices.hasSynced()) {
      this.schedule();
      return;
    }
    const text = this.render();
    const changed = text !== this.written;
    if (changed) {
      const temporary = `${this.configPath}.tmp`;
      writeFileSync(temporary, text, { mode: 0o644 });
      renameSync(temporary, this.configPath);
    }
    if (this.written === '') {
      // first table: (re)start kd-netd with it; then its address is known for the direct ports
      await this.options.netd.ensureRunning();
      this.written = text;
      this.markReady();
      this.schedule();
      return;
    }
    this.written = text;
    if (changed) await this.options.netd.reload();
  }

  private async check(): Promise<void> {
    if (this.disposed) return;
    // kd-netd never started (Docker was down): try the first table again
    if (this.written === '') return this.schedule();
    try {
      if (!(await this.options.netd.isRunning())) {
        // someone removed or stopped it: start it again with the current table
        writeFileSync(this.configPath, this.written, { mode: 0o644 });
        await this.options.netd.ensureRunning();
        // a new container may have a new address
        this.schedule();
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** The last table written (for tests). */
  currentConfig(): string {
    try {
      return readFileSync(this.configPath, 'utf8');
    } catch {
      return '';
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.checkTimer) clearInterval(this.checkTimer);
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
  }
}
