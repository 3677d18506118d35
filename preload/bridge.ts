// The desktop bridge's renderer half (shared/desktopBridge.ts) over an `invoke` function: in the
// preload that is ipcRenderer.invoke; tests pass a recorder. Arguments are coerced to strings so a
// page cannot smuggle objects with getters or prototypes into the IPC message.
import { desktopChannels, type DesktopBridge } from '../shared/desktopBridge';

export function createDesktopBridge(invoke: (channel: string, ...args: unknown[]) => Promise<unknown>): DesktopBridge {
  return {
    desktop: true,
    version: async () => String(await invoke(desktopChannels.version)),
    openExternal: async (url) => {
      await invoke(desktopChannels.openExternal, String(url));
    },
    saveFile: async (suggestedName, text) => (await invoke(desktopChannels.saveFile, String(suggestedName), String(text))) === true,
    confirm: async (message, detail) => (await invoke(desktopChannels.confirm, String(message), detail === undefined ? undefined : String(detail))) === true,
  };
}
