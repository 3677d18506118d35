// The first step of a cluster's start: its id, node 0's container runtime and the address plan
// from the Docker network (made for a fresh data dir, in about a tenth of a second, else found).
// `kubedesk serve` begins it before the rest of the bundle loads, so Docker's work overlaps
// loading the API server's code; Cluster begins it itself when nobody did.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DockerRuntime } from '../docker/dockerRuntime';
import { rememberedSubnet, resolveNetworkPlan, type NetworkPlan } from '../network/clusterNetwork';
import { ensureClusterId, networkNameFor, nodeNameFor } from './clusterIdentity';

export interface ClusterNetworkStart {
  dataDir: string;
  clusterId: string;
  /** node 0's runtime, which makes (or finds) the cluster network */
  runtime: DockerRuntime;
  /**
   * The plan: the subnet the Docker network really has, else the remembered one, else a fresh
   * choice (Docker unreachable). Rejects only when no subnet is free.
   */
  plan: Promise<NetworkPlan>;
}

export function startClusterNetwork(dataDir: string): ClusterNetworkStart {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const clusterId = ensureClusterId(dataDir);
  const runtime = new DockerRuntime({ clusterId, nodeName: nodeNameFor(0), networkName: networkNameFor(clusterId), dataDir: join(dataDir, 'nodes', nodeNameFor(0)), preferredSubnet: rememberedSubnet(dataDir) });
  const plan = runtime.start().then(
    (prepared) => resolveNetworkPlan(dataDir, clusterId, prepared.network.subnet || undefined),
    () => resolveNetworkPlan(dataDir, clusterId, undefined),
  );
  // awaited by the cluster; a failure must not be reported as unhandled before that
  plan.catch(() => undefined);
  return { dataDir, clusterId, runtime, plan };
}
