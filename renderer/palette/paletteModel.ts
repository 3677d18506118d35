// What the command palette offers, as plain data: places to go, every kind the cluster serves (by
// title, kind name and kubectl short names), every object in a watch cache or listed for the
// palette (searchIndex.ts), the current object's actions, theme, namespace and cluster switches. Each entry carries a precomputed lowercase search key so typing only
// scans strings; object entries are cached per object version, so reopening the palette or a
// watch event does not rebuild thousands of them.
import type { KubeObject } from '../../shared/kubernetes/types';
import type { Action } from '../actions/actions';
import type { KindConfig } from '../kinds/kindConfig';
import { isSearchable, resourceKey, type DiscoveredResource } from '../kinds/discovery';
import type { Route } from '../store/routes';
import type { ThemePreference } from '../store/store';
import type { Collection } from '../store/watchMerge';
import { choiceName, clusterDescription, orderClusters, type ClusterEntry } from '../api/clusters';

export type PaletteGroup = 'Actions' | 'Go to' | 'Kinds' | 'Namespaces' | 'Clusters' | 'Theme' | 'Objects';

export type PaletteCommand =
  | { type: 'navigate'; route: Route }
  | { type: 'theme'; theme: ThemePreference }
  | { type: 'namespaces'; namespaces: string[] }
  | { type: 'cluster'; cluster: string }
  | { type: 'action'; action: Action };

export interface PaletteEntry {
  id: string;
  group: PaletteGroup;
  title: string;
  detail?: string;
  /** lowercase text the query is matched against */
  key: string;
  command: PaletteCommand;
  /** why the entry cannot run now (an action the object's state refuses); shown, never run */
  disabled?: string;
}

/** Added to the match score so, at equal match quality, commands come before the many objects. */
export const GROUP_BOOST: Record<PaletteGroup, number> = { Actions: 12, 'Go to': 10, Kinds: 8, Namespaces: 4, Clusters: 4, Theme: 4, Objects: 0 };

/** An entry whose title is exactly what was typed comes first (`web` → the Deployment `web`, then `web-7d9f…`). */
export const EXACT_TITLE_BOOST = 40;

/** The extra score of an entry for a query: its group's weight, and the exact-title bonus. */
export function entryBoost(entry: PaletteEntry, query: string): number {
  const typed = query.trim().toLowerCase();
  return GROUP_BOOST[entry.group] + (typed !== '' && entry.title.toLowerCase() === typed ? EXACT_TITLE_BOOST : 0);
}

export function navigationEntries(): PaletteEntry[] {
  const go = (id: string, title: string, route: Route, extra = ''): PaletteEntry => ({ id: `go:${id}`, group: 'Go to', title, key: `${title} ${extra}`.toLowerCase(), command: { type: 'navigate', route } });
  return [go('overview', 'Overview', { view: 'overview' }, 'home dashboard'), go('create', 'Create from YAML', { view: 'create' }, 'new apply manifest'), go('portforwards', 'Port forwards', { view: 'portforwards' }, 'ports'), go('snapshots', 'Snapshots', { view: 'snapshots' }, 'save restore backup export'), go('settings', 'Settings', { view: 'settings' }, 'preferences sign out logout dock namespace')];
}

export function kindEntries(kinds: KindConfig[]): PaletteEntry[] {
  return kinds.map((kind) => ({
    id: `kind:${kind.key}`,
    group: 'Kinds',
    title: kind.title,
    detail: [kind.kind, ...(kind.shortNames ?? [])].join(' · '),
    key: `${kind.title} ${kind.kind} ${kind.plural} ${(kind.shortNames ?? []).join(' ')}`.toLowerCase(),
    command: { type: 'navigate', route: { view: 'list', kindKey: kind.key } },
  }));
}

export function themeEntries(current: ThemePreference): PaletteEntry[] {
  const themes: { theme: ThemePreference; title: string }[] = [
    { theme: 'system', title: 'Theme: follow the system' },
    { theme: 'light', title: 'Theme: light' },
    { theme: 'dark', title: 'Theme: dark' },
  ];
  return themes.map(({ theme, title }) => ({ id: `theme:${theme}`, group: 'Theme', title, detail: theme === current ? 'current' : undefined, key: `${title} appearance colors`.toLowerCase(), command: { type: 'theme', theme } }));
}

/** "Switch to cluster …" for every context but the one shown, in the picker's order. */
export function clusterEntries(clusters: readonly ClusterEntry[], current: string): PaletteEntry[] {
  return orderClusters(clusters)
    .filter((entry) => choiceName(entry) !== current)
    .map((entry) => {
      const title = `Switch to cluster ${entry.self ? `${entry.name} (this cluster)` : entry.name}`;
      return { id: `cluster:${entry.name}`, group: 'Clusters', title, detail: clusterDescription(entry), key: `${title} context ${entry.server}`.toLowerCase(), command: { type: 'cluster', cluster: choiceName(entry) } };
    });
}

export function namespaceEntries(names: string[], selected: string[]): PaletteEntry[] {
  const all: PaletteEntry = { id: 'ns:*', group: 'Namespaces', title: 'ns: all namespaces', detail: selected.length === 0 ? 'current' : undefined, key: 'ns: all namespaces namespace', command: { type: 'namespaces', namespaces: [] } };
  return [
    all,
    ...[...names].sort().map((name): PaletteEntry => ({
      id: `ns:${name}`,
      group: 'Namespaces',
      title: `ns: ${name}`,
      detail: selected.length === 1 && selected[0] === name ? 'current' : undefined,
      key: `ns: ${name} namespace`.toLowerCase(),
      command: { type: 'namespaces', namespaces: [name] },
    })),
  ];
}

/** The object's actions; one its state refuses (Shell on a crash-looping pod) is listed with the reason, as its button shows it. */
export function actionEntries(actions: Action[], objectName: string): PaletteEntry[] {
  return actions.map((action) => ({
    id: `action:${action.id}`,
    group: 'Actions',
    title: action.title,
    detail: action.disabled ? `${objectName} — ${action.disabled}` : objectName,
    key: `${action.title} ${action.id}`.toLowerCase(),
    command: { type: 'action', action },
    ...(action.disabled ? { disabled: action.disabled } : {}),
  }));
}

const objectEntryCache = new WeakMap<KubeObject, { kind: KindConfig; entry: PaletteEntry }>();

export function objectEntry(kind: KindConfig, object: KubeObject): PaletteEntry {
  const cached = objectEntryCache.get(object);
  if (cached && cached.kind === kind) return cached.entry;
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  const entry: PaletteEntry = {
    id: `object:${kind.key}/${namespace ?? ''}/${name}`,
    group: 'Objects',
    title: name,
    detail: namespace ? `${kind.kind} · ${namespace}` : kind.kind,
    // the name first: a match at the start of the key ranks highest
    key: `${name} ${namespace ?? ''} ${kind.kind}`.toLowerCase(),
    command: { type: 'navigate', route: { view: 'detail', kindKey: kind.key, name, ...(namespace ? { namespace } : {}) } },
  };
  objectEntryCache.set(object, { kind, entry });
  return entry;
}

/**
 * One entry per object of every loaded collection whose kind is known, and of every kind the
 * search index listed for the palette (`listed`), the live collection winning; Events are left
 * out (they would bury the objects they are about).
 */
export function objectEntries(collections: Record<string, Collection>, kinds: KindConfig[], listed?: (kindKey: string) => KubeObject[] | undefined): PaletteEntry[] {
  const entries: PaletteEntry[] = [];
  for (const kind of kinds) {
    if (kind.kind === 'Event' && (kind.group === '' || kind.group === 'events.k8s.io')) continue;
    const collection = collections[kind.key];
    const objects = collection?.phase === 'ready' ? Object.values(collection.items) : (listed?.(kind.key) ?? (collection ? Object.values(collection.items) : undefined));
    if (!objects) continue;
    for (const object of objects) entries.push(objectEntry(kind, object));
  }
  return entries;
}

/**
 * The kinds the palette lists on demand: every kind that can be listed (discovery says `list`;
 * built-in ones before discovery answers), but Events and metrics, and not those a watch already
 * holds.
 */
export function kindsToIndex(kinds: KindConfig[], discovered: DiscoveredResource[], collections: Record<string, Collection>): KindConfig[] {
  const byKey = new Map(discovered.map((resource) => [resourceKey(resource), resource]));
  return kinds.filter((kind) => {
    const resource = byKey.get(kind.key) ?? { group: kind.group, plural: kind.plural, verbs: ['list'] };
    if (!isSearchable(resource)) return false;
    const collection = collections[kind.key];
    return !collection || collection.phase === 'error';
  });
}
