// `kubedesk snapshot save|list|restore|delete|export|import`: whole-cluster snapshots the API server
// keeps (snapshots.kubedesk.dev/v1, main/apiserver/snapshots), through the kubeconfig's context as
// kubectl picks it (--kubeconfig, --context, KUBECONFIG). Export and import stream one file.
// Exit status: 0 done, 1 the server refused (not found, forbidden, a corrupt or newer snapshot,
// missing images) or could not be reached, or a local file could not be read or written; 2 a
// usage error.
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { translateTimestampSince } from '../../shared/printers/duration';
import { formatBytes } from '../../shared/printers/bytes';
import { isRecord } from '../../shared/kubernetes/types';
import { ClientApiError, type ApiClient } from '../client';
import { kubectlErrorText, type ClusterClient } from './clusterClient';
import type { KubeconfigFlags } from '../remote';
import { CommandUsageError, GLOBAL_FLAGS_USAGE, processIo, readKubeconfigFlag, runClientCommand, scanArgs, type CommandIo } from './clientCommand';
import { formatTable } from './history';

const SNAPSHOTS_PATH = '/apis/snapshots.kubedesk.dev/v1/snapshots';
const EXTENSION = '.kdsnap';

export const SNAPSHOT_USAGE = `Usage:
  kubedesk snapshot save NAME                 save the whole cluster (API state at one resourceVersion,
                                              local PersistentVolumes' data, the pods' image list)
  kubedesk snapshot list                      NAME RESOURCEVERSION OBJECTS VOLUMES IMAGES SIZE AGE
  kubedesk snapshot restore NAME [--ignore-missing-images]
                                              make the running cluster what it was at NAME
  kubedesk snapshot delete NAME
  kubedesk snapshot export NAME FILE          write the snapshot to one file
  kubedesk snapshot import FILE [--name NAME] take a file written by export (NAME: the file's name
                                              without ${EXTENSION}, unless given)
  Saving, restoring, deleting, exporting and importing need cluster-admin.
${GLOBAL_FLAGS_USAGE}`;

export type SnapshotAction = 'save' | 'list' | 'restore' | 'delete' | 'export' | 'import';

export interface SnapshotOptions {
  action: SnapshotAction;
  name?: string;
  file?: string;
  ignoreMissingImages: boolean;
  flags: KubeconfigFlags;
}

const ARGUMENTS: Record<SnapshotAction, string[]> = {
  save: ['NAME'],
  list: [],
  restore: ['NAME'],
  delete: ['NAME'],
  export: ['NAME', 'FILE'],
  import: ['FILE'],
};

function isAction(word: string): word is SnapshotAction {
  return Object.hasOwn(ARGUMENTS, word);
}

/** The command line after `snapshot`; undefined for --help or no action. */
export function parseSnapshotArgs(argv: string[]): SnapshotOptions | undefined {
  const flags: KubeconfigFlags = {};
  let name: string | undefined;
  const scanned = scanArgs(argv, { switches: ['ignore-missing-images'], usageError: CommandUsageError }, (flag, value) => {
    if (flag === 'name') name = value();
    // snapshots belong to the whole cluster: no --namespace
    else if (flag === 'namespace' || !readKubeconfigFlag(flags, flag, value)) return false;
    return true;
  });
  if (scanned === undefined) return undefined;
  const { positional } = scanned;
  const ignoreMissingImages = scanned.switches.has('ignore-missing-images');
  if (positional.length === 0) return undefined;
  const [action, ...rest] = positional;
  if (!isAction(action)) throw new CommandUsageError(`unknown command "${action}" for "kubedesk snapshot"`);
  const wanted = ARGUMENTS[action];
  if (rest.length !== wanted.length) throw new CommandUsageError(`snapshot ${action} takes ${wanted.length === 0 ? 'no arguments' : wanted.join(' ')}${rest.length > wanted.length ? `, got: ${rest.join(' ')}` : ''}`);
  if (ignoreMissingImages && action !== 'restore') throw new CommandUsageError('--ignore-missing-images is a flag of snapshot restore');
  if (name !== undefined && action !== 'import') throw new CommandUsageError('--name is a flag of snapshot import');
  const options: SnapshotOptions = { action, ignoreMissingImages, flags };
  if (action === 'import') {
    options.file = rest[0];
    options.name = name ?? path.basename(rest[0]).replace(/\.kdsnap$/, '');
  } else if (rest.length > 0) {
    options.name = rest[0];
    if (action === 'export') options.file = rest[1];
  }
  return options;
}

interface SnapshotView {
  name: string;
  created: string;
  resourceVersion: string;
  objects: number;
  volumes: number;
  images: number;
  sizeBytes: number;
}

function viewOf(value: unknown): SnapshotView {
  if (!isRecord(value) || !isRecord(value.metadata) || !isRecord(value.status)) throw new Error('the server answered with something that is not a Snapshot');
  const { metadata, status } = value;
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    created: typeof metadata.creationTimestamp === 'string' ? metadata.creationTimestamp : '',
    resourceVersion: typeof status.resourceVersion === 'string' ? status.resourceVersion : '',
    objects: typeof status.objects === 'number' ? status.objects : 0,
    volumes: Array.isArray(status.volumes) ? status.volumes.length : 0,
    images: Array.isArray(status.images) ? status.images.length : 0,
    sizeBytes: typeof status.sizeBytes === 'number' ? status.sizeBytes : 0,
  };
}

/** The `snapshot list` table. */
export function snapshotTable(items: unknown[], now: Date): string {
  const rows = items.map(viewOf).map((view) => [view.name, view.resourceVersion, String(view.objects), String(view.volumes), String(view.images), formatBytes(view.sizeBytes), translateTimestampSince(view.created, now), view.created]);
  return formatTable(['NAME', 'RESOURCEVERSION', 'OBJECTS', 'VOLUMES', 'IMAGES', 'SIZE', 'AGE', 'CREATED'], rows);
}

function itemPath(name: string, subresource?: string): string {
  return `${SNAPSHOTS_PATH}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

async function run(client: ApiClient, options: SnapshotOptions, cluster: ClusterClient, io: CommandIo, now: Date): Promise<number> {
  const name = options.name ?? '';
  switch (options.action) {
    case 'list': {
      const list = await client.request({ method: 'GET', path: SNAPSHOTS_PATH });
      const items = isRecord(list) && Array.isArray(list.items) ? list.items : [];
      if (items.length === 0) {
        io.stderr('No snapshots found.\n');
        return 0;
      }
      io.stdout(snapshotTable(items, now));
      return 0;
    }
    case 'save': {
      const view = viewOf(await client.request({ method: 'POST', path: SNAPSHOTS_PATH, body: { apiVersion: 'snapshots.kubedesk.dev/v1', kind: 'Snapshot', metadata: { name } } }));
      io.stdout(`snapshot "${view.name}" saved at resourceVersion ${view.resourceVersion}: ${view.objects} objects, ${view.volumes} volumes, ${view.images} images, ${formatBytes(view.sizeBytes)}\n`);
      return 0;
    }
    case 'restore': {
      const result = await client.request({ method: 'POST', path: itemPath(name, 'restore'), query: options.ignoreMissingImages ? { ignoreMissingImages: 'true' } : {}, body: {} });
      const status = isRecord(result) && isRecord(result.status) ? result.status : {};
      const count = (key: string) => (typeof status[key] === 'number' ? status[key] : 0);
      io.stdout(`snapshot "${name}" restored at resourceVersion ${String(status.resourceVersion ?? '')}: ${count('created')} created, ${count('updated')} updated, ${count('replaced')} replaced, ${count('deleted')} deleted\n`);
      const missing = Array.isArray(status.missingImages) ? status.missingImages.filter((image): image is string => typeof image === 'string') : [];
      if (missing.length > 0) io.stderr(`Warning: images missing from Docker (the kubelet pulls them): ${missing.join(', ')}\n`);
      return 0;
    }
    case 'delete':
      await client.request({ method: 'DELETE', path: itemPath(name) });
      io.stdout(`snapshot "${name}" deleted\n`);
      return 0;
    case 'export': {
      const file = options.file ?? '';
      const partial = `${file}.partial`;
      const out = createWriteStream(partial, { mode: 0o600 });
      // a refused export never pipes into it: its own errors (the folder gone) are the request's
      out.on('error', () => undefined);
      try {
        await cluster.transport(0).download(itemPath(name, 'export'), out);
        renameSync(partial, file);
      } catch (error) {
        // the stream opens its file asynchronously: close it before removing what it made
        if (!out.closed) await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()));
        rmSync(partial, { force: true });
        throw error;
      }
      io.stdout(`snapshot "${name}" exported to ${file} (${formatBytes(statSync(file).size)})\n`);
      return 0;
    }
    case 'import': {
      const file = options.file ?? '';
      const size = statSync(file).size;
      const view = viewOf(await cluster.transport(0).upload(itemPath(name, 'import'), createReadStream(file), size));
      io.stdout(`snapshot "${view.name}" imported from ${file}: resourceVersion ${view.resourceVersion}, ${view.objects} objects, ${view.volumes} volumes\n`);
      return 0;
    }
  }
}

function isFileError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string' && typeof (error as NodeJS.ErrnoException).path === 'string';
}

/** `kubedesk snapshot …`. */
export function snapshotCommand(argv: string[], io: CommandIo = processIo, now: () => Date = () => new Date()): Promise<number> {
  return runClientCommand(
    {
      usage: SNAPSHOT_USAGE,
      parse: parseSnapshotArgs,
      run: (client, options, _config, cluster) => run(client, options, cluster, io, now()),
      failed: (error) => {
        if (isFileError(error)) {
          io.stderr(`error: ${error.message}\n`);
          return 1;
        }
        if (!(error instanceof ClientApiError || error instanceof Error)) throw error;
        io.stderr(`${kubectlErrorText(error)}\n`);
        return 1;
      },
    },
    argv,
    io,
  );
}
