// Preload script for the Electron window (contextIsolation on): exposes only what a web page
// cannot do itself. The UI reaches the cluster over its HTTP API, never through this bridge.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('kubedesk', {
  desktop: true,
});
