// What every kubedesk client command (why, history, changes, get --as-of, snapshot) does around its
// own work, as kubectl does: its arguments parsed with kubectl's flag syntax (scanArgs; a usage
// error prints the error and the usage, exit 2; no arguments to act on prints the usage, exit 0),
// the kubeconfig resolved (errors in kubectl's words, exit 2), one client for the context's
// cluster, disposed at the end.
import type { ApiClient } from '../client';
import { clusterClient } from './clusterClient';
import { KubeconfigError, resolveClientConfig, type ClientConfig, type KubeconfigEnvironment, type KubeconfigFlags } from './kubeconfig';

export interface CommandIo {
  stdout(text: string): void;
  stderr(text: string): void;
  environment?: KubeconfigEnvironment;
}

export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** A command's bad arguments: printed as `error: …` with its usage, exit 2. */
export class CommandUsageError extends Error {}

export interface ClientCommand<Options extends { flags: KubeconfigFlags }> {
  usage: string;
  /** the options, or undefined when the user asked for help */
  parse(argv: string[]): Options | undefined;
  run(client: ApiClient, options: Options, config: ClientConfig): Promise<number>;
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
  const { client, dispose } = clusterClient(config);
  try {
    return await command.run(client, options, config);
  } catch (error) {
    if (error instanceof CommandUsageError) {
      io.stderr(`error: ${error.message}\n`);
      return 2;
    }
    return command.failed(error, io);
  } finally {
    dispose();
  }
}

/**
 * Reads one of kubectl's kubeconfig flags (--namespace/-n, --kubeconfig, --context, --cluster,
 * --user) into `flags`; false for any other flag. `value` reads the flag's argument.
 */
export function readKubeconfigFlag(flags: KubeconfigFlags, flag: string, value: () => string): boolean {
  switch (flag) {
    case 'namespace':
    case 'kubeconfig':
    case 'context':
    case 'cluster':
    case 'user':
      flags[flag] = value();
      return true;
    default:
      return false;
  }
}

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
  const short = spec.short ?? {};
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
