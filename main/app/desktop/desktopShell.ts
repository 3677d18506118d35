// The desktop shell: runs the cluster inside Electron's main process and shows the UI the cluster
// serves itself (https://127.0.0.1:<port>/ui/) in a locked-down window, with a tray, an app menu,
// settings, "Reset cluster" and the tray's "Save snapshot". Electron comes in as an ElectronModule so the whole shell is
// unit-tested with a fake. Window hardening follows Electron's security checklist
// (electronjs.org/docs/latest/tutorial/security); the reset mirrors `kubedesk reset` (cli.ts).
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { desktopBridgeLimits, desktopChannels } from '../../../shared/desktopBridge';
import { appMenuTemplate, type HelpLink } from './appMenu';
import { pinnedCertificateVerifier } from './certificatePin';
import { loadDesktopSettings, saveDesktopSettings, type DesktopSettings } from './desktopSettings';
import type { ElectronModule, InvokeEvent, PreventableEvent, TrayLike, WindowLike } from './electronModule';
import { isAppUrl, isExternalWebUrl, mayGrantPermission, mayNavigate, originOf, windowOpenDecision, withContentSecurityPolicy } from './navigationPolicy';
import { trayMenuTemplate, trayToolTip, type ClusterStatus, type LocalClusterMenuEntry } from './trayMenu';
import { datedSnapshotName, type SnapshotSummary } from '../../../shared/snapshots';
import { formatBytes } from '../../../shared/printers/bytes';

/** A started cluster, as the shell sees it. */
export interface RunningCluster {
  /** `https://127.0.0.1:<port>`: the window's only origin. */
  readonly server: string;
  /** The cluster CA the window pins its TLS trust to. */
  readonly caPem: string;
  /** A one-time login URL that sets the UI's session cookie and redirects to /ui/. */
  uiLoginUrl(): string;
  /**
   * Calls `listener` now and whenever the counts change: pods running with every container ready,
   * and pods that `kubectl get pods` shows as a problem (not ready, crash looping, image or config errors).
   */
  watchRunningPods(listener: (count: number, unhealthy?: number) => void): { dispose(): void };
  /** Saves a snapshot named `name` through the cluster's snapshot API (as the UI's Snapshots page does). */
  saveSnapshot(name: string): Promise<SnapshotSummary>;
  /** Stops (does not remove) the cluster's containers; called after dispose(). */
  stopContainers(): Promise<void>;
  dispose(): Promise<void>;
}

export interface ClusterControl {
  start(): Promise<RunningCluster>;
  /** Removes the (disposed) cluster's state, containers and kubeconfig entries, like `kubedesk reset`. */
  reset(): Promise<void>;
}

export interface DesktopShellOptions {
  /** Where desktop-settings.json lives: the cluster's data dir. */
  dataDir: string;
  preloadPath: string;
  /** The tray icon (a 16 px PNG; a `@2x` file beside it is picked up). */
  trayIconPath: string;
  /** The window icon (Linux uses it; macOS and Windows take the app bundle's). */
  windowIconPath?: string;
  platform?: NodeJS.Platform;
  /** Shown in About. */
  kubernetesVersion: string;
  helpLinks: readonly HelpLink[];
  /** Writes a file the user chose in the save dialog (tests replace it). */
  writeTextFile?: (path: string, text: string) => Promise<void>;
  /** Where errors that have no dialog go (and results when there is no notification service). */
  log?: (message: string) => void;
  /** The time a tray snapshot is named after (tests replace it). */
  now?: () => Date;
  /** The other local clusters, for the tray's Clusters submenu; without it the tray has none. */
  localClusters?: LocalClusterControl;
  /** How often the Clusters submenu re-reads their states (ms; default 10 s; 0 = only after a tray action). */
  localClustersRefreshMs?: number;
}

/** The local clusters other than the app's own (`kubedesk cluster …`), as the tray drives them. */
export interface LocalClusterControl {
  list(): Promise<LocalClusterMenuEntry[]>;
  start(name: string): Promise<unknown>;
  stop(name: string): Promise<unknown>;
}

export const defaultHelpLinks: readonly HelpLink[] = [
  { label: 'Kubernetes Documentation', url: 'https://kubernetes.io/docs/home/' },
  { label: 'kubectl Reference', url: 'https://kubernetes.io/docs/reference/kubectl/' },
];

export class DesktopShell {
  private readonly platform: NodeJS.Platform;
  private readonly writeTextFile: (path: string, text: string) => Promise<void>;
  private readonly log: (message: string) => void;
  private settings: DesktopSettings;
  private status: ClusterStatus = { state: 'starting' };
  private cluster: RunningCluster | undefined;
  private podWatch: { dispose(): void } | undefined;
  private window: WindowLike | undefined;
  private tray: TrayLike | undefined;
  /** The start or reset in progress; quitting waits for it. */
  private operation: Promise<void> = Promise.resolve();
  private busy = false;
  private savingSnapshot = false;
  private ready = false;
  private shutdown: Promise<void> | undefined;
  private shutdownComplete = false;
  private localClusterEntries: LocalClusterMenuEntry[] = [];
  /** local clusters with a tray Start or Stop under way */
  private readonly localClustersBusy = new Set<string>();
  private localClustersTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly electron: ElectronModule,
    private readonly control: ClusterControl,
    private readonly options: DesktopShellOptions,
  ) {
    this.platform = options.platform ?? process.platform;
    this.writeTextFile = options.writeTextFile ?? ((path, text) => writeFile(path, text, 'utf8'));
    this.log = options.log ?? ((message) => console.error(`kubedesk: ${message}`));
    this.settings = loadDesktopSettings(options.dataDir);
  }

  /** The app's lifecycle: returns once the first cluster start has finished (or failed). */
  async run(): Promise<void> {
    const { app } = this.electron;
    if (!app.requestSingleInstanceLock()) {
      // another kubedesk owns the cluster; its 'second-instance' handler brings its window forward
      app.quit();
      return;
    }
    app.on('second-instance', () => this.openWindow());
    app.on('activate', () => this.openWindow());
    app.on('window-all-closed', () => {
      // macOS apps stay in the Dock (and here the tray) without windows; elsewhere closing the last window quits
      if (this.platform !== 'darwin') app.quit();
    });
    app.on('before-quit', (event) => this.onBeforeQuit(event));
    // the cluster asks every client for a certificate (client-certificate authentication) without
    // requiring one; Electron would answer with the first certificate of the OS store, so the
    // window answers with none — the session cookie is how the UI signs in
    app.on('select-client-certificate', (event, _contents, _url, _certificates, callback) => {
      event.preventDefault();
      callback();
    });
    await app.whenReady();
    this.ready = true;
    this.secureSession();
    this.registerBridge();
    this.refreshAppMenu();
    this.createTray();
    this.openWindow();
    await this.begin(() => this.startCluster());
  }

  currentStatus(): ClusterStatus {
    return this.status;
  }

  currentSettings(): DesktopSettings {
    return { ...this.settings };
  }

  // ---- cluster lifecycle ----

  private begin(task: () => Promise<void>): Promise<void> {
    const run = this.operation.then(task, task);
    // a failed step must not keep quitting from stopping the cluster
    this.operation = run.catch(() => undefined);
    return run;
  }

  private async startCluster(): Promise<void> {
    if (this.shutdown) return;
    this.setStatus({ state: 'starting' });
    this.showStatusPage('Starting the cluster…');
    let cluster: RunningCluster;
    try {
      cluster = await this.control.start();
    } catch (error) {
      this.showFailure('start', error);
      return;
    }
    this.cluster = cluster;
    this.setStatus({ state: 'running', pods: 0 });
    this.podWatch = cluster.watchRunningPods((pods, unhealthy) => {
      if (this.cluster === cluster) this.setStatus({ state: 'running', pods, unhealthy });
    });
    await this.loadApp();
  }

  /** A start or reset that failed: in the tray status, on the window's page and in a dialog. */
  private showFailure(step: 'start' | 'reset', error: unknown): void {
    const message = errorMessage(error);
    this.setStatus({ state: 'error', message });
    this.showStatusPage(step === 'start' ? 'The cluster could not start' : 'The cluster could not be reset', message);
    this.electron.dialog.showErrorBox(`kubedesk could not ${step} the cluster`, message);
  }

  private async stopCluster(stopContainers: boolean): Promise<void> {
    const cluster = this.cluster;
    this.podWatch?.dispose();
    this.podWatch = undefined;
    this.cluster = undefined;
    if (!cluster) return;
    this.setStatus({ state: 'stopping' });
    try {
      await cluster.dispose();
    } catch (error) {
      this.log(`stopping the cluster: ${errorMessage(error)}`);
    }
    // After dispose: a running kubelet would restart the containers it sees exit.
    if (stopContainers) {
      try {
        await cluster.stopContainers();
      } catch (error) {
        this.log(`stopping the cluster's containers: ${errorMessage(error)}`);
      }
    }
    this.setStatus({ state: 'stopped' });
  }

  /** Asks, then disposes the cluster, removes its state and containers, and starts a fresh one. */
  async resetCluster(): Promise<void> {
    if (this.busy || this.shutdown) return;
    const { response } = await this.electron.dialog.showMessageBox(this.dialogParent(), {
      type: 'warning',
      title: 'Reset cluster',
      message: 'Reset the cluster?',
      detail:
        'This deletes every object in the cluster, its containers and volumes, and the kubedesk entries in your kubeconfig. A new, empty cluster starts afterwards.',
      buttons: ['Reset Cluster', 'Cancel'],
      defaultId: 1,
      cancelId: 1,
      noLink: true,
    });
    if (response !== 0) return;
    this.busy = true;
    try {
      await this.begin(async () => {
        this.showStatusPage('Resetting the cluster…');
        await this.stopCluster(false);
        try {
          await this.control.reset();
        } catch (error) {
          this.showFailure('reset', error);
          return;
        }
        // the reset removed the data dir, settings included; the user's choice outlives the cluster
        this.saveSettings();
        await this.startCluster();
      });
    } finally {
      this.busy = false;
    }
  }

  /**
   * The tray's "Save snapshot": one named after the date and time, through the snapshot API; the
   * result (name, objects, size, or why it failed) in a notification and the log. Quitting waits
   * for it, as for a start or reset.
   */
  async saveSnapshot(): Promise<void> {
    const cluster = this.cluster;
    if (!cluster || this.savingSnapshot || this.shutdown) return;
    const name = datedSnapshotName(this.options.now?.() ?? new Date());
    this.savingSnapshot = true;
    this.refreshTray();
    try {
      await this.begin(async () => {
        try {
          const saved = await cluster.saveSnapshot(name);
          this.notify('Snapshot saved', `“${saved.name}”: ${saved.objects} objects, ${formatBytes(saved.sizeBytes)}. Restore it from the Snapshots page or with kubedesk snapshot restore ${saved.name}.`);
        } catch (error) {
          const message = errorMessage(error);
          this.log(`saving snapshot ${name}: ${message}`);
          this.notify('Snapshot not saved', message);
        }
      });
    } finally {
      this.savingSnapshot = false;
      this.refreshTray();
    }
  }

  /** A desktop notification, or the log where the desktop has none. */
  private notify(title: string, body: string): void {
    const { Notification } = this.electron;
    if (Notification.isSupported()) new Notification({ title, body }).show();
    else this.log(`${title}: ${body}`);
  }

  private onBeforeQuit(event: PreventableEvent): void {
    if (this.shutdownComplete) return;
    event.preventDefault();
    if (this.shutdown) return;
    this.shutdown = (async () => {
      try {
        await this.operation;
        await this.stopCluster(this.settings.stopContainersOnQuit);
      } finally {
        if (this.localClustersTimer) clearInterval(this.localClustersTimer);
        this.tray?.destroy();
        this.tray = undefined;
        this.shutdownComplete = true;
        this.electron.app.quit();
      }
    })();
  }

  /** Resolves when a quit that was asked for has finished stopping the cluster (tests). */
  whenShutDown(): Promise<void> {
    return this.shutdown ?? Promise.resolve();
  }

  // ---- window ----

  private appOrigin(): string | undefined {
    return this.cluster ? originOf(this.cluster.server) : undefined;
  }

  openWindow(): void {
    // a second instance can knock before this one is ready; its window comes up anyway
    if (!this.ready) return;
    const existing = this.window;
    if (existing && !existing.isDestroyed()) {
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
      return;
    }
    const window = new this.electron.BrowserWindow({
      width: 1280,
      height: 820,
      minWidth: 720,
      minHeight: 480,
      title: 'kubedesk',
      ...(this.options.windowIconPath ? { icon: this.options.windowIconPath } : {}),
      backgroundColor: this.electron.nativeTheme.shouldUseDarkColors ? '#1e1e1e' : '#ffffff',
      show: false,
      webPreferences: {
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        webviewTag: false,
        preload: this.options.preloadPath,
      },
    });
    this.window = window;
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => {
      if (this.window === window) this.window = undefined;
    });
    this.lockDown(window);
    if (this.cluster) void this.loadApp();
    else if (this.status.state === 'error') this.showStatusPage('The cluster could not start', this.status.message);
    else this.showStatusPage(this.status.state === 'stopping' ? 'Stopping the cluster…' : 'Starting the cluster…');
  }

  private lockDown(window: WindowLike): void {
    const contents = window.webContents;
    contents.on('will-navigate', (event) => {
      if (mayNavigate(event.url, this.appOrigin())) return;
      event.preventDefault();
      // a plain link to another site: show it in the user's browser rather than in the app's window
      if (isExternalWebUrl(event.url)) this.openExternally(event.url);
    });
    contents.on('will-redirect', (event) => {
      if (!mayNavigate(event.url, this.appOrigin())) event.preventDefault();
    });
    contents.setWindowOpenHandler((details) => {
      const decision = windowOpenDecision(details.url);
      if (decision.openExternally) this.openExternally(decision.openExternally);
      return { action: 'deny' };
    });
  }

  private async loadApp(): Promise<void> {
    const window = this.window;
    const cluster = this.cluster;
    if (!window || window.isDestroyed() || !cluster) return;
    try {
      await window.loadURL(cluster.uiLoginUrl());
    } catch (error) {
      this.log(`loading the UI: ${errorMessage(error)}`);
    }
  }

  private showStatusPage(title: string, detail = ''): void {
    const window = this.window;
    if (!window || window.isDestroyed()) return;
    void window.loadURL(statusPageUrl(title, detail, this.electron.nativeTheme.shouldUseDarkColors)).catch((error: unknown) => this.log(`showing a status page: ${errorMessage(error)}`));
  }

  private dialogParent(): object {
    return this.window && !this.window.isDestroyed() ? this.window : {};
  }

  private openExternally(url: string): void {
    if (!isExternalWebUrl(url)) return;
    this.electron.shell.openExternal(url).catch((error: unknown) => this.log(`opening ${url}: ${errorMessage(error)}`));
  }

  // ---- session security ----

  private secureSession(): void {
    const session = this.electron.session.defaultSession;
    session.setCertificateVerifyProc(pinnedCertificateVerifier(() => this.cluster?.caPem));
    session.setPermissionRequestHandler((_contents, permission, callback, details) => callback(mayGrantPermission(permission, details.requestingUrl, this.appOrigin())));
    session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => mayGrantPermission(permission, requestingOrigin, this.appOrigin()));
    session.webRequest.onHeadersReceived((details, callback) => {
      callback(isAppUrl(details.url, this.appOrigin()) ? { responseHeaders: withContentSecurityPolicy(details.responseHeaders) } : {});
    });
  }

  // ---- the preload bridge (shared/desktopBridge.ts) ----

  private registerBridge(): void {
    const { app, dialog, ipcMain } = this.electron;
    const handle = (channel: string, handler: (args: unknown[]) => unknown) => {
      ipcMain.handle(channel, (event, ...args) => {
        if (!this.isAppSender(event)) throw new Error(`${channel}: refused, the caller is not the kubedesk UI`);
        return handler(args);
      });
    };
    handle(desktopChannels.version, () => app.getVersion());
    handle(desktopChannels.openExternal, async ([url]) => {
      if (typeof url !== 'string' || url.length > desktopBridgeLimits.urlLength || !isExternalWebUrl(url)) throw new Error('openExternal: only http and https URLs can be opened');
      await this.electron.shell.openExternal(url);
    });
    handle(desktopChannels.saveFile, async ([suggestedName, text]) => {
      if (typeof suggestedName !== 'string' || typeof text !== 'string') throw new Error('saveFile: expects a file name and a text');
      if (Buffer.byteLength(text, 'utf8') > desktopBridgeLimits.fileTextBytes) throw new Error('saveFile: the text is too large');
      const result = await dialog.showSaveDialog(this.dialogParent(), { title: 'Save', defaultPath: join(app.getPath('downloads'), safeFileName(suggestedName)) });
      if (result.canceled || !result.filePath) return false;
      // only the path the user picked in the native dialog is ever written
      await this.writeTextFile(result.filePath, text);
      return true;
    });
    handle(desktopChannels.confirm, async ([message, detail]) => {
      if (typeof message !== 'string' || (detail !== undefined && detail !== null && typeof detail !== 'string')) throw new Error('confirm: expects a message and an optional detail');
      const { response } = await dialog.showMessageBox(this.dialogParent(), {
        type: 'question',
        message: message.slice(0, desktopBridgeLimits.messageLength),
        ...(typeof detail === 'string' ? { detail: detail.slice(0, desktopBridgeLimits.messageLength) } : {}),
        buttons: ['OK', 'Cancel'],
        defaultId: 0,
        cancelId: 1,
        noLink: true,
      });
      return response === 0;
    });
  }

  private isAppSender(event: InvokeEvent): boolean {
    const frame = event.senderFrame;
    return frame !== null && isAppUrl(frame.url, this.appOrigin());
  }

  // ---- tray, menu, settings ----

  private createTray(): void {
    try {
      const tray = new this.electron.Tray(this.options.trayIconPath);
      tray.on('click', () => this.openWindow());
      this.tray = tray;
      this.refreshTray();
      this.watchLocalClusters();
    } catch (error) {
      // some Linux desktops have no status area; the window and menu still work
      this.log(`no tray icon: ${errorMessage(error)}`);
    }
  }

  private setStatus(status: ClusterStatus): void {
    const same = status.state === this.status.state && (status.state !== 'running' || (this.status.state === 'running' && status.pods === this.status.pods && status.unhealthy === this.status.unhealthy));
    this.status = status;
    if (!same || status.state === 'error') this.refreshTray();
  }

  private refreshTray(): void {
    const tray = this.tray;
    if (!tray) return;
    tray.setToolTip(trayToolTip(this.status));
    const actions = { open: () => this.openWindow(), quit: () => this.electron.app.quit(), saveSnapshot: () => void this.saveSnapshot() };
    const localClusters = this.options.localClusters
      ? {
          entries: this.localClusterEntries.map((entry) => (this.localClustersBusy.has(entry.name) ? { ...entry, busy: true } : entry)),
          actions: { start: (name: string) => void this.changeLocalCluster(name, 'start'), stop: (name: string) => void this.changeLocalCluster(name, 'stop') },
        }
      : undefined;
    tray.setContextMenu(this.electron.Menu.buildFromTemplate(trayMenuTemplate(this.status, actions, { savingSnapshot: this.savingSnapshot, localClusters })));
  }

  // ---- the other local clusters (tray "Clusters") ----

  private watchLocalClusters(): void {
    if (!this.options.localClusters) return;
    void this.refreshLocalClusters();
    const every = this.options.localClustersRefreshMs ?? 10_000;
    if (every > 0) {
      this.localClustersTimer = setInterval(() => void this.refreshLocalClusters(), every);
      this.localClustersTimer.unref?.();
    }
  }

  /** Re-reads the local clusters' states into the tray (the app's own cluster is not among them). */
  async refreshLocalClusters(): Promise<void> {
    const control = this.options.localClusters;
    if (!control || this.shutdownComplete) return;
    try {
      this.localClusterEntries = await control.list();
    } catch (error) {
      this.log(`listing local clusters: ${errorMessage(error)}`);
    }
    this.refreshTray();
  }

  /** The tray's Start or Stop of a local cluster; the result in a notification when it failed. */
  async changeLocalCluster(name: string, action: 'start' | 'stop'): Promise<void> {
    const control = this.options.localClusters;
    if (!control || this.localClustersBusy.has(name)) return;
    this.localClustersBusy.add(name);
    this.refreshTray();
    try {
      await (action === 'start' ? control.start(name) : control.stop(name));
    } catch (error) {
      const message = errorMessage(error);
      this.log(`${action === 'start' ? 'starting' : 'stopping'} cluster ${name}: ${message}`);
      this.notify(`Cluster ${name} did not ${action}`, message);
    } finally {
      this.localClustersBusy.delete(name);
      await this.refreshLocalClusters();
    }
  }

  private refreshAppMenu(): void {
    const { Menu } = this.electron;
    Menu.setApplicationMenu(
      Menu.buildFromTemplate(
        appMenuTemplate({
          platform: this.platform,
          stopContainersOnQuit: this.settings.stopContainersOnQuit,
          helpLinks: this.options.helpLinks,
          actions: {
            about: () => void this.showAbout(),
            setStopContainersOnQuit: (stop) => this.setStopContainersOnQuit(stop),
            resetCluster: () => void this.resetCluster().catch((error: unknown) => this.log(`reset: ${errorMessage(error)}`)),
            openExternal: (url) => this.openExternally(url),
            quit: () => this.electron.app.quit(),
          },
        }),
      ),
    );
  }

  setStopContainersOnQuit(stop: boolean): void {
    this.settings = { ...this.settings, stopContainersOnQuit: stop };
    this.saveSettings();
    this.refreshAppMenu();
  }

  private saveSettings(): void {
    try {
      saveDesktopSettings(this.options.dataDir, this.settings);
    } catch (error) {
      this.log(`saving settings: ${errorMessage(error)}`);
    }
  }

  private async showAbout(): Promise<void> {
    const lines = [`Kubernetes ${this.options.kubernetesVersion}`];
    if (process.versions.electron) lines.push(`Electron ${process.versions.electron}, Node.js ${process.versions.node}`);
    if (this.cluster) lines.push(`API server: ${this.cluster.server}`);
    lines.push(`Data: ${this.options.dataDir}`);
    await this.electron.dialog.showMessageBox(this.dialogParent(), {
      type: 'info',
      title: 'About kubedesk',
      message: `kubedesk ${this.electron.app.getVersion()}`,
      detail: lines.join('\n'),
      buttons: ['OK'],
      defaultId: 0,
      cancelId: 0,
    });
  }
}

/** A file name without directories or control characters, for the save dialog's default path. */
export function safeFileName(name: string): string {
  const cleaned = basename(name.replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').slice(0, desktopBridgeLimits.fileNameLength).trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'download.txt' : cleaned;
}

/** A self-contained page for the window while no cluster is there to serve the UI. */
export function statusPageUrl(title: string, detail: string, dark: boolean): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  const colors = dark ? 'background:#1e1e1e;color:#e0e0e0' : 'background:#fff;color:#222';
  const html =
    `<!doctype html><html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
    `<title>kubedesk</title></head><body style="font-family:system-ui,sans-serif;padding:3em;${colors}">` +
    `<h2>${escape(title)}</h2>${detail ? `<pre style="white-space:pre-wrap">${escape(detail)}</pre>` : ''}</body></html>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
