// Cluster: the composition root. Plain `new` calls in dependency order — storage, API server,
// HTTPS, then the components that are clients of the API — each registered for disposal in reverse.
// `kubedesk serve` and the Electron main process both run exactly this.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteStore, startCompactor } from '../storage/sqliteStore';
import { builtinResources } from '../registry/resources';
import { ApiServer } from '../apiserver/apiServer';
import { HttpServer, type Authenticator } from '../apiserver/httpServer';
import { ResourceRegistry } from '../apiserver/resourceRegistry';
import { OpenApiService } from '../apiserver/openapi/openapiDocuments';
import { ensureAdminToken, ensurePki, pkiDirectory } from '../apiserver/pki';
import { ServiceAccountTokens } from '../apiserver/serviceAccountTokens';
import { tokenRequestHandler } from '../apiserver/tokenRequest';
import { ApiClient } from '../client/apiClient';
import { SharedInformerFactory } from '../client/informer';
import { NamespaceController } from '../controllers/namespaceController';
import { NamespaceDefaultsController } from '../controllers/namespaceDefaultsController';
import { ReplicaSetController } from '../controllers/replicaSetController';
import { GarbageCollector } from '../controllers/garbageCollector';
import { PodGarbageCollector } from '../controllers/podGarbageCollector';
import { EndpointsController } from '../controllers/endpointsController';
import { EndpointSliceController } from '../controllers/endpointSliceController';
import { NodeLifecycleController } from '../controllers/nodeLifecycleController';
import { DisruptionController } from '../controllers/disruptionController';
import { evictionHandler } from '../apiserver/eviction';
import { JobController } from '../controllers/jobController';
import { DeploymentController } from '../controllers/deploymentController';
import { CronJobController } from '../controllers/cronJobController';
import { StatefulSetController } from '../controllers/statefulSetController';
import { DaemonSetController } from '../controllers/daemonSetController';
import { LocalPathProvisioner } from '../controllers/localPathProvisioner';
import { HorizontalPodAutoscalerController } from '../controllers/horizontalPodAutoscaler';
import { EventRecorder } from '../client/eventRecorder';
import { Scheduler } from '../scheduler/scheduler';
import { Kubelet } from '../kubelet/kubelet';
import { DockerRuntime } from '../kubelet/runtime/dockerRuntime';
import { ensureClusterId, networkNameFor, nodeNameFor, zoneFor } from './clusterIdentity';
import { KUBERNETES_SERVICE_IP } from './bootstrap';
import { createStreamHandlers } from '../apiserver/streaming/streamHandlers';
import { KubeletPodStreams } from './podStreams';
import { registerMetricsApi } from '../apiserver/metrics/metricsApi';
import { MetricsCollector, combinedMetrics, processUsage } from '../kubelet/metricsCollector';
import { InProcessTransport } from './inProcessTransport';
import { bootstrapObjects } from './bootstrap';
import { writeKubeconfig, type WriteKubeconfigResult } from './kubeconfig';
import { tokenAuthenticator } from './authentication';
import { kubernetesVersion } from './version';

export interface ClusterOptions {
  dataDir: string;
  /** 0 = any free port */
  port: number;
  kubeconfigPath: string;
  nodes: number;
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
    const [pki, token] = await Promise.all([ensurePki(dataDir), Promise.resolve(ensureAdminToken(dataDir))]);
    const store = this.register(SqliteStore.open(join(dataDir, 'state.db')));
    this.register(startCompactor(store, { intervalMs: 60_000, keepRevisions: 10_000 }));

    const registry = new ResourceRegistry(builtinResources());
    const openapi = new OpenApiService();
    openapi.setResources(registry.all());
    this.register(registry.onDidChange(() => openapi.setResources(registry.all())));

    let port = 0;
    this.api = new ApiServer({ store, registry, openapi, serverAddress: () => `127.0.0.1:${port}`, version: kubernetesVersion() });
    const serviceAccountTokens = ServiceAccountTokens.open(pkiDirectory(dataDir));
    this.api.registerSubresource('serviceaccounts', 'token', tokenRequestHandler(this.api, serviceAccountTokens));
    this.api.registerSubresource('pods', 'eviction', evictionHandler(this.api));
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
    const http = new HttpServer({ api: this.api, authenticator, cert: pki.serverCertPem, key: pki.serverKeyPem, port: this.options.port, isReady: () => this.ready });
    this.register({ dispose: () => http.close() });
    const podsDef = registry.lookup('', 'v1', 'pods');
    if (podsDef) {
      const streamHandlers = createStreamHandlers({ getPod: (namespace, name) => api.objects.get(podsDef, namespace, name), streams: new KubeletPodStreams(() => this.kubelets) });
      this.api.registerSubresource('pods', 'log', streamHandlers.logs);
      http.addUpgradeHandler(streamHandlers.upgrade);
      this.register(streamHandlers);
    }
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

    this.client = new ApiClient(new InProcessTransport(this.api));
    await bootstrapObjects(this.client);
    port = await http.listen();
    this.server = `https://127.0.0.1:${port}`;

    const factory = this.register(new SharedInformerFactory(this.client));
    const namespaces = new NamespaceController(this.client, factory);
    this.register(namespaces);
    const namespaceDefaults = this.register(new NamespaceDefaultsController(this.client, factory, pki.caCertPem));
    // the controller manager (upstream kube-controller-manager's default controllers)
    const controllers = [
      new ReplicaSetController(this.client, factory),
      new DeploymentController(this.client, factory),
      new GarbageCollector(this.client, factory),
      new PodGarbageCollector(this.client, factory),
      new EndpointsController(this.client, factory),
      new EndpointSliceController(this.client, factory),
      new NodeLifecycleController(this.client, factory),
      new DisruptionController(this.client, factory),
      new JobController(this.client, factory),
      new CronJobController(this.client, factory),
      new StatefulSetController(this.client, factory),
      new DaemonSetController(this.client, factory),
      new LocalPathProvisioner(this.client, factory, { volumesDir: join(this.options.dataDir, 'volumes') }),
      new HorizontalPodAutoscalerController(this.client, factory),
    ].map((controller) => this.register(controller));
    const scheduler = this.register(new Scheduler(this.client, factory, new EventRecorder(this.client, { component: 'default-scheduler' })));
    this.kubelets = await this.createKubelets(factory, pki.caCertPem);
    factory.start();
    await factory.waitForCacheSync();
    namespaces.start();
    namespaceDefaults.start();
    for (const controller of controllers) controller.start();
    scheduler.start();
    for (const kubelet of this.kubelets) await kubelet.start();
    for (const collector of this.metricsCollectors) collector.start();

    this.kubeconfigResult = writeKubeconfig({ path: this.options.kubeconfigPath, server: this.server, caCertPem: pki.caCertPem, token });
    this.ready = true;
  }

  /** One kubelet per virtual node, each with its own runtime view of the one Docker daemon. */
  private async createKubelets(factory: SharedInformerFactory, caCertPem: string): Promise<Kubelet[]> {
    const { dataDir } = this.options;
    const clusterId = ensureClusterId(dataDir);
    const kubelets: Kubelet[] = [];
    for (let index = 0; index < this.options.nodes; index++) {
      const nodeName = nodeNameFor(index);
      const nodeDir = join(dataDir, 'nodes', nodeName);
      mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
      const runtime = new DockerRuntime({ clusterId, nodeName, networkName: networkNameFor(clusterId), dataDir: nodeDir });
      // The node's address is the host's address on the cluster network; without Docker it is loopback
      // until Docker answers (the node is NotReady meanwhile).
      const internalIP = await runtime.start().then((prepared) => prepared.network.gateway, () => '127.0.0.1');
      // the first node carries the control plane, so its usage includes kubedesk's own process
      this.metricsCollectors.push(this.register(new MetricsCollector(runtime, { nodeName, system: index === 0 ? processUsage : undefined })));
      const kubelet = new Kubelet({
        client: this.client,
        factory,
        runtime,
        recorder: new EventRecorder(this.client, { component: 'kubelet', host: nodeName }),
        identity: { nodeName, zone: zoneFor(index), controlPlane: index === 0, internalIP, dataDir: nodeDir },
        podsDir: join(nodeDir, 'pods'),
        caCertPem,
        kubernetesService: { host: KUBERNETES_SERVICE_IP, port: 443 },
        persistentVolumesDir: join(dataDir, 'volumes'),
      });
      this.register(kubelet);
      kubelets.push(kubelet);
    }
    return kubelets;
  }

  isReady(): boolean {
    return this.ready;
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
