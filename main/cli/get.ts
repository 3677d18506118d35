// `kubedesk get TYPE [-n NS | -A] --as-of TIME`: a list as it was at a past time, from the object
// history (history.kubedesk.dev/v1 pastobjects, main/apiserver/history), printed as `kubectl get`
// prints a list: the server's Table for the kind (its columns, priority-0 ones unless -o wide), a
// NAMESPACE column first with -A, upper-case headers, cells aligned by kubectl's tabwriter (padding
// 3, minimum width 6); "No resources found in NS namespace." on stderr for an empty list. Also
// -o name|yaml|json, -l SELECTOR. TIME is a duration back from now (30s, 10m, 2h, 7d) or RFC 3339.
// The kubeconfig is resolved as kubectl resolves it (--kubeconfig, --context, KUBECONFIG, -n).
// Exit status: 0 listed, 1 the server refused (too old for the history, forbidden) or could not be
// reached, 2 a usage error.
import { stringify } from 'yaml';
import { isRecord, type KubeObject } from '../../shared/kubernetes/types';
import { parseHistoryTime } from '../../shared/history/historyFormat';
import { ClientApiError, type ApiClient } from '../client';
import { kubectlErrorText } from './clusterClient';
import type { ClientConfig, KubeconfigFlags } from '../remote';
import { CommandUsageError, GLOBAL_FLAGS_USAGE, processIo, readKubeconfigFlag, runClientCommand, scanArgs, type CommandIo } from './clientCommand';

const PAST_OBJECTS = '/apis/history.kubedesk.dev/v1';
/** the annotation the server sets on an object shown from a later revision (its state then is pruned) */
const PAST_STATE_ANNOTATION = 'history.kubedesk.dev/oldest-retained-revision';
/** kubectl's Accept header for a list it prints */
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

export const GET_USAGE = `Usage:
  kubedesk get TYPE [-n NAMESPACE | -A] --as-of TIME [-l SELECTOR] [-o wide|name|yaml|json]
      The list as it was at TIME, in kubectl's columns, from the object history. TIME is a
      duration back from now (30s, 10m, 2h, 7d) or an RFC 3339 time (2026-01-02T15:04:05Z).
      Without --as-of use kubectl get. A time before the history starts (its retention window)
      cannot be reconstructed and is refused.
  -n/--namespace NS as kubectl (else the context's).
${GLOBAL_FLAGS_USAGE}`;

export class GetUsageError extends CommandUsageError {}

export interface GetOptions {
  type: string;
  asOf: string;
  allNamespaces: boolean;
  selector?: string;
  output: 'table' | 'wide' | 'name' | 'yaml' | 'json';
  flags: KubeconfigFlags;
}

/** The command line after `get`; undefined for --help. */
export function parseGetArgs(argv: string[]): GetOptions | undefined {
  const flags: KubeconfigFlags = {};
  let asOf: string | undefined;
  let output: string | undefined;
  let selector: string | undefined;
  const scanned = scanArgs(argv, { short: { n: 'namespace', o: 'output', l: 'selector', A: 'all-namespaces' }, switches: ['all-namespaces'], usageError: GetUsageError }, (flag, value) => {
    switch (flag) {
      case 'as-of':
        asOf = value();
        return true;
      case 'output':
        output = value();
        return true;
      case 'selector':
        selector = value();
        return true;
      default:
        return readKubeconfigFlag(flags, flag, value);
    }
  });
  if (scanned === undefined) return undefined;
  const { positional } = scanned;
  const allNamespaces = scanned.switches.has('all-namespaces');
  if (positional.length === 0) throw new GetUsageError('you must specify the type of resource to get');
  if (positional.length > 1 || positional[0].includes('/') || positional[0].includes(',')) {
    throw new GetUsageError(`kubedesk get lists one type as it was: TYPE, not ${positional.join(' ')}`);
  }
  if (asOf === undefined) throw new GetUsageError('--as-of TIME is required (for the list as it is now, use kubectl get)');
  if (parseHistoryTime(asOf, Date.now()) === undefined) {
    throw new GetUsageError(`invalid --as-of "${asOf}": a duration back from now such as 10m or 2h, or an RFC 3339 time`);
  }
  const formats = ['wide', 'name', 'yaml', 'json'];
  if (output !== undefined && !formats.includes(output)) throw new GetUsageError(`unable to match a printer suitable for the output format "${output}", allowed formats are: ${formats.join(',')}`);
  return { type: positional[0], asOf, allNamespaces, selector, output: (output ?? 'table') as GetOptions['output'], flags };
}

interface Column {
  name: string;
  priority: number;
}

interface TableRow {
  cells: unknown[];
  object?: KubeObject;
}

export interface Table {
  columnDefinitions: Column[];
  rows: TableRow[];
}

function asTable(body: unknown): Table {
  if (!isRecord(body) || body.kind !== 'Table' || !Array.isArray(body.columnDefinitions) || !Array.isArray(body.rows)) throw new Error('the history API answered with something that is not a Table');
  const columnDefinitions = body.columnDefinitions.map((column): Column => {
    if (!isRecord(column) || typeof column.name !== 'string') throw new Error('the history API answered with a Table column without a name');
    return { name: column.name, priority: typeof column.priority === 'number' ? column.priority : 0 };
  });
  const rows = body.rows.map((row): TableRow => {
    if (!isRecord(row) || !Array.isArray(row.cells)) throw new Error('the history API answered with a Table row without cells');
    const object = isRecord(row.object) && isRecord(row.object.metadata) ? (row.object as unknown as KubeObject) : undefined;
    return { cells: row.cells, object };
  });
  return { columnDefinitions, rows };
}

/** A cell as kubectl prints it: nil as <none>, numbers and strings as they are. */
function cellText(cell: unknown): string {
  if (cell === null || cell === undefined) return '<none>';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  return JSON.stringify(cell);
}

/** Lines as kubectl's tabwriter aligns them: each cell but the last padded by 3 to its column's width, at least 6. */
export function alignColumns(lines: string[][]): string {
  const widths: number[] = [];
  for (const line of lines) line.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, cell.length + 3, 6)));
  return lines.map((line) => line.map((cell, index) => (index === line.length - 1 ? cell : cell.padEnd(widths[index]))).join('').trimEnd()).join('\n') + '\n';
}

/** The table as `kubectl get` prints it (wide: every column; withNamespace: NAMESPACE first). */
export function printTable(table: Table, options: { wide: boolean; withNamespace: boolean }): string {
  const shown = table.columnDefinitions.map((column, index) => ({ column, index })).filter(({ column }) => options.wide || column.priority === 0);
  const header = [...(options.withNamespace ? ['NAMESPACE'] : []), ...shown.map(({ column }) => column.name.toUpperCase())];
  const lines = table.rows.map((row) => [...(options.withNamespace ? [row.object?.metadata.namespace ?? ''] : []), ...shown.map(({ index }) => cellText(row.cells[index]))]);
  return alignColumns([header, ...lines]);
}

function listPath(namespace: string | undefined): string {
  return namespace === undefined ? `${PAST_OBJECTS}/pastobjects` : `${PAST_OBJECTS}/namespaces/${encodeURIComponent(namespace)}/pastobjects`;
}

function resourceName(object: KubeObject): string {
  const group = typeof object.apiVersion === 'string' && object.apiVersion.includes('/') ? `.${object.apiVersion.split('/')[0]}` : '';
  return `${String(object.kind ?? '').toLowerCase()}${group}/${object.metadata.name ?? ''}`;
}

async function run(client: ApiClient, options: GetOptions, config: ClientConfig, io: CommandIo): Promise<number> {
  const namespace = options.allNamespaces ? undefined : config.namespace;
  const query: Record<string, string> = { type: options.type, time: options.asOf };
  if (options.selector !== undefined) query.labelSelector = options.selector;
  const table = options.output === 'table' || options.output === 'wide';
  const body = await client.request({ method: 'GET', path: listPath(namespace), query, ...(table ? { accept: TABLE_ACCEPT } : {}) });
  const empty = () => io.stderr(namespace === undefined ? 'No resources found\n' : `No resources found in ${namespace} namespace.\n`);
  let objects: KubeObject[];
  if (table) {
    const parsed = asTable(body);
    if (parsed.rows.length === 0) {
      empty();
      return 0;
    }
    io.stdout(printTable(parsed, { wide: options.output === 'wide', withNamespace: namespace === undefined }));
    objects = parsed.rows.flatMap((row) => (row.object ? [row.object] : []));
  } else {
    if (!isRecord(body) || !Array.isArray(body.items)) throw new Error('the history API answered with something that is not a list');
    objects = body.items.filter((item): item is KubeObject => isRecord(item) && isRecord(item.metadata));
    if (options.output === 'name') {
      if (objects.length === 0) empty();
      else io.stdout(objects.map((object) => `${resourceName(object)}\n`).join(''));
    } else {
      const list = { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
      io.stdout(options.output === 'json' ? `${JSON.stringify(list, null, 4)}\n` : stringify(list, { lineWidth: 0 }));
    }
  }
  const pruned = objects.filter((object) => object.metadata.annotations?.[PAST_STATE_ANNOTATION] !== undefined).map((object) => object.metadata.name ?? '');
  if (pruned.length > 0) io.stderr(`Warning: the state as of ${options.asOf} is pruned for ${pruned.join(', ')}: shown as of the oldest retained revision\n`);
  return 0;
}

/** `kubedesk get …`. */
export function getCommand(argv: string[], io: CommandIo = processIo): Promise<number> {
  return runClientCommand(
    {
      usage: GET_USAGE,
      parse: parseGetArgs,
      run: (client, options, config) => run(client, options, config, io),
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
