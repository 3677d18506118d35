// The parts of Electron's main-process API the desktop shell uses, as plain interfaces: the real
// `electron` module satisfies them structurally (electronMain.ts hands it over), and unit tests pass
// a fake that records what happens, since Electron's binary is not needed to test the shell.
import type { CertificateVerifyRequest } from './certificatePin';

/** An Electron event that can be cancelled (before-quit, will-navigate, …). */
export interface PreventableEvent {
  preventDefault(): void;
}

export interface NavigationEvent extends PreventableEvent {
  readonly url: string;
}

export interface AppModule {
  requestSingleInstanceLock(): boolean;
  quit(): void;
  whenReady(): Promise<void>;
  getVersion(): string;
  getPath(name: 'downloads'): string;
  on(event: 'second-instance', listener: (event: PreventableEvent, argv: string[], workingDirectory: string) => void): unknown;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'window-all-closed', listener: () => void): unknown;
  on(event: 'activate', listener: () => void): unknown;
  on(event: 'select-client-certificate', listener: (event: PreventableEvent, contents: unknown, url: string, certificates: unknown[], callback: () => void) => void): unknown;
}

export interface WebPreferences {
  contextIsolation: boolean;
  sandbox: boolean;
  nodeIntegration: boolean;
  nodeIntegrationInSubFrames: boolean;
  webSecurity: boolean;
  allowRunningInsecureContent: boolean;
  webviewTag: boolean;
  preload: string;
}

export interface WindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  title: string;
  icon?: string;
  backgroundColor: string;
  show: boolean;
  webPreferences: WebPreferences;
}

export interface WindowOpenDetails {
  url: string;
}

export interface WebContentsLike {
  on(event: 'will-navigate', listener: (event: NavigationEvent) => void): unknown;
  on(event: 'will-redirect', listener: (event: NavigationEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: WindowOpenDetails) => { action: 'deny' }): void;
}

export interface WindowLike {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  on(event: 'closed', listener: () => void): unknown;
  once(event: 'ready-to-show', listener: () => void): unknown;
}

/** Menus are built and handed back to Electron; the shell never looks inside one. */
export type MenuHandle = unknown;

export type MenuRole =
  | 'about'
  | 'services'
  | 'hide'
  | 'hideOthers'
  | 'unhide'
  | 'quit'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'pasteAndMatchStyle'
  | 'delete'
  | 'selectAll'
  | 'reload'
  | 'forceReload'
  | 'toggleDevTools'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize'
  | 'zoom'
  | 'close'
  | 'front'
  | 'windowMenu'
  | 'help';

/** A subset of Electron's MenuItemConstructorOptions. */
export interface MenuItemTemplate {
  id?: string;
  label?: string;
  role?: MenuRole;
  type?: 'normal' | 'separator' | 'submenu' | 'checkbox';
  enabled?: boolean;
  checked?: boolean;
  accelerator?: string;
  click?: () => void;
  submenu?: MenuItemTemplate[];
}

export interface MenuModule {
  buildFromTemplate(template: MenuItemTemplate[]): MenuHandle;
  setApplicationMenu(menu: MenuHandle): void;
}

export interface TrayLike {
  setToolTip(toolTip: string): void;
  setContextMenu(menu: MenuHandle): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

/** A window passed to dialogs as their parent; opaque to the shell. */
export type ParentWindow = object;

export interface MessageBoxOptions {
  type: 'none' | 'info' | 'error' | 'question' | 'warning';
  title?: string;
  message: string;
  detail?: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  noLink?: boolean;
}

export interface SaveDialogOptions {
  title?: string;
  defaultPath?: string;
}

export interface DialogModule {
  showMessageBox(window: ParentWindow, options: MessageBoxOptions): Promise<{ response: number }>;
  showSaveDialog(window: ParentWindow, options: SaveDialogOptions): Promise<{ canceled: boolean; filePath?: string }>;
  showErrorBox(title: string, content: string): void;
}

export interface InvokeEvent {
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainModule {
  handle(channel: string, listener: (event: InvokeEvent, ...args: unknown[]) => unknown): void;
}

export interface HeadersReceivedDetails {
  url: string;
  responseHeaders?: Record<string, string[]>;
}

export interface SessionLike {
  setCertificateVerifyProc(proc: (request: CertificateVerifyRequest, callback: (verificationResult: number) => void) => void): void;
  setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl: string }) => void): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string, requestingOrigin: string) => boolean): void;
  readonly webRequest: {
    onHeadersReceived(listener: (details: HeadersReceivedDetails, callback: (response: { responseHeaders?: Record<string, string | string[]> }) => void) => void): void;
  };
}

/** A desktop notification (Electron's Notification: `new Notification({title, body}).show()`). */
export interface NotificationLike {
  show(): void;
}

export interface NotificationModule {
  new (options: { title: string; body: string }): NotificationLike;
  /** false on desktops without a notification service */
  isSupported(): boolean;
}

/** What the shell takes instead of `import 'electron'`. */
export interface ElectronModule {
  app: AppModule;
  BrowserWindow: new (options: WindowOptions) => WindowLike;
  /** Electron's Tray takes an image path as well as a NativeImage; a path picks up `@2x` variants. */
  Tray: new (image: string) => TrayLike;
  Menu: MenuModule;
  Notification: NotificationModule;
  dialog: DialogModule;
  shell: { openExternal(url: string): Promise<void> };
  ipcMain: IpcMainModule;
  session: { readonly defaultSession: SessionLike };
  nativeTheme: { readonly shouldUseDarkColors: boolean };
}
