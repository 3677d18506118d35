// Pure rules of the cluster views: whether the shown cluster has kubedesk's own features, and the
// local clusters' list (GET /ui/local-clusters) with what each can do in its state.
import { isRecord } from '../../../shared/kubernetes/types';
import type { ClusterStatus } from '../../api/clusters';
import type { DiscoveredResource } from '../../kinds/discovery';

/** The group only a kubedesk cluster serves. */
export const KUBEDESK_GROUP = 'history.kubedesk.dev';

export type KubedeskFeatures = 'present' | 'absent' | 'unknown';

/**
 * The serving cluster is a kubedesk; another one is when its discovery lists history.kubedesk.dev
 * (the relay's status says the same until discovery has answered).
 */
export function kubedeskFeatures(input: { cluster: string; discoveryLoaded: boolean; discovered: readonly Pick<DiscoveredResource, 'group'>[]; status?: Pick<ClusterStatus, 'state' | 'kubedesk'> }): KubedeskFeatures {
  if (input.cluster === '') return 'present';
  if (input.discoveryLoaded && input.discovered.length > 0) return input.discovered.some((resource) => resource.group === KUBEDESK_GROUP) ? 'present' : 'absent';
  if (input.status?.state === 'connected') return input.status.kubedesk ? 'present' : 'absent';
  return 'unknown';
}

export type LocalClusterState = 'running' | 'stopped' | 'starting';

export interface LocalCluster {
  name: string;
  context: string;
  dataDir: string;
  port?: number;
  state: LocalClusterState;
  nodes: number;
}

const LOCAL_STATES: readonly LocalClusterState[] = ['running', 'stopped', 'starting'];

/** GET /ui/local-clusters; malformed entries are left out. */
export function parseLocalClusters(body: unknown): LocalCluster[] {
  if (!isRecord(body) || !Array.isArray(body.clusters)) return [];
  const clusters: LocalCluster[] = [];
  for (const item of body.clusters) {
    if (!isRecord(item) || typeof item.name !== 'string') continue;
    const state = LOCAL_STATES.find((candidate) => candidate === item.state) ?? 'stopped';
    clusters.push({
      name: item.name,
      context: typeof item.context === 'string' ? item.context : `kubedesk-${item.name}`,
      dataDir: typeof item.dataDir === 'string' ? item.dataDir : '',
      ...(typeof item.port === 'number' ? { port: item.port } : {}),
      state,
      nodes: typeof item.nodes === 'number' ? item.nodes : 1,
    });
  }
  return clusters.sort((a, b) => a.name.localeCompare(b.name));
}

export type LocalClusterAction = 'start' | 'stop' | 'delete' | 'open';

/** What a local cluster offers in its state: a stopped one starts, a running one stops or opens; both can be deleted. */
export function localClusterActions(cluster: Pick<LocalCluster, 'state'>): LocalClusterAction[] {
  switch (cluster.state) {
    case 'running':
      return ['open', 'stop', 'delete'];
    case 'stopped':
      return ['start', 'delete'];
    case 'starting':
      return [];
  }
}

/**
 * A name `kubedesk cluster create` accepts, checked before asking (the server says the same
 * with a field path): a DNS-1123 label, short enough for `kubedesk-<name>` contexts and
 * container names. Undefined when fine.
 */
export function localClusterNameProblem(name: string): string | undefined {
  if (name === '') return 'a name is required';
  if (name.length > 63) return 'at most 63 characters';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) return 'lower-case letters, digits and “-”, starting and ending with a letter or digit';
  return undefined;
}

/** The message of a Status the local-cluster routes answered, or the HTTP code. */
export function statusMessage(body: unknown, code: number): string {
  if (isRecord(body) && typeof body.message === 'string' && body.message) return body.message;
  return `the server answered ${code}`;
}
