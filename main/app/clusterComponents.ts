// The cluster's components that are clients of the API: the controller manager's controllers, the
// scheduler, cluster DNS and the service proxy (kd-netd), NetworkPolicy enforcement,
// NodePort/LoadBalancer listeners, PortForwards, the Ingress controller and one kubelet per node. They start once the API server
// is ready, as upstream's kube-controller-manager, kube-scheduler and kubelets start against a
// serving kube-apiserver whose /readyz does not wait for them. Cluster imports this module then, so
// their modules' top-level code runs after readiness.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SharedInformerFactory } from '../client/informer';
import { EventRecorder } from '../client/eventRecorder';
import type { ApiClient } from '../client/apiClient';
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
import { ClusterRoleAggregationController } from '../controllers/clusterRoleAggregationController';
import { Scheduler } from '../scheduler/scheduler';
import { Kubelet } from '../kubelet/kubelet';
import { DockerRuntime } from '../docker/dockerRuntime';
import type { NetdEndpoint } from '../docker/netdContainer';
import { MetricsCollector, processUsage } from '../kubelet/metricsCollector';
import { HostPortController, SERVICE_CONTROLLER_NAME } from '../network/hostPorts/hostPortController';
import { PortForwardController } from '../network/portForwards/portForwardController';
import { IngressController } from '../network/ingress/ingressController';
import { ClusterDnsServer } from '../network/dns/dnsServer';
import { ServiceProxy, netdRunPath, type NetdProcess } from '../network/serviceProxy';
import { netpolBinaryPath } from '../network/netd/netdImage';
import { NetworkPolicyController, type PolicyNode } from '../network/netpol/networkPolicyController';
import { clusterDnsBackend } from '../network/netpol/networkPolicyRules';
import { SystemServiceEndpoints } from '../network/systemServiceEndpoints';
import type { NetworkPlan } from '../network/clusterNetwork';
import type { PodDialer } from '../network/dialer';
import { NETWORK_SERVICE_ACCOUNT, PORT_FORWARD_SERVICE_ACCOUNT } from '../apiserver/auth/componentPolicy';
import { controllerUser, nodeUser, schedulerUser, type ComponentClients } from './componentIdentities';
import { networkNameFor, nodeNameFor, zoneFor } from './clusterIdentity';
import type { StartupPhases } from './startupPhases';

interface Disposable {
  dispose(): void | Promise<void>;
}

export interface ClusterComponentsContext {
  dataDir: string;
  nodes: number;
  clusterId: string;
  network: NetworkPlan;
  /** the privileged loopback client the shared informers read with */
  client: ApiClient;
  /** the API server's own loopback client (User-Agent kube-apiserver), for what it writes itself */
  apiServerClient: ApiClient;
  clients: ComponentClients;
  /** the User-Agent each component sends, as client-go builds it */
  userAgent: (component: string) => string;
  caCertPem: string;
  /** present when the CA key is on disk: the certificate signer issues CSRs with it */
  caKeyPem?: string;
  /** node 0's runtime, which made the cluster network */
  firstRuntime: DockerRuntime;
  runDir: string;
  /** kd-netd; `current()` is its endpoint once it runs */
  netd: NetdProcess & { current(): NetdEndpoint | undefined };
  netdToken: string;
  dialer: PodDialer;
  ingressPorts: { http?: number; https?: number };
  /** registers what must be disposed with the cluster */
  register<T extends Disposable>(disposable: T): T;
  /** true once the cluster is being disposed: starting stops between steps */
  stopping(): boolean;
  phases: StartupPhases;
}

export interface ClusterComponents {
  kubelets: Kubelet[];
  metricsCollectors: MetricsCollector[];
  ingress: IngressController;
}

/**
 * Constructs every component, syncs the shared informers, starts the controllers, the scheduler
 * and the network components, then the kubelets (each registers its Node). `onCreated` receives
 * the components once they exist, before they start. Resolves with the start of the Ingress
 * controller's listeners, which is not waited for: its fallback certificate takes a while to make,
 * and a cluster stopped meanwhile need not wait for it (the controller stops itself once made).
 */
export async function startClusterComponents(context: ClusterComponentsContext, onCreated: (components: ClusterComponents) => void): Promise<{ ingressStarted: Promise<void> }> {
  const { register, clients, userAgent, phases, runDir, dialer, network } = context;
  const controllerClient = (serviceAccount: string) => clients.clientFor(controllerUser(serviceAccount), `${userAgent('kube-controller-manager')}/${serviceAccount}`);
  const schedulerClient = clients.clientFor(schedulerUser(), userAgent('kube-scheduler'));
  const factory = register(new SharedInformerFactory(context.client));
  const namespaces = register(new NamespaceController(controllerClient('namespace-controller'), factory));
  // service-account-controller and root-ca-cert-publisher in one (both roles are bound to its ServiceAccount)
  const namespaceDefaults = register(new NamespaceDefaultsController(controllerClient('service-account-controller'), factory, context.caCertPem));
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
    new LocalPathProvisioner(controllerClient('persistent-volume-binder'), factory, { volumesDir: join(context.dataDir, 'volumes') }),
    new HorizontalPodAutoscalerController(controllerClient('horizontal-pod-autoscaler'), factory),
    new ResourceQuotaController(controllerClient('resourcequota-controller'), factory),
    ...(context.caKeyPem ? [new CertificateSigner(controllerClient('certificate-controller'), factory, { certPem: context.caCertPem, keyPem: context.caKeyPem })] : []),
    new ClusterRoleAggregationController(controllerClient('clusterrole-aggregation-controller'), factory),
  ].map((controller) => register(controller));
  // cluster DNS (the kube-dns Service's backend) and the service proxy (kd-netd)
  const upstreams = process.env.KUBEDESK_DNS_UPSTREAM?.split(',').filter((entry) => entry.trim() !== '');
  const dns = register(ClusterDnsServer.fromInformers(factory, upstreams?.length ? { upstreams } : {}));
  // NetworkPolicy: each pod's packet filter (set in its network namespace through its node's
  // runtime) and, for Service traffic, the clients kd-netd lets each backend serve
  const nodeRuntimes: PolicyNode[] = [];
  const networkPolicies = register(
    new NetworkPolicyController(factory, {
      nodes: () => nodeRuntimes,
      executablePath: netpolBinaryPath,
      nodeAddresses: [network.gateway],
      serviceRange: network.serviceRange,
      proxyAddress: async () => context.netd.current()?.ip,
      proxyPorts: [{ protocol: 'TCP', port: 6443 }, { protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }],
      onError: (error) => console.error('kubedesk: network policies:', error instanceof Error ? error.message : error),
    }),
  );
  // The API server and DNS are served by this process; kd-netd relays them at the Services'
  // ClusterIPs and at its own address (6443, 53), which their Endpoints publish. To policies the
  // API server is that address, port 6443 (upstream: its endpoint); DNS answers as CoreDNS pods would.
  const apiServerBackend = (address: string | undefined) => ({ kind: 'virtual' as const, port: 6443, endpoint: { kind: 'address' as const, ip: address ?? network.gateway } });
  const serviceProxy = register(
    new ServiceProxy(factory, {
      runDir,
      serviceRanges: [network.serviceRange],
      hostBackends: [
        { namespace: 'default', name: 'kubernetes', protocol: 'TCP', port: 443, directPort: 6443, backend: `unix:${netdRunPath}/apiserver.sock`, policyBackend: apiServerBackend },
        { namespace: 'kube-system', name: 'kube-dns', protocol: 'TCP', port: 53, directPort: 53, backend: `unix:${netdRunPath}/dns.sock`, policyBackend: clusterDnsBackend() },
        { namespace: 'kube-system', name: 'kube-dns', protocol: 'UDP', port: 53, directPort: 53, backend: `unix:${netdRunPath}/dns-udp.sock`, policyBackend: clusterDnsBackend() },
      ],
      proxyAddress: () => context.netd.current()?.ip,
      netd: context.netd,
      token: context.netdToken,
      policy: networkPolicies,
      onError: (error) => console.error('kubedesk: service proxy:', error instanceof Error ? error.message : error),
    }),
  );
  // the Endpoints of `kubernetes` (written as the apiserver's reconciler, with its privileged
  // loopback) and `kube-dns` (as the endpoint controllers) name kd-netd's address once it runs
  const systemEndpoints = register(
    new SystemServiceEndpoints(factory, {
      address: () => context.netd.current()?.ip,
      clients: { apiServer: context.apiServerClient, endpointsController: controllerClient('endpoint-controller'), endpointSliceController: controllerClient('endpointslice-controller') },
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
  const hostPorts = register(new HostPortController(serviceControllerClient, factory, { dialer, recorder: new EventRecorder(serviceControllerClient, { component: SERVICE_CONTROLLER_NAME }) }));
  // PortForwards: listeners on 127.0.0.1 that follow their pod across replacement
  const portForwards = register(new PortForwardController(controllerClient(PORT_FORWARD_SERVICE_ACCOUNT), factory, { dialer }));
  const portsGiven = context.ingressPorts.http !== undefined || context.ingressPorts.https !== undefined;
  const ingressPorts = portsGiven ? { http: context.ingressPorts.http ?? 0, https: context.ingressPorts.https ?? 0 } : await IngressController.chooseIngressPorts({ http: 80, https: 443 });
  // chosen ports may be taken by the time they are bound (another cluster starting now): fall back to 8080/8443, then any
  // kubedesk's network components act as kube-system/kubedesk-network (ClusterRole system:kubedesk:network)
  const ingress = register(new IngressController(controllerClient(NETWORK_SERVICE_ACCOUNT), factory, { dialer, httpPort: ingressPorts.http, httpsPort: ingressPorts.https, fallbackPorts: portsGiven ? [] : [{ http: 8080, https: 8443 }, { http: 0, https: 0 }] }));
  const scheduler = register(new Scheduler(schedulerClient, factory, new EventRecorder(schedulerClient, { component: 'default-scheduler' })));
  const metricsCollectors: MetricsCollector[] = [];
  const kubelets = await createKubelets(context, factory, metricsCollectors, nodeRuntimes);
  onCreated({ kubelets, metricsCollectors, ingress });
  phases.mark('components constructed');
  const notStarted = { ingressStarted: Promise.resolve() };
  if (context.stopping()) return notStarted;

  await dns.listenUnix(join(runDir, 'dns.sock'));
  await dns.listenUnix(join(runDir, 'dns-udp.sock'), { transport: 'udp' });
  factory.start();
  await factory.waitForCacheSync();
  phases.mark('informers synced');
  if (context.stopping()) return notStarted;
  namespaces.start();
  namespaceDefaults.start();
  for (const controller of controllers) controller.start();
  scheduler.start();
  hostPorts.start();
  portForwards.start();
  serviceProxy.start();
  systemEndpoints.start();
  networkPolicies.start();
  phases.mark('controllers started');
  for (const kubelet of kubelets) {
    if (context.stopping()) return notStarted;
    await kubelet.start();
  }
  phases.mark('kubelets started');
  for (const collector of metricsCollectors) collector.start();
  if (context.stopping()) return notStarted;
  return { ingressStarted: ingress.start().then(() => phases.mark('ingress started')) };
}

/**
 * One kubelet per virtual node, each with its own runtime view of the one Docker daemon; each
 * node's runtime also goes to `nodeRuntimes` (the NetworkPolicy controller's).
 */
async function createKubelets(context: ClusterComponentsContext, factory: SharedInformerFactory, metricsCollectors: MetricsCollector[], nodeRuntimes: PolicyNode[]): Promise<Kubelet[]> {
  const { dataDir, clusterId, network, register } = context;
  const kubelets: Kubelet[] = [];
  for (let index = 0; index < context.nodes; index++) {
    const nodeName = nodeNameFor(index);
    const nodeDir = join(dataDir, 'nodes', nodeName);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    const runtime = index === 0 ? context.firstRuntime : new DockerRuntime({ clusterId, nodeName, networkName: networkNameFor(clusterId), dataDir: nodeDir, preferredSubnet: network.subnet });
    // The node's address is the host's address on the cluster network; without Docker it is loopback
    // until Docker answers (the node is NotReady meanwhile).
    const internalIP = await runtime.start().then((prepared) => prepared.network.gateway, () => '127.0.0.1');
    // the first node carries the control plane, so its usage includes kubedesk's own process
    metricsCollectors.push(register(new MetricsCollector(runtime, { nodeName, system: index === 0 ? processUsage : undefined })));
    // each kubelet acts as system:node:<node> (system:node is bound to the group system:nodes)
    const kubeletClient = context.clients.clientFor(nodeUser(nodeName), context.userAgent('kubelet'));
    const kubelet = new Kubelet({
      client: kubeletClient,
      factory,
      runtime,
      recorder: new EventRecorder(kubeletClient, { component: 'kubelet', host: nodeName }),
      identity: { nodeName, zone: zoneFor(index), controlPlane: index === 0, internalIP, dataDir: nodeDir },
      podsDir: join(nodeDir, 'pods'),
      caCertPem: context.caCertPem,
      kubernetesService: { host: network.kubernetesServiceIp, port: 443 },
      clusterDns: { servers: [network.dnsServiceIp], domain: 'cluster.local' },
      persistentVolumesDir: join(dataDir, 'volumes'),
    });
    register(kubelet);
    kubelets.push(kubelet);
    nodeRuntimes.push({ nodeName, runtime });
  }
  return kubelets;
}
