// The application menu. Electron windows have no Edit menu of their own, and without one the
// copy/paste shortcuts do nothing on macOS (the terminals and editors need them), so the standard
// roles are listed explicitly; macOS gets its app-name menu, other platforms a "kubedesk" menu.
import type { MenuItemTemplate } from './electronModule';

export interface HelpLink {
  label: string;
  url: string;
}

export interface AppMenuActions {
  about(): void;
  setStopContainersOnQuit(stop: boolean): void;
  resetCluster(): void;
  openExternal(url: string): void;
  quit(): void;
}

export interface AppMenuOptions {
  platform: NodeJS.Platform;
  stopContainersOnQuit: boolean;
  helpLinks: readonly HelpLink[];
  actions: AppMenuActions;
}

export const stopContainersOnQuitLabel = 'Stop Cluster Containers When Quitting';

export function appMenuTemplate(options: AppMenuOptions): MenuItemTemplate[] {
  const { actions } = options;
  const mac = options.platform === 'darwin';
  const settings: MenuItemTemplate = {
    id: 'settings',
    label: 'Settings',
    submenu: [
      {
        id: 'stop-containers-on-quit',
        label: stopContainersOnQuitLabel,
        type: 'checkbox',
        checked: options.stopContainersOnQuit,
        click: () => actions.setStopContainersOnQuit(!options.stopContainersOnQuit),
      },
    ],
  };
  const appItems: MenuItemTemplate[] = [
    { id: 'about', label: 'About kubedesk', click: () => actions.about() },
    { type: 'separator' },
    settings,
    { id: 'reset-cluster', label: 'Reset Cluster…', click: () => actions.resetCluster() },
    { type: 'separator' },
    ...(mac ? [{ role: 'services' as const }, { type: 'separator' as const }, { role: 'hide' as const }, { role: 'hideOthers' as const }, { role: 'unhide' as const }, { type: 'separator' as const }] : []),
    { id: 'quit', label: mac ? 'Quit kubedesk' : 'Quit', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() },
  ];
  return [
    { id: 'app', label: 'kubedesk', submenu: appItems },
    {
      id: 'edit',
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'pasteAndMatchStyle' },
        { role: 'delete' },
        { type: 'separator' },
        { role: 'selectAll' },
      ],
    },
    {
      id: 'view',
      label: 'View',
      submenu: [
        { role: 'reload' },
        { role: 'forceReload' },
        { role: 'toggleDevTools' },
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { id: 'window', role: 'windowMenu' },
    {
      id: 'help',
      label: 'Help',
      role: 'help',
      submenu: options.helpLinks.map((link) => ({ label: link.label, click: () => actions.openExternal(link.url) })),
    },
  ];
}
