// The built-in image registry's place in the cluster (docs/architecture.md, "Local image
// registry"): the registry server (main/ociRegistry) over <data-dir>/registry on 127.0.0.1, at
// port 5000 when free (kind's and k3d's convention, which Tilt and Skaffold examples assume), else
// the port it had last time (images named localhost:<port>/… keep working), else any free port;
// the KEP-1755 ConfigMap kube-public/local-registry-hosting that tells Tilt, ctlptl and other
// tools where it is; and its API mounted on the API server at /registry/v2/… for the web UI
// (authenticated and authorized by RBAC as the non-resource URL, so no second credential).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ApiClient } from '../client/apiClient';
import { resources } from '../client/resources';
import { isAlreadyExists, isNotFound } from '../client/errors';
import type { KubeObject } from '../../shared/kubernetes/types';
import { IMAGE_REGISTRY_API } from '../../shared/imageRegistry';
import { RegistryServer } from '../ociRegistry/registryServer';
import { RegistryStorage } from '../ociRegistry/registryStorage';

export const DEFAULT_REGISTRY_PORT = 5000;
/** Where the web UI reaches the registry's API through the API server (IMAGE_REGISTRY_API less its /v2). */
export const REGISTRY_API_PREFIX = IMAGE_REGISTRY_API.slice(0, -'/v2'.length);
export const REGISTRY_HOSTING_NAMESPACE = 'kube-public';
export const REGISTRY_HOSTING_NAME = 'local-registry-hosting';

export interface ImageRegistryOptions {
  /** undefined = 5000 when free, else the last port, else any; 0 = any free port */
  port?: number;
  /** require a token (docker login) for every request */
  auth?: boolean;
}

export interface ImageRegistry {
  server: RegistryServer;
  port: number;
  /** `localhost:<port>`, the name images are tagged with */
  host: string;
  /** set when the registry asks for a token: the file holding it */
  tokenFile?: string;
  /** handles /registry/v2/… on the API server */
  serveMounted(request: IncomingMessage, response: ServerResponse): boolean;
  dispose(): Promise<void>;
}

export async function startImageRegistry(dataDir: string, options: ImageRegistryOptions = {}): Promise<ImageRegistry> {
  const directory = join(dataDir, 'registry');
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const storage = new RegistryStorage(join(directory, 'store'));
  const tokenFile = options.auth ? join(dataDir, 'pki', 'registry.token') : undefined;
  const token = tokenFile ? ensureToken(tokenFile) : undefined;
  const server = new RegistryServer({
    storage,
    token,
    onError: (error) => {
      // a client that goes away mid-upload is not news
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET') return;
      console.error('kubedesk: image registry:', error instanceof Error ? error.message : error);
    },
  });
  const portFile = join(directory, 'port');
  const port = await listenOnPreferred(server, candidatePorts(options.port, readPort(portFile)));
  writeFileSync(portFile, `${port}\n`);
  // blobs a crash or an earlier delete left unreferenced go soon after start
  server.scheduleGarbageCollection(60_000);
  return {
    server,
    port,
    host: `localhost:${port}`,
    tokenFile,
    serveMounted: (request, response) => server.serveMounted(REGISTRY_API_PREFIX, request, response),
    dispose: () => server.close(),
  };
}

/** The ports to try in order: the flag's alone when given, else 5000, the last one, any. */
export function candidatePorts(flag: number | undefined, last: number | undefined): number[] {
  if (flag !== undefined) return [flag];
  const ports = [DEFAULT_REGISTRY_PORT];
  if (last !== undefined && last !== DEFAULT_REGISTRY_PORT) ports.push(last);
  ports.push(0);
  return ports;
}

async function listenOnPreferred(server: RegistryServer, ports: number[]): Promise<number> {
  let lastError: unknown;
  for (const port of ports) {
    try {
      return await server.listen(port);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function readPort(path: string): number | undefined {
  try {
    const port = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

function ensureToken(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * KEP-1755's ConfigMap (kube-public/local-registry-hosting, key localRegistryHosting.v1): `host`
 * is where developer tools push, `hostFromContainerRuntime` where the node's runtime pulls (the
 * same Docker on the same machine), `help` what to read.
 */
export function registryHostingConfigMap(port: number): KubeObject & { data: Record<string, string> } {
  const hosting = {
    host: `localhost:${port}`,
    hostFromContainerRuntime: `localhost:${port}`,
    help: 'kubedesk runs a local image registry: push to localhost:' + port + '/NAME:TAG and use that image name in pods (kubedesk README, "Local image registry")',
  };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: REGISTRY_HOSTING_NAME, namespace: REGISTRY_HOSTING_NAMESPACE },
    data: { 'localRegistryHosting.v1': stringify(hosting) },
  };
}

/** Writes (or rewrites, when the port changed) the KEP-1755 ConfigMap. */
export async function publishRegistryHosting(client: ApiClient, port: number): Promise<void> {
  const configMaps = client.resource(resources.configmaps);
  const desired = registryHostingConfigMap(port);
  try {
    await configMaps.create(desired);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const current = await configMaps.get(REGISTRY_HOSTING_NAMESPACE, REGISTRY_HOSTING_NAME);
    if (JSON.stringify(current.data) === JSON.stringify(desired.data)) return;
    await configMaps.update({ ...current, data: desired.data });
  }
}

/** Removes the ConfigMap when the registry is off, so tools do not push to a registry that is not there. */
export async function withdrawRegistryHosting(client: ApiClient): Promise<void> {
  try {
    await client.resource(resources.configmaps).delete(REGISTRY_HOSTING_NAMESPACE, REGISTRY_HOSTING_NAME);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
