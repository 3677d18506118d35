// What every component can reach: the store, the Kubernetes client, the watch manager and the
// connection monitor. Hooks wrap selectors so views stay small.
import { createContext, useContext, useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import type { KubeObject } from '../shared/kubernetes/types';
import type { KubeClient } from './api/kubeClient';
import type { ConnectionMonitor } from './api/connection';
import { allKinds, customResourceDefinitions, kindByKey } from './kinds';
import type { KindConfig } from './kinds/kindConfig';
import { loadDiscovery } from './kinds/discovery';
import type { AppState, AppStore } from './store/store';
import { emptyCollection, type Collection } from './store/watchMerge';
import type { WatchManager } from './store/watchManager';

export interface AppServices {
  store: AppStore;
  client: KubeClient;
  watches: WatchManager;
  /** whether the server answers (the page has one; tests may leave it out) */
  connection?: ConnectionMonitor;
}

export const AppContext = createContext<AppServices | undefined>(undefined);

export function useServices(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('AppContext missing');
  return services;
}

export function useAppState<T>(selector: (state: AppState) => T): T {
  return useStore(useServices().store, selector);
}

/** The cached collection of a kind, watched while the component is mounted. */
export function useCollection(config: KindConfig | undefined): Collection {
  const { watches } = useServices();
  useEffect(() => (config ? watches.acquire(config) : undefined), [watches, config]);
  return useAppState((state) => (config ? state.collections[config.key] : undefined) ?? emptyCollection);
}

/**
 * One object of a kind's cache (watched while mounted), with the cache's phase: the component
 * re-renders when that object changes, not on every change of the kind (a pod page while 5,000
 * pods update).
 */
export function useCachedObject(config: KindConfig, key: string): { object: KubeObject | undefined; phase: Collection['phase']; error?: string } {
  const { watches } = useServices();
  useEffect(() => watches.acquire(config), [watches, config]);
  const object = useAppState((state) => state.collections[config.key]?.items[key]);
  const phase = useAppState((state) => state.collections[config.key]?.phase ?? 'loading');
  const error = useAppState((state) => state.collections[config.key]?.error);
  return { object, phase, error };
}

/** The cached collections of several kinds by key, watched while the component is mounted (`configs` must be stable). */
export function useCollections(configs: readonly KindConfig[]): Record<string, Collection> {
  const { watches } = useServices();
  useEffect(() => {
    const releases = configs.map((config) => watches.acquire(config));
    return () => releases.forEach((release) => release());
  }, [watches, configs]);
  return useAppState(useShallow((state) => Object.fromEntries(configs.map((config) => [config.key, state.collections[config.key] ?? emptyCollection]))));
}

/** Built-in kinds, one per CustomResourceDefinition (watched), and every other kind discovery lists. */
export function useKinds(): KindConfig[] {
  const crds = useCollection(customResourceDefinitions);
  const discovered = useAppState((state) => state.discovered);
  return useMemo(() => allKinds(Object.values(crds.items), discovered), [crds.items, discovered]);
}

/** How long after sign-in discovery waits, unless something needs it sooner: the first page paints first. */
const DISCOVERY_DELAY_MS = 2000;

/**
 * Loads discovery a moment after sign-in (at once when the palette or a route needs it), again
 * when the CustomResourceDefinitions change (a CRD adds or removes a kind) and after the cluster
 * comes back. Mounted once, by the app.
 */
export function useDiscoveryLoader(): void {
  const { client, store } = useServices();
  const crds = useCollection(customResourceDefinitions);
  const crdNames = Object.keys(crds.items).sort().join(',');
  const online = useAppState((state) => state.connection.state === 'online');
  const wanted = useAppState((state) => state.discoveryWanted);
  const [settled, setSettled] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(true), DISCOVERY_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);
  const due = wanted || settled;
  useEffect(() => {
    if (!online || !due) return;
    let current = true;
    void loadDiscovery(client).then((resources) => {
      // an empty answer (discovery refused) keeps what was known, but the kinds count as loaded
      if (current) store.getState().setDiscovered(resources.length > 0 ? resources : store.getState().discovered);
    });
    return () => {
      current = false;
    };
  }, [client, store, crdNames, online, due]);
}

export function useKind(key: string): KindConfig | undefined {
  const kinds = useKinds();
  return kindByKey(kinds, key);
}

/** Objects of a collection inside the selected namespaces (all when none selected). */
export function useNamespacedItems(config: KindConfig | undefined): { items: KubeObject[]; collection: Collection } {
  const collection = useCollection(config);
  const selected = useAppState((state) => state.selectedNamespaces);
  const items = useMemo(() => filterByNamespaces(Object.values(collection.items), config?.namespaced ?? false, selected), [collection.items, config, selected]);
  return { items, collection };
}

export function filterByNamespaces(items: KubeObject[], namespaced: boolean, selected: string[]): KubeObject[] {
  if (!namespaced || selected.length === 0) return items;
  const wanted = new Set(selected);
  return items.filter((item) => wanted.has(item.metadata.namespace ?? ''));
}

/** Current time, ticking every `intervalMs` (age columns). */
export function useNow(intervalMs = 1000): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
