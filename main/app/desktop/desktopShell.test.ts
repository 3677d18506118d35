import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { desktopChannels } from '../../../shared/desktopBridge';
import { ensurePki } from '../../apiserver/pki';
import type { CertificateVerifyRequest } from './certificatePin';
import { loadDesktopSettings, saveDesktopSettings } from './desktopSettings';
import { DesktopShell, type ClusterControl, type LocalClusterControl, type RunningCluster } from './desktopShell';
import type { LocalClusterMenuEntry } from './trayMenu';
import type { ElectronModule, HeadersReceivedDetails, InvokeEvent, MenuItemTemplate, MessageBoxOptions, NavigationEvent, SaveDialogOptions, WindowOptions } from './electronModule';

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...values: unknown[]) => unknown)(...args);
  }
}

function navigationEvent(url: string): NavigationEvent & { prevented: boolean } {
  const event = { url, prevented: false, preventDefault: () => (event.prevented = true) };
  return event;
}

/** A fake Electron that records what the shell does. */
function fakeElectron(options: { lock?: boolean; notifications?: boolean } = {}) {
  const log: string[] = [];
  const notifications: { title: string; body: string }[] = [];
  const windows: FakeWindow[] = [];
  const trays: FakeTray[] = [];
  const ipc = new Map<string, (event: InvokeEvent, ...args: unknown[]) => unknown>();
  const messageBoxes: MessageBoxOptions[] = [];
  const saveDialogs: SaveDialogOptions[] = [];
  let messageBoxResponse = 0;
  let saveDialogResult: { canceled: boolean; filePath?: string } = { canceled: true };
  const sessionHandlers: {
    verify?: (request: CertificateVerifyRequest, callback: (result: number) => void) => void;
    permissionRequest?: (contents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl: string }) => void;
    permissionCheck?: (contents: unknown, permission: string, origin: string) => boolean;
    headers?: (details: HeadersReceivedDetails, callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void) => void;
  } = {};
  let applicationMenu: MenuItemTemplate[] = [];

  class FakeWebContents extends Emitter {
    openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
    setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
      this.openHandler = handler;
    }
  }
  class FakeWindow extends Emitter {
    readonly webContents = new FakeWebContents();
    readonly loaded: string[] = [];
    destroyed = false;
    minimized = false;
    constructor(readonly options: WindowOptions) {
      super();
      windows.push(this);
      log.push('window created');
    }
    async loadURL(url: string): Promise<void> {
      this.loaded.push(url);
    }
    show(): void {
      log.push('window show');
    }
    focus(): void {
      log.push('window focus');
    }
    restore(): void {
      this.minimized = false;
      log.push('window restore');
    }
    isMinimized(): boolean {
      return this.minimized;
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
  }
  class FakeTray extends Emitter {
    toolTip = '';
    menu: MenuItemTemplate[] = [];
    destroyed = false;
    constructor(readonly image: string) {
      super();
      trays.push(this);
    }
    setToolTip(text: string): void {
      this.toolTip = text;
    }
    setContextMenu(menu: unknown): void {
      this.menu = menu as MenuItemTemplate[];
    }
    destroy(): void {
      this.destroyed = true;
    }
  }
  const app = Object.assign(new Emitter(), {
    requestSingleInstanceLock: () => options.lock ?? true,
    quit: () => {
      log.push('app quit');
      const event = { defaultPrevented: false, preventDefault: () => (event.defaultPrevented = true) };
      app.emit('before-quit', event);
      if (!event.defaultPrevented) log.push('app exited');
    },
    whenReady: async () => undefined,
    getVersion: () => '0.1.0',
    getPath: () => '/home/user/Downloads',
  });
  class FakeNotification {
    constructor(readonly options: { title: string; body: string }) {}
    show(): void {
      notifications.push(this.options);
    }
    static isSupported(): boolean {
      return options.notifications ?? true;
    }
  }
  const electron: ElectronModule = {
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: {
      // the "built" menu is the template itself, so tests can read and click it
      buildFromTemplate: (template) => template,
      setApplicationMenu: (menu) => {
        applicationMenu = menu as MenuItemTemplate[];
      },
    },
    dialog: {
      showMessageBox: async (_window, box) => {
        messageBoxes.push(box);
        return { response: messageBoxResponse };
      },
      showSaveDialog: async (_window, dialogOptions) => {
        saveDialogs.push(dialogOptions);
        return saveDialogResult;
      },
      showErrorBox: (title, content) => log.push(`error box: ${title}: ${content}`),
    },
    shell: {
      openExternal: async (url) => {
        log.push(`open external ${url}`);
      },
    },
    ipcMain: { handle: (channel, listener) => ipc.set(channel, listener) },
    session: {
      defaultSession: {
        setCertificateVerifyProc: (proc) => (sessionHandlers.verify = proc),
        setPermissionRequestHandler: (handler) => (sessionHandlers.permissionRequest = handler),
        setPermissionCheckHandler: (handler) => (sessionHandlers.permissionCheck = handler),
        webRequest: { onHeadersReceived: (listener) => (sessionHandlers.headers = listener) },
      },
    },
    nativeTheme: { shouldUseDarkColors: false },
  };
  return {
    electron,
    app,
    log,
    windows,
    trays,
    notifications,
    ipc,
    messageBoxes,
    saveDialogs,
    sessionHandlers,
    appMenu: () => applicationMenu,
    answerMessageBox: (response: number) => (messageBoxResponse = response),
    answerSaveDialog: (result: { canceled: boolean; filePath?: string }) => (saveDialogResult = result),
  };
}

/** A fake cluster control: each start makes a cluster on the next port. */
function fakeControl(log: string[], options: { failStart?: boolean; caPem?: string; snapshotError?: string } = {}) {
  let port = 6443;
  const clusters: (RunningCluster & { setPods(count: number): void })[] = [];
  const control: ClusterControl = {
    start: async () => {
      log.push('cluster start');
      if (options.failStart) throw new Error('port 6443 is in use');
      const server = `https://127.0.0.1:${port++}`;
      let podListener: ((count: number) => void) | undefined;
      const cluster = {
        server,
        caPem: options.caPem ?? `CA of ${server}`,
        uiLoginUrl: () => `${server}/ui/login?token=one-time`,
        watchRunningPods: (listener: (count: number) => void) => {
          podListener = listener;
          return { dispose: () => log.push('pod watch disposed') };
        },
        setPods: (count: number) => podListener?.(count),
        saveSnapshot: async (name: string) => {
          log.push(`cluster saveSnapshot ${name}`);
          if (options.snapshotError) throw new Error(options.snapshotError);
          return { name, created: '2026-11-27T07:05:09Z', resourceVersion: '42', objects: 17, sizeBytes: 81920, images: [], volumes: [] };
        },
        stopContainers: async () => {
          log.push('cluster stopContainers');
        },
        dispose: async () => {
          log.push('cluster dispose');
        },
      };
      clusters.push(cluster);
      return cluster;
    },
    reset: async () => {
      log.push('cluster reset');
    },
  };
  return { control, clusters };
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function startedShell(
  options: { lock?: boolean; failStart?: boolean; stopContainersOnQuit?: boolean; platform?: NodeJS.Platform; caPem?: string; snapshotError?: string; notifications?: boolean; localClusters?: LocalClusterControl } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'kd-shell-'));
  directories.push(dataDir);
  if (options.stopContainersOnQuit !== undefined) saveDesktopSettings(dataDir, { stopContainersOnQuit: options.stopContainersOnQuit });
  const fake = fakeElectron({ lock: options.lock, notifications: options.notifications });
  const { control, clusters } = fakeControl(fake.log, { failStart: options.failStart, caPem: options.caPem, snapshotError: options.snapshotError });
  const written: { path: string; text: string }[] = [];
  const shell = new DesktopShell(fake.electron, control, {
    dataDir,
    preloadPath: '/app/dist/app/preload.cjs',
    trayIconPath: '/app/assets/tray.png',
    platform: options.platform ?? 'linux',
    kubernetesVersion: 'v1.35.0',
    helpLinks: [{ label: 'Docs', url: 'https://kubernetes.io/docs/' }],
    writeTextFile: async (path, text) => {
      written.push({ path, text });
    },
    log: (message) => fake.log.push(`log: ${message}`),
    now: () => new Date(2026, 10, 27, 7, 5, 9),
    localClusters: options.localClusters,
    localClustersRefreshMs: 0,
  });
  await shell.run();
  return { ...fake, shell, clusters, dataDir, written };
}

const appFrame = (url = 'https://127.0.0.1:6443/ui/'): InvokeEvent => ({ senderFrame: { url } });

describe('the desktop shell', () => {
  it('quits when another instance holds the single-instance lock', async () => {
    const { log, windows } = await startedShell({ lock: false });
    expect(log).toEqual(['app quit', 'app exited']);
    expect(windows).toHaveLength(0);
  });

  it('starts the cluster once ready and loads the UI login URL in a locked-down window', async () => {
    const { log, windows } = await startedShell();
    expect(log).toContain('cluster start');
    expect(windows).toHaveLength(1);
    expect(windows[0].options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      preload: '/app/dist/app/preload.cjs',
    });
    expect(windows[0].loaded[0]).toMatch(/^data:text\/html/);
    expect(windows[0].loaded.at(-1)).toBe('https://127.0.0.1:6443/ui/login?token=one-time');
  });

  it('brings the existing window forward when a second instance starts', async () => {
    const { app, log, windows } = await startedShell();
    windows[0].minimized = true;
    log.length = 0;
    app.emit('second-instance', { preventDefault: () => undefined }, [], '/');
    expect(log).toEqual(['window restore', 'window show', 'window focus']);
    expect(windows).toHaveLength(1);
  });

  it('answers the cluster\'s request for a client certificate with none, not the OS store\'s first', async () => {
    const { app } = await startedShell();
    let prevented = false;
    const chosen: unknown[][] = [];
    app.emit('select-client-certificate', { preventDefault: () => (prevented = true) }, {}, 'https://127.0.0.1:6443/ui/', [{ subjectName: 'corp-user' }], (...certificate: unknown[]) => chosen.push(certificate));
    expect(prevented).toBe(true);
    expect(chosen).toEqual([[]]);
  });

  it('opens a new window with a fresh login when the last one was closed', async () => {
    const { app, windows } = await startedShell({ platform: 'darwin' });
    windows[0].destroyed = true;
    windows[0].emit('closed');
    app.emit('window-all-closed');
    app.emit('activate');
    expect(windows).toHaveLength(2);
    expect(windows[1].loaded).toContain('https://127.0.0.1:6443/ui/login?token=one-time');
  });

  it('keeps navigation on the app origin and sends foreign links to the browser', async () => {
    const { windows, log } = await startedShell();
    const contents = windows[0].webContents;
    const inside = navigationEvent('https://127.0.0.1:6443/ui/pods');
    contents.emit('will-navigate', inside);
    const foreign = navigationEvent('https://evil.example/');
    contents.emit('will-navigate', foreign);
    const redirect = navigationEvent('https://evil.example/');
    contents.emit('will-redirect', redirect);
    const file = navigationEvent('file:///etc/passwd');
    contents.emit('will-navigate', file);
    expect([inside.prevented, foreign.prevented, redirect.prevented, file.prevented]).toEqual([false, true, true, true]);
    expect(log.filter((line) => line.startsWith('open external'))).toEqual(['open external https://evil.example/']);
  });

  it('denies new windows and opens web links externally', async () => {
    const { windows, log } = await startedShell();
    const handler = windows[0].webContents.openHandler;
    expect(handler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(handler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(log.filter((line) => line.startsWith('open external'))).toEqual(['open external https://example.com']);
  });

  it('pins TLS to the running cluster’s CA', async () => {
    const pkiDir = mkdtempSync(join(tmpdir(), 'kd-shell-pki-'));
    directories.push(pkiDir);
    const ours = await ensurePki(join(pkiDir, 'ours'));
    const foreign = await ensurePki(join(pkiDir, 'foreign'));
    const { sessionHandlers } = await startedShell({ caPem: ours.caCertPem });
    const results: number[] = [];
    sessionHandlers.verify?.({ hostname: '127.0.0.1', certificate: { data: ours.serverCertPem } }, (result) => results.push(result));
    sessionHandlers.verify?.({ hostname: '127.0.0.1', certificate: { data: foreign.serverCertPem } }, (result) => results.push(result));
    sessionHandlers.verify?.({ hostname: 'example.com', certificate: { data: ours.serverCertPem } }, (result) => results.push(result));
    expect(results).toEqual([0, -2, -2]);
  });

  it('grants clipboard access to the app origin only and adds the CSP to its responses', async () => {
    const { sessionHandlers } = await startedShell();
    const granted: boolean[] = [];
    sessionHandlers.permissionRequest?.({}, 'clipboard-read', (value) => granted.push(value), { requestingUrl: 'https://127.0.0.1:6443/ui/' });
    sessionHandlers.permissionRequest?.({}, 'clipboard-read', (value) => granted.push(value), { requestingUrl: 'https://example.com/' });
    sessionHandlers.permissionRequest?.({}, 'media', (value) => granted.push(value), { requestingUrl: 'https://127.0.0.1:6443/ui/' });
    expect(granted).toEqual([true, false, false]);
    expect(sessionHandlers.permissionCheck?.({}, 'clipboard-sanitized-write', 'https://127.0.0.1:6443')).toBe(true);
    expect(sessionHandlers.permissionCheck?.({}, 'geolocation', 'https://127.0.0.1:6443')).toBe(false);
    const responses: { responseHeaders?: Record<string, string | string[]> }[] = [];
    sessionHandlers.headers?.({ url: 'https://127.0.0.1:6443/ui/', responseHeaders: {} }, (response) => responses.push(response));
    sessionHandlers.headers?.({ url: 'https://example.com/', responseHeaders: {} }, (response) => responses.push(response));
    expect(Object.keys(responses[0].responseHeaders ?? {})).toEqual(['Content-Security-Policy']);
    expect(responses[1]).toEqual({});
  });

  it.each([
    [false, ['cluster dispose']],
    [true, ['cluster dispose', 'cluster stopContainers']],
  ])('on quit with stopContainersOnQuit=%s stops the cluster as set, then exits', async (stop, expected) => {
    const { app, log, shell, trays } = await startedShell({ stopContainersOnQuit: stop });
    log.length = 0;
    app.quit();
    await shell.whenShutDown();
    expect(log.filter((line) => line.startsWith('cluster '))).toEqual(expected);
    expect(log.at(-1)).toBe('app exited');
    expect(trays[0].destroyed).toBe(true);
  });

  it('persists the stop-on-quit setting chosen in the menu', async () => {
    const { appMenu, dataDir, shell } = await startedShell();
    const settings = appMenu()[0].submenu?.find((item) => item.id === 'settings')?.submenu?.[0];
    settings?.click?.();
    expect(shell.currentSettings().stopContainersOnQuit).toBe(true);
    expect(loadDesktopSettings(dataDir).stopContainersOnQuit).toBe(true);
    expect(appMenu()[0].submenu?.find((item) => item.id === 'settings')?.submenu?.[0].checked).toBe(true);
  });

  it('resets after confirmation: dispose, remove, start fresh, reload the window, keep settings', async () => {
    const { answerMessageBox, log, shell, windows, dataDir } = await startedShell({ stopContainersOnQuit: true });
    log.length = 0;
    answerMessageBox(0);
    rmSync(dataDir, { recursive: true, force: true });
    await shell.resetCluster();
    expect(log.filter((line) => line.startsWith('cluster '))).toEqual(['cluster dispose', 'cluster reset', 'cluster start']);
    expect(windows[0].loaded.at(-1)).toBe('https://127.0.0.1:6444/ui/login?token=one-time');
    expect(JSON.parse(readFileSync(join(dataDir, 'desktop-settings.json'), 'utf8'))).toEqual({ stopContainersOnQuit: true });
  });

  it('does nothing when the reset is cancelled', async () => {
    const { answerMessageBox, log, shell } = await startedShell();
    log.length = 0;
    answerMessageBox(1);
    await shell.resetCluster();
    expect(log.filter((line) => line.startsWith('cluster '))).toEqual([]);
  });

  it('shows the cluster status in the tray', async () => {
    const { trays, clusters, shell } = await startedShell();
    expect(trays[0].image).toBe('/app/assets/tray.png');
    expect(trays[0].menu[0].label).toBe('Cluster: running (0 pods)');
    clusters[0].setPods(3);
    expect(trays[0].menu[0].label).toBe('Cluster: running (3 pods)');
    expect(trays[0].toolTip).toBe('kubedesk — Cluster: running (3 pods)');
    expect(shell.currentStatus()).toEqual({ state: 'running', pods: 3 });
  });

  it('saves a snapshot named after the date and time from the tray, and tells the result in a notification', async () => {
    const { trays, log, notifications } = await startedShell();
    const item = () => trays[0].menu.find((entry) => entry.id === 'save-snapshot');
    expect(item()).toMatchObject({ label: 'Save snapshot', enabled: true });
    item()?.click?.();
    // one at a time: the item says so while the save runs
    expect(item()).toMatchObject({ label: 'Saving snapshot…', enabled: false });
    await expect.poll(() => notifications.length).toBe(1);
    expect(log).toContain('cluster saveSnapshot snapshot-20261127-070509');
    expect(notifications[0]).toEqual({ title: 'Snapshot saved', body: '“snapshot-20261127-070509”: 17 objects, 80Ki. Restore it from the Snapshots page or with kubedesk snapshot restore snapshot-20261127-070509.' });
    await expect.poll(() => item()?.enabled).toBe(true);
    expect(item()?.label).toBe('Save snapshot');
  });

  it('tells why a tray snapshot failed, in the notification and the log, or the log alone without a notification service', async () => {
    const refused = await startedShell({ snapshotError: 'snapshots.snapshots.kubedesk.dev "snapshot-20261127-070509" already exists' });
    refused.trays[0].menu.find((entry) => entry.id === 'save-snapshot')?.click?.();
    await expect.poll(() => refused.notifications.length).toBe(1);
    expect(refused.notifications[0]).toEqual({ title: 'Snapshot not saved', body: 'snapshots.snapshots.kubedesk.dev "snapshot-20261127-070509" already exists' });
    expect(refused.log).toContain('log: saving snapshot snapshot-20261127-070509: snapshots.snapshots.kubedesk.dev "snapshot-20261127-070509" already exists');

    const quiet = await startedShell({ notifications: false });
    await quiet.shell.saveSnapshot();
    expect(quiet.notifications).toEqual([]);
    expect(quiet.log.filter((line) => line.startsWith('log: Snapshot saved'))).toHaveLength(1);
  });

  it('offers Save snapshot only while the cluster runs', async () => {
    const { trays, log } = await startedShell({ failStart: true });
    const item = trays[0].menu.find((entry) => entry.id === 'save-snapshot');
    expect(item).toMatchObject({ label: 'Save snapshot', enabled: false });
    item?.click?.();
    expect(log.filter((line) => line.startsWith('cluster saveSnapshot'))).toEqual([]);
  });

  it('lists the other local clusters in the tray\'s Clusters submenu, each with Start and Stop', async () => {
    const entries: LocalClusterMenuEntry[] = [
      { name: 'b', state: 'running' },
      { name: 'c', state: 'stopped' },
    ];
    const calls: string[] = [];
    let finishStart: () => void = () => undefined;
    const localClusters: LocalClusterControl = {
      list: async () => entries.map((entry) => ({ ...entry })),
      start: (name) =>
        new Promise<void>((resolve) => {
          calls.push(`start ${name}`);
          finishStart = () => {
            entries[1].state = 'running';
            resolve();
          };
        }),
      stop: async (name) => calls.push(`stop ${name}`),
    };
    const { trays, shell } = await startedShell({ localClusters });
    await shell.refreshLocalClusters();
    const clusters = () => trays[0].menu.find((entry) => entry.id === 'clusters');
    const item = (id: string) => clusters()?.submenu?.flatMap((entry) => entry.submenu ?? []).find((entry) => entry.id === id);
    expect(clusters()?.label).toBe('Clusters');
    expect(clusters()?.submenu?.map((entry) => entry.label)).toEqual(['b — running', 'c — stopped']);
    expect([item('cluster-b-start')?.enabled, item('cluster-b-stop')?.enabled, item('cluster-c-start')?.enabled, item('cluster-c-stop')?.enabled]).toEqual([false, true, true, false]);
    const starting = shell.changeLocalCluster('c', 'start');
    expect(calls).toEqual(['start c']);
    // while it starts, the tray says so and offers neither action
    expect(clusters()?.submenu?.[1].label).toBe('c — starting…');
    expect([item('cluster-c-start')?.enabled, item('cluster-c-stop')?.enabled]).toEqual([false, false]);
    finishStart();
    await starting;
    expect(clusters()?.submenu?.[1].label).toBe('c — running');
    item('cluster-b-stop')?.click?.();
    expect(calls).toEqual(['start c', 'stop b']);
  });

  it('tells why a tray Start failed in a notification, and says when there are no other clusters', async () => {
    const localClusters: LocalClusterControl = {
      list: async () => [{ name: 'b', state: 'stopped' }],
      start: async () => {
        throw new Error('cluster "b" failed to start (the server exited)');
      },
      stop: async () => undefined,
    };
    const { notifications, shell, log } = await startedShell({ localClusters });
    await shell.changeLocalCluster('b', 'start');
    expect(notifications).toContainEqual({ title: 'Cluster b did not start', body: 'cluster "b" failed to start (the server exited)' });
    expect(log).toContain('log: starting cluster b: cluster "b" failed to start (the server exited)');
    const empty = await startedShell({ localClusters: { list: async () => [], start: async () => undefined, stop: async () => undefined } });
    await empty.shell.refreshLocalClusters();
    const submenu = empty.trays[0].menu.find((entry) => entry.id === 'clusters')?.submenu;
    expect(submenu).toEqual([{ id: 'clusters-none', label: 'No other local clusters (kubedesk cluster create NAME)', enabled: false }]);
  });

  it('has no Clusters submenu without local clusters to show', async () => {
    const { trays } = await startedShell();
    expect(trays[0].menu.some((entry) => entry.id === 'clusters')).toBe(false);
  });

  it('reports a failed start in the tray, the window and a dialog, and stays open', async () => {
    const { trays, windows, log } = await startedShell({ failStart: true });
    expect(trays[0].menu[0].label).toBe('Cluster: error');
    expect(decodeURIComponent(windows[0].loaded.at(-1) ?? '')).toContain('port 6443 is in use');
    expect(log).toContain('error box: kubedesk could not start the cluster: port 6443 is in use');
    expect(log).not.toContain('app quit');
  });

  it('answers the bridge for the app origin only', async () => {
    const { ipc } = await startedShell();
    const version = ipc.get(desktopChannels.version);
    expect(version?.(appFrame())).toBe('0.1.0');
    expect(() => version?.(appFrame('https://evil.example/'))).toThrow(/not the kubedesk UI/);
    expect(() => version?.({ senderFrame: null })).toThrow(/not the kubedesk UI/);
    expect(() => version?.(appFrame('data:text/html,x'))).toThrow(/not the kubedesk UI/);
  });

  it('opens only http(s) URLs externally', async () => {
    const { ipc, log } = await startedShell();
    const open = ipc.get(desktopChannels.openExternal);
    await open?.(appFrame(), 'https://kubernetes.io/docs/');
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 42]) await expect(Promise.resolve().then(() => open?.(appFrame(), url))).rejects.toThrow(/only http and https/);
    expect(log.filter((line) => line.startsWith('open external'))).toEqual(['open external https://kubernetes.io/docs/']);
  });

  it('saves a file only where the user chose, with a sanitised suggested name', async () => {
    const { ipc, saveDialogs, answerSaveDialog, written } = await startedShell();
    const save = ipc.get(desktopChannels.saveFile);
    answerSaveDialog({ canceled: true });
    expect(await save?.(appFrame(), '../../.bashrc', 'x')).toBe(false);
    expect(saveDialogs[0].defaultPath).toBe(join('/home/user/Downloads', '.bashrc'));
    answerSaveDialog({ canceled: false, filePath: '/home/user/pod.yaml' });
    expect(await save?.(appFrame(), 'pod.yaml', 'kind: Pod\n')).toBe(true);
    expect(written).toEqual([{ path: '/home/user/pod.yaml', text: 'kind: Pod\n' }]);
    await expect(Promise.resolve().then(() => save?.(appFrame(), 'a', { text: 'x' }))).rejects.toThrow(/expects/);
  });

  it('confirms through a native message box', async () => {
    const { ipc, messageBoxes, answerMessageBox } = await startedShell();
    const confirm = ipc.get(desktopChannels.confirm);
    answerMessageBox(0);
    expect(await confirm?.(appFrame(), 'Delete pod web?', 'It is gone for good.')).toBe(true);
    answerMessageBox(1);
    expect(await confirm?.(appFrame(), 'Delete pod web?')).toBe(false);
    expect(messageBoxes[0]).toMatchObject({ type: 'question', message: 'Delete pod web?', detail: 'It is gone for good.', buttons: ['OK', 'Cancel'], cancelId: 1 });
  });
});
