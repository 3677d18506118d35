// The Electron shell: the only file that imports `electron`. It runs the same Cluster as
// `kubedesk serve` inside the main process and keeps a single instance. The window and UI come with
// the desktop-app issue; until then the shell shows the cluster's address and kubeconfig context.
import { app, BrowserWindow, dialog } from 'electron';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from './cluster';
import { defaultKubeconfigPath } from './cli';

let cluster: Cluster | undefined;

async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  try {
    cluster = await Cluster.start({ dataDir: join(homedir(), '.kubedesk'), port: 6443, kubeconfigPath: defaultKubeconfigPath(), nodes: 1 });
  } catch (error) {
    dialog.showErrorBox('kubedesk could not start the cluster', error instanceof Error ? error.message : String(error));
    app.quit();
    return;
  }
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'kubedesk',
    webPreferences: { contextIsolation: true, sandbox: true, nodeIntegration: false, preload: join(__dirname, 'preload.cjs') },
  });
  const html = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>kubedesk</title><body style="font-family:sans-serif;padding:2em"><h1>kubedesk</h1><p>Cluster running at ${cluster.server}</p><p>kubectl context: <code>kubedesk</code></p></body>`;
  await window.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`);
}

app.on('window-all-closed', () => app.quit());
app.on('before-quit', (event) => {
  if (!cluster) return;
  event.preventDefault();
  const stopping = cluster;
  cluster = undefined;
  void stopping.dispose().finally(() => app.quit());
});

void start();
