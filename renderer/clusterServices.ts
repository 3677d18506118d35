// The services of the cluster a window shows — its Kubernetes client under the cluster's base
// path, the watch manager and the connection monitor — rebuilt when the window switches clusters.
// The switch happens in the store (which drops every cache at once); the old services are
// disposed in the same synchronous step, so no list page or watch event of the previous cluster
// can land in the new one's caches. Views get the current services from the React context.
import { HttpKubeClient } from './api/kubeClient';
import { ConnectionMonitor, probeClusterStatus, probeSession } from './api/connection';
import { clusterBasePath } from './api/clusters';
import type { AppServices } from './context';
import type { AppStore } from './store/store';
import { WatchManager } from './store/watchManager';

export interface ClusterServices extends AppServices {
  /** the context these services talk to ('' = the serving cluster) */
  cluster: string;
  connection: ConnectionMonitor;
  dispose(): void;
}

/** Client, watches and monitor for one cluster: the serving cluster probes its session, a relayed one its status. */
export function createClusterServices(store: AppStore, cluster: string, origin: string): ClusterServices {
  const basePath = clusterBasePath(cluster);
  const client = new HttpKubeClient(origin, basePath);
  const connection = new ConnectionMonitor(store, cluster === '' ? () => probeSession() : () => probeClusterStatus(basePath));
  const watches = new WatchManager(client, store, { connection });
  // a relayed cluster is asked at once: its plain-words state, whether it is a kubedesk, its warnings
  if (cluster !== '') connection.checkNow();
  return {
    cluster,
    store,
    client,
    watches,
    connection,
    dispose() {
      watches.dispose();
      connection.dispose();
    },
  };
}

/** Holds the current cluster's services and replaces them when the store's cluster changes. */
export class ClusterServicesHolder {
  private current: ClusterServices;
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: AppStore,
    private readonly origin: string,
  ) {
    this.current = createClusterServices(store, store.getState().cluster, origin);
    this.unsubscribe = store.subscribe((state) => {
      if (state.cluster === this.current.cluster) return;
      this.current.dispose();
      this.current = createClusterServices(store, state.cluster, origin);
      for (const listener of [...this.listeners]) listener();
    });
  }

  get services(): ClusterServices {
    return this.current;
  }

  /** For useSyncExternalStore. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.unsubscribe();
    this.current.dispose();
    this.listeners.clear();
  }
}
