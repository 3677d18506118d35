// The tray: the cluster's state at a glance, plus Open, Save snapshot (one named after the date and
// time, as `kubedesk snapshot save` would with that name) and Quit, so the cluster stays reachable
// when the window is closed or behind others. Pure template builders; the shell hands them to Electron.
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

export function trayMenuTemplate(status: ClusterStatus, actions: TrayActions, options: { savingSnapshot?: boolean } = {}): MenuItemTemplate[] {
  const save = actions.saveSnapshot;
  return [
    { id: 'status', label: clusterStatusText(status), enabled: false },
    { type: 'separator' },
    { id: 'open', label: 'Open kubedesk', click: () => actions.open() },
    // a snapshot is of a running cluster, one at a time
    ...(save ? [{ id: 'save-snapshot', label: options.savingSnapshot ? 'Saving snapshot…' : 'Save snapshot', enabled: status.state === 'running' && !options.savingSnapshot, click: () => save() }] : []),
    { type: 'separator' },
    { id: 'quit', label: 'Quit kubedesk', click: () => actions.quit() },
  ];
}
