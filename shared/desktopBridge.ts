// The desktop bridge: what the Electron preload exposes to the web UI as `window.kubedesk`, and the
// IPC channel names both sides use. Only what a web page cannot do itself lives here (native save
// dialog, native message box, opening a link in the user's browser); the UI reaches the cluster over
// its HTTP API like any Kubernetes client. In a plain browser `window.kubedesk` is absent.

export interface DesktopBridge {
  readonly desktop: true;
  /** The desktop app's version (package.json "version"). */
  version(): Promise<string>;
  /** Opens an http(s) URL in the user's default browser; other schemes are refused by main. */
  openExternal(url: string): Promise<void>;
  /** Asks where to save `text` with the native save dialog; false when the user cancelled. */
  saveFile(suggestedName: string, text: string): Promise<boolean>;
  /** A native OK/Cancel message box; true for OK. */
  confirm(message: string, detail?: string): Promise<boolean>;
}

/** IPC channels (ipcRenderer.invoke ↔ ipcMain.handle). */
export const desktopChannels = {
  version: 'kubedesk:version',
  openExternal: 'kubedesk:open-external',
  saveFile: 'kubedesk:save-file',
  confirm: 'kubedesk:confirm',
} as const;

export type DesktopChannel = (typeof desktopChannels)[keyof typeof desktopChannels];

/** Limits main enforces on bridge arguments, so a page cannot make main hold huge strings. */
export const desktopBridgeLimits = {
  urlLength: 8192,
  fileNameLength: 255,
  fileTextBytes: 64 * 1024 * 1024,
  messageLength: 4096,
} as const;

/** The bridge when running in the desktop app, else undefined (a browser tab). */
export function desktopBridge(scope: unknown = globalThis): DesktopBridge | undefined {
  if (typeof scope !== 'object' || scope === null) return undefined;
  const candidate: unknown = Reflect.get(scope, 'kubedesk');
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  return Reflect.get(candidate, 'desktop') === true ? (candidate as DesktopBridge) : undefined;
}
