// The clusters the UI knows (GET /ui/clusters) and which one this window shows: `currentCluster()`.
// Until the cluster picker chooses one, the window shows the serving cluster (basePath "", its name
// is the answer's `self`). The read-only switch of a cluster is `PUT /ui/clusters/<name>/-/settings
// {readOnly}`, the serving cluster's too; the relay (and, for the serving cluster, the server
// itself) refuses writes while it is on — the UI disables them beforehand and says why.
import { isRecord } from '../../../shared/kubernetes/types';

export interface ClusterEntry {
  name: string;
  /** "" = the serving cluster, else /ui/clusters/<name> */
  basePath: string;
  self: boolean;
  readOnly: boolean;
}

export interface ClustersInfo {
  self: string;
  clusters: ClusterEntry[];
}

/** The cluster this window shows. */
export interface CurrentCluster {
  /** its context name ('' until GET /ui/clusters answered) */
  name: string;
  basePath: string;
  readOnly: boolean;
}

/** GET /ui/clusters's answer as the UI uses it; a server without the route gives no clusters. */
export function parseClusters(body: unknown): ClustersInfo {
  if (!isRecord(body)) return { self: '', clusters: [] };
  const clusters = (Array.isArray(body.clusters) ? body.clusters : []).filter(isRecord).flatMap((entry): ClusterEntry[] =>
    typeof entry.name === 'string' ? [{ name: entry.name, basePath: typeof entry.basePath === 'string' ? entry.basePath : '', self: entry.self === true, readOnly: entry.readOnly === true }] : [],
  );
  return { self: typeof body.self === 'string' ? body.self : '', clusters };
}

/** Where a cluster's read-only switch is stored. */
export function settingsPath(name: string): string {
  return `/ui/clusters/${encodeURIComponent(name)}/-/settings`;
}

let known: ClustersInfo | undefined;
const listeners = new Set<() => void>();

function changed(): void {
  for (const listener of [...listeners]) listener();
}

export function knownClusters(): ClustersInfo | undefined {
  return known;
}

/** Replaces what the UI knows (tests; a cluster entry after its settings changed). */
export function setClusters(info: ClustersInfo): void {
  known = info;
  changed();
}

export function subscribeClusters(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The context the window's cluster picker chose ('' = the serving cluster). */
let chosen = '';

/** The cluster picker chose `name` for this window ('' = the serving cluster). */
export function setChosenCluster(name: string): void {
  if (name === chosen) return;
  chosen = name;
  changed();
}

/** The cluster this window shows (the picker's choice), with its read-only switch. */
export function currentCluster(): CurrentCluster {
  if (chosen) {
    const entry = known?.clusters.find((cluster) => cluster.name === chosen);
    return { name: chosen, basePath: entry?.basePath ?? `/ui/clusters/${encodeURIComponent(chosen)}`, readOnly: entry?.readOnly ?? false };
  }
  const entry = known?.clusters.find((cluster) => cluster.basePath === '') ?? known?.clusters.find((cluster) => cluster.self);
  return { name: entry?.name ?? known?.self ?? '', basePath: '', readOnly: entry?.readOnly ?? false };
}

/** Turns a cluster's read-only switch on or off; resolves with the stored entry, throws the server's message. */
export async function setReadOnly(name: string, readOnly: boolean, fetchImpl: typeof fetch = fetch): Promise<void> {
  const response = await fetchImpl(settingsPath(name), { method: 'PUT', credentials: 'same-origin', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ readOnly }) });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  if (!response.ok) throw new Error(isRecord(body) && typeof body.message === 'string' ? body.message : `the server answered ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  const stored = isRecord(body) && typeof body.readOnly === 'boolean' ? body.readOnly : readOnly;
  const info = known ?? { self: '', clusters: [] };
  const present = info.clusters.some((cluster) => cluster.name === name);
  setClusters({ ...info, clusters: present ? info.clusters.map((cluster) => (cluster.name === name ? { ...cluster, readOnly: stored } : cluster)) : [...info.clusters, { name, basePath: '', self: name === info.self, readOnly: stored }] });
}
