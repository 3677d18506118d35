// The UI's one zustand store, made of slices (STYLE.md §6): cached collections fed by watches,
// the namespace selection (remembered), the route, the terminal dock, the theme, the command
// palette, notices and long-running tasks. Components read it through selectors; the pure
// collection updates live in watchMerge.ts.
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { KubeObject, WatchEvent } from '../../shared/kubernetes/types';
import { applyListPage, applyWatchEvents, emptyCollection, type Collection } from './watchMerge';
import { formatRoute, parseRoute, type Route } from './routes';

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
  openDockTab(tab: DockTab): void;
  closeDockTab(id: string): void;
  setActiveDockTab(id: string): void;
  setDockOpen(open: boolean): void;
}

export type ThemePreference = 'system' | 'light' | 'dark';

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
  setSession(session: UiSlice['session']): void;
  /** filter text the next list of a kind starts with (a link such as the overview's phase counts); the list consumes it */
  listFilters: Record<string, string>;
  setListFilter(kindKey: string, text: string): void;
}

export type AppState = ResourcesSlice & NamespaceSlice & RouteSlice & DockSlice & UiSlice;
export type AppStore = StoreApi<AppState>;

/** Where preferences are remembered (localStorage in the page, a Map in tests). */
export interface Preferences {
  get(key: string): string | null;
  set(key: string, value: string): void;
}

export interface StoreOptions {
  preferences: Preferences;
  initialHash?: string;
  /** called after navigate(): the page updates location.hash */
  onNavigate?(hash: string): void;
}

const NAMESPACES_KEY = 'kubedesk.namespaces';
const THEME_KEY = 'kubedesk.theme';

function readNamespaces(preferences: Preferences): string[] {
  try {
    const value: unknown = JSON.parse(preferences.get(NAMESPACES_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function readTheme(preferences: Preferences): ThemePreference {
  const value = preferences.get(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function createAppStore(options: StoreOptions): AppStore {
  let nextNotice = 1;
  let nextTask = 1;
  return createStore<AppState>()((set, get) => ({
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

    selectedNamespaces: readNamespaces(options.preferences),
    setNamespaces(namespaces) {
      const unique = [...new Set(namespaces)].sort();
      options.preferences.set(NAMESPACES_KEY, JSON.stringify(unique));
      set({ selectedNamespaces: unique });
    },

    route: parseRoute(options.initialHash ?? ''),
    navigate(route) {
      set({ route });
      options.onNavigate?.(formatRoute(route));
    },
    routeChanged(hash) {
      const route = parseRoute(hash);
      if (formatRoute(route) !== formatRoute(get().route)) set({ route });
    },

    dockTabs: [],
    activeDockTab: undefined,
    dockOpen: false,
    openDockTab(tab) {
      set((state) => ({ dockTabs: state.dockTabs.some((existing) => existing.id === tab.id) ? state.dockTabs : [...state.dockTabs, tab], activeDockTab: tab.id, dockOpen: true }));
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
    setSession(session) {
      set({ session });
    },
    listFilters: {},
    setListFilter(kindKey, text) {
      set((state) => ({ listFilters: { ...state.listFilters, [kindKey]: text } }));
    },
  }));
}
