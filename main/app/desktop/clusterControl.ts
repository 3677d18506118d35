// The real ClusterControl for the desktop shell: starts the same Cluster as `kubedesk serve`, resets
// like `kubedesk reset` (cli.ts removeCluster), and counts healthy and unhealthy pods for the tray
// (by the STATUS and READY `kubectl get pods` prints, so a crash loop never counts as running) from a pod
// informer (event-driven, as the kubelet and controllers watch; no polling). The API server prefers
// its usual port (6443, kube-apiserver's --secure-port default) but takes any free port when that
// one is held, since the kubeconfig is written with the port actually bound. The tray's snapshots are
// saved with a POST to the snapshot API through the cluster's own client.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster, type ClusterOptions } from '../cluster';
import { removeCluster } from '../cli';
import { pkiDirectory, pkiFileNames } from '../../apiserver/pki';
import type { ApiClient } from '../../client/apiClient';
import { SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { podHealth } from '../../../shared/printers/podHealth';
import { SNAPSHOTS_PATH, snapshotSummary, type SnapshotSummary } from '../../../shared/snapshots';
import type { ClusterControl, LocalClusterControl, RunningCluster } from './desktopShell';
import { DEFAULT_CLUSTER_NAME } from '../localClusters/localClusterNames';
import type { LocalClusters } from '../localClusters/localClusters';

export type StartCluster<T> = (options: ClusterOptions) => Promise<T>;

export function clusterControl(
  options: ClusterOptions,
  log: (message: string) => void = (message) => console.error(`kubedesk: ${message}`),
  start: StartCluster<Cluster> = (clusterOptions) => Cluster.start(clusterOptions),
): ClusterControl {
  return {
    start: async () => runningCluster(await startPreferringPort(options, start, log)),
    reset: async () => {
      const { containersError } = await removeCluster(options.dataDir, options.kubeconfigPath);
      if (containersError) log(`could not remove the cluster's containers (is Docker running?): ${containersError}`);
    },
  };
}

/** The tray's view of the local clusters: every one but the default cluster, which is the app's own. */
export function localClusterControl(clusters: Pick<LocalClusters, 'list' | 'start' | 'stop'>): LocalClusterControl {
  return {
    list: async () => (await clusters.list()).filter((cluster) => cluster.name !== DEFAULT_CLUSTER_NAME).map(({ name, state }) => ({ name, state })),
    start: (name) => clusters.start(name),
    stop: (name) => clusters.stop(name),
  };
}

/**
 * Starts on `options.port`; when that port is taken (something else, such as a `kubedesk serve`,
 * listens there) starts again on any free port. Cluster.start has already disposed what the failed
 * attempt opened, so the second attempt reopens the same data dir cleanly. Other failures are not
 * retried: a second attempt would fail the same way.
 */
export async function startPreferringPort<T>(options: ClusterOptions, start: StartCluster<T>, log: (message: string) => void): Promise<T> {
  try {
    return await start(options);
  } catch (error) {
    if (options.port === 0 || !isAddressInUse(error)) throw error;
    log(`port ${options.port} is in use; starting the API server on a free port instead`);
    return start({ ...options, port: 0 });
  }
}

/** Node's listen error for a taken port: a system error with code EADDRINUSE. */
export function isAddressInUse(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
}

function runningCluster(cluster: Cluster): RunningCluster {
  const caPem = readFileSync(join(pkiDirectory(cluster.options.dataDir), pkiFileNames.caCert), 'utf8');
  return {
    server: cluster.server,
    caPem,
    uiLoginUrl: () => cluster.uiLoginUrl(),
    watchRunningPods: (listener) => watchRunningPods(cluster, listener),
    saveSnapshot: (name) => saveSnapshot(cluster, name),
    stopContainers: () => cluster.stopContainers(),
    dispose: () => cluster.dispose(),
  };
}

/** POST to the snapshot API with the cluster's own client, which may do everything (as cluster-admin). */
export async function saveSnapshot(cluster: { readonly client: Pick<ApiClient, 'request'> }, name: string): Promise<SnapshotSummary> {
  const body = await cluster.client.request({ method: 'POST', path: SNAPSHOTS_PATH, body: { apiVersion: 'snapshots.kubedesk.dev/v1', kind: 'Snapshot', metadata: { name } } });
  const saved = snapshotSummary(body);
  if (!saved) throw new Error('the snapshot API did not answer with a Snapshot');
  return saved;
}

function watchRunningPods(cluster: Cluster, listener: (count: number, unhealthy: number) => void): { dispose(): void } {
  const factory = new SharedInformerFactory(cluster.client);
  const pods = factory.informerFor<KubeObject>(resources.pods);
  let last = '';
  const recount = () => {
    const { healthy, unhealthy } = countPodHealth(pods.list());
    if (`${healthy}/${unhealthy}` === last) return;
    last = `${healthy}/${unhealthy}`;
    listener(healthy, unhealthy);
  };
  pods.addEventHandler({ onAdd: recount, onUpdate: recount, onDelete: recount });
  factory.start();
  void factory.waitForCacheSync().then(recount);
  return { dispose: () => factory.dispose() };
}

/** Running with every container ready, and what kubectl shows as a problem (not ready or failing). */
export function countPodHealth(pods: readonly KubeObject[], now: Date = new Date()): { healthy: number; unhealthy: number } {
  let healthy = 0;
  let unhealthy = 0;
  for (const pod of pods) {
    const health = podHealth(pod, now);
    if (health === 'healthy') healthy += 1;
    else if (health === 'not-ready' || health === 'failing') unhealthy += 1;
  }
  return { healthy, unhealthy };
}
