import { describe, expect, it } from 'vitest';
import { appMenuTemplate, stopContainersOnQuitLabel, type AppMenuActions } from './appMenu';
import type { MenuItemTemplate } from './electronModule';
import { clusterStatusText, trayMenuTemplate, trayToolTip, type ClusterStatus } from './trayMenu';

function recordingActions() {
  const calls: string[] = [];
  const actions: AppMenuActions = {
    about: () => calls.push('about'),
    setStopContainersOnQuit: (stop) => calls.push(`stop=${stop}`),
    resetCluster: () => calls.push('reset'),
    openExternal: (url) => calls.push(`open ${url}`),
    quit: () => calls.push('quit'),
  };
  return { calls, actions };
}

function find(items: MenuItemTemplate[], predicate: (item: MenuItemTemplate) => boolean): MenuItemTemplate | undefined {
  for (const item of items) {
    if (predicate(item)) return item;
    const inner = item.submenu ? find(item.submenu, predicate) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

describe('the tray menu', () => {
  it.each<[ClusterStatus, string]>([
    [{ state: 'starting' }, 'Cluster: starting…'],
    [{ state: 'running', pods: 0 }, 'Cluster: running (0 pods)'],
    [{ state: 'running', pods: 1 }, 'Cluster: running (1 pod)'],
    [{ state: 'running', pods: 12 }, 'Cluster: running (12 pods)'],
    [{ state: 'running', pods: 12, unhealthy: 0 }, 'Cluster: running (12 pods)'],
    [{ state: 'running', pods: 3, unhealthy: 2 }, 'Cluster: running (3 pods, 2 not healthy)'],
    [{ state: 'stopping' }, 'Cluster: stopping…'],
    [{ state: 'stopped' }, 'Cluster: stopped'],
    [{ state: 'error', message: 'port 6443 in use' }, 'Cluster: error'],
  ])('shows %j as "%s"', (status, text) => {
    expect(clusterStatusText(status)).toBe(text);
    const template = trayMenuTemplate(status, { open: () => undefined, quit: () => undefined });
    expect(template[0]).toMatchObject({ label: text, enabled: false });
  });

  it('puts an error’s message in the tooltip', () => {
    expect(trayToolTip({ state: 'error', message: 'port 6443 in use' })).toBe('kubedesk — Cluster: error: port 6443 in use');
  });

  it('has Open and Quit items that call their actions', () => {
    const calls: string[] = [];
    const template = trayMenuTemplate({ state: 'stopped' }, { open: () => calls.push('open'), quit: () => calls.push('quit') });
    expect(template.map((item) => item.label ?? item.type)).toEqual(['Cluster: stopped', 'separator', 'Open kubedesk', 'separator', 'Quit kubedesk']);
    template[2].click?.();
    template[4].click?.();
    expect(calls).toEqual(['open', 'quit']);
  });
});

describe('the application menu', () => {
  it.each(['darwin', 'linux', 'win32'] as const)('on %s has the app, Edit, View, Window and Help menus', (platform) => {
    const { actions } = recordingActions();
    const template = appMenuTemplate({ platform, stopContainersOnQuit: false, helpLinks: [], actions });
    expect(template.map((item) => item.id)).toEqual(['app', 'edit', 'view', 'window', 'help']);
    expect(template[3].role).toBe('windowMenu');
    expect(find(template, (item) => item.role === 'hideOthers') !== undefined).toBe(platform === 'darwin');
  });

  it('has the copy/paste roles the terminals need', () => {
    const { actions } = recordingActions();
    const edit = appMenuTemplate({ platform: 'linux', stopContainersOnQuit: false, helpLinks: [], actions })[1];
    expect(edit.submenu?.map((item) => item.role).filter(Boolean)).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'pasteAndMatchStyle', 'delete', 'selectAll']);
  });

  it('has reload, devtools and zoom in View', () => {
    const { actions } = recordingActions();
    const view = appMenuTemplate({ platform: 'linux', stopContainersOnQuit: false, helpLinks: [], actions })[2];
    expect(view.submenu?.map((item) => item.role)).toEqual(expect.arrayContaining(['reload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut']));
  });

  it.each([false, true])('shows the stop-on-quit setting checked=%s and flips it on click', (stop) => {
    const { calls, actions } = recordingActions();
    const template = appMenuTemplate({ platform: 'linux', stopContainersOnQuit: stop, helpLinks: [], actions });
    const item = find(template, (candidate) => candidate.label === stopContainersOnQuitLabel);
    expect(item).toMatchObject({ type: 'checkbox', checked: stop });
    item?.click?.();
    expect(calls).toEqual([`stop=${!stop}`]);
  });

  it('wires About, Reset, Quit and the help links', () => {
    const { calls, actions } = recordingActions();
    const template = appMenuTemplate({ platform: 'win32', stopContainersOnQuit: false, helpLinks: [{ label: 'Docs', url: 'https://kubernetes.io/docs/' }], actions });
    for (const id of ['about', 'reset-cluster', 'quit']) find(template, (item) => item.id === id)?.click?.();
    find(template, (item) => item.label === 'Docs')?.click?.();
    expect(calls).toEqual(['about', 'reset', 'quit', 'open https://kubernetes.io/docs/']);
  });
});
