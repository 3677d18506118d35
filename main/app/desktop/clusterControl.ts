// The real ClusterControl for the desktop shell: starts the same Cluster as `kubedesk serve`, resets
// like `kubedesk reset` (cli.ts removeCluster), and counts running pods for the tray from a pod
// informer (event-driven, as the kubelet and controllers watch; no polling).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster, type ClusterOptions } from '../cluster';
import { removeCluster } from '../cli';
import { pkiDirectory, pkiFileNames } from '../../apiserver/pki';
import { SharedInformerFactory } from '../../client/informer';
import { resources } from '../../client/resources';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { ClusterControl, RunningCluster } from './desktopShell';

export function clusterControl(options: ClusterOptions, log: (message: string) => void = (message) => console.error(`kubedesk: ${message}`)): ClusterControl {
  return {
    start: async () => runningCluster(await Cluster.start(options)),
    reset: async () => {
      const { containersError } = await removeCluster(options.dataDir, options.kubeconfigPath);
      if (containersError) log(`could not remove the cluster's containers (is Docker running?): ${containersError}`);
    },
  };
}

function runningCluster(cluster: Cluster): RunningCluster {
  const caPem = readFileSync(join(pkiDirectory(cluster.options.dataDir), pkiFileNames.caCert), 'utf8');
  return {
    server: cluster.server,
    caPem,
    uiLoginUrl: () => cluster.uiLoginUrl(),
    watchRunningPods: (listener) => watchRunningPods(cluster, listener),
    stopContainers: () => cluster.stopContainers(),
    dispose: () => cluster.dispose(),
  };
}

function watchRunningPods(cluster: Cluster, listener: (count: number) => void): { dispose(): void } {
  const factory = new SharedInformerFactory(cluster.client);
  const pods = factory.informerFor<KubeObject>(resources.pods);
  let last = -1;
  const recount = () => {
    const count = pods.list().filter(isRunning).length;
    if (count === last) return;
    last = count;
    listener(count);
  };
  pods.addEventHandler({ onAdd: recount, onUpdate: recount, onDelete: recount });
  factory.start();
  void factory.waitForCacheSync().then(recount);
  return { dispose: () => factory.dispose() };
}

function isRunning(pod: KubeObject): boolean {
  const status: unknown = Reflect.get(pod, 'status');
  return isRecord(status) && status.phase === 'Running';
}
