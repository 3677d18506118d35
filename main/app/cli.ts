// The `kubedesk` command line (docs/architecture.md, "Command line"): `serve` runs the cluster headless in the
// foreground until SIGTERM/SIGINT; `reset` removes a cluster's state and its kubeconfig entries;
// `why` (main/cli/why.ts) diagnoses an object of any cluster the kubeconfig reaches; `history` and
// `changes` (main/cli/history.ts) read and restore the object history; `get --as-of`
// (main/cli/get.ts) lists a kind as it was at a past time; `snapshot` (main/cli/snapshot.ts) saves
// and restores whole-cluster snapshots; `cluster` (localClusters/clusterCommand.ts) runs several
// local clusters side by side.
import { Cluster } from './cluster';
import { parseArgs, UsageError, USAGE, type CliOptions } from './cliOptions';
import type { ClusterNetworkStart } from './clusterNetworkStart';
import type { PkiKeyStart } from '../apiserver/pkiKeys';
import { removeCluster } from './removeCluster';
import { StartupPhases, startupDebugRequested } from './startupPhases';
import { clusterCommand } from './localClusters/clusterCommand';

export { defaultKubeconfigPath, parseArgs, UsageError, type CliOptions } from './cliOptions';
export { removeCluster, type RemoveClusterOptions } from './removeCluster';

/** What the entry point began before loading this module: the phases it marked, the network's start, a fresh data dir's PKI keys. */
export interface EarlyStart {
  phases?: StartupPhases;
  network?: ClusterNetworkStart;
  pkiKeys?: PkiKeyStart;
}

export async function main(argv: string[], early: EarlyStart = {}): Promise<number> {
  // client commands parse their own flags (main/cli); loaded only when run, so `serve` does not
  // compile them nor the kubeconfig connections (main/remote) they bring
  if (argv[0] === 'why') return (await import('../cli/why')).whyCommand(argv.slice(1));
  if (argv[0] === 'history' || argv[0] === 'changes') return (await import('../cli/history')).historyCommand(argv.slice(1), argv[0]);
  if (argv[0] === 'snapshot') return (await import('../cli/snapshot')).snapshotCommand(argv.slice(1));
  if (argv[0] === 'get') return (await import('../cli/get')).getCommand(argv.slice(1));
  if (argv[0] === 'cluster') return clusterCommand(argv.slice(1));
  let options: CliOptions;
  try {
    options = parseArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`kubedesk: ${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (options.command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (options.command === 'reset') return reset(options);
  return serve(options, early);
}

async function serve(options: CliOptions, early: EarlyStart): Promise<number> {
  const started = Date.now();
  const phases = early.phases ?? new StartupPhases(options.debugStartup || startupDebugRequested());
  const cluster = await Cluster.start({
    phases,
    network: early.network,
    pkiKeys: early.pkiKeys,
    dataDir: options.dataDir,
    port: options.port,
    kubeconfigPath: options.kubeconfig,
    contextName: options.contextName,
    nodes: options.nodes,
    ingressHttpPort: options.ingressHttpPort,
    ingressHttpsPort: options.ingressHttpsPort,
    servingKeyType: options.servingKeyType,
    history: options.history,
    registry: options.noRegistry ? false : { port: options.registryPort, auth: options.registryAuth },
  });
  const result = cluster.kubeconfigResult;
  process.stdout.write(`kubedesk: cluster ready at ${cluster.server} in ${Date.now() - started} ms (data dir ${options.dataDir})\n`);
  process.stdout.write(`kubedesk: kubeconfig ${options.kubeconfig}, context "${options.contextName}"\n`);
  process.stdout.write(`kubedesk: UI at ${cluster.uiLoginUrl()}\n`);
  const registry = cluster.imageRegistry;
  if (registry) {
    const login = registry.tokenFile ? `; log in with: docker login ${registry.host} -u kubedesk --password-stdin < ${registry.tokenFile}` : '';
    process.stdout.write(`kubedesk: image registry at ${registry.host} (docker push ${registry.host}/NAME:TAG)${login}\n`);
  }
  if (result && !result.currentContextSet) {
    process.stdout.write(`kubedesk: your current context is "${result.previousContext ?? ''}"; switch with: kubectl config use-context ${options.contextName}\n`);
  }
  // what starts after readiness: its line follows once it listens
  void cluster.whenStarted().then(() => {
    const ingress = cluster.ingressPorts();
    if (ingress && ingress.http !== 0) process.stdout.write(`kubedesk: Ingress on http://127.0.0.1:${ingress.http} and https://127.0.0.1:${ingress.https}\n`);
    phases.print('serve');
  });
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await cluster.dispose();
  return 0;
}

async function reset(options: CliOptions): Promise<number> {
  const { containersError } = await removeCluster(options.dataDir, options.kubeconfig, { contextName: options.contextName });
  if (containersError) process.stderr.write(`kubedesk: could not remove the cluster's containers (is Docker running?): ${containersError}\n`);
  process.stdout.write(`kubedesk: removed the cluster in ${options.dataDir}\n`);
  return 0;
}
