// The Electron main process entry: the only file that imports `electron`. It hands Electron and the
// real cluster to the desktop shell (main/app/desktop/), which runs the same Cluster as `kubedesk serve`.
import * as electron from 'electron';
import { join } from 'node:path';
import { defaultKubeconfigPath } from './cli';
import { clusterControl, localClusterControl } from './desktop/clusterControl';
import { LocalClusters } from './localClusters/localClusters';
import { DesktopShell, defaultHelpLinks } from './desktop/desktopShell';
import { kubernetesVersion } from './version';
import { kubedeskRoot } from './localClusters/localClusterNames';

const dataDir = kubedeskRoot();
// dist/app/electronMain.cjs → the package root, where assets/ sits (inside app.asar when packaged)
const root = join(__dirname, '..', '..');
// local clusters run as `kubedesk serve --name NAME` on Electron's own Node (dist/kubedesk.mjs)
const localClusters = { root: dataDir, launcher: { command: process.execPath, args: [join(__dirname, '..', 'kubedesk.mjs')], env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }, defaultKubeconfig: defaultKubeconfigPath() };
// 6443 is preferred; clusterControl falls back to any free port when something already holds it.
const shell = new DesktopShell(electron, clusterControl({ dataDir, port: 6443, kubeconfigPath: defaultKubeconfigPath(), nodes: 1, localClusters }), {
  dataDir,
  preloadPath: join(__dirname, 'preload.cjs'),
  trayIconPath: join(root, 'assets', 'tray.png'),
  windowIconPath: join(root, 'assets', 'icon.png'),
  kubernetesVersion: kubernetesVersion().gitVersion,
  helpLinks: defaultHelpLinks,
  localClusters: localClusterControl(new LocalClusters(localClusters)),
});
void shell.run();
