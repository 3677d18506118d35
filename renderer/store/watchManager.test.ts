import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { ConnectionError, type KubeClient, type ListPage, type WatchHandlers } from '../api/kubeClient';
import { ConnectionMonitor, type ProbeResult } from '../api/connection';
import { pods } from '../kinds';
import { createAppStore } from './store';
import { WatchManager } from './watchManager';

const pod = (name: string, resourceVersion: string): KubeObject => ({ metadata: { name, namespace: 'default', resourceVersion } });

class FakeClient {
  pages: ListPage[] = [];
  listCalls: { path: string; continueToken?: string }[] = [];
  watches: { path: string; resourceVersion: string; handlers: WatchHandlers; closed: boolean }[] = [];
  down = false;
  async list(path: string, options: { continueToken?: string }): Promise<ListPage> {
    this.listCalls.push({ path, continueToken: options.continueToken });
    if (this.down) throw new ConnectionError('the cluster did not answer (Failed to fetch)');
    const page = this.pages.shift();
    if (!page) throw new Error('no page');
    return page;
  }
  watch(path: string, resourceVersion: string, handlers: WatchHandlers) {
    const entry = { path, resourceVersion, handlers, closed: false };
    this.watches.push(entry);
    return { close: () => void (entry.closed = true) };
  }
}

function setup(pages: ListPage[]) {
  const client = new FakeClient();
  client.pages = pages;
  const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
  const manager = new WatchManager(client as unknown as KubeClient, store, { pageSize: 2, batchMs: 10, lingerMs: 100 });
  return { client, store, manager };
}

afterEach(() => vi.useRealTimers());

describe('WatchManager', () => {
  it('lists in pages, then watches from the last page’s resourceVersion', async () => {
    vi.useFakeTimers();
    const { client, store, manager } = setup([
      { items: [pod('a', '1'), pod('b', '2')], resourceVersion: '7', continueToken: 'next' },
      { items: [pod('c', '3')], resourceVersion: '7' },
    ]);
    manager.acquire(pods);
    await vi.runAllTimersAsync();
    expect(client.listCalls).toEqual([{ path: '/api/v1/pods', continueToken: undefined }, { path: '/api/v1/pods', continueToken: 'next' }]);
    expect(Object.keys(store.getState().collections.pods.items)).toHaveLength(3);
    expect(store.getState().collections.pods.phase).toBe('ready');
    expect(client.watches).toHaveLength(1);
    expect(client.watches[0].resourceVersion).toBe('7');
  });

  it('drops a watch event that arrives after the watch was stopped (the window switched clusters)', async () => {
    vi.useFakeTimers();
    const { client, store, manager } = setup([{ items: [pod('a', '1')], resourceVersion: '1' }]);
    manager.acquire(pods);
    await vi.runAllTimersAsync();
    manager.dispose();
    expect(client.watches[0].closed).toBe(true);
    // the next cluster lists the same kind: the old frame must not land in its cache
    store.getState().listPage('pods', [], '50', true, true);
    client.watches[0].handlers.onEvent({ type: 'ADDED', object: pod('from-the-old-cluster', '2') });
    await vi.runAllTimersAsync();
    expect(store.getState().collections.pods.items).toEqual({});
  });

  it('shares one watch between subscribers and batches events into one store update', async () => {
    vi.useFakeTimers();
    const { client, store, manager } = setup([{ items: [], resourceVersion: '1' }]);
    manager.acquire(pods);
    manager.acquire(pods);
    await vi.runAllTimersAsync();
    expect(client.watches).toHaveLength(1);
    let updates = 0;
    store.subscribe(() => updates++);
    for (let index = 0; index < 100; index++) client.watches[0].handlers.onEvent({ type: 'ADDED', object: pod(`p${index}`, String(index + 2)) } as WatchEvent);
    await vi.advanceTimersByTimeAsync(20);
    expect(updates).toBe(1);
    expect(Object.keys(store.getState().collections.pods.items)).toHaveLength(100);
    expect(store.getState().collections.pods.resourceVersion).toBe('101');
  });

  it('resumes from the last seen version when the watch drops, and relists on 410 Gone', async () => {
    vi.useFakeTimers();
    const { client, manager } = setup([{ items: [], resourceVersion: '1' }, { items: [pod('fresh', '50')], resourceVersion: '50' }]);
    manager.acquire(pods);
    await vi.runAllTimersAsync();
    client.watches[0].handlers.onEvent({ type: 'ADDED', object: pod('a', '5') });
    client.watches[0].handlers.onClose({ gone: false });
    await vi.advanceTimersByTimeAsync(300);
    expect(client.watches[1].resourceVersion).toBe('5');
    client.watches[1].handlers.onClose({ gone: true });
    await vi.runAllTimersAsync();
    expect(client.listCalls).toHaveLength(2);
    expect(client.watches[2].resourceVersion).toBe('50');
  });

  it('stops the watch a while after the last subscriber leaves, not at once', async () => {
    vi.useFakeTimers();
    const { client, manager } = setup([{ items: [], resourceVersion: '1' }]);
    const release = manager.acquire(pods);
    await vi.runAllTimersAsync();
    release();
    release();
    await vi.advanceTimersByTimeAsync(50);
    expect(client.watches[0].closed).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(client.watches[0].closed).toBe(true);
  });

  it('marks the collection failed and retries when listing fails', async () => {
    vi.useFakeTimers();
    const { client, store, manager } = setup([]);
    manager.acquire(pods);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.getState().collections.pods).toMatchObject({ phase: 'error', error: 'no page' });
    client.pages.push({ items: [pod('a', '1')], resourceVersion: '1' });
    await vi.advanceTimersByTimeAsync(300);
    expect(store.getState().collections.pods.phase).toBe('ready');
  });

  describe('with a connection monitor', () => {
    function connected(pages: ListPage[]) {
      const client = new FakeClient();
      client.pages = pages;
      const store = createAppStore({ preferences: { get: () => null, set: () => undefined } });
      store.getState().setSession('signed-in');
      const probes: ProbeResult[] = [];
      const probe = async () => (client.down ? 'unreachable' : 'ok') as ProbeResult;
      const monitor = new ConnectionMonitor(store, async () => {
        const result = await probe();
        probes.push(result);
        return result;
      });
      const manager = new WatchManager(client as unknown as KubeClient, store, { pageSize: 10, batchMs: 10, lingerMs: 100, connection: monitor });
      return { client, store, manager, monitor, probes };
    }

    it('resumes a dropped watch from where it was when the server is fine', async () => {
      vi.useFakeTimers();
      const { client, manager, probes } = connected([{ items: [pod('a', '3')], resourceVersion: '3' }]);
      manager.acquire(pods);
      await vi.runAllTimersAsync();
      client.watches[0].handlers.onEvent({ type: 'MODIFIED', object: pod('a', '9') });
      client.watches[0].handlers.onClose({ gone: false, opened: true });
      await vi.advanceTimersByTimeAsync(300);
      expect(probes).toEqual(['ok']);
      expect(client.listCalls).toHaveLength(1);
      expect(client.watches[1].resourceVersion).toBe('9');
    });

    it('waits quietly while the server is gone, keeping what it showed, then relists every kind', async () => {
      vi.useFakeTimers();
      const { client, store, manager, probes } = connected([{ items: [pod('a', '3')], resourceVersion: '3' }, { items: [], resourceVersion: '1' }]);
      manager.acquire(pods);
      await vi.runAllTimersAsync();
      client.down = true;
      client.watches[0].handlers.onClose({ gone: false, opened: true });
      await vi.advanceTimersByTimeAsync(20_000);
      // no watch or list retried by itself: only the monitor's probes, spaced out
      expect(client.watches).toHaveLength(1);
      expect(client.listCalls).toHaveLength(1);
      expect(probes.length).toBeLessThanOrEqual(5);
      expect(store.getState().connection.state).toBe('offline');
      expect(Object.keys(store.getState().collections.pods.items)).toEqual(['default/a']);
      client.down = false;
      client.pages = [{ items: [pod('b', '40')], resourceVersion: '40' }];
      await vi.advanceTimersByTimeAsync(30_000);
      expect(store.getState().connection.state).toBe('online');
      expect(client.listCalls).toHaveLength(2);
      expect(Object.keys(store.getState().collections.pods.items)).toEqual(['default/b']);
      expect(client.watches[client.watches.length - 1].resourceVersion).toBe('40');
    });

    it('parks a list the network fails instead of marking the kind failed', async () => {
      vi.useFakeTimers();
      const { client, store, manager } = connected([]);
      client.down = true;
      manager.acquire(pods);
      await vi.advanceTimersByTimeAsync(1);
      expect(store.getState().collections.pods).toBeUndefined();
      expect(store.getState().connection.state).toBe('offline');
      client.down = false;
      client.pages = [{ items: [pod('a', '1')], resourceVersion: '1' }];
      await vi.advanceTimersByTimeAsync(1000);
      expect(store.getState().collections.pods.phase).toBe('ready');
    });

    it('relists everything after signing in again', async () => {
      vi.useFakeTimers();
      const { client, store, manager } = connected([{ items: [pod('a', '1')], resourceVersion: '1' }, { items: [pod('c', '7')], resourceVersion: '7' }]);
      manager.acquire(pods);
      await vi.runAllTimersAsync();
      store.getState().setSession('signed-out', 'gone');
      store.getState().setSession('signed-in');
      await vi.runAllTimersAsync();
      expect(client.watches[0].closed).toBe(true);
      expect(Object.keys(store.getState().collections.pods.items)).toEqual(['default/c']);
      manager.dispose();
    });
  });
});
