// What a running cluster tells other kubedesk processes about itself: `<data dir>/server.json`
// with its process id, API server URL, context and node count, written once /readyz says ok and
// removed when it stops (as a pid file, but also naming the port, which is often a free one picked
// at start). A file left by a process that died is recognised by its pid no longer running.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRecord } from '../../../shared/kubernetes/types';

export interface ServerState {
  pid: number;
  /** https://127.0.0.1:PORT */
  server: string;
  context: string;
  nodes: number;
  /** RFC 3339 */
  startedAt: string;
}

export function serverStateFile(dataDir: string): string {
  return join(dataDir, 'server.json');
}

export function writeServerState(dataDir: string, state: ServerState): void {
  const path = serverStateFile(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
}

/** Removes the file when it is this process's (a newer process may have written its own). */
export function clearServerState(dataDir: string, pid: number = process.pid): void {
  if (readServerState(dataDir)?.pid === pid) rmSync(serverStateFile(dataDir), { force: true });
}

export function readServerState(dataDir: string): ServerState | undefined {
  const path = serverStateFile(dataDir);
  if (!existsSync(path)) return undefined;
  try {
    return parseServerState(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return undefined;
  }
}

export function parseServerState(value: unknown): ServerState | undefined {
  if (!isRecord(value)) return undefined;
  const { pid, server, context, nodes, startedAt } = value;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  if (typeof server !== 'string' || !/^https:\/\/127\.0\.0\.1:\d+$/.test(server)) return undefined;
  if (typeof context !== 'string' || typeof nodes !== 'number' || typeof startedAt !== 'string') return undefined;
  return { pid, server, context, nodes, startedAt };
}

/** Whether a process with this id exists (signal 0: EPERM means it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}
