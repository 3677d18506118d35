// The `kubedesk` command line's arguments (docs/architecture.md, "Command line"): parsed apart from the
// commands, so the entry point can read them before the rest of the bundle loads.
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { ServingKeyType } from '../apiserver/pkiKeys';
import { DEFAULT_HISTORY_RETENTION, type HistoryRetention } from '../storage/history';
import { contextNameFor, invalidLocalClusterName, kubedeskRoot, localClusterDataDir } from './localClusters/localClusterNames';

export const USAGE = `Usage:
  kubedesk serve [--name NAME] [--data-dir DIR] [--port N] [--kubeconfig FILE] [--nodes N]
                 [--ingress-http-port N] [--ingress-https-port N] [--serving-key-type rsa|ecdsa]
                 [--debug-startup] [--history-revisions N] [--history-age DURATION]
                 [--history-size SIZE] [--no-history]
                 [--registry-port N] [--registry-auth] [--no-registry]
      Ingress listens on 127.0.0.1: by default 80/443 when free, else 8080/8443, else any free
      port (printed at start); 0 = any free port.
      --serving-key-type: the API server certificate's key, RSA 2048 (default, as kubeadm) or
      ECDSA P-256; a certificate of the other type is reissued under the same CA.
      --debug-startup (or KUBEDESK_DEBUG_STARTUP=1) prints how long each start-up phase took.
      Object history keeps, per object, the newest --history-revisions (default 100) revisions
      younger than --history-age (default 7d; s, m, h, d), and at most --history-size (default
      256Mi; Ki, Mi, Gi) of objects in all; --no-history records none.
      The image registry listens on 127.0.0.1 (and ::1): port 5000 when free, else the port it
      had before, else any free port (printed at start); --registry-port picks it (0 = any free
      port). Pushes and pulls need no login unless --registry-auth: then the token in
      <data-dir>/pki/registry.token is the password (docker login localhost:PORT).
      --no-registry runs none.
      --name NAME runs the local cluster NAME: data dir ~/.kubedesk/clusters/NAME, context
      kubedesk-NAME, API port any free one (0) unless --port says otherwise.
  kubedesk reset [--name NAME] [--data-dir DIR] [--kubeconfig FILE]
  kubedesk cluster create NAME [--nodes N] [--kubeconfig FILE] | list | start NAME | stop NAME | delete NAME
      Several local clusters side by side, each in the background (kubedesk cluster --help).
  kubedesk why TYPE/NAME [-n NAMESPACE] [--context NAME] [--kubeconfig FILE]
      Why an object is not ready, in plain words (kubedesk why --help).
  kubedesk history TYPE/NAME [-n NAMESPACE] [--revision N [-o yaml|json] | --diff A..B]
  kubedesk history restore TYPE/NAME [--revision N]
  kubedesk history --deleted [-n NAMESPACE | -A]
  kubedesk changes [-n NAMESPACE | -A] [--since 1h] [--user U] [--kind TYPE]
      Who changed an object and how, diffs, restore and undelete (kubedesk history --help).
  kubedesk snapshot save|list|restore|delete NAME, export NAME FILE, import FILE
      Whole-cluster snapshots: save, restore on the running cluster (kubedesk snapshot --help).
  kubedesk get TYPE [-n NAMESPACE | -A] --as-of TIME [-l SELECTOR] [-o wide|name|yaml|json]
      The list as it was at TIME (10m, 2h ago or RFC 3339), in kubectl's columns (kubedesk get --help).
`;

export interface CliOptions {
  command: 'serve' | 'reset' | 'help';
  /** the local cluster's name; absent = the default cluster (context `kubedesk`) */
  name?: string;
  /** the kubeconfig context (and cluster and user) the cluster writes: kubedesk or kubedesk-NAME */
  contextName: string;
  dataDir: string;
  port: number;
  kubeconfig: string;
  nodes: number;
  /** undefined = 80/443 when free, else 8080/8443, else any */
  ingressHttpPort?: number;
  ingressHttpsPort?: number;
  servingKeyType?: ServingKeyType;
  /** print how long each start-up phase took (also KUBEDESK_DEBUG_STARTUP=1) */
  debugStartup?: boolean;
  /** object history retention; false = no history. Absent = DEFAULT_HISTORY_RETENTION */
  history?: HistoryRetention | false;
  /** the image registry's port (0 = any free); absent = 5000 when free, else the last, else any */
  registryPort?: number;
  registryAuth?: boolean;
  noRegistry?: boolean;
}

export class UsageError extends Error {}

/** The values of --serving-key-type: every ServingKeyType (a Record, so a new one must be added here). */
const servingKeyTypeNames: Record<ServingKeyType, true> = { rsa: true, ecdsa: true };

function isServingKeyType(text: string): text is ServingKeyType {
  return Object.hasOwn(servingKeyTypeNames, text);
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** The retention set so far (a --no-history earlier on the line is overridden by a later retention flag). */
function retentionOf(options: CliOptions): HistoryRetention {
  return options.history === undefined || options.history === false ? DEFAULT_HISTORY_RETENTION : options.history;
}

export function defaultKubeconfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.KUBECONFIG?.split(delimiter).find((entry) => entry.trim() !== '');
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.kube', 'config');
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    return { command: 'help', contextName: 'kubedesk', dataDir: '', port: 0, kubeconfig: '', nodes: 1 };
  }
  if (command !== 'serve' && command !== 'reset') throw new UsageError(`unknown command "${command}"`);
  const options: CliOptions = { command, contextName: 'kubedesk', dataDir: kubedeskRoot(env), port: 6443, kubeconfig: defaultKubeconfigPath(env), nodes: 1 };
  let dataDirGiven = false;
  let portGiven = false;
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
        dataDirGiven = true;
        break;
      case '--name': {
        const text = value();
        const problem = invalidLocalClusterName(text);
        if (problem) throw new UsageError(`invalid --name "${text}": ${problem}`);
        options.name = text;
        break;
      }
      case '--port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid --port "${text}": a number from 0 to 65535`);
        options.port = port;
        portGiven = true;
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
        if (!isServingKeyType(text)) throw new UsageError(`invalid --serving-key-type "${text}": rsa or ecdsa`);
        options.servingKeyType = text;
        break;
      }
      case '--history-revisions': {
        const text = value();
        if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`invalid --history-revisions "${text}": a number of at least 1`);
        options.history = { ...retentionOf(options), maxRevisions: Number(text) };
        break;
      }
      case '--history-age': {
        const text = value();
        const match = /^(\d+)(s|m|h|d)$/.exec(text);
        if (!match || Number(match[1]) < 1) throw new UsageError(`invalid --history-age "${text}": a duration such as 30m, 12h or 7d`);
        options.history = { ...retentionOf(options), maxAgeMs: Number(match[1]) * DURATION_UNITS[match[2]] };
        break;
      }
      case '--history-size': {
        const text = value();
        const match = /^(\d+)(Ki|Mi|Gi)$/.exec(text);
        if (!match || Number(match[1]) < 1) throw new UsageError(`invalid --history-size "${text}": a size such as 512Mi or 1Gi`);
        options.history = { ...retentionOf(options), maxBytes: Number(match[1]) * SIZE_UNITS[match[2]] };
        break;
      }
      case '--no-history':
        if (inline !== undefined) throw new UsageError(`flag ${flag} takes no value`);
        options.history = false;
        break;
      case '--registry-port': {
        const text = value();
        const port = Number(text);
        if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid --registry-port "${text}": a number from 0 to 65535`);
        options.registryPort = port;
        break;
      }
      case '--registry-auth':
      case '--no-registry':
        if (inline !== undefined) throw new UsageError(`flag ${flag} takes no value`);
        if (flag === '--registry-auth') options.registryAuth = true;
        else options.noRegistry = true;
        break;
      case '--debug-startup':
        if (inline !== undefined) throw new UsageError(`flag ${flag} takes no value`);
        options.debugStartup = true;
        break;
      default:
        throw new UsageError(`unknown flag "${arg}"`);
    }
  }
  if (options.name !== undefined) {
    options.contextName = contextNameFor(options.name);
    if (!dataDirGiven) options.dataDir = localClusterDataDir(kubedeskRoot(env), options.name);
    // 6443 belongs to the default cluster; a named one takes any free port unless told
    if (!portGiven) options.port = 0;
  }
  return options;
}
