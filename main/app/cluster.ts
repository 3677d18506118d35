// Cluster: the composition root. Plain `new` calls in dependency order — storage, API server,
// HTTPS, then the components that are clients of the API — each registered for disposal in reverse.
// `kubedesk serve` and the Electron main process both run exactly this.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore, startCompactor } from '../storage/sqliteStore';
import { builtinResources } from '../registry/resources';
import { ApiServer } from '../apiserver/apiServer';
import { HttpServer, type Authenticator } from '../apiserver/httpServer';
import { ResourceRegistry } from '../apiserver/resourceRegistry';
import { OpenApiService } from '../apiserver/openapi/openapiDocuments';
import { ensureAdminToken, ensurePki, pkiDirectory, type ServingKeyType } from '../apiserver/pki';
import { ServiceAccountTokens } from '../apiserver/serviceAccountTokens';
import { tokenRequestHandler } from '../apiserver/subresources/tokenRequest';
import { ApiClient } from '../client/apiClient';
import { SharedInformerFactory } from '../client/informer';
import { NamespaceController } from '../controllers/namespaceController';
import { NamespaceDefaultsController } from '../controllers/namespaceDefaultsController';
import { ReplicaSetController } from '../controllers/replicaSetController';
import { ReplicationManager } from '../controllers/replicationManager';
import { GarbageCollector } from '../controllers/garbageCollector';
import { PodGarbageCollector } from '../controllers/podGarbageCollector';
import { EndpointsController } from '../controllers/endpointsController';
import { EndpointSliceController } from '../controllers/endpointSliceController';
import { NodeLifecycleController } from '../controllers/nodeLifecycleController';
import { DisruptionController } from '../controllers/disruptionController';
import { CertificateSigner } from '../controllers/certificateSigner';
import { JobController } from '../controllers/jobController';
import { DeploymentController } from '../controllers/deploymentController';
import { CronJobController } from '../controllers/cronJobController';
import { StatefulSetController } from '../controllers/statefulSetController';
import { DaemonSetController } from '../controllers/daemonSetController';
import { LocalPathProvisioner } from '../controllers/localPathProvisioner';
import { HorizontalPodAutoscalerController } from '../controllers/horizontalPodAutoscaler';
import { ResourceQuotaController } from '../controllers/resourceQuotaController';
import { EventRecorder } from '../client/eventRecorder';
import { Scheduler } from '../scheduler/scheduler';
import { Kubelet } from '../kubelet/kubelet';
import { DockerRuntime } from '../docker/dockerRuntime';
import { ensureClusterId, networkNameFor, nodeNameFor, zoneFor } from './clusterIdentity';
import { HostPortController, SERVICE_CONTROLLER_NAME } from '../network/hostPorts/hostPortController';
import { PortForwardController } from '../network/portForwards/portForwardController';
import { portForwardResourceDef } from '../network/portForwards/portForwardResource';
import { directDialer, podIpsRoutable, tunnelDialer } from '../network/dialer';
import { apiServerLookup, createProxyHandlers } from '../apiserver/proxy/proxyHandler';
import { IngressController } from '../network/ingress/ingressController';
import { ClusterDnsServer } from '../network/dns/dnsServer';
import { ServiceProxy, netdRunPath, type NetdProcess } from '../network/serviceProxy';
import { SystemServiceEndpoints } from '../network/systemServiceEndpoints';
import { NetdContainer, type NetdEndpoint } from '../docker/netdContainer';
import { ensureNetdImage } from '../docker/netdImage';
import { netdBinaryPath, netpolBinaryPath } from '../network/netd/netdImage';
import { NetworkPolicyController, type PolicyNode } from '../network/netpol/networkPolicyController';
import { clusterDnsBackend } from '../network/netpol/networkPolicyRules';
import { defaultNodePortRange } from '../apiserver/admission/serviceAllocation';
import { networkDirectory, rememberedSubnet, resolveNetworkPlan, type NetworkPlan } from '../network/clusterNetwork';
import { createStreamHandlers } from '../apiserver/streaming/streamHandlers';
import { KubeletPodStreams } from './podStreams';
import { registerMetricsApi } from '../apiserver/metrics/metricsApi';
import { MetricsCollector, combinedMetrics, processUsage } from '../kubelet/metricsCollector';
import { InProcessTransport } from './inProcessTransport';
import { bootstrapObjects } from './bootstrap';
import { writeKubeconfig, type WriteKubeconfigResult } from './kubeconfig';
import { tokenAuthenticator } from './authentication';
import { UiSessions } from './ui/uiSessions';
import { createUiRoutes } from './ui/uiRoutes';
import { RbacAuthorizer } from '../apiserver/auth/rbacAuthorizer';
import { rbacEscalationAdmission } from '../apiserver/auth/escalation';
import { StoreRbacSource } from '../apiserver/auth/rbacSource';
import { requestAuthorization } from '../apiserver/auth/requestAuthorization';
import { registerReviewApis } from '../apiserver/auth/reviews';
import { ensureBootstrapPolicy } from '../apiserver/auth/bootstrapPolicy';
import { ensureComponentPolicy, NETWORK_SERVICE_ACCOUNT, PORT_FORWARD_SERVICE_ACCOUNT } from '../apiserver/auth/componentPolicy';
import { componentClients, controllerUser, nodeUser, schedulerUser, type ComponentClients } from './componentIdentities';
import { ClusterRoleAggregationController } from '../controllers/clusterRoleAggregationController';
import { startCustomResourceDefinitions } from '../apiserver/crd/customResourceDefinitions';
import { kubernetesVersion } from './version';

export interface ClusterOptions {
  dataDir: string;
  /** 0 = any free port */
  port: number;
  kubeconfigPath: string;
  nodes: number;
  ingressHttpPort?: number;
  ingressHttpsPort?: number;
  /** the serving certificate's key (and a new CA's); default rsa */
  servingKeyType?: ServingKeyType;
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
  /** every node's runtime, for the NetworkPolicy controller */
  private readonly nodeRuntimes: PolicyNode[] = [];

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
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // The address plan comes first: Service IPs go on the serving certificate and into the API
    // server's allocator. Node 0's runtime creates the Docker network (with the remembered subnet).
    const clusterId = ensureClusterId(dataDir);
    this.clusterId = clusterId;
    this.firstRuntime = new DockerRuntime({ clusterId, nodeName: nodeNameFor(0), networkName: networkNameFor(clusterId), dataDir: join(dataDir, 'nodes', nodeNameFor(0)), preferredSubnet: rememberedSubnet(dataDir) });
    const actualSubnet = await this.firstRuntime.start().then(
      (prepared) => prepared.network.subnet || undefined,
      () => undefined,
    );
    this.network = resolveNetworkPlan(dataDir, clusterId, actualSubnet);
    const [pki, token] = await Promise.all([ensurePki(dataDir, { extraIps: [this.network.kubernetesServiceIp], keyType: this.options.servingKeyType }), Promise.resolve(ensureAdminToken(dataDir))]);
    const store = this.register(SqliteStore.open(join(dataDir, 'state.db')));
    this.register(startCompactor(store, { intervalMs: 60_000, keepRevisions: 10_000 }));

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
      serviceNetwork: { serviceRange: this.network.serviceRange, nodePortRange: defaultNodePortRange },
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
    // the web UI on the API's own origin: static files, sign-in, and the session cookie as a second way in
    const uiSessions = new UiSessions({ adminToken: token, clusterId });
    this.uiSessions = uiSessions;
    this.caCertPem = pki.caCertPem;
    const http = new HttpServer({
      api: this.api,
      authenticator,
      sessionAuthenticator: uiSessions,
      staticHandler: createUiRoutes({ sessions: uiSessions, port: () => port }),
      authorization: requestAuthorization(authorizer),
      // requests without credentials are system:anonymous for RBAC to judge (upstream --anonymous-auth)
      anonymous: true,
      cert: pki.serverCertPem,
      key: pki.serverKeyPem,
      port: this.options.port,
      isReady: () => this.ready,
    });
    this.register({ dispose: () => http.close() });
    const podsDef = registry.lookup('', 'v1', 'pods');
    if (podsDef) {
      const streamHandlers = createStreamHandlers({ getPod: (namespace, name) => api.objects.get(podsDef, namespace, name), streams: new KubeletPodStreams(() => this.kubelets) });
      this.api.provideSubresource('podLog', streamHandlers.logs);
      http.addUpgradeHandler(streamHandlers.upgrade);
      this.register(streamHandlers);
    }
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
    }

    this.client = new ApiClient(new InProcessTransport(this.api, { userAgent: componentUserAgent('kubedesk') }));
    // each component writes under its upstream name, so managedFields read as on a real cluster,
    // and acts as its upstream identity: controllers as their kube-system ServiceAccounts
    // (--use-service-account-credentials, User-Agent `kube-controller-manager/… /<controller>`)
    this.componentClients = componentClients(this.api, requestAuthorization(authorizer));
    const components = this.componentClients;
    const controllerClient = (serviceAccount: string) => components.clientFor(controllerUser(serviceAccount), `${componentUserAgent('kube-controller-manager')}/${serviceAccount}`);
    const schedulerClient = components.clientFor(schedulerUser(), componentUserAgent('kube-scheduler'));
    await bootstrapObjects(this.client, this.network);
    ensureBootstrapPolicy(this.api);
    ensureComponentPolicy(this.api);
    port = await http.listen();
    this.server = `https://127.0.0.1:${port}`;
    // Pods reach the API server and cluster DNS through unix sockets in the directory kd-netd
    // mounts (docs/architecture.md, "Service networking"), so nothing listens beyond loopback.
    await http.listenUnix(join(runDir, 'apiserver.sock'));

    const factory = this.register(new SharedInformerFactory(this.client));
    const namespaces = new NamespaceController(controllerClient('namespace-controller'), factory);
    this.register(namespaces);
    // service-account-controller and root-ca-cert-publisher in one (both roles are bound to its ServiceAccount)
    const namespaceDefaults = this.register(new NamespaceDefaultsController(controllerClient('service-account-controller'), factory, pki.caCertPem));
    // the controller manager (upstream kube-controller-manager's default controllers)
    const controllers = [
      new ReplicaSetController(controllerClient('replicaset-controller'), factory),
      new ReplicationManager(controllerClient('replication-controller'), factory),
      new DeploymentController(controllerClient('deployment-controller'), factory),
      new GarbageCollector(controllerClient('generic-garbage-collector'), factory),
      new PodGarbageCollector(controllerClient('pod-garbage-collector'), factory),
      new EndpointsController(controllerClient('endpoint-controller'), factory),
      new EndpointSliceController(controllerClient('endpointslice-controller'), factory),
      new NodeLifecycleController(controllerClient('node-controller'), factory),
      new DisruptionController(controllerClient('disruption-controller'), factory),
      new JobController(controllerClient('job-controller'), factory),
      new CronJobController(controllerClient('cronjob-controller'), factory),
      new StatefulSetController(controllerClient('statefulset-controller'), factory),
      new DaemonSetController(controllerClient('daemon-set-controller'), factory),
      new LocalPathProvisioner(controllerClient('persistent-volume-binder'), factory, { volumesDir: join(this.options.dataDir, 'volumes') }),
      new HorizontalPodAutoscalerController(controllerClient('horizontal-pod-autoscaler'), factory),
      new ResourceQuotaController(controllerClient('resourcequota-controller'), factory),
      ...(pki.caKeyPem ? [new CertificateSigner(controllerClient('certificate-controller'), factory, { certPem: pki.caCertPem, keyPem: pki.caKeyPem })] : []),
      new ClusterRoleAggregationController(controllerClient('clusterrole-aggregation-controller'), factory),
    ].map((controller) => this.register(controller));
    // cluster DNS (the kube-dns Service's backend) and the service proxy (kd-netd)
    const upstreams = process.env.KUBEDESK_DNS_UPSTREAM?.split(',').filter((entry) => entry.trim() !== '');
    const dns = this.register(ClusterDnsServer.fromInformers(factory, upstreams?.length ? { upstreams } : {}));
    await dns.listenUnix(join(runDir, 'dns.sock'));
    await dns.listenUnix(join(runDir, 'dns-udp.sock'), { transport: 'udp' });
    // NetworkPolicy: each pod's packet filter (set in its network namespace through its node's
    // runtime) and, for Service traffic, the clients kd-netd lets each backend serve
    const networkPolicies = this.register(
      new NetworkPolicyController(factory, {
        nodes: () => this.nodeRuntimes,
        executablePath: netpolBinaryPath,
        nodeAddresses: [this.network.gateway],
        serviceRange: this.network.serviceRange,
        proxyAddress: async () => netd.current()?.ip,
        proxyPorts: [{ protocol: 'TCP', port: 6443 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
        onError: (error) => console.error('kubedesk: network policies:', error instanceof Error ? error.message : error),
      }),
    );
    // The API server and DNS are served by this process; kd-netd relays them at the Services'
    // ClusterIPs and at its own address (6443, 53), which their Endpoints publish. To policies the
    // API server is that address, port 6443 (upstream: its endpoint); DNS answers as CoreDNS pods would.
    const apiServerBackend = (address: string | undefined) => ({ kind: 'virtual' as const, port: 6443, endpoint: { kind: 'address' as const, ip: address ?? this.network.gateway } });
    const serviceProxy = this.register(
      new ServiceProxy(factory, {
        runDir,
        serviceRanges: [this.network.serviceRange],
        hostBackends: [
          { namespace: 'default', name: 'kubernetes', protocol: 'TCP', port: 443, directPort: 6443, backend: `unix:${netdRunPath}/apiserver.sock`, policyBackend: apiServerBackend },
          { namespace: 'kube-system', name: 'kube-dns', protocol: 'TCP', port: 53, directPort: 53, backend: `unix:${netdRunPath}/dns.sock`, policyBackend: clusterDnsBackend() },
          { namespace: 'kube-system', name: 'kube-dns', protocol: 'UDP', port: 53, directPort: 53, backend: `unix:${netdRunPath}/dns-udp.sock`, policyBackend: clusterDnsBackend() },
        ],
        proxyAddress: () => netd.current()?.ip,
        netd,
        token: netdToken,
        policy: networkPolicies,
        onError: (error) => console.error('kubedesk: service proxy:', error instanceof Error ? error.message : error),
      }),
    );
    // the Endpoints of `kubernetes` (written as the apiserver's reconciler, with its privileged
    // loopback) and `kube-dns` (as the endpoint controllers) name kd-netd's address once it runs
    const systemEndpoints = this.register(
      new SystemServiceEndpoints(factory, {
        address: () => netd.current()?.ip,
        clients: { apiServer: new ApiClient(new InProcessTransport(this.api, { userAgent: componentUserAgent('kube-apiserver') })), endpointsController: controllerClient('endpoint-controller'), endpointSliceController: controllerClient('endpointslice-controller') },
        onError: (error) => console.error('kubedesk: system service endpoints:', error instanceof Error ? error.message : error),
      }),
    );
    // pods' filters let kd-netd's address in: once it runs, set them with it
    void serviceProxy.ready.then(() => {
      networkPolicies.resync();
      systemEndpoints.request();
    });
    // the service proxy's host side: NodePort and LoadBalancer listeners on 127.0.0.1
    const serviceControllerClient = controllerClient('service-controller');
    const hostPorts = this.register(new HostPortController(serviceControllerClient, factory, { dialer, recorder: new EventRecorder(serviceControllerClient, { component: SERVICE_CONTROLLER_NAME }) }));
    // PortForwards: listeners on 127.0.0.1 that follow their pod across replacement
    const portForwards = this.register(new PortForwardController(controllerClient(PORT_FORWARD_SERVICE_ACCOUNT), factory, { dialer }));
    const ingressPorts =
      this.options.ingressHttpPort !== undefined || this.options.ingressHttpsPort !== undefined
        ? { http: this.options.ingressHttpPort ?? 0, https: this.options.ingressHttpsPort ?? 0 }
        : await IngressController.chooseIngressPorts({ http: 80, https: 443 });
    // kubedesk's network components act as kube-system/kubedesk-network (ClusterRole system:kubedesk:network)
    this.ingress = this.register(new IngressController(controllerClient(NETWORK_SERVICE_ACCOUNT), factory, { dialer, httpPort: ingressPorts.http, httpsPort: ingressPorts.https }));
    const scheduler = this.register(new Scheduler(schedulerClient, factory, new EventRecorder(schedulerClient, { component: 'default-scheduler' })));
    this.kubelets = await this.createKubelets(factory, pki.caCertPem);
    factory.start();
    await factory.waitForCacheSync();
    namespaces.start();
    namespaceDefaults.start();
    for (const controller of controllers) controller.start();
    scheduler.start();
    hostPorts.start();
    portForwards.start();
    serviceProxy.start();
    systemEndpoints.start();
    networkPolicies.start();
    await this.ingress.start();
    for (const kubelet of this.kubelets) await kubelet.start();
    for (const collector of this.metricsCollectors) collector.start();

    this.kubeconfigResult = writeKubeconfig({ path: this.options.kubeconfigPath, server: this.server, caCertPem: pki.caCertPem, token });
    this.ready = true;
  }

  /** One kubelet per virtual node, each with its own runtime view of the one Docker daemon. */
  private async createKubelets(factory: SharedInformerFactory, caCertPem: string): Promise<Kubelet[]> {
    const { dataDir } = this.options;
    const clusterId = this.clusterId;
    const kubelets: Kubelet[] = [];
    for (let index = 0; index < this.options.nodes; index++) {
      const nodeName = nodeNameFor(index);
      const nodeDir = join(dataDir, 'nodes', nodeName);
      mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
      const runtime =
        index === 0 && this.firstRuntime ? this.firstRuntime : new DockerRuntime({ clusterId, nodeName, networkName: networkNameFor(clusterId), dataDir: nodeDir, preferredSubnet: this.network.subnet });
      // The node's address is the host's address on the cluster network; without Docker it is loopback
      // until Docker answers (the node is NotReady meanwhile).
      const internalIP = await runtime.start().then((prepared) => prepared.network.gateway, () => '127.0.0.1');
      // the first node carries the control plane, so its usage includes kubedesk's own process
      this.metricsCollectors.push(this.register(new MetricsCollector(runtime, { nodeName, system: index === 0 ? processUsage : undefined })));
      // each kubelet acts as system:node:<node> (system:node is bound to the group system:nodes)
      const kubeletClient = this.componentClients.clientFor(nodeUser(nodeName), componentUserAgent('kubelet'));
      const kubelet = new Kubelet({
        client: kubeletClient,
        factory,
        runtime,
        recorder: new EventRecorder(kubeletClient, { component: 'kubelet', host: nodeName }),
        identity: { nodeName, zone: zoneFor(index), controlPlane: index === 0, internalIP, dataDir: nodeDir },
        podsDir: join(nodeDir, 'pods'),
        caCertPem,
        kubernetesService: { host: this.network.kubernetesServiceIp, port: 443 },
        clusterDns: { servers: [this.network.dnsServiceIp], domain: 'cluster.local' },
        persistentVolumesDir: join(dataDir, 'volumes'),
      });
      this.register(kubelet);
      kubelets.push(kubelet);
      this.nodeRuntimes.push({ nodeName, runtime });
    }
    return kubelets;
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
