// The cluster's identity: a random id kept in the data dir. It labels every Docker container,
// network and image the cluster makes, so two clusters (two data dirs) on one Docker never touch
// each other's resources, and `reset` finds exactly its own.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function clusterIdFile(dataDir: string): string {
  return join(dataDir, 'cluster-id');
}

export function readClusterId(dataDir: string): string | undefined {
  const path = clusterIdFile(dataDir);
  if (!existsSync(path)) return undefined;
  const id = readFileSync(path, 'utf8').trim();
  return /^[0-9a-f]{12,64}$/.test(id) ? id : undefined;
}

export function ensureClusterId(dataDir: string): string {
  const existing = readClusterId(dataDir);
  if (existing) return existing;
  const id = randomBytes(8).toString('hex');
  writeFileSync(clusterIdFile(dataDir), `${id}\n`, { mode: 0o600 });
  return id;
}

export function networkNameFor(clusterId: string): string {
  return `kubedesk-${clusterId.slice(0, 12)}`;
}

/** Node names as minikube names its nodes: kubedesk, kubedesk-m02, kubedesk-m03, … */
export function nodeNameFor(index: number): string {
  return index === 0 ? 'kubedesk' : `kubedesk-m${String(index + 1).padStart(2, '0')}`;
}

export function zoneFor(index: number): string {
  return `zone-${String.fromCharCode('a'.charCodeAt(0) + (index % 3))}`;
}
