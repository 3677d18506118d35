// Entry point bundled into dist/kubedesk.mjs: runs the command line and exits with its code.
// A stray exception in a background task is logged rather than taking the whole cluster down,
// as the Go apiserver recovers a panicking handler; request handlers already answer with a Status.
// For `serve`, Docker starts on the cluster network, and a fresh data dir's PKI keys (RSA 2048 by
// default, 0.1 to 0.4 s of CPU each) start on libuv's threads, before the rest of the bundle
// (cli.ts and everything it imports, a chunk of its own) loads, so that work and that loading
// overlap.
import { parseArgs } from './cliOptions';
import { defaultServingKeyType, startPkiKeys, type PkiKeyStart } from '../apiserver/pkiKeys';
import { startClusterNetwork, type ClusterNetworkStart } from './clusterNetworkStart';
import { StartupPhases, startupDebugRequested } from './startupPhases';

process.on('uncaughtException', (error) => {
  console.error('kubedesk: unexpected error (continuing):', error);
});
process.on('unhandledRejection', (reason) => {
  console.error('kubedesk: unhandled rejection (continuing):', reason);
});

const argv = process.argv.slice(2);
let phases: StartupPhases | undefined;
let network: ClusterNetworkStart | undefined;
let pkiKeys: PkiKeyStart | undefined;
try {
  const options = parseArgs(argv);
  if (options.command === 'serve') {
    phases = new StartupPhases(options.debugStartup || startupDebugRequested());
    pkiKeys = startPkiKeys(options.dataDir, options.servingKeyType ?? defaultServingKeyType);
    network = startClusterNetwork(options.dataDir);
    phases.mark('container runtime starting');
  }
} catch {
  // the command line's own handling reports bad arguments and a data dir it cannot use
}

import('./cli')
  .then(({ main }) => main(argv, { phases, network, pkiKeys }))
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error('kubedesk:', error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
