// `kubedesk cluster create|list|start|stop|delete` (docs/architecture.md, "Command line" and
// "Several local clusters"), shaped after `kind create cluster --name` / `kind get clusters` and
// minikube's profiles: each named cluster runs in the background as its own `kubedesk serve --name`.
// Exit status: 0 done, 1 refused or failed (the message says why), 2 usage error (with the usage).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultKubeconfigPath } from '../cliOptions';
import { invalidLocalClusterName, kubedeskRoot } from './localClusterNames';
import { currentProcessLauncher, LocalClusterError, LocalClusters, serveLogFile, type LocalCluster, type ServeLauncher } from './localClusters';

export const CLUSTER_USAGE = `Usage:
  kubedesk cluster create NAME [--nodes N] [--kubeconfig FILE]
      Makes the local cluster NAME (data dir ~/.kubedesk/clusters/NAME, context kubedesk-NAME),
      starts it in the background and waits until it is Ready.
  kubedesk cluster list
      Every local cluster, the default one (context kubedesk) included.
  kubedesk cluster start NAME
  kubedesk cluster stop NAME
      Stop stops its server and its containers; start brings both back.
  kubedesk cluster delete NAME [--kubeconfig FILE]
      Stops it and removes its containers, its Docker network, its data dir and its kubeconfig
      entries (current-context is cleared only when it named the cluster).
  NAME is a DNS-1123 label (lower case letters, digits and '-'), not "default".
  Contexts go into --kubeconfig, else the first file of KUBECONFIG, else ~/.kube/config.
`;

class ClusterUsageError extends Error {}

export interface ClusterCommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  launcher: ServeLauncher;
}

function processIo(): ClusterCommandIo {
  return { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text), env: process.env, launcher: currentProcessLauncher() };
}

interface ParsedCommand {
  verb: 'create' | 'list' | 'start' | 'stop' | 'delete' | 'help';
  name?: string;
  nodes?: number;
  kubeconfig?: string;
}

export function parseClusterArgs(argv: string[]): ParsedCommand {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') return { verb: 'help' };
  if (verb !== 'create' && verb !== 'list' && verb !== 'start' && verb !== 'stop' && verb !== 'delete') throw new ClusterUsageError(`unknown command "cluster ${verb}"`);
  const parsed: ParsedCommand = { verb };
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--help' || arg === '-h') return { verb: 'help' };
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const equals = arg.indexOf('=');
    const flag = equals < 0 ? arg : arg.slice(0, equals);
    const value = () => {
      const next = equals < 0 ? rest[++i] : arg.slice(equals + 1);
      if (next === undefined || next === '') throw new ClusterUsageError(`flag ${flag} needs a value`);
      return next;
    };
    if (flag === '--nodes' && verb === 'create') {
      const text = value();
      const nodes = Number(text);
      if (!/^\d+$/.test(text) || nodes < 1 || nodes > 50) throw new ClusterUsageError(`invalid --nodes "${text}": a number from 1 to 50`);
      parsed.nodes = nodes;
    } else if (flag === '--kubeconfig' && (verb === 'create' || verb === 'delete')) {
      parsed.kubeconfig = resolve(value());
    } else {
      throw new ClusterUsageError(`unknown flag "${arg}" for "cluster ${verb}"`);
    }
  }
  if (verb === 'list') {
    if (positional.length > 0) throw new ClusterUsageError(`"cluster list" takes no arguments (got "${positional[0]}")`);
    return parsed;
  }
  if (positional.length !== 1) throw new ClusterUsageError(`"cluster ${verb}" needs exactly one NAME`);
  const name = positional[0];
  // start and stop may name the default cluster; create and delete may not
  if (!((verb === 'start' || verb === 'stop') && name === 'default')) {
    const problem = invalidLocalClusterName(name);
    if (problem) throw new ClusterUsageError(`invalid cluster name "${name}": ${problem}`);
  }
  parsed.name = name;
  return parsed;
}

export async function clusterCommand(argv: string[], io: ClusterCommandIo = processIo()): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parseClusterArgs(argv);
  } catch (error) {
    if (error instanceof ClusterUsageError) {
      io.stderr(`kubedesk: ${error.message}\n${CLUSTER_USAGE}`);
      return 2;
    }
    throw error;
  }
  if (command.verb === 'help') {
    io.stdout(CLUSTER_USAGE);
    return 0;
  }
  const clusters = new LocalClusters({ root: kubedeskRoot(io.env), launcher: io.launcher, defaultKubeconfig: defaultKubeconfigPath(io.env) });
  const name = command.name ?? '';
  try {
    switch (command.verb) {
      case 'list':
        io.stdout(formatClusterTable(await clusters.list()));
        return 0;
      case 'create': {
        const created = await clusters.create(name, { nodes: command.nodes, kubeconfig: command.kubeconfig });
        io.stdout(`cluster "${name}" created; context "${created.context}"\n`);
        const ui = lastUiLine(serveLogFile(created.dataDir));
        if (ui) io.stdout(`${ui}\n`);
        return 0;
      }
      case 'start': {
        const started = await clusters.start(name);
        io.stdout(`cluster "${name}" started at ${started.server ?? ''}; context "${started.context}"\n`);
        const ui = lastUiLine(serveLogFile(started.dataDir));
        if (ui) io.stdout(`${ui}\n`);
        return 0;
      }
      case 'stop':
        await clusters.stop(name);
        io.stdout(`cluster "${name}" stopped\n`);
        return 0;
      case 'delete': {
        const { containersError } = await clusters.delete(name, { kubeconfig: command.kubeconfig });
        if (containersError) io.stderr(`kubedesk: could not remove the cluster's containers (is Docker running?): ${containersError}\n`);
        io.stdout(`cluster "${name}" deleted\n`);
        return containersError ? 1 : 0;
      }
    }
  } catch (error) {
    if (error instanceof LocalClusterError) {
      io.stderr(`kubedesk: ${error.message}\n`);
      return 1;
    }
    io.stderr(`kubedesk: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** kubectl-style columns: NAME STATUS NODES SERVER CONTEXT, three spaces apart. */
export function formatClusterTable(clusters: readonly LocalCluster[]): string {
  const status: Record<LocalCluster['state'], string> = { running: 'Running', starting: 'Starting', stopped: 'Stopped' };
  const rows = [['NAME', 'STATUS', 'NODES', 'SERVER', 'CONTEXT'], ...clusters.map((cluster) => [cluster.name, status[cluster.state], String(cluster.nodes), cluster.server ?? '<none>', cluster.context])];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] + 3))).join('')).join('\n') + '\n';
}

/** The last `kubedesk: UI at …` line the server printed (its one-time sign-in link). */
function lastUiLine(logPath: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n').filter((line) => line.startsWith('kubedesk: UI at '));
  return lines[lines.length - 1];
}
