// Cluster: the composition root. Plain `new` calls in dependency order — storage, API server,
// HTTPS — each registered for disposal in reverse; once the API server is ready, the components
// that are clients of the API (clusterComponents.ts, loaded then). `kubedesk serve` and the
// Electron main process both run exactly this.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore, startCompactor, startHistoryPruner } from '../storage/sqliteStore';
import { startEventExpiry } from '../apiserver/eventTtl';
import { DEFAULT_HISTORY_RETENTION, type HistoryRetention } from '../storage/history';
import { builtinResources } from '../registry/resources';
import { ApiServer } from '../apiserver/apiServer';
import { HttpServer, type Authenticator } from '../apiserver/httpServer';
import { ResourceRegistry } from '../apiserver/resourceRegistry';
import { OpenApiService } from '../apiserver/openapi/openapiDocuments';
import { ensureAdminToken, ensurePki, pkiDirectory, type ServingKeyType } from '../apiserver/pki';
import type { PkiKeyStart } from '../apiserver/pkiKeys';
import { ServiceAccountTokens } from '../apiserver/serviceAccountTokens';
import { tokenRequestHandler } from '../apiserver/subresources/tokenRequest';
import { ApiClient } from '../client/apiClient';
import type { Kubelet } from '../kubelet/kubelet';
import { DockerRuntime } from '../docker/dockerRuntime';
import { portForwardResourceDef } from '../network/portForwards/portForwardResource';
import { directDialer, podIpsRoutable, tunnelDialer } from '../network/dialer';
import { apiServerLookup, createProxyHandlers } from '../apiserver/proxy/proxyHandler';
import type { IngressController } from '../network/ingress/ingressController';
import type { NetdProcess } from '../network/serviceProxy';
import { NetdContainer, type NetdEndpoint } from '../docker/netdContainer';
import { ensureNetdImage } from '../docker/netdImage';
import { netdBinaryPath } from '../network/netd/netdImage';
import { defaultNodePortRange } from '../apiserver/admission/serviceAllocation';
import { networkDirectory, type NetworkPlan } from '../network/clusterNetwork';
import { listeningHostPorts } from '../../shared/net/listeningPorts';
import { createStreamHandlers } from '../apiserver/streaming/streamHandlers';
import type { PodStreams } from '../apiserver/streaming/podStreams';
import { registerMetricsApi } from '../apiserver/metrics/metricsApi';
import { registerHistoryApi } from '../apiserver/history/historyApi';
import { registerSnapshotApi, snapshotImportHandler } from '../apiserver/snapshots/snapshotApi';
import { Snapshots } from '../apiserver/snapshots/snapshots';
import { registerImagesApi } from '../apiserver/images/imagesApi';
import { DockerImages } from '../docker/dockerImages';
import { registerUsageApi } from '../apiserver/usage/usageApi';
import { combinedMetrics, combinedUsage, type MetricsCollector } from '../kubelet/metricsCollector';
import { InProcessTransport } from './inProcessTransport';
import { bootstrapServices, bootstrapSystemObjects } from './bootstrap';
import { writeKubeconfig, type WriteKubeconfigResult } from './kubeconfig';
import { clearServerState, writeServerState } from './localClusters/serverState';
import { currentProcessLauncher, LocalClusters, type LocalClustersOptions } from './localClusters/localClusters';
import { createLocalClusterRoutes } from './localClusters/localClusterRoutes';
import { kubedeskRoot } from './localClusters/localClusterNames';
import { tokenAuthenticator } from './authentication';
import { UiSessions } from './ui/uiSessions';
import { createUiRoutes } from './ui/uiRoutes';
import { LazyUiRelay } from './relay/lazyRelay';
import { RbacAuthorizer } from '../apiserver/auth/rbacAuthorizer';
import { rbacEscalationAdmission } from '../apiserver/auth/escalation';
import { StoreRbacSource } from '../apiserver/auth/rbacSource';
import { requestAuthorization } from '../apiserver/auth/requestAuthorization';
import { registerReviewApis } from '../apiserver/auth/reviews';
import { ensureBootstrapPolicy } from '../apiserver/auth/bootstrapPolicy';
import { ensureComponentPolicy } from '../apiserver/auth/componentPolicy';
import { componentClients, type ComponentClients } from './componentIdentities';
import { startCustomResourceDefinitions } from '../apiserver/crd/customResourceDefinitions';
import { kubernetesVersion } from './version';
import { StartupPhases } from './startupPhases';
import { startClusterNetwork, type ClusterNetworkStart } from './clusterNetworkStart';
import { publishRegistryHosting, startImageRegistry, withdrawRegistryHosting, type ImageRegistry, type ImageRegistryOptions } from './imageRegistry';

export interface ClusterOptions {
  dataDir: string;
  /** 0 = any free port */
  port: number;
  kubeconfigPath: string;
  /** the kubeconfig's cluster, user and context name; default `kubedesk` (a named local cluster: kubedesk-NAME) */
  contextName?: string;
  nodes: number;
  ingressHttpPort?: number;
  ingressHttpsPort?: number;
  /** the serving certificate's key (and a new CA's); default rsa */
  servingKeyType?: ServingKeyType;
  /** start-up phases to mark (printed by the caller when asked for) */
  phases?: StartupPhases;
  /** the network's start, when the caller began it for this data dir (serve does, early) */
  network?: ClusterNetworkStart;
  /** a fresh data dir's PKI keys, when the caller began them (serve does, early) */
  pkiKeys?: PkiKeyStart;
  /** how long the object history keeps revisions; false records none. Default DEFAULT_HISTORY_RETENTION */
  history?: HistoryRetention | false;
  /** the built-in image registry (docs/architecture.md, "Local image registry"); false = none */
  registry?: ImageRegistryOptions | false;
  /**
   * The local clusters the UI lists and starts (/ui/local-clusters): the kubedesk root, how to run
   * `kubedesk serve`, where new contexts go. Default: KUBEDESK_HOME or ~/.kubedesk, this process's
   * own node and entry script, the kubeconfig this cluster writes its own context into.
   */
  localClusters?: Omit<LocalClustersOptions, 'probe' | 'stopContainers' | 'remove'>;
}

interface Disposable {
  dispose(): void | Promise<void>;
}

export class Cluster {
  private readonly disposables: Disposable[] = [];
  private ready = false;
  server = '';
  kubeconfigResult: WriteKubeconfigResult | undefined;
  api!: ApiServer;
  client!: ApiClient;
  kubelets: Kubelet[] = [];
  metricsCollectors: MetricsCollector[] = [];
  network!: NetworkPlan;
  private componentClients!: ComponentClients;
  private ingress: IngressController | undefined;
  private clusterId = '';
  private uiSessions: UiSessions | undefined;
  private caCertPem = '';
  private firstRuntime: DockerRuntime | undefined;
  private afterReady: Promise<void> = Promise.resolve();
  private ingressStarted: Promise<void> = Promise.resolve();
  private stopping = false;
  /** the built-in image registry, once it listens */
  imageRegistry: ImageRegistry | undefined;

  private constructor(readonly options: ClusterOptions) {}

  static async start(options: ClusterOptions): Promise<Cluster> {
    const cluster = new Cluster(options);
    try {
      await cluster.run();
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  private register<T extends Disposable>(disposable: T): T {
    this.disposables.push(disposable);
    return disposable;
  }

  private async run(): Promise<void> {
    const { dataDir } = this.options;
    const phases = this.options.phases ?? new StartupPhases(false);
    phases.mark('modules loaded');
    // The address plan: Service IPs go on the serving certificate, into the API server's allocator
    // and into the bootstrap Services. Node 0's runtime makes (or finds) the Docker network, with the
    // remembered subnet, while everything that does not need the plan gets ready: the store, the
    // API server, the CA, the system namespaces and the bootstrap RBAC policy.
    const network = this.options.network?.dataDir === dataDir ? this.options.network : startClusterNetwork(dataDir);
    const { clusterId, plan } = network;
    this.clusterId = clusterId;
    this.firstRuntime = network.runtime;
    // the serving certificate waits for the plan (the `kubernetes` Service's address is a SAN); its
    // keys (RSA by default, slow to make) are generated off the main thread meanwhile
    const pkiReady = ensurePki(dataDir, { extraIps: plan.then((network) => [network.kubernetesServiceIp]), keyType: this.options.servingKeyType, keys: this.options.pkiKeys });
    // awaited below; a failure must not be reported as unhandled before that
    pkiReady.catch(() => undefined);
    const token = ensureAdminToken(dataDir);
    const store = this.register(SqliteStore.open(join(dataDir, 'state.db')));
    this.register(startCompactor(store, { intervalMs: 60_000, keepRevisions: 10_000 }));
    // events go an hour after their last write, as upstream's --event-ttl lease
    this.register(startEventExpiry(store));
    const history = this.options.history === false ? undefined : store.history(this.options.history ?? DEFAULT_HISTORY_RETENTION);
    if (history) this.register(startHistoryPruner(history, 60_000));
    phases.mark('store opened');
    // the image registry listens while the rest starts; its port goes into a ConfigMap below
    // (registered as soon as it listens, so a start that fails later still closes it)
    const registryStart = this.options.registry === false ? undefined : startImageRegistry(dataDir, this.options.registry ?? {}).then((registry) => this.register(registry));
    registryStart?.catch(() => undefined);

    // kubedesk's own kind beside the built-ins: PortForward (kubedesk.dev/v1alpha1)
    const registry = new ResourceRegistry([...builtinResources(), portForwardResourceDef()]);
    const openapi = new OpenApiService();
    openapi.setResources(registry.all());
    this.register(registry.onDidChange(() => openapi.setResources(registry.all())));

    let port = 0;
    this.api = new ApiServer({
      store,
      registry,
      openapi,
      serverAddress: () => `127.0.0.1:${port}`,
      version: kubernetesVersion(),
      history,
      serviceNetwork: () => {
        if (!this.network) throw new Error('the cluster network is not known yet');
        // automatic node ports avoid what another local cluster (or anything else) listens on
        return { serviceRange: this.network.serviceRange, nodePortRange: defaultNodePortRange, hostPortsInUse: listeningHostPorts };
      },
    });
    // CustomResourceDefinitions: the CRD strategy, establishing and cleanup, custom kinds in the registry
    this.register(startCustomResourceDefinitions(this.api, store));
    const serviceAccountTokens = ServiceAccountTokens.open(pkiDirectory(dataDir));
    this.api.provideSubresource('serviceAccountToken', tokenRequestHandler(this.api, serviceAccountTokens));
    const api = this.api;
    const authenticator: Authenticator = tokenAuthenticator(token, {
      tokens: serviceAccountTokens,
      live: {
        uidOf: (resource, namespace, name) => {
          const def = registry.lookup('', 'v1', resource);
          return def ? api.objects.tryGet(def, namespace, name)?.metadata.uid : undefined;
        },
      },
    });
    // RBAC for every caller of the HTTPS API and for the in-process components, which act as
    // their own users (componentIdentities.ts); only bootstrap and the shared informers' cache use
    // the privileged loopback client (upstream's system:apiserver)
    const authorizer = new RbacAuthorizer(this.register(new StoreRbacSource(store)));
    this.api.objects.addValidatingAdmission(rbacEscalationAdmission(authorizer, registry));
    registerReviewApis(this.api, { authorizer, authenticator });
    if (history) registerHistoryApi(this.api, registry, { history, authorizer });
    // whole-cluster snapshots (snapshots.kubedesk.dev): the store's file, local volumes' data, the pods' images
    const snapshots = new Snapshots({
      store,
      directory: join(dataDir, 'snapshots'),
      volumesDir: join(dataDir, 'volumes'),
      history,
      imagePresent: async (reference) => {
        const runtime = this.firstRuntime;
        return runtime === undefined ? true : (await runtime.imageStatus(reference)) !== undefined;
      },
    });
    registerSnapshotApi(this.api, registry, { snapshots, authorizer });
    // the Images page's API: the Docker daemon the kubelets run pods on
    registerImagesApi(this.api, registry, { images: new DockerImages(network.runtime.docker, clusterId), clusterId });
    this.client = new ApiClient(new InProcessTransport(this.api, { userAgent: componentUserAgent('kubedesk') }));
    // each component writes under its upstream name, so managedFields read as on a real cluster,
    // and acts as its upstream identity: controllers as their kube-system ServiceAccounts
    // (--use-service-account-credentials, User-Agent `kube-controller-manager/… /<controller>`)
    this.componentClients = componentClients(this.api, requestAuthorization(authorizer));
    phases.mark('API server and plugins wired');
    // upstream's post-start hooks that /readyz waits for: system namespaces and priority classes,
    // bootstrap RBAC, then (with the plan) the kubernetes and kube-dns Services
    await bootstrapSystemObjects(this.client);
    phases.mark('bootstrap namespaces and priority classes');
    ensureBootstrapPolicy(this.api);
    ensureComponentPolicy(this.api);
    phases.mark('bootstrap RBAC policy');
    if (registryStart) {
      this.imageRegistry = await registryStart;
      await publishRegistryHosting(this.client, this.imageRegistry.port);
    } else {
      await withdrawRegistryHosting(this.client);
    }
    phases.mark('image registry');
    this.network = await plan;
    phases.mark('container runtime and network plan');
    const pki = await pkiReady;
    phases.mark('PKI and admin token');

    // the web UI on the API's own origin: static files, sign-in, and the session cookie as a second way in
    const uiSessions = new UiSessions({ adminToken: token, clusterId });
    this.uiSessions = uiSessions;
    this.caCertPem = pki.caCertPem;
    // the UI's relay to the kubeconfig's other contexts (docs/architecture.md, "Other clusters: the UI relay")
    const relay = new LazyUiRelay({ sessions: uiSessions, port: () => port, selfServer: () => this.server, selfContext: () => this.contextName(), dataDir, kubeconfigPath: this.options.kubeconfigPath });
    this.register({ dispose: () => relay.dispose() });
    const http = new HttpServer({
      api: this.api,
      authenticator,
      sessionAuthenticator: uiSessions,
      staticHandler: createUiRoutes({
        sessions: uiSessions,
        port: () => port,
        relay,
        routes: [
          createLocalClusterRoutes({
            sessions: uiSessions,
            port: () => port,
            clusters: new LocalClusters(this.options.localClusters ?? { root: kubedeskRoot(), launcher: currentProcessLauncher(), defaultKubeconfig: this.options.kubeconfigPath }),
            selfDataDir: dataDir,
          }),
        ],
      }),
      staticUpgradeHandler: (request, socket, head) => relay.handleUpgrade(request, socket, head),
      sessionGuard: (request) => relay.selfSessionRefusal(request),
      authorization: requestAuthorization(authorizer),
      // requests without credentials are system:anonymous for RBAC to judge (upstream --anonymous-auth)
      anonymous: true,
      cert: pki.serverCertPem,
      key: pki.serverKeyPem,
      clientCertificateAuthority: pki.caCertPem,
      port: this.options.port,
      isReady: () => this.ready,
    });
    this.register({ dispose: () => http.close() });
    http.addRequestHandler(snapshotImportHandler({ snapshots, authorizer }));
    const podsDef = registry.lookup('', 'v1', 'pods');
    if (podsDef) {
      // the kubelet's code loads with the first stream (the components load it after readiness anyway)
      const streams = lazyPodStreams(() => import('./podStreams').then(({ KubeletPodStreams }) => new KubeletPodStreams(() => this.kubelets)));
      const streamHandlers = createStreamHandlers({ getPod: (namespace, name) => api.objects.get(podsDef, namespace, name), streams });
      this.api.provideSubresource('podLog', streamHandlers.logs);
      http.addUpgradeHandler(streamHandlers.upgrade);
      this.register(streamHandlers);
    }
    // the image registry's API for the web UI, under RBAC as the non-resource URL /registry/v2/…
    const imageRegistry = this.imageRegistry;
    if (imageRegistry) http.addRequestHandler((request, response) => imageRegistry.serveMounted(request, response));
    // the API server's service and pod proxy (`kubectl proxy`, `kubectl get --raw …/proxy/…`)
    // How the host reaches pods: straight to pod IPs where they are routable (Linux Docker Engine),
    // else through kd-netd's tunnel (Docker Desktop); KUBEDESK_POD_NETWORK=direct|tunnel overrides.
    const runDir = join(networkDirectory(dataDir), 'run');
    mkdirSync(runDir, { recursive: true, mode: 0o755 });
    const netdToken = randomBytes(16).toString('hex');
    const netd = this.netdProcess(runDir);
    const podNetwork = process.env.KUBEDESK_POD_NETWORK ?? (podIpsRoutable(this.network.gateway) ? 'direct' : 'tunnel');
    const dialer = podNetwork === 'tunnel' ? tunnelDialer(async () => ({ port: (await netd.endpoint()).tunnelPort, token: netdToken })) : directDialer();
    const proxy = createProxyHandlers({ lookup: apiServerLookup(this.api), dialer });
    // admission webhooks backed by a Service are reached the same way
    this.api.dynamicAdmission.setDialer(dialer);
    this.api.provideSubresource('serviceProxy', proxy.services);
    this.api.provideSubresource('podProxy', proxy.pods);
    http.addUpgradeHandler(proxy.upgrade);
    http.addRequestHandler(proxy.serveHttp);
    const nodesDef = registry.lookup('', 'v1', 'nodes');
    if (podsDef && nodesDef) {
      registerMetricsApi(
        this.api,
        registry,
        combinedMetrics(() => this.metricsCollectors, {
          pods: (namespace) => api.objects.list(podsDef, { namespace, labels: [], fields: [] }).items,
          nodes: () => api.objects.list(nodesDef, { labels: [], fields: [] }).items,
        }),
      );
      // the kubelets' usage history (usage.kubedesk.dev), authorised like the pod or node itself
      registerUsageApi(this.api, registry, { provider: combinedUsage(() => this.metricsCollectors), authorizer });
    }

    await bootstrapServices(this.client, this.network);
    phases.mark('bootstrap Services');
    port = await http.listen();
    this.server = `https://127.0.0.1:${port}`;
    phases.mark('HTTPS listening');
    // Pods reach the API server and cluster DNS through unix sockets in the directory kd-netd
    // mounts (docs/architecture.md, "Service networking"), so nothing listens beyond loopback.
    await http.listenUnix(join(runDir, 'apiserver.sock'));
    phases.mark('API unix socket listening');

    const context = this.contextName();
    this.kubeconfigResult = writeKubeconfig({ path: this.options.kubeconfigPath, server: this.server, caCertPem: pki.caCertPem, token, name: context });
    // other kubedesk processes (`kubedesk cluster list`, the tray) find this one by its data dir
    writeServerState(dataDir, { pid: process.pid, server: this.server, context, nodes: this.options.nodes, startedAt: new Date().toISOString() });
    this.register({ dispose: () => clearServerState(dataDir) });
    this.ready = true;
    phases.mark('kubeconfig written, ready');
    // Readiness is the API server's, as upstream's /readyz: the controllers, the scheduler, the
    // network components and the kubelets start now, as their upstream processes start against a
    // serving kube-apiserver (the kubelets register their Nodes a moment later).
    const firstRuntime = this.firstRuntime;
    const started = import('./clusterComponents')
      .then(({ startClusterComponents }) =>
        startClusterComponents(
          {
            dataDir,
            nodes: this.options.nodes,
            clusterId,
            network: this.network,
            client: this.client,
            apiServerClient: new ApiClient(new InProcessTransport(this.api, { userAgent: componentUserAgent('kube-apiserver') })),
            clients: this.componentClients,
            userAgent: componentUserAgent,
            caCertPem: pki.caCertPem,
            caKeyPem: pki.caKeyPem,
            firstRuntime,
            runDir,
            netd,
            netdToken,
            dialer,
            ingressPorts: { http: this.options.ingressHttpPort, https: this.options.ingressHttpsPort },
            register: (disposable) => this.register(disposable),
            stopping: () => this.stopping,
            phases,
          },
          (components) => {
            this.kubelets = components.kubelets;
            this.metricsCollectors = components.metricsCollectors;
            this.ingress = components.ingress;
          },
        ),
      );
    const report = (what: string) => (error: unknown) => {
      if (!this.stopping) console.error(`kubedesk: ${what} could not start:`, error instanceof Error ? error.message : error);
    };
    this.afterReady = started.then(() => undefined, report('a cluster component'));
    this.ingressStarted = started.then(({ ingressStarted }) => ingressStarted.catch(report('the Ingress controller')), () => undefined);
  }

  /**
   * Resolves once what starts after readiness (controllers, scheduler, network components, kubelets,
   * the Ingress controller's listeners) has started or failed.
   */
  async whenStarted(): Promise<void> {
    await this.afterReady;
    await this.ingressStarted;
  }

  /** kd-netd's container, made on first use (Docker may come up after kubedesk). */
  private netdProcess(runDir: string): NetdProcess & { endpoint(): Promise<NetdEndpoint>; current(): NetdEndpoint | undefined } {
    let container: NetdContainer | undefined;
    let last: NetdEndpoint | undefined;
    const get = async (): Promise<NetdContainer> => {
      if (container) return container;
      const runtime = this.firstRuntime;
      if (!runtime) throw new Error('no container runtime');
      const { network } = await runtime.start();
      const image = await ensureNetdImage(runtime.docker, netdBinaryPath());
      container = new NetdContainer({ docker: runtime.docker, clusterId: this.clusterId, networkName: network.name, runDir, image });
      return container;
    };
    const ensureRunning = async () => (last = await (await get()).ensureRunning());
    return {
      ensureRunning,
      reload: async () => (await get()).reload(),
      isRunning: async () => (container ? container.isRunning() : false),
      endpoint: async () => last ?? ensureRunning(),
      current: () => last,
    };
  }

  /** The Ingress controller's ports on 127.0.0.1, once it runs. */
  ingressPorts(): { http: number; https: number } | undefined {
    return this.ingress?.ports();
  }

  /** A fresh one-time sign-in link for the web UI (valid 24 hours, for one sign-in). */
  /** the context (and cluster and user) this cluster writes into the kubeconfig: `kubedesk`, or `kubedesk-NAME` for a named local cluster */
  contextName(): string {
    return this.options.contextName ?? 'kubedesk';
  }

  uiLoginUrl(): string {
    if (!this.uiSessions || !this.server) throw new Error('the cluster has not started');
    return `${this.server}/ui/login?token=${this.uiSessions.issueLoginToken()}`;
  }

  /** The cluster CA certificate (PEM), which the desktop shell trusts for the UI's origin. */
  get caPem(): string {
    return this.caCertPem;
  }

  isReady(): boolean {
    return this.ready;
  }

  /**
   * Stops (does not remove) the cluster's containers, pods and kd-netd, for the desktop app's
   * "stop containers on quit". Call it after dispose(): running kubelets would restart them.
   */
  async stopContainers(): Promise<void> {
    await this.firstRuntime?.stopClusterContainers();
  }

  async dispose(): Promise<void> {
    this.ready = false;
    // components still starting stop at their next step; what they made is registered by then
    this.stopping = true;
    await this.afterReady;
    for (const disposable of this.disposables.splice(0).reverse()) {
      try {
        await disposable.dispose();
      } catch (error) {
        console.error('kubedesk: error while stopping:', error);
      }
    }
  }
}

/** A User-Agent as client-go builds it: `<component>/<version> (<os>/<arch>) kubernetes/<commit>`. */
function componentUserAgent(component: string): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `${component}/${kubernetesVersion().gitVersion} (${process.platform}/${arch}) kubernetes/kubedesk`;
}

/** PodStreams whose implementation is loaded at the first call. */
function lazyPodStreams(load: () => Promise<PodStreams>): PodStreams {
  let loaded: Promise<PodStreams> | undefined;
  const streams = () => (loaded ??= load());
  return {
    logs: async (pod, options) => (await streams()).logs(pod, options),
    exec: async (pod, command, options) => (await streams()).exec(pod, command, options),
    attach: async (pod, options) => (await streams()).attach(pod, options),
    portForward: async (pod, port) => (await streams()).portForward(pod, port),
  };
}
