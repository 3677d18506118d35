// The clusters the UI can show, as the serving cluster lists them (GET /ui/clusters: the user's
// kubeconfig contexts, names and addresses only — the credentials stay in the app's main process,
// which relays each context under `/ui/clusters/<context>`), the picker's order, and one cluster's
// state (GET <basePath>/-/status) in plain words, the way kubectl's own errors read: the server
// cannot be reached, its certificate is not trusted, the credentials were refused, the exec
// credential plugin is missing or failed. Pure functions; the page does the fetching.
import { isRecord } from '../../shared/kubernetes/types';

import type { AuthKind, ClusterEntry, ClusterState, ClusterStatus } from '../../shared/clusters';

export type { AuthKind, ClusterEntry, ClusterState, ClusterStatus };

export interface ClusterList {
  /** the serving cluster's context name */
  self: string;
  kubeconfigFiles: string[];
  clusters: ClusterEntry[];
  /** the kubeconfig could not be read (the serving cluster is still listed) */
  error?: string;
}

const AUTH_KINDS: readonly AuthKind[] = ['client-certificate', 'token', 'token-file', 'exec', 'basic', 'auth-provider', 'none'];

/** The prefix of every API path of a context, as the relay serves it ('' = the serving cluster). */
export function clusterBasePath(name: string): string {
  return name === '' ? '' : `/ui/clusters/${encodeURIComponent(name)}`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function parseEntry(value: unknown): ClusterEntry | undefined {
  if (!isRecord(value) || typeof value.name !== 'string' || value.name === '') return undefined;
  const text = (key: string) => (typeof value[key] === 'string' ? (value[key] as string) : '');
  const self = value.self === true;
  const impersonate = isRecord(value.impersonate) ? { ...(typeof value.impersonate.user === 'string' ? { user: value.impersonate.user } : {}), ...(Array.isArray(value.impersonate.groups) ? { groups: strings(value.impersonate.groups) } : {}) } : undefined;
  return {
    name: value.name,
    cluster: text('cluster'),
    user: text('user'),
    server: text('server'),
    ...(typeof value.namespace === 'string' && value.namespace ? { namespace: value.namespace } : {}),
    insecure: value.insecure === true,
    authKind: AUTH_KINDS.find((kind) => kind === value.authKind) ?? 'none',
    ...(impersonate ? { impersonate } : {}),
    current: value.current === true,
    self,
    basePath: self ? '' : typeof value.basePath === 'string' && value.basePath ? value.basePath : clusterBasePath(value.name),
    readOnly: value.readOnly === true,
  };
}

/** GET /ui/clusters's answer; anything malformed is left out, never thrown. */
export function parseClusterList(body: unknown): ClusterList {
  if (!isRecord(body)) return { self: '', kubeconfigFiles: [], clusters: [], error: 'the cluster list could not be read' };
  const clusters = Array.isArray(body.clusters) ? body.clusters.map(parseEntry).filter((entry): entry is ClusterEntry => entry !== undefined) : [];
  return {
    self: typeof body.self === 'string' ? body.self : (clusters.find((entry) => entry.self)?.name ?? ''),
    kubeconfigFiles: strings(body.kubeconfigFiles),
    clusters,
    ...(typeof body.error === 'string' && body.error ? { error: body.error } : {}),
  };
}

/** Where a cluster comes from, in the picker's order. */
export type ClusterGroup = 'self' | 'local' | 'kubeconfig';

/** Contexts `kubedesk-<name>` are the local clusters `kubedesk cluster create` made. */
export function clusterGroup(entry: Pick<ClusterEntry, 'name' | 'self'>): ClusterGroup {
  if (entry.self) return 'self';
  return entry.name.startsWith('kubedesk-') ? 'local' : 'kubeconfig';
}

const GROUP_ORDER: Record<ClusterGroup, number> = { self: 0, local: 1, kubeconfig: 2 };

/** The picker's order: the serving cluster, then the local kubedesk clusters, then every other context, each group by name. */
export function orderClusters(entries: readonly ClusterEntry[]): ClusterEntry[] {
  return [...entries].sort((a, b) => GROUP_ORDER[clusterGroup(a)] - GROUP_ORDER[clusterGroup(b)] || a.name.localeCompare(b.name));
}

/** `host:port` of a server URL (the default port written out), or the text as it is when it is not a URL. */
export function serverHost(server: string): string {
  try {
    const url = new URL(server);
    const port = url.port || (url.protocol === 'http:' ? '80' : '443');
    return `${url.hostname}:${port}`;
  } catch {
    return server;
  }
}

/** The label of the current choice in the top bar. */
export function clusterLabel(name: string, list: Pick<ClusterList, 'self'> | undefined): string {
  if (name === '') return list?.self ? `This cluster (${list.self})` : 'This cluster';
  return name;
}

/** The line under a cluster's name in the picker. */
export function clusterDescription(entry: ClusterEntry): string {
  if (entry.self) return `This cluster — ${serverHost(entry.server)}`;
  if (clusterGroup(entry) === 'local') return `Local kubedesk cluster — ${serverHost(entry.server)}`;
  return serverHost(entry.server);
}

/** The name the UI keeps for a choice: '' for the serving cluster (whatever its context is called). */
export function choiceName(entry: Pick<ClusterEntry, 'name' | 'self'>): string {
  return entry.self ? '' : entry.name;
}

const STATES: readonly ClusterState[] = ['connected', 'unreachable', 'certificate-not-trusted', 'unauthorized', 'exec-failed', 'error'];

export function parseClusterStatus(body: unknown): ClusterStatus | undefined {
  if (!isRecord(body)) return undefined;
  const state = STATES.find((candidate) => candidate === body.state);
  if (!state) return undefined;
  const user = isRecord(body.user) && typeof body.user.username === 'string' ? { username: body.user.username, groups: strings(body.user.groups) } : undefined;
  return {
    state,
    message: typeof body.message === 'string' ? body.message : '',
    ...(typeof body.fingerprint === 'string' && body.fingerprint ? { fingerprint: body.fingerprint } : {}),
    ...(typeof body.stderr === 'string' && body.stderr ? { stderr: body.stderr } : {}),
    ...(user ? { user } : {}),
    kubedesk: body.kubedesk === true,
    warnings: strings(body.warnings),
  };
}

/** What the connection strip says about a cluster that cannot be used. */
export interface StateWords {
  title: string;
  /** what to do about it */
  advice: string;
  /** the relay's own message (names host:port, the plugin, the server's answer) */
  message?: string;
  fingerprint?: string;
  /** the exec plugin's stderr, shown as it is */
  stderr?: string;
}

/** A cluster's trouble in plain words; undefined while it is fine. */
export function stateWords(status: Pick<ClusterStatus, 'state' | 'message' | 'fingerprint' | 'stderr'>, context: string, server?: string): StateWords | undefined {
  const where = server ? serverHost(server) : '';
  const base = { ...(status.message ? { message: status.message } : {}) };
  switch (status.state) {
    case 'connected':
      return undefined;
    case 'unreachable':
      return { ...base, title: `Cannot reach ${context}${where ? ` at ${where}` : ''}`, advice: 'The server did not answer (refused, unknown host or timed out). Check that the cluster runs and that this machine can reach it (VPN, proxy); kubedesk keeps trying.' };
    case 'certificate-not-trusted':
      return { ...base, ...(status.fingerprint ? { fingerprint: status.fingerprint } : {}), title: `The certificate of ${context} is not trusted`, advice: 'The server’s certificate is not signed by the certificate authority the kubeconfig names. Compare the fingerprint with the cluster’s own, then fix certificate-authority(-data) in the kubeconfig.' };
    case 'unauthorized':
      return { ...base, title: `${context} refused the credentials`, advice: 'The token has expired or was revoked (401 Unauthorized). Log in again with the tool that wrote this context (a cloud CLI, oidc-login…), then Retry.' };
    case 'exec-failed':
      return { ...base, ...(status.stderr ? { stderr: status.stderr } : {}), title: /not found|no such file|ENOENT|not installed/i.test(status.message) ? `The credential plugin of ${context} is missing` : `The credential plugin of ${context} failed`, advice: 'The kubeconfig runs a program (exec) to get credentials; it must be installed and work without a terminal. What it printed is below.' };
    case 'error':
      return { ...base, title: `${context} cannot be used`, advice: 'kubedesk could not talk to this cluster.' };
  }
}

/** The warning strip for a context that skips TLS verification. */
export function insecureWarning(entry: Pick<ClusterEntry, 'name' | 'insecure' | 'server'>): string | undefined {
  if (!entry.insecure) return undefined;
  return `${entry.name} skips TLS verification (insecure-skip-tls-verify): anyone between this machine and ${serverHost(entry.server)} could read or change what you see and send.`;
}
