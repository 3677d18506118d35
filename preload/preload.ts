// Preload script for the Electron window (contextIsolation and sandbox on): exposes only what a web
// page cannot do itself, as `window.kubedesk` (shared/desktopBridge.ts). Each call is a plain
// ipcRenderer.invoke; main checks the caller's origin and every argument. The UI reaches the cluster
// over its HTTP API, never through this bridge. Sandboxed preloads may require only 'electron'.
import { contextBridge, ipcRenderer } from 'electron';
import { createDesktopBridge } from './bridge';

// only the bridge's own functions cross into the page, never ipcRenderer itself
contextBridge.exposeInMainWorld(
  'kubedesk',
  createDesktopBridge((channel, ...args) => ipcRenderer.invoke(channel, ...args)),
);
