// What every kubedesk client command (why, history, changes, get --as-of, snapshot) does around its
// own work, as kubectl does: its arguments parsed with kubectl's flag syntax (scanArgs, with
// kubectl's global kubeconfig and credential flags; a usage error prints the error and the usage,
// exit 2; no arguments to act on prints the usage, exit 0), the kubeconfig resolved (errors in
// kubectl's words, exit 2), one client on the context's connection (every credential kubectl
// uses; the command line is an exec plugin's terminal), disposed at the end.
import { isatty } from 'node:tty';
import type { ApiClient } from '../client';
import { clusterClient, type ClusterClient } from './clusterClient';
import { KubeconfigError, resolveClientConfig, type ClientConfig, type KubeconfigEnvironment, type KubeconfigFlags } from '../remote';

/** The usage line of kubectl's global flags every client command takes besides its own. */
export const GLOBAL_FLAGS_USAGE = `  Global flags as kubectl's: --kubeconfig FILE, --context NAME, --cluster NAME, --user NAME,
  -s/--server URL, --tls-server-name NAME, --insecure-skip-tls-verify, --token TOKEN,
  --as USER, --as-group GROUP (repeatable), --as-uid UID.
`;

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  environment?: KubeconfigEnvironment;
  /** whether standard input is a terminal (an exec plugin may then be interactive); default false */
  stdinIsTerminal?(): boolean;
}

export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdinIsTerminal: () => isatty(0),
};

/** A command's bad arguments: printed as `error: …` with its usage, exit 2. */
export class CommandUsageError extends Error {}

export interface ClientCommand<Options extends { flags: KubeconfigFlags }> {
  usage: string;
  /** the options, or undefined when the user asked for help */
  parse(argv: string[]): Options | undefined;
  run(client: ApiClient, options: Options, config: ClientConfig, cluster: ClusterClient): Promise<number>;
  /** the exit code of an error `run` threw (after printing it); rethrow what is not the command's */
  failed(error: unknown, io: CommandIo): number;
}

export async function runClientCommand<Options extends { flags: KubeconfigFlags }>(command: ClientCommand<Options>, argv: string[], io: CommandIo): Promise<number> {
  let options: Options | undefined;
  try {
    options = command.parse(argv);
  } catch (error) {
    if (!(error instanceof CommandUsageError)) throw error;
    io.stderr(`error: ${error.message}\n\n${command.usage}`);
    return 2;
  }
  if (!options) {
    io.stdout(command.usage);
    return 0;
  }
  let config: ClientConfig;
  try {
    config = resolveClientConfig(options.flags, io.environment);
  } catch (error) {
    if (!(error instanceof KubeconfigError)) throw error;
    io.stderr(`${error.message.startsWith('stat ') ? 'error' : 'Error in configuration'}: ${error.message}\n`);
    return 2;
  }
  const cluster = clusterClient(config, {
    ...(io.environment?.env ? { env: io.environment.env } : {}),
    terminal: { stdinIsTerminal: io.stdinIsTerminal?.() ?? false, stderr: (text) => io.stderr(text) },
  });
  try {
    return await command.run(cluster.client, options, config, cluster);
  } catch (error) {
    if (error instanceof CommandUsageError) {
      io.stderr(`error: ${error.message}\n`);
      return 2;
    }
    return command.failed(error, io);
  } finally {
    cluster.dispose();
  }
}

/** Go's strconv.ParseBool, as pflag reads a boolean flag's `=value`. */
function parseBoolFlag(flag: string, text: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new CommandUsageError(`invalid argument "${text}" for "--${flag}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`);
}

/**
 * Reads one of kubectl's global flags that choose or override the kubeconfig (--namespace/-n,
 * --kubeconfig, --context, --cluster, --user, --server/-s, --tls-server-name,
 * --insecure-skip-tls-verify, --token, --as, --as-group (repeatable), --as-uid) into `flags`;
 * false for any other flag. `value` reads the flag's argument.
 */
export function readKubeconfigFlag(flags: KubeconfigFlags, flag: string, value: () => string): boolean {
  switch (flag) {
    case 'namespace':
    case 'kubeconfig':
    case 'context':
    case 'cluster':
    case 'user':
    case 'server':
    case 'token':
    case 'as':
      flags[flag] = value();
      return true;
    case 'tls-server-name':
      flags.tlsServerName = value();
      return true;
    case 'as-uid':
      flags.asUid = value();
      return true;
    case 'as-group':
      flags.asGroups = [...(flags.asGroups ?? []), value()];
      return true;
    case 'insecure-skip-tls-verify':
      flags.insecureSkipTlsVerify = parseBoolFlag(flag, value());
      return true;
    default:
      return false;
  }
}

/** kubectl's global flags without a value (booleans: given alone they mean true, `=false` turns them off). */
const globalSwitches: ReadonlySet<string> = new Set(['insecure-skip-tls-verify']);
/** kubectl's global one-letter flags (besides each command's own -n). */
const globalShort: Readonly<Record<string, string>> = { s: 'server' };

export interface ArgSpec {
  /** one-letter flags and the long flag each stands for, e.g. { n: 'namespace' } */
  short?: Readonly<Record<string, string>>;
  /** flags without a value, by long name (a short name may stand for one: { A: 'all-namespaces' }) */
  switches?: readonly string[];
  /** the command's usage error */
  usageError: new (message: string) => Error;
}

export interface ScannedArgs {
  positional: string[];
  /** the value-less flags given, by long name */
  switches: Set<string>;
}

/**
 * Reads a command line as kubectl's flag parser does: `--flag=value`, `--flag value`, `-n value`,
 * `-nvalue` and `-n=value`; a lone `-` is an argument and `--` ends the flags. Every flag with a
 * value goes to `onFlag` with a reader of its value; `onFlag` says false for a flag it does not
 * know. Undefined for -h/--help. Unknown flags and missing values throw the command's usage error.
 */
export function scanArgs(argv: string[], spec: ArgSpec, onFlag: (flag: string, value: () => string) => boolean): ScannedArgs | undefined {
  const short = { ...globalShort, ...spec.short };
  const switchNames = new Set(spec.switches ?? []);
  const scanned: ScannedArgs = { positional: [], switches: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h' || arg === '--help') return undefined;
    if (arg === '--') {
      scanned.positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      scanned.positional.push(arg);
      continue;
    }
    const long = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const shortMatch = long ? null : /^-([A-Za-z])(?:=?(.+))?$/.exec(arg);
    const flag = long ? long[1] : shortMatch ? short[shortMatch[1]] : undefined;
    if (flag === undefined) throw new spec.usageError(`unknown flag: ${arg}`);
    const inline = long ? long[2] : shortMatch?.[2];
    if (switchNames.has(flag) && inline === undefined) {
      scanned.switches.add(flag);
      continue;
    }
    if (globalSwitches.has(flag) && inline === undefined) {
      if (!onFlag(flag, () => 'true')) throw new spec.usageError(`unknown flag: --${flag}`);
      continue;
    }
    const spelled = long ? `--${flag}` : `-${shortMatch?.[1] ?? ''}`;
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '') throw new spec.usageError(`flag needs an argument: ${spelled}`);
      return next;
    };
    if (!onFlag(flag, value)) throw new spec.usageError(`unknown flag: --${flag}`);
  }
  return scanned;
}
