// Entry point bundled into dist/kubedesk.mjs: runs the command line and exits with its code.
// A stray exception in a background task is logged rather than taking the whole cluster down,
// as the Go apiserver recovers a panicking handler; request handlers already answer with a Status.
// For `serve`, a fresh data dir's PKI keys (RSA 2048 by default, 0.1 to 0.4 s of CPU each) start
// on libuv's threads first, before any other module of the bundle runs its top-level code (the
// bundle runs a module reached only through import() when it is first imported), then Docker starts
// on the cluster network (dockerode's modules load for that), then the rest (cli.ts and everything
// it imports) loads, so that work and that loading overlap.
import { parseArgs } from './cliOptions';
import { defaultServingKeyType, startPkiKeys, type PkiKeyStart } from '../apiserver/pkiKeys';
import type { ClusterNetworkStart } from './clusterNetworkStart';
import { StartupPhases, startupDebugRequested } from './startupPhases';

process.on('uncaughtException', (error) => {
  console.error('kubedesk: unexpected error (continuing):', error);
});
process.on('unhandledRejection', (reason) => {
  console.error('kubedesk: unhandled rejection (continuing):', reason);
});

const argv = process.argv.slice(2);
let phases: StartupPhases | undefined;
let network: Promise<ClusterNetworkStart | undefined> = Promise.resolve(undefined);
let pkiKeys: PkiKeyStart | undefined;
try {
  const options = parseArgs(argv);
  if (options.command === 'serve') {
    const serveOptions = options;
    const debug = new StartupPhases(options.debugStartup || startupDebugRequested());
    phases = debug;
    pkiKeys = startPkiKeys(options.dataDir, options.servingKeyType ?? defaultServingKeyType);
    network = import('./clusterNetworkStart').then(({ startClusterNetwork }) => {
      const started = startClusterNetwork(serveOptions.dataDir);
      debug.mark('container runtime starting');
      return started;
    });
  }
} catch {
  // the command line's own handling reports bad arguments and a data dir it cannot use
}

// The command line's modules run after the network has started (its Docker requests are out by
// then); a network that could not start (an unusable data dir) is started again, and reported, by
// the cluster.
network
  .catch(() => undefined)
  .then(async (early) => (await import('./cli')).main(argv, { phases, network: early, pkiKeys }))
  .then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error('kubedesk:', error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
