// Is a local cluster's server ready? `/readyz` answers `ok` (the API server's readiness, as
// upstream's), and, when a node count is asked for, that many Nodes have the condition Ready=True
// (what `kind create cluster --wait` and `minikube start` wait for). Over HTTPS with the data dir's
// CA and admin token, as kubectl would call it.
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { isRecord } from '../../../shared/kubernetes/types';
import { pkiDirectory, pkiFileNames } from '../../apiserver/pkiKeys';
import type { ServerState } from './serverState';

/** Resolves true when ready (and, with `nodes`, that many nodes are Ready); never rejects. */
export type ClusterProbe = (server: ServerState, dataDir: string, nodes: number | undefined) => Promise<boolean>;

const PROBE_TIMEOUT_MS = 3000;

export async function probeCluster(server: ServerState, dataDir: string, nodes: number | undefined): Promise<boolean> {
  const pki = pkiDirectory(dataDir);
  const caPath = join(pki, pkiFileNames.caCert);
  const tokenPath = join(pki, pkiFileNames.adminToken);
  if (!existsSync(caPath) || !existsSync(tokenPath)) return false;
  const credentials = { ca: readFileSync(caPath, 'utf8'), token: readFileSync(tokenPath, 'utf8').trim() };
  const readyz = await get(server.server, '/readyz', credentials);
  if (readyz?.status !== 200 || readyz.body.trim() !== 'ok') return false;
  if (nodes === undefined) return true;
  const list = await get(server.server, '/api/v1/nodes', credentials);
  if (list?.status !== 200) return false;
  try {
    return readyNodeCount(JSON.parse(list.body)) >= nodes;
  } catch {
    return false;
  }
}

/** How many items of a NodeList have the condition Ready=True. */
export function readyNodeCount(nodeList: unknown): number {
  if (!isRecord(nodeList) || !Array.isArray(nodeList.items)) return 0;
  let ready = 0;
  for (const node of nodeList.items) {
    const status = isRecord(node) && isRecord(node.status) ? node.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    if (conditions.some((condition) => isRecord(condition) && condition.type === 'Ready' && condition.status === 'True')) ready += 1;
  }
  return ready;
}

function get(server: string, path: string, credentials: { ca: string; token: string }): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const url = new URL(path, server);
    const outgoing = request(url, { method: 'GET', ca: credentials.ca, headers: { Authorization: `Bearer ${credentials.token}`, Accept: 'application/json' }, timeout: PROBE_TIMEOUT_MS }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', () => resolve(undefined));
    });
    outgoing.on('timeout', () => outgoing.destroy());
    outgoing.on('error', () => resolve(undefined));
    outgoing.end();
  });
}
