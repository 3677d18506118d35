// Removing a stopped cluster (`kubedesk reset`, `kubedesk cluster delete`, the desktop app's
// "Reset cluster"): what carries its cluster id on Docker, its data dir and its kubeconfig entries,
// as `kind delete cluster` removes its node containers, network and kubeconfig entries.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { removeKubeconfigEntries } from './kubeconfig';
import { networkNameFor, readClusterId } from './clusterIdentity';
import { DockerRuntime } from '../docker/dockerRuntime';
import { localClustersDirectory } from './localClusters/localClusterNames';

export interface RemoveClusterOptions {
  /** the kubeconfig entries to remove; default `kubedesk` */
  contextName?: string;
}

/**
 * Removes a (stopped) cluster: its containers and network, its data dir and its kubeconfig entries.
 * `kubedesk reset`, `kubedesk cluster delete` and the desktop app's "Reset cluster" use it. The
 * named local clusters under <data dir>/clusters/ are not the default cluster's to remove: that
 * folder stays. Docker being unreachable does not stop the rest; the error comes back for the
 * caller to report.
 */
export async function removeCluster(dataDir: string, kubeconfig: string, options: RemoveClusterOptions = {}): Promise<{ containersError?: string }> {
  let containersError: string | undefined;
  const clusterId = readClusterId(dataDir);
  if (clusterId) {
    // Containers, sandboxes and the network carry the cluster id; remove exactly those.
    try {
      await new DockerRuntime({ clusterId, nodeName: '', networkName: networkNameFor(clusterId) }).removeClusterResources();
    } catch (error) {
      containersError = error instanceof Error ? error.message : String(error);
    }
  }
  removeDataDir(dataDir);
  if (existsSync(kubeconfig)) removeKubeconfigEntries(kubeconfig, options.contextName ?? 'kubedesk');
  return containersError === undefined ? {} : { containersError };
}

/** The data dir and all it holds, except the named local clusters' folder when it has any. */
function removeDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  const named = localClustersDirectory(dataDir);
  if (!existsSync(named) || readdirSync(named).length === 0) {
    rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  for (const entry of readdirSync(dataDir)) {
    const path = join(dataDir, entry);
    if (path !== named) rmSync(path, { recursive: true, force: true });
  }
}
