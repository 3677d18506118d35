// The `kubedesk` command line (DESIGN.md "Command line"): `serve` runs the cluster headless in the
// foreground until SIGTERM/SIGINT; `reset` removes a cluster's state and its kubeconfig entries;
// `why` (main/cli/why.ts) diagnoses an object of any cluster the kubeconfig reaches.
import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { Cluster } from './cluster';
import { removeKubeconfigEntries } from './kubeconfig';
import { networkNameFor, readClusterId } from './clusterIdentity';
import { servingKeyTypes, type ServingKeyType } from '../apiserver/pki';
import { DockerRuntime } from '../docker/dockerRuntime';
import { whyCommand } from '../cli/why';

const USAGE = `Usage:
  kubedesk serve [--data-dir DIR] [--port N] [--kubeconfig FILE] [--nodes N]
                 [--ingress-http-port N] [--ingress-https-port N] [--serving-key-type rsa|ecdsa]
      Ingress listens on 127.0.0.1: by default 80/443 when free, else 8080/8443, else any free
      port (printed at start); 0 = any free port.
      --serving-key-type: the API server certificate's key, RSA 2048 (default, as kubeadm) or
      ECDSA P-256; a certificate of the other type is reissued under the same CA.
  kubedesk reset [--data-dir DIR] [--kubeconfig FILE]
  kubedesk why TYPE/NAME [-n NAMESPACE] [--context NAME] [--kubeconfig FILE]
      Why an object is not ready, in plain words (kubedesk why --help).
`;

export interface CliOptions {
  command: 'serve' | 'reset' | 'help';
  dataDir: string;
  port: number;
  kubeconfig: string;
  nodes: number;
  /** undefined = 80/443 when free, else 8080/8443, else any */
  ingressHttpPort?: number;
  ingressHttpsPort?: number;
  servingKeyType?: ServingKeyType;
}

export class UsageError extends Error {}

export function defaultKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KUBECONFIG?.split(delimiter).find((entry) => entry.trim() !== '');
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.kube', 'config');
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    return { command: 'help', dataDir: '', port: 0, kubeconfig: '', nodes: 1 };
  }
  if (command !== 'serve' && command !== 'reset') throw new UsageError(`unknown command "${command}"`);
  const options: CliOptions = { command, dataDir: join(homedir(), '.kubedesk'), port: 6443, kubeconfig: defaultKubeconfigPath(env), nodes: 1 };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? rest[++i];
      if (next === undefined || next === '') throw new UsageError(`flag ${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--data-dir':
        options.dataDir = resolve(value());
        break;
      case '--port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid --port "${text}": a number from 0 to 65535`);
        options.port = port;
        break;
      }
      case '--kubeconfig':
        options.kubeconfig = resolve(value());
        break;
      case '--nodes': {
        const text = value();
        const nodes = Number(text);
        if (!/^\d+$/.test(text) || nodes < 1 || nodes > 50) throw new UsageError(`invalid --nodes "${text}": a number from 1 to 50`);
        options.nodes = nodes;
        break;
      }
      case '--ingress-http-port':
      case '--ingress-https-port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid ${flag} "${text}": a number from 0 to 65535`);
        if (flag === '--ingress-http-port') options.ingressHttpPort = port;
        else options.ingressHttpsPort = port;
        break;
      }
      case '--serving-key-type': {
        const text = value();
        const keyType = servingKeyTypes.find((type) => type === text);
        if (!keyType) throw new UsageError(`invalid --serving-key-type "${text}": rsa or ecdsa`);
        options.servingKeyType = keyType;
        break;
      }
      default:
        throw new UsageError(`unknown flag "${arg}"`);
    }
  }
  return options;
}

export async function main(argv: string[]): Promise<number> {
  // client commands parse their own flags (main/cli)
  if (argv[0] === 'why') return whyCommand(argv.slice(1));
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
  return serve(options);
}

async function serve(options: CliOptions): Promise<number> {
  const started = Date.now();
  const cluster = await Cluster.start({
    dataDir: options.dataDir,
    port: options.port,
    kubeconfigPath: options.kubeconfig,
    nodes: options.nodes,
    ingressHttpPort: options.ingressHttpPort,
    ingressHttpsPort: options.ingressHttpsPort,
    servingKeyType: options.servingKeyType,
  });
  const result = cluster.kubeconfigResult;
  process.stdout.write(`kubedesk: cluster ready at ${cluster.server} in ${Date.now() - started} ms (data dir ${options.dataDir})\n`);
  process.stdout.write(`kubedesk: kubeconfig ${options.kubeconfig}, context "kubedesk"\n`);
  process.stdout.write(`kubedesk: UI at ${cluster.uiLoginUrl()}\n`);
  const ingress = cluster.ingressPorts();
  if (ingress) process.stdout.write(`kubedesk: Ingress on http://127.0.0.1:${ingress.http} and https://127.0.0.1:${ingress.https}\n`);
  if (result && !result.currentContextSet) {
    process.stdout.write(`kubedesk: your current context is "${result.previousContext ?? ''}"; switch with: kubectl config use-context kubedesk\n`);
  }
  await new Promise<void>((resolveStop) => {
    const stop = () => resolveStop();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await cluster.dispose();
  return 0;
}

async function reset(options: CliOptions): Promise<number> {
  const { containersError } = await removeCluster(options.dataDir, options.kubeconfig);
  if (containersError) process.stderr.write(`kubedesk: could not remove the cluster's containers (is Docker running?): ${containersError}\n`);
  process.stdout.write(`kubedesk: removed the cluster in ${options.dataDir}\n`);
  return 0;
}

/**
 * Removes a (stopped) cluster: its containers and network, its data dir and its kubeconfig entries.
 * `kubedesk reset` and the desktop app's "Reset cluster" both use it. Docker being unreachable does
 * not stop the rest; the error comes back for the caller to report.
 */
export async function removeCluster(dataDir: string, kubeconfig: string): Promise<{ containersError?: string }> {
  let containersError: string | undefined;
  const clusterId = readClusterId(dataDir);
  if (clusterId) {
    // Containers, sandboxes and the network carry the cluster id; remove exactly those.
    try {
      await new DockerRuntime({ clusterId, nodeName: '', networkName: networkNameFor(clusterId) }).removeClusterResources();
    } catch (error) {
      containersError = error instanceof Error ? error.message : String(error);
    }
  }
  if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  if (existsSync(kubeconfig)) removeKubeconfigEntries(kubeconfig);
  return containersError === undefined ? {} : { containersError };
}
