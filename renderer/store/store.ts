// The UI's one zustand store, made of slices: cached collections fed by watches,
// the namespace selection (remembered), the route, the terminal dock (its height remembered, its
// tabs kept across reloads of the browser tab), the theme, the settings, the command palette, notices, long-running
// tasks, the kinds discovery lists, the state of the connection to the API server and which
// cluster the window shows (a kubeconfig context through the relay; switching starts afresh:
// caches, discovery, the dock's tabs and filters are dropped, the namespaces are those last
// chosen on that cluster). Components read it through selectors; the pure
// collection updates live in watchMerge.ts.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { applyListPage, applyWatchEvents, emptyCollection, type Collection } from './watchMerge';
import { formatLocation, formatRoute, parseLocation, routeOnOtherCluster, type Route } from './routes';
import type { DiscoveredResource } from '../kinds/discovery';
import type { ClusterList, ClusterStatus } from '../api/clusters';

export interface ResourcesSlice {
  collections: Record<string, Collection>;
  listPage(kindKey: string, items: KubeObject[], resourceVersion: string, first: boolean, done: boolean): void;
  applyEvents(kindKey: string, events: WatchEvent[]): void;
  collectionFailed(kindKey: string, message: string): void;
}

export interface NamespaceSlice {
  /** selected namespaces; empty = all namespaces */
  selectedNamespaces: string[];
  setNamespaces(namespaces: string[]): void;
}

export interface RouteSlice {
  route: Route;
  navigate(route: Route): void;
  /** the browser changed the hash (back/forward, a link) */
  routeChanged(hash: string): void;
}

/** A tab in the bottom dock: a pod shell or a log view (of one pod or of a workload's pods merged). */
export type DockTab =
  | { id: string; type: 'shell'; namespace: string; pod: string; container?: string; title: string }
  | { id: string; type: 'logs'; namespace: string; pods: string[]; container?: string; title: string; previous?: boolean; selector?: Record<string, string> };

export interface DockSlice {
  dockTabs: DockTab[];
  activeDockTab: string | undefined;
  dockOpen: boolean;
  /** the expanded dock's height in pixels (remembered) */
  dockHeight: number;
  setDockHeight(height: number): void;
  openDockTab(tab: DockTab): void;
  closeDockTab(id: string): void;
  setActiveDockTab(id: string): void;
  setDockOpen(open: boolean): void;
}

export type ThemePreference = 'system' | 'light' | 'dark';

/** The settings page's choices, remembered per cluster (localStorage belongs to the page's origin, i.e. the cluster's port). */
export interface Settings {
  /** reopen the dock's tabs (shells reconnect, logs stream again) and its state after a reload */
  restoreDock: boolean;
  /** expand the dock when a shell or log view opens, rather than only adding its tab */
  expandDockOnOpen: boolean;
  /** the namespaces selected when the UI opens: '' = the last selection, '*' = all, else that namespace */
  defaultNamespace: string;
}

export const DEFAULT_SETTINGS: Settings = { restoreDock: true, expandDockOnOpen: true, defaultNamespace: '' };

export interface SettingsSlice {
  settings: Settings;
  updateSettings(change: Partial<Settings>): void;
}

export interface Notice {
  id: number;
  tone: 'info' | 'ok' | 'error';
  text: string;
}

export interface Task {
  id: number;
  title: string;
  /** 0..1, or undefined while the length is unknown */
  progress?: number;
}

export interface UiSlice {
  theme: ThemePreference;
  setTheme(theme: ThemePreference): void;
  paletteOpen: boolean;
  setPaletteOpen(open: boolean): void;
  notices: Notice[];
  notify(tone: Notice['tone'], text: string): void;
  dismissNotice(id: number): void;
  tasks: Task[];
  startTask(title: string): number;
  /** new progress, and a new title when the task's phase changes */
  updateTask(id: number, progress: number | undefined, title?: string): void;
  finishTask(id: number): void;
  session: 'unknown' | 'signed-in' | 'signed-out';
  /** why the session ended while the page was open (the cluster restarted, signed out elsewhere) */
  signedOutReason?: string;
  setSession(session: UiSlice['session'], reason?: string): void;
  /** filter text the next list of a kind starts with (a link such as the overview's phase counts); the list consumes it */
  listFilters: Record<string, string>;
  setListFilter(kindKey: string, text: string): void;
}

/**
 * The link to the API server: online; checking after something failed like the network; offline
 * (the server does not answer) with when it was lost and when the next attempt is due.
 */
export interface ConnectionStatus {
  state: 'online' | 'checking' | 'offline';
  /** when the server stopped answering (ms since the epoch); the data shown is from before then */
  lostAt?: number;
  /** failed attempts since it was lost */
  attempts: number;
  /** when the next attempt runs (ms since the epoch) */
  nextAttemptAt?: number;
}

export interface DiscoverySlice {
  /** every resource the server's discovery lists (empty until loaded) */
  discovered: DiscoveredResource[];
  /** discovery answered at least once (even if with nothing) */
  discoveryLoaded: boolean;
  /** something needs every kind now (the palette, a route to a kind the UI has no configuration for) */
  discoveryWanted: boolean;
  wantDiscovery(): void;
  setDiscovered(resources: DiscoveredResource[]): void;
}

export interface ConnectionSlice {
  connection: ConnectionStatus;
  setConnection(connection: ConnectionStatus): void;
}

export interface ClusterSlice {
  /** the kubeconfig context this window shows; '' = the cluster that serves the page */
  cluster: string;
  /** GET /ui/clusters (undefined until it answered; a server without the relay never does) */
  clusterList?: ClusterList;
  /** the chosen relayed cluster's last GET <basePath>/-/status */
  clusterStatus?: ClusterStatus;
  setClusterList(list: ClusterList): void;
  setClusterStatus(status: ClusterStatus | undefined): void;
  /** shows another cluster in this window: everything cached for the current one is dropped */
  switchCluster(name: string): void;
}

export type AppState = ResourcesSlice & NamespaceSlice & RouteSlice & DockSlice & UiSlice & ConnectionSlice & DiscoverySlice & SettingsSlice & ClusterSlice;
export type AppStore = StoreApi<AppState>;

/** Where preferences are remembered (localStorage in the page, a Map in tests). */
export interface Preferences {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

export interface StoreOptions {
  preferences: Preferences;
  /**
   * What belongs to one browser tab and survives its reloads (sessionStorage in the page): the
   * dock's tabs, so a second window does not reopen the first one's shells. Defaults to preferences.
   */
  tabState?: Preferences;
  initialHash?: string;
  /** called after navigate(): the page updates location.hash */
  onNavigate?(hash: string): void;
}

const NAMESPACES_KEY = 'kubedesk.namespaces';
/** sessionStorage: the window's cluster (a context name; '' or absent = the serving cluster) */
export const CLUSTER_KEY = 'kubedesk.cluster';
const THEME_KEY = 'kubedesk.theme';
const SETTINGS_KEY = 'kubedesk.settings';
const DOCK_KEY = 'kubedesk.dock';
const DOCK_HEIGHT_KEY = 'kubedesk.dockHeight';
export const MIN_DOCK_HEIGHT = 120;
export const DEFAULT_DOCK_HEIGHT = 260;

function readJson(preferences: Preferences, key: string): unknown {
  try {
    return JSON.parse(preferences.get(key) ?? 'null') as unknown;
  } catch {
    return undefined;
  }
}

/** The namespaces are remembered per cluster; the serving cluster keeps the key it always had. */
export function namespacesKey(cluster: string): string {
  return cluster === '' ? NAMESPACES_KEY : `${NAMESPACES_KEY}:${cluster}`;
}

function readNamespaces(preferences: Preferences, settings: Settings, cluster = ''): string[] {
  if (settings.defaultNamespace === '*') return [];
  if (settings.defaultNamespace !== '' && cluster === '') return [settings.defaultNamespace];
  const value = readJson(preferences, namespacesKey(cluster));
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function readSettings(preferences: Preferences): Settings {
  const value = readJson(preferences, SETTINGS_KEY);
  if (typeof value !== 'object' || value === null) return DEFAULT_SETTINGS;
  const record = value as Record<string, unknown>;
  return {
    restoreDock: typeof record.restoreDock === 'boolean' ? record.restoreDock : DEFAULT_SETTINGS.restoreDock,
    expandDockOnOpen: typeof record.expandDockOnOpen === 'boolean' ? record.expandDockOnOpen : DEFAULT_SETTINGS.expandDockOnOpen,
    defaultNamespace: typeof record.defaultNamespace === 'string' ? record.defaultNamespace : DEFAULT_SETTINGS.defaultNamespace,
  };
}

function isDockTab(value: unknown): value is DockTab {
  if (typeof value !== 'object' || value === null) return false;
  const tab = value as Record<string, unknown>;
  if (typeof tab.id !== 'string' || typeof tab.namespace !== 'string' || typeof tab.title !== 'string') return false;
  if (tab.container !== undefined && typeof tab.container !== 'string') return false;
  if (tab.type === 'shell') return typeof tab.pod === 'string';
  return tab.type === 'logs' && Array.isArray(tab.pods) && tab.pods.every((pod) => typeof pod === 'string') && (tab.previous === undefined || typeof tab.previous === 'boolean');
}

/** The dock as it was before the reload (tabs, the active one, expanded or not), when the settings ask for it. */
export function readDock(preferences: Preferences, settings: Settings): Pick<DockSlice, 'dockTabs' | 'activeDockTab' | 'dockOpen'> {
  const empty = { dockTabs: [], activeDockTab: undefined, dockOpen: false };
  if (!settings.restoreDock) return empty;
  const value = readJson(preferences, DOCK_KEY);
  if (typeof value !== 'object' || value === null) return empty;
  const record = value as Record<string, unknown>;
  const dockTabs = Array.isArray(record.tabs) ? record.tabs.filter(isDockTab) : [];
  const activeDockTab = typeof record.active === 'string' && dockTabs.some((tab) => tab.id === record.active) ? record.active : dockTabs[dockTabs.length - 1]?.id;
  return { dockTabs, activeDockTab, dockOpen: dockTabs.length > 0 && record.open === true };
}

export function readDockHeight(preferences: Preferences): number {
  const stored = Number(preferences.get(DOCK_HEIGHT_KEY));
  return Number.isFinite(stored) && stored >= MIN_DOCK_HEIGHT ? stored : DEFAULT_DOCK_HEIGHT;
}

function readTheme(preferences: Preferences): ThemePreference {
  const value = preferences.get(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function createAppStore(options: StoreOptions): AppStore {
  let nextNotice = 1;
  let nextTask = 1;
  const initialSettings = readSettings(options.preferences);
  const tabState = options.tabState ?? options.preferences;
  // the hash names the cluster when it carries one (a link, a reload); else this tab's last choice
  const initialLocation = parseLocation(options.initialHash ?? '');
  const initialCluster = initialLocation.cluster ?? tabState.get(CLUSTER_KEY) ?? '';
  if (initialLocation.cluster !== undefined) tabState.set(CLUSTER_KEY, initialLocation.cluster);
  const saveDock = (state: Pick<DockSlice, 'dockTabs' | 'activeDockTab' | 'dockOpen'>, settings: Settings) => {
    if (settings.restoreDock) tabState.set(DOCK_KEY, JSON.stringify({ tabs: state.dockTabs, active: state.activeDockTab, open: state.dockOpen }));
  };
  /** the state of a window that now shows `name`: nothing of the previous cluster stays */
  const freshCluster = (name: string, route: Route, settings: Settings): Partial<AppState> => {
    tabState.set(CLUSTER_KEY, name);
    return {
      cluster: name,
      clusterStatus: undefined,
      collections: {},
      selectedNamespaces: readNamespaces(options.preferences, settings, name),
      listFilters: {},
      discovered: [],
      discoveryLoaded: false,
      discoveryWanted: false,
      connection: { state: 'online', attempts: 0 },
      // shells and log streams belong to the cluster they were opened on
      dockTabs: [],
      activeDockTab: undefined,
      dockOpen: false,
      route,
    };
  };
  const store = createStore<AppState>()((set, get) => ({
    collections: {},
    listPage(kindKey, items, resourceVersion, first, done) {
      set((state) => ({ collections: { ...state.collections, [kindKey]: applyListPage(state.collections[kindKey] ?? emptyCollection, items, resourceVersion, first, done) } }));
    },
    applyEvents(kindKey, events) {
      const current = get().collections[kindKey];
      if (!current) return;
      const next = applyWatchEvents(current, events);
      if (next !== current) set((state) => ({ collections: { ...state.collections, [kindKey]: next } }));
    },
    collectionFailed(kindKey, message) {
      set((state) => ({ collections: { ...state.collections, [kindKey]: { ...(state.collections[kindKey] ?? emptyCollection), phase: 'error', error: message } } }));
    },

    selectedNamespaces: readNamespaces(options.preferences, initialSettings, initialCluster),
    setNamespaces(namespaces) {
      const unique = [...new Set(namespaces)].sort();
      options.preferences.set(namespacesKey(get().cluster), JSON.stringify(unique));
      set({ selectedNamespaces: unique });
    },

    route: initialLocation.route,
    navigate(route) {
      set({ route });
      options.onNavigate?.(formatLocation(route, get().cluster));
    },
    routeChanged(hash) {
      const { cluster, route } = parseLocation(hash);
      if (cluster !== undefined && cluster !== get().cluster) {
        set(freshCluster(cluster, route, get().settings));
        return;
      }
      if (formatRoute(route) !== formatRoute(get().route)) set({ route });
    },

    cluster: initialCluster,
    clusterList: undefined,
    clusterStatus: undefined,
    setClusterList(clusterList) {
      set({ clusterList });
      // the serving cluster named by its context (a link written elsewhere) is the serving cluster
      const current = get().cluster;
      if (current === '' || current !== clusterList.self) return;
      set(freshCluster('', get().route, get().settings));
      options.onNavigate?.(formatLocation(get().route, ''));
    },
    setClusterStatus(clusterStatus) {
      set({ clusterStatus });
    },
    switchCluster(name) {
      if (name === get().cluster) return;
      const route = routeOnOtherCluster(get().route);
      set(freshCluster(name, route, get().settings));
      options.onNavigate?.(formatLocation(route, name));
    },

    ...readDock(tabState, initialSettings),
    dockHeight: readDockHeight(options.preferences),
    setDockHeight(height) {
      const dockHeight = Math.max(MIN_DOCK_HEIGHT, Math.round(height));
      options.preferences.set(DOCK_HEIGHT_KEY, String(dockHeight));
      set({ dockHeight });
    },
    openDockTab(tab) {
      set((state) => ({ dockTabs: state.dockTabs.some((existing) => existing.id === tab.id) ? state.dockTabs : [...state.dockTabs, tab], activeDockTab: tab.id, dockOpen: state.settings.expandDockOnOpen || state.dockOpen }));
    },
    closeDockTab(id) {
      set((state) => {
        const dockTabs = state.dockTabs.filter((tab) => tab.id !== id);
        const activeDockTab = state.activeDockTab === id ? dockTabs[dockTabs.length - 1]?.id : state.activeDockTab;
        return { dockTabs, activeDockTab, dockOpen: dockTabs.length > 0 && state.dockOpen };
      });
    },
    setActiveDockTab(id) {
      set({ activeDockTab: id, dockOpen: true });
    },
    setDockOpen(open) {
      set({ dockOpen: open });
    },

    settings: initialSettings,
    updateSettings(change) {
      const settings = { ...get().settings, ...change };
      options.preferences.set(SETTINGS_KEY, JSON.stringify(settings));
      set({ settings });
      if (change.restoreDock !== undefined) tabState.set(DOCK_KEY, settings.restoreDock ? JSON.stringify({ tabs: get().dockTabs, active: get().activeDockTab, open: get().dockOpen }) : 'null');
    },

    theme: readTheme(options.preferences),
    setTheme(theme) {
      options.preferences.set(THEME_KEY, theme);
      set({ theme });
    },
    paletteOpen: false,
    setPaletteOpen(open) {
      set({ paletteOpen: open });
    },
    notices: [],
    notify(tone, text) {
      const id = nextNotice++;
      set((state) => ({ notices: [...state.notices.slice(-4), { id, tone, text }] }));
    },
    dismissNotice(id) {
      set((state) => ({ notices: state.notices.filter((notice) => notice.id !== id) }));
    },
    tasks: [],
    startTask(title) {
      const id = nextTask++;
      set((state) => ({ tasks: [...state.tasks, { id, title }] }));
      return id;
    },
    updateTask(id, progress, title) {
      set((state) => ({ tasks: state.tasks.map((task) => (task.id === id ? { ...task, progress, ...(title !== undefined ? { title } : {}) } : task)) }));
    },
    finishTask(id) {
      set((state) => ({ tasks: state.tasks.filter((task) => task.id !== id) }));
    },
    session: 'unknown',
    signedOutReason: undefined,
    setSession(session, reason) {
      set({ session, signedOutReason: session === 'signed-out' ? reason : undefined });
    },
    discovered: [],
    discoveryLoaded: false,
    discoveryWanted: false,
    wantDiscovery() {
      if (!get().discoveryWanted) set({ discoveryWanted: true });
    },
    setDiscovered(discovered) {
      set({ discovered, discoveryLoaded: true });
    },
    connection: { state: 'online', attempts: 0 },
    setConnection(connection) {
      set({ connection });
    },
    listFilters: {},
    setListFilter(kindKey, text) {
      set((state) => ({ listFilters: { ...state.listFilters, [kindKey]: text } }));
    },
  }));
  // the dock is remembered as it changes, so a reload brings back its tabs
  store.subscribe((state, previous) => {
    if (state.dockTabs !== previous.dockTabs || state.activeDockTab !== previous.activeDockTab || state.dockOpen !== previous.dockOpen) saveDock(state, state.settings);
  });
  return store;
}
