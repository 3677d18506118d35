// The tray: the cluster's state at a glance, plus Open, a Clusters submenu (the other local
// clusters, `kubedesk cluster create NAME`, each with Start and Stop), Save snapshot (one named
// after the date and time, as `kubedesk snapshot save` would with that name) and Quit, so the
// cluster stays reachable when the window is closed or behind others. Pure template builders; the
// shell hands them to Electron.
import type { MenuItemTemplate } from './electronModule';

export type ClusterStatus =
  | { state: 'starting' }
  | { state: 'running'; pods: number; unhealthy?: number }
  | { state: 'stopping' }
  | { state: 'stopped' }
  | { state: 'error'; message: string };

export function clusterStatusText(status: ClusterStatus): string {
  switch (status.state) {
    case 'starting':
      return 'Cluster: starting…';
    case 'running':
      return `Cluster: running (${status.pods} ${status.pods === 1 ? 'pod' : 'pods'}${status.unhealthy ? `, ${status.unhealthy} not healthy` : ''})`;
    case 'stopping':
      return 'Cluster: stopping…';
    case 'stopped':
      return 'Cluster: stopped';
    case 'error':
      return 'Cluster: error';
  }
}

/** The tooltip carries the error's message too, which a menu line would truncate. */
export function trayToolTip(status: ClusterStatus): string {
  const text = `kubedesk — ${clusterStatusText(status)}`;
  return status.state === 'error' ? `${text}: ${status.message.slice(0, 200)}` : text;
}

export interface TrayActions {
  open(): void;
  quit(): void;
  /** without it the menu has no "Save snapshot" item */
  saveSnapshot?(): void;
}

/** A local cluster in the tray's Clusters submenu. */
export interface LocalClusterMenuEntry {
  name: string;
  state: 'running' | 'starting' | 'stopped';
  /** a Start or Stop from the tray is under way */
  busy?: boolean;
}

export interface LocalClusterMenuActions {
  start(name: string): void;
  stop(name: string): void;
}

export function localClusterStateText(entry: LocalClusterMenuEntry): string {
  if (entry.busy) return entry.state === 'stopped' ? 'starting…' : 'stopping…';
  return entry.state === 'starting' ? 'starting…' : entry.state;
}

/** "Clusters": one submenu per local cluster with Start and Stop, or a hint when there is none. */
export function localClustersMenu(entries: readonly LocalClusterMenuEntry[], actions: LocalClusterMenuActions): MenuItemTemplate {
  const submenu: MenuItemTemplate[] =
    entries.length === 0
      ? [{ id: 'clusters-none', label: 'No other local clusters (kubedesk cluster create NAME)', enabled: false }]
      : entries.map((entry) => ({
          id: `cluster-${entry.name}`,
          label: `${entry.name} — ${localClusterStateText(entry)}`,
          submenu: [
            { id: `cluster-${entry.name}-start`, label: 'Start', enabled: entry.state === 'stopped' && !entry.busy, click: () => actions.start(entry.name) },
            { id: `cluster-${entry.name}-stop`, label: 'Stop', enabled: entry.state !== 'stopped' && !entry.busy, click: () => actions.stop(entry.name) },
          ],
        }));
  return { id: 'clusters', label: 'Clusters', submenu };
}

export function trayMenuTemplate(
  status: ClusterStatus,
  actions: TrayActions,
  options: { savingSnapshot?: boolean; localClusters?: { entries: readonly LocalClusterMenuEntry[]; actions: LocalClusterMenuActions } } = {},
): MenuItemTemplate[] {
  const save = actions.saveSnapshot;
  const clusters = options.localClusters;
  return [
    { id: 'status', label: clusterStatusText(status), enabled: false },
    { type: 'separator' },
    { id: 'open', label: 'Open kubedesk', click: () => actions.open() },
    ...(clusters ? [localClustersMenu(clusters.entries, clusters.actions)] : []),
    // a snapshot is of a running cluster, one at a time
    ...(save ? [{ id: 'save-snapshot', label: options.savingSnapshot ? 'Saving snapshot…' : 'Save snapshot', enabled: status.state === 'running' && !options.savingSnapshot, click: () => save() }] : []),
    { type: 'separator' },
    { id: 'quit', label: 'Quit kubedesk', click: () => actions.quit() },
  ];
}
