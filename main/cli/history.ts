// `kubedesk history` and `kubedesk changes`: the object history the API server keeps
// (history.kubedesk.dev/v1, main/apiserver/history), read through the kubeconfig's context as
// kubectl picks it (--kubeconfig, --context, KUBECONFIG, -n). `history TYPE/NAME` prints a table
// of revisions (REVISION, AGE, OPERATION, BY, CHANGES); `--revision N [-o yaml|json]` one
// revision; `--diff A..B` a unified YAML diff; `history restore TYPE/NAME [--revision N]` writes
// a revision back as an update of the live object (a conflict is reported, never overwritten) or,
// for a deleted object, recreates it from its last state; `history --deleted [-n NS | -A]` lists
// recently deleted objects; `changes` prints the change feed. Exit status: 0 done, 1 the server
// refused (not found, forbidden, conflict) or could not be reached, 2 a usage error.
import { translateTimestampSince } from '../../shared/printers/duration';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { ClientApiError, type ApiClient } from '../client';
import { kubectlErrorText } from './clusterClient';
import { diffObject, displayObject, restoreUpdate, toYaml, unifiedDiff } from './historyFormat';
import { HISTORY_API, RESTORE_FIELD_MANAGER, RestoreRefusal, asRevision, planRestore, revisionChanges, targetName, writtenBy as by, type Revision } from '../../shared/history/historyFormat';
import type { ClientConfig, KubeconfigFlags } from '../remote';
import { CommandUsageError, GLOBAL_FLAGS_USAGE, processIo, readKubeconfigFlag, runClientCommand, scanArgs, type CommandIo } from './clientCommand';

export type { Revision };

export const HISTORY_USAGE = `Usage:
  kubedesk history TYPE/NAME [-n NAMESPACE]                  revisions: REVISION AGE OPERATION BY CHANGES
  kubedesk history TYPE/NAME --revision N [-o yaml|json]     one revision's object
  kubedesk history TYPE/NAME --diff A..B                     unified YAML diff of two revisions
  kubedesk history restore TYPE/NAME [--revision N]          write revision N back (a deleted object:
                                                             recreate it, by default from its last state)
  kubedesk history --deleted [-n NAMESPACE | -A]             recently deleted objects
  kubedesk changes [-n NAMESPACE | -A] [--since 1h] [--user U] [--kind TYPE]
                                                             the change feed, newest first
  -n/--namespace NS as kubectl (else the context's). TYPE is any kubectl resource word
  (deploy, deployments.apps, cm, …). In \`changes\`, --user filters by who wrote.
${GLOBAL_FLAGS_USAGE}`;

export class HistoryUsageError extends CommandUsageError {}

export interface HistoryOptions {
  mode: 'list' | 'revision' | 'diff' | 'restore' | 'deleted' | 'changes';
  type?: string;
  name?: string;
  revision?: number;
  diff?: [number, number];
  output: 'yaml' | 'json';
  allNamespaces: boolean;
  since?: string;
  user?: string;
  kind?: string;
  flags: KubeconfigFlags;
}

/** The command line after `history` (or after `changes` with `command` = 'changes'); undefined for --help. */
export function parseHistoryArgs(argv: string[], command: 'history' | 'changes' = 'history'): HistoryOptions | undefined {
  const flags: KubeconfigFlags = {};
  const options: HistoryOptions = { mode: command === 'changes' ? 'changes' : 'list', output: 'yaml', allNamespaces: false, flags };
  let output: string | undefined;
  const scanned = scanArgs(argv, { short: { n: 'namespace', o: 'output', A: 'all-namespaces' }, switches: ['all-namespaces', 'deleted'], usageError: HistoryUsageError }, (flag, value) => {
    switch (flag) {
      case 'revision': {
        const text = value();
        if (!/^\d+$/.test(text) || Number(text) < 1) throw new HistoryUsageError(`invalid --revision "${text}": a revision number from the history table`);
        options.revision = Number(text);
        return true;
      }
      case 'diff': {
        const text = value();
        const match = /^(\d+)\.\.(\d+)$/.exec(text);
        if (!match) throw new HistoryUsageError(`invalid --diff "${text}": two revisions as A..B`);
        options.diff = [Number(match[1]), Number(match[2])];
        return true;
      }
      case 'output':
        output = value();
        return true;
      case 'since':
        options.since = value();
        return true;
      case 'user':
        // kubectl's --user names a kubeconfig user; in `changes` it filters by who wrote
        if (command === 'changes') options.user = value();
        else flags.user = value();
        return true;
      case 'kind':
        options.kind = value();
        return true;
      default:
        return readKubeconfigFlag(flags, flag, value);
    }
  });
  if (scanned === undefined) return undefined;
  const { positional } = scanned;
  options.allNamespaces = scanned.switches.has('all-namespaces');
  const deleted = scanned.switches.has('deleted');
  if (output !== undefined) {
    if (output !== 'yaml' && output !== 'json') throw new HistoryUsageError(`unable to match a printer suitable for the output format "${output}", allowed formats are: json,yaml`);
    options.output = output;
  }
  if (command === 'changes') {
    if (positional.length > 0) throw new HistoryUsageError(`changes takes no arguments, got: ${positional.join(' ')}`);
    return options;
  }
  if (deleted) {
    if (positional.length > 0) throw new HistoryUsageError('--deleted lists every deleted object: name no object');
    options.mode = 'deleted';
    return options;
  }
  if (positional[0] === 'restore') {
    options.mode = 'restore';
    positional.shift();
  }
  const [type, name] = typeAndName(positional);
  options.type = type;
  options.name = name;
  if (options.mode === 'restore') {
    if (options.diff) throw new HistoryUsageError('restore takes --revision, not --diff');
    return options;
  }
  if (options.diff && options.revision !== undefined) throw new HistoryUsageError('--revision and --diff cannot be used together');
  if (options.diff) options.mode = 'diff';
  else if (options.revision !== undefined) options.mode = 'revision';
  return options;
}

function typeAndName(positional: string[]): [string, string] {
  if (positional.length === 1 && positional[0].includes('/')) {
    const slash = positional[0].indexOf('/');
    const type = positional[0].slice(0, slash);
    const name = positional[0].slice(slash + 1);
    if (!type || !name) throw new HistoryUsageError('arguments in resource/name form must have a single resource and name');
    return [type, name];
  }
  if (positional.length === 2 && !positional[0].includes('/')) return [positional[0], positional[1]];
  if (positional.length === 0) throw new HistoryUsageError('you must name an object: TYPE/NAME or TYPE NAME');
  throw new HistoryUsageError(`expected TYPE/NAME or TYPE NAME, got: ${positional.join(' ')}`);
}

async function readRevisions(client: ApiClient, path: string, query: Record<string, string>): Promise<Revision[]> {
  const body = await client.request({ method: 'GET', path, query });
  if (!isRecord(body) || !Array.isArray(body.items)) throw new Error('the history API answered with something that is not a RevisionList');
  return body.items.map(asRevision);
}

function scope(namespace: string | undefined): string {
  return namespace === undefined ? HISTORY_API : `${HISTORY_API}/namespaces/${encodeURIComponent(namespace)}`;
}

/** Left-aligned columns separated by three spaces, as kubectl's tabwriter prints them. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => row[index].length)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index]))).join('   ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** The revisions table of one object. */
export function revisionTable(revisions: Revision[], now: Date): string {
  const changes = revisionChanges(revisions);
  const rows = revisions.map((revision, index) => {
    const operation = revision.subresource ? `${revision.operation} (${revision.subresource})` : revision.operation;
    return [String(revision.revision), translateTimestampSince(revision.time, now), operation, by(revision), changes[index]];
  });
  return formatTable(['REVISION', 'AGE', 'OPERATION', 'BY', 'CHANGES'], rows);
}

async function run(client: ApiClient, options: HistoryOptions, config: ClientConfig, io: CommandIo, now: Date): Promise<number> {
  const namespace = options.allNamespaces ? undefined : config.namespace;
  switch (options.mode) {
    case 'deleted': {
      const revisions = await readRevisions(client, `${scope(namespace)}/deletedobjects`, options.kind ? { type: options.kind } : {});
      if (revisions.length === 0) {
        io.stderr(namespace === undefined ? 'No deleted objects found.\n' : `No deleted objects found in ${namespace} namespace.\n`);
        return 0;
      }
      const header = [...(namespace === undefined ? ['NAMESPACE'] : []), 'NAME', 'DELETED', 'BY', 'LAST REVISION'];
      const rows = revisions.map((revision) => [...(namespace === undefined ? [revision.target.namespace || '<none>'] : []), targetName(revision), translateTimestampSince(revision.time, now), by(revision), String(revision.revision)]);
      io.stdout(formatTable(header, rows));
      return 0;
    }
    case 'changes': {
      const query: Record<string, string> = {};
      if (options.since) query.since = options.since;
      if (options.user) query.user = options.user;
      if (options.kind) query.type = options.kind;
      const revisions = await readRevisions(client, `${scope(namespace)}/revisions`, query);
      const header = ['AGE', ...(namespace === undefined ? ['NAMESPACE'] : []), 'OBJECT', 'OPERATION', 'BY', 'CHANGES'];
      const rows = revisions.map((revision) => {
        const operation = revision.subresource ? `${revision.operation} (${revision.subresource})` : revision.operation;
        const changes = revision.redacted
          ? `data keys changed: ${(revision.changedKeys ?? []).join(', ') || '(none)'}`
          : revision.removed
            ? 'deleted'
            : revision.operation === 'CREATE'
              ? 'created'
              : revision.operation === 'DELETE'
                ? 'deletion started'
                : '';
        return [translateTimestampSince(revision.time, now), ...(namespace === undefined ? [revision.target.namespace || '<none>'] : []), targetName(revision), operation, by(revision), changes];
      });
      if (rows.length === 0) io.stderr('No changes found.\n');
      else io.stdout(formatTable(header, rows));
      return 0;
    }
    default:
      break;
  }
  const type = options.type ?? '';
  const name = options.name ?? '';
  const revisions = await readRevisions(client, `${scope(config.namespace)}/revisions`, { type, name });
  const pick = (number: number): Revision => {
    const found = revisions.find((revision) => revision.revision === number);
    if (!found) throw new HistoryUsageError(`${type}/${name} has no revision ${number}${revisions.length ? ` (revisions ${revisions[0].revision} to ${revisions[revisions.length - 1].revision} are kept)` : ''}`);
    return found;
  };
  if (revisions.length === 0) {
    io.stderr(`Error from server (NotFound): no history of ${type}/${name} in ${config.namespace} namespace\n`);
    return 1;
  }
  switch (options.mode) {
    case 'list':
      io.stdout(revisionTable(revisions, now));
      return 0;
    case 'revision': {
      const object = displayObject(pick(options.revision ?? 0).object);
      io.stdout(options.output === 'json' ? `${JSON.stringify(object, null, 4)}\n` : toYaml(object));
      return 0;
    }
    case 'diff': {
      const [from, to] = options.diff ?? [0, 0];
      io.stdout(unifiedDiff(toYaml(diffObject(pick(from).object)), toYaml(diffObject(pick(to).object)), `${type}/${name} revision ${from}`, `${type}/${name} revision ${to}`));
      return 0;
    }
    case 'restore':
      return restore(client, revisions, options.revision === undefined ? undefined : pick(options.revision), io);
    default:
      return 0;
  }
}

async function restore(client: ApiClient, revisions: Revision[], chosen: Revision | undefined, io: CommandIo): Promise<number> {
  let plan;
  try {
    plan = planRestore(revisions, chosen);
  } catch (error) {
    if (error instanceof RestoreRefusal) throw new HistoryUsageError(error.message);
    throw error;
  }
  if (plan.kind === 'update') {
    const live = await client.request({ method: 'GET', path: plan.path });
    if (!isRecord(live) || !isRecord(live.metadata)) throw new Error(`the server answered ${plan.display} with something that is not an object`);
    const body = restoreUpdate(live as unknown as KubeObject, plan.revision.object);
    await client.request({ method: 'PUT', path: plan.path, query: { fieldManager: RESTORE_FIELD_MANAGER }, body });
    io.stdout(`${plan.display} restored to revision ${plan.revision.revision}\n`);
    return 0;
  }
  await client.request({ method: 'POST', path: plan.path, query: { fieldManager: RESTORE_FIELD_MANAGER }, body: plan.body });
  io.stdout(`${plan.display} undeleted from revision ${plan.revision.revision}\n`);
  return 0;
}

/** `kubedesk history …` or `kubedesk changes …`. */
export function historyCommand(argv: string[], command: 'history' | 'changes' = 'history', io: CommandIo = processIo, now: () => Date = () => new Date()): Promise<number> {
  return runClientCommand(
    {
      usage: HISTORY_USAGE,
      parse: (args) => parseHistoryArgs(args, command),
      run: (client, options, config) => run(client, options, config, io, now()),
      failed: (error) => {
        if (!(error instanceof ClientApiError || error instanceof Error)) throw error;
        io.stderr(`${kubectlErrorText(error)}\n`);
        return 1;
      },
    },
    argv,
    io,
  );
}
