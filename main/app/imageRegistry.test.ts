// The built-in registry's start (port choice, remembered port, token) and its KEP-1755 ConfigMap.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../client/apiClient';
import { resources } from '../client/resources';
import { inMemoryApiServer } from '../../test/fixtures/inMemoryApiServer';
import { InProcessTransport } from './inProcessTransport';
import { candidatePorts, publishRegistryHosting, registryHostingConfigMap, startImageRegistry, withdrawRegistryHosting, type ImageRegistry } from './imageRegistry';

const started: ImageRegistry[] = [];
const directories: string[] = [];

function dataDir(): string {
  const directory = mkdtempSync(join(tmpdir(), 'kubedesk-image-registry-'));
  directories.push(directory);
  return directory;
}

afterEach(async () => {
  for (const registry of started.splice(0)) await registry.dispose();
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('candidatePorts', () => {
  it('tries 5000, then the port of the last run, then any free port; a flag alone', () => {
    expect(candidatePorts(undefined, undefined)).toEqual([5000, 0]);
    expect(candidatePorts(undefined, 5003)).toEqual([5000, 5003, 0]);
    expect(candidatePorts(undefined, 5000)).toEqual([5000, 0]);
    expect(candidatePorts(0, 5003)).toEqual([0]);
    expect(candidatePorts(5500, undefined)).toEqual([5500]);
  });
});

describe('startImageRegistry', () => {
  it('listens on the port asked for, remembers it in the data dir and answers the distribution API', async () => {
    const directory = dataDir();
    const registry = await startImageRegistry(directory, { port: 0 });
    started.push(registry);
    expect(registry.host).toBe(`localhost:${registry.port}`);
    expect(readFileSync(join(directory, 'registry', 'port'), 'utf8').trim()).toBe(String(registry.port));
    const response = await fetch(`http://127.0.0.1:${registry.port}/v2/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
  });

  it('fails when the port asked for is taken', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startImageRegistry(dataDir(), { port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });

  it('with auth, keeps a token (mode 0600) that it asks every request for, and serves the API server mount without it', async () => {
    const directory = dataDir();
    const registry = await startImageRegistry(directory, { port: 0, auth: true });
    started.push(registry);
    const tokenFile = registry.tokenFile ?? '';
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect((await fetch(`http://127.0.0.1:${registry.port}/v2/`)).status).toBe(401);
    const login = `Basic ${Buffer.from(`kubedesk:${token}`).toString('base64')}`;
    expect((await fetch(`http://127.0.0.1:${registry.port}/v2/`, { headers: { authorization: login } })).status).toBe(200);
  });
});

describe('registryHostingConfigMap', () => {
  it('is KEP-1755 local-registry-hosting in kube-public, its YAML naming the host', () => {
    const configMap = registryHostingConfigMap(5001);
    expect(configMap.metadata).toEqual({ name: 'local-registry-hosting', namespace: 'kube-public' });
    const data = configMap.data;
    const hosting = parse(data['localRegistryHosting.v1']) as Record<string, string>;
    expect(hosting.host).toBe('localhost:5001');
    expect(hosting.hostFromContainerRuntime).toBe('localhost:5001');
    expect(hosting.help).toContain('localhost:5001');
  });
});

describe('publishRegistryHosting', () => {
  it('creates the ConfigMap, rewrites it when the port changed, leaves it alone when not, and withdraws it', async () => {
    const { api, store } = inMemoryApiServer();
    try {
      const client = new ApiClient(new InProcessTransport(api));
      await client.resource(resources.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-public' } });
      const configMaps = client.resource(resources.configmaps);
      const hostOf = async () => {
        const data = (await configMaps.get('kube-public', 'local-registry-hosting')).data as Record<string, string> | undefined;
        return (parse(data?.['localRegistryHosting.v1'] ?? '') as { host: string }).host;
      };
      await publishRegistryHosting(client, 5000);
      expect(await hostOf()).toBe('localhost:5000');
      const first = (await configMaps.get('kube-public', 'local-registry-hosting')).metadata.resourceVersion;
      await publishRegistryHosting(client, 5000);
      expect((await configMaps.get('kube-public', 'local-registry-hosting')).metadata.resourceVersion).toBe(first);
      await publishRegistryHosting(client, 5007);
      expect(await hostOf()).toBe('localhost:5007');
      await withdrawRegistryHosting(client);
      await expect(configMaps.get('kube-public', 'local-registry-hosting')).rejects.toThrow(/not found/);
      await withdrawRegistryHosting(client);
    } finally {
      store.dispose();
    }
  });
});

