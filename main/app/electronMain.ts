// The Electron main process entry: the only file that imports `electron`. It hands Electron and the
// real cluster to the desktop shell (main/app/desktop/), which runs the same Cluster as `kubedesk serve`.
import * as electron from 'electron';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultKubeconfigPath } from './cli';
import { clusterControl } from './desktop/clusterControl';
import { DesktopShell, defaultHelpLinks } from './desktop/desktopShell';
import { kubernetesVersion } from './version';

const dataDir = join(homedir(), '.kubedesk');
// dist/app/electronMain.cjs → the package root, where assets/ sits (inside app.asar when packaged)
const root = join(__dirname, '..', '..');
// 6443 is preferred; clusterControl falls back to any free port when something already holds it.
const shell = new DesktopShell(electron, clusterControl({ dataDir, port: 6443, kubeconfigPath: defaultKubeconfigPath(), nodes: 1 }), {
  dataDir,
  preloadPath: join(__dirname, 'preload.cjs'),
  trayIconPath: join(root, 'assets', 'tray.png'),
  windowIconPath: join(root, 'assets', 'icon.png'),
  kubernetesVersion: kubernetesVersion().gitVersion,
  helpLinks: defaultHelpLinks,
});
void shell.run();
