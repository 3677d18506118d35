// Tests of the per-cluster services: the client's base path follows the window's cluster, and a
// switch replaces the services at once (the old watches and monitor are disposed).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpKubeClient } from './api/kubeClient';
import { ClusterServicesHolder, createClusterServices } from './clusterServices';
import { createAppStore } from './store/store';

afterEach(() => vi.unstubAllGlobals());

function memory(): { get(key: string): string | null; set(key: string, value: string): void } {
  const values = new Map<string, string>();
  return { get: (key) => values.get(key) ?? null, set: (key, value) => void values.set(key, value) };
}

describe('cluster services', () => {
  it('talks to the serving cluster on its own paths and to another context under its relay base path', () => {
    const requested: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      requested.push(url);
      return new Response(JSON.stringify({ state: 'connected', message: '', kubedesk: true, warnings: [] }));
    });
    const store = createAppStore({ preferences: memory(), tabState: memory() });
    const own = createClusterServices(store, '', 'https://127.0.0.1:6443');
    expect((own.client as HttpKubeClient).basePath).toBe('');
    expect(requested).toEqual([]);
    const other = createClusterServices(store, 'team/prod', 'https://127.0.0.1:6443');
    expect((other.client as HttpKubeClient).basePath).toBe('/ui/clusters/team%2Fprod');
    // a relayed cluster is probed at once, through the relay
    expect(requested).toEqual(['/ui/clusters/team%2Fprod/-/status']);
    own.dispose();
    other.dispose();
  });

  it('replaces the services when the window switches clusters, and tells its listeners', async () => {
    const requested: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      requested.push(url);
      return new Response(JSON.stringify({ state: 'connected', message: '', kubedesk: false, warnings: ['w'] }));
    });
    const store = createAppStore({ preferences: memory(), tabState: memory() });
    const holder = new ClusterServicesHolder(store, 'https://127.0.0.1:6443');
    const first = holder.services;
    let changes = 0;
    holder.subscribe(() => changes++);
    store.getState().switchCluster('prod');
    expect(changes).toBe(1);
    expect(holder.services).not.toBe(first);
    expect(holder.services.cluster).toBe('prod');
    await vi.waitFor(() => expect(store.getState().clusterStatus).toMatchObject({ state: 'connected', warnings: ['w'] }));
    store.getState().setNamespaces(['a']);
    expect(changes).toBe(1);
    holder.dispose();
  });
});
