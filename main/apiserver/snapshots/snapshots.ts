// Snapshots: save, list, restore, delete, export and import whole-cluster snapshots kept as files
// in `<data-dir>/snapshots/NAME.kdsnap` (main/storage/snapshot.ts says what one holds). This is the
// part that knows kinds: which PersistentVolumes' directories to copy, which images the pods use,
// what a restore leaves live (Nodes, Leases and Events: what the running cluster reports about
// itself, not what a user made) and how it prepares a pod whose containers are gone.
//
// A restore checks everything before it changes anything: the file (storage/sqliteSnapshot.ts),
// every volume entry's path, the images (those missing from Docker are named, and the restore is
// refused unless asked to go on), and the plan. Then it puts the volumes' directories back, and in
// one synchronous step plans again against the store as it is now and commits every write in one
// transaction at new revisions (SqliteStore.applyWrites). The kubelet stops and removes the
// containers of pods that are gone and starts the restored pods, as after a restart with adoption.
// The PKI, tokens and kubeconfig live outside the store and are never touched.
import { createReadStream, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, chmodSync, chownSync, symlinkSync, writeFileSync, lchownSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { planRestore, podImages, type RestorePlan, type RestorePolicy, type SnapshotManifest, type SnapshotVolume, type StoredObject, type StoreWrite } from '../../storage/snapshot';
import { SnapshotFile, SnapshotFileError, syncFileToDisk, syncFolderToDisk, type VolumeFile } from '../../storage/sqliteSnapshot';
import type { WriteRecorder } from '../../storage/history';
import { SNAPSHOT_NAME_MESSAGE, validSnapshotName } from '../../../shared/snapshots';

/** What snapshots need of the store (SqliteStore implements it). */
export interface SnapshotStore {
  currentRevision(): number;
  allObjects(): StoredObject[];
  backupTo(destination: string): Promise<void>;
  applyWrites(writes: readonly StoreWrite[]): KubeObject[];
}

export interface SnapshotsOptions {
  store: SnapshotStore;
  /** where snapshot files live: `<data-dir>/snapshots` */
  directory: string;
  /** where local PersistentVolumes' directories live: `<data-dir>/volumes` */
  volumesDir: string;
  /** told of each write of a restore (the object history), as the generic store tells it of its own */
  history?: WriteRecorder;
  /** whether Docker has an image; without it no image is checked */
  imagePresent?: (reference: string) => Promise<boolean>;
  clock?: () => Date;
}

export interface SnapshotInfo {
  manifest: SnapshotManifest;
  sizeBytes: number;
}

export interface RestoreResult {
  name: string;
  resourceVersion: number;
  created: number;
  updated: number;
  replaced: number;
  deleted: number;
  missingImages: string[];
}

/** One object a restore would change, by its storage key. */
export interface RestoreChange {
  resource: string;
  namespace: string;
  name: string;
}

/** What a restore would do, computed as the restore computes it but changing nothing. */
export interface RestorePreview {
  name: string;
  /** the store's revision the plan was made against */
  resourceVersion: number;
  /** the objects of each kind of write, sorted by resource, namespace and name */
  created: RestoreChange[];
  updated: RestoreChange[];
  replaced: RestoreChange[];
  deleted: RestoreChange[];
  missingImages: string[];
}

/** Why a snapshot operation was refused; the API maps `reason` to a Status. */
export class SnapshotError extends Error {
  constructor(
    message: string,
    readonly reason: 'NotFound' | 'AlreadyExists' | 'Invalid' | 'Corrupt' | 'NewerFormat' | 'MissingImages',
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

const EXTENSION = '.kdsnap';
/** what a restore leaves as it is live: the running cluster's reports about itself */
const KEPT_LIVE = new Set(['nodes', 'leases.coordination.k8s.io', 'events', 'events.events.k8s.io']);
const RANKS: Record<string, number> = {
  namespaces: 0,
  'customresourcedefinitions.apiextensions.k8s.io': 1,
  serviceaccounts: 2,
  secrets: 2,
  configmaps: 2,
  persistentvolumes: 3,
  persistentvolumeclaims: 4,
  services: 5,
  pods: 9,
};

// the name rule is shared with the UI and the desktop shell, which check a name before sending it
export { SNAPSHOT_NAME_MESSAGE, validSnapshotName };

/** The restore policy of a running cluster (see the file header). */
export const clusterRestorePolicy: RestorePolicy = {
  keepLive: (resource) => KEPT_LIVE.has(resource),
  rank: (resource) => RANKS[resource] ?? 6,
  prepare(resource, object, live) {
    if (resource !== 'pods') return object;
    if (live !== undefined) return { ...object, status: live.status };
    return { ...object, status: freshPodStatus(object) };
  },
};

/**
 * The status of a pod whose containers are gone, as the scheduler leaves a bound pod: the kubelet
 * starts it as new (restart counts from 0), since none of the snapshot's container IDs exist.
 */
export function freshPodStatus(pod: KubeObject): Record<string, unknown> {
  const spec = isRecord(pod.spec) ? pod.spec : {};
  const old = isRecord(pod.status) ? pod.status : {};
  const status: Record<string, unknown> = { phase: 'Pending' };
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
    const conditions = Array.isArray(old.conditions) ? old.conditions.filter((condition) => isRecord(condition) && condition.type === 'PodScheduled') : [];
    status.conditions = conditions.length ? conditions : [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: pod.metadata.creationTimestamp ?? null }];
  }
  if (typeof old.qosClass === 'string') status.qosClass = old.qosClass;
  return status;
}

/** A volume entry's relative path is safe when it stays inside the volume's directory. */
export function safeEntryPath(entry: string): boolean {
  if (entry === '') return true;
  if (path.isAbsolute(entry) || entry.includes('\u0000')) return false;
  return entry.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

export class Snapshots {
  /** one save, restore or import at a time */
  private queue: Promise<unknown> = Promise.resolve();
  /** the checksums being computed after their saves' replies, by file */
  private readonly checksums = new Map<string, Promise<void>>();
  /** settles when the save running now ends */
  private saving: Promise<void> | undefined;

  constructor(private readonly options: SnapshotsOptions) {}

  private pathOf(name: string): string {
    if (!validSnapshotName(name)) throw new SnapshotError(SNAPSHOT_NAME_MESSAGE, 'Invalid');
    return path.join(this.options.directory, `${name}${EXTENSION}`);
  }

  private existing(name: string): string {
    const file = this.pathOf(name);
    if (!existsSync(file)) throw new SnapshotError(`snapshot "${name}" not found`, 'NotFound');
    return file;
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  list(): SnapshotInfo[] {
    if (!existsSync(this.options.directory)) return [];
    const infos: SnapshotInfo[] = [];
    for (const entry of readdirSync(this.options.directory).sort()) {
      if (!entry.endsWith(EXTENSION) || entry.startsWith('.')) continue;
      const info = this.tryInfo(path.join(this.options.directory, entry));
      if (info) infos.push(info);
    }
    return infos;
  }

  get(name: string): SnapshotInfo {
    const file = this.existing(name);
    const info = this.tryInfo(file);
    if (!info) throw new SnapshotError(`snapshot "${name}" cannot be read`, 'Corrupt');
    return info;
  }

  private tryInfo(file: string): SnapshotInfo | undefined {
    try {
      const manifest = SnapshotFile.readManifest(file);
      return { manifest: { ...manifest, name: path.basename(file, EXTENSION) }, sizeBytes: statSync(file).size };
    } catch {
      return undefined;
    }
  }

  /**
   * Saves the store and the volumes' data as snapshot `name`. The reply comes once the file is
   * complete for a restore and under its name; right after it the file and its folder are synced
   * and its checksum is computed and stored, in steps between other requests. A restore, a preview
   * or an export of the snapshot waits for both (openSaved). A power loss in the milliseconds
   * between the reply and the sync can lose the snapshot, as it can lose the store's own last
   * commits (SQLite's synchronous=NORMAL in WAL mode); a file left damaged by it is refused as
   * corrupt, never restored.
   */
  save(name: string): Promise<SnapshotInfo> {
    const file = this.pathOf(name);
    return this.serially(async () => {
      if (existsSync(file)) throw new SnapshotError(`snapshot "${name}" already exists`, 'AlreadyExists');
      mkdirSync(this.options.directory, { recursive: true, mode: 0o700 });
      const partial = this.partialPath(name);
      let saved = () => {};
      this.saving = new Promise((resolve) => (saved = resolve));
      try {
        await this.options.store.backupTo(partial);
        const created = (this.options.clock?.() ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const manifest = SnapshotFile.create(partial, { name, created }, (objects) => this.collect(objects));
        // it holds every Secret
        chmodSync(partial, 0o600);
        renameSync(partial, file);
        this.sealLater(file);
        return { manifest, sizeBytes: statSync(file).size };
      } finally {
        this.saving = undefined;
        saved();
        rmSync(partial, { force: true });
      }
    });
  }

  /** After a save's reply: the file and its folder synced, then the checksum written in steps. */
  private sealLater(file: string): void {
    // A save that comes meanwhile goes first: the checksum waits while it runs (a save never
    // waits for a checksum, so this cannot deadlock). A failure (the snapshot deleted meanwhile,
    // kubedesk stopping) leaves the file without a checksum, which openSaved() writes when the
    // snapshot is next used.
    const synced = syncFileToDisk(file).then(() => syncFolderToDisk(this.options.directory));
    const done: Promise<void> = synced
      .then(() => SnapshotFile.writeChecksumInSteps(file, () => this.saving))
      .catch(() => undefined)
      .finally(() => {
        if (this.checksums.get(file) === done) this.checksums.delete(file);
      });
    this.checksums.set(file, done);
  }

  /**
   * A saved snapshot opened for reading (restore, preview, export). Its checksum is in its file
   * first: the one its save is computing is waited for, or one is written for a save that kubedesk
   * ended before its checksum (only into a file that checks out; any other file is left to the
   * check to refuse). Then the whole file is checked.
   */
  private async openSaved(name: string): Promise<SnapshotFile> {
    const file = this.existing(name);
    await this.checksums.get(file);
    try {
      SnapshotFile.writeMissingChecksum(file);
    } catch {
      // the check names what is wrong with the file
    }
    return this.check(file);
  }

  /** The images of the snapshot's pods and the entries of its PersistentVolumes' directories. */
  private collect(objects: StoredObject[]): { images: string[]; volumes: SnapshotVolume[]; files: VolumeFile[] } {
    const images = new Set<string>();
    const volumes: SnapshotVolume[] = [];
    const files: VolumeFile[] = [];
    for (const stored of objects) {
      const object = JSON.parse(stored.value) as KubeObject;
      if (stored.resource === 'pods') for (const image of podImages(object)) images.add(image);
      if (stored.resource !== 'persistentvolumes' || !safeEntryPath(stored.name)) continue;
      const directory = path.join(this.options.volumesDir, stored.name);
      if (!existsSync(directory)) continue;
      const volume: SnapshotVolume = { name: stored.name, files: 0, bytes: 0 };
      walk(directory, '', (entry) => {
        files.push({ ...entry, volume: stored.name });
        if (entry.type === 'file') {
          volume.files++;
          volume.bytes += entry.data?.length ?? 0;
        }
      });
      volumes.push(volume);
    }
    return { images: [...images].sort(), volumes, files };
  }

  delete(name: string): void {
    rmSync(this.existing(name));
  }

  /** The snapshot's bytes, after checking the file whole (a damaged snapshot is not handed out). */
  async exportStream(name: string): Promise<{ stream: Readable; size: number }> {
    (await this.openSaved(name)).close();
    const file = this.pathOf(name);
    return { stream: createReadStream(file), size: statSync(file).size };
  }

  /** Takes a snapshot file written at `source` (removed in any case) as snapshot `name`, after checking it whole. */
  importFile(source: string, name: string): Promise<SnapshotInfo> {
    return this.serially(async () => {
      try {
        const file = this.pathOf(name);
        if (existsSync(file)) throw new SnapshotError(`snapshot "${name}" already exists`, 'AlreadyExists');
        this.check(source).close();
        chmodSync(source, 0o600);
        renameSync(source, file);
        return this.get(name);
      } finally {
        rmSync(source, { force: true });
      }
    });
  }

  /** A file in the snapshots folder for an upload or a save in progress. */
  partialPath(name: string): string {
    this.pathOf(name);
    mkdirSync(this.options.directory, { recursive: true, mode: 0o700 });
    return path.join(this.options.directory, `.${name}.${randomBytes(6).toString('hex')}.partial`);
  }

  private check(file: string): SnapshotFile {
    try {
      return SnapshotFile.open(file);
    } catch (error) {
      if (error instanceof SnapshotFileError) throw new SnapshotError(error.message, error.reason === 'NewerFormat' ? 'NewerFormat' : 'Corrupt');
      throw error;
    }
  }

  /** `user` (and `userAgent`) go into the history's revisions of the restore's writes. */
  restore(name: string, options: { ignoreMissingImages?: boolean; user?: string; userAgent?: string } = {}): Promise<RestoreResult> {
    return this.serially(async () => {
      const snapshot = await this.openSaved(name);
      try {
        const objects = snapshot.objects();
        const volumeNames = new Set(snapshot.manifest.volumes.map((volume) => volume.name));
        for (const volume of volumeNames) if (!safeEntryPath(volume) || volume.includes('/')) throw new SnapshotError(`the snapshot's volume name "${volume}" is not a directory name`, 'Corrupt');
        checkVolumeEntries(snapshot.files(), volumeNames);
        const missingImages = await this.missingImages(snapshot.manifest.images);
        if (missingImages.length > 0 && !options.ignoreMissingImages) {
          throw new SnapshotError(`snapshot "${name}" needs images missing from Docker: ${missingImages.join(', ')} (pull or load them, or restore anyway and let the kubelet pull them)`, 'MissingImages');
        }
        // checks the whole plan (every object parses) before anything changes
        planRestore(this.options.store.allObjects(), objects, clusterRestorePolicy);

        // emptied, not replaced: a running pod's bind mount keeps pointing at the same directory
        for (const volume of volumeNames) emptyDirectory(path.join(this.options.volumesDir, volume));
        for (const entry of snapshot.files()) writeEntry(path.join(this.options.volumesDir, entry.volume), entry);

        // the store may have changed while the volumes were written: plan against it as it is now
        const live = this.options.store.allObjects();
        const plan: RestorePlan = planRestore(live, objects, clusterRestorePolicy);
        const stored = this.options.store.applyWrites(plan.writes);
        const resourceVersion = this.options.store.currentRevision();
        plan.writes.forEach((write, index) => {
          const operation = write.type === 'create' ? 'CREATE' : write.type === 'update' ? 'UPDATE' : 'DELETE';
          this.options.history?.record({ key: write.key, object: stored[index], operation, removed: write.type === 'delete', user: options.user, fieldManager: 'kubedesk-snapshot', userAgent: options.userAgent });
        });
        this.removeUnusedVolumes(live, objects);
        return { name, resourceVersion, created: plan.created, updated: plan.updated, replaced: plan.replaced, deleted: plan.deleted, missingImages };
      } finally {
        snapshot.close();
      }
    });
  }

  /**
   * The restore's plan against the store as it is now, without changing anything (`dryRun=All`):
   * which objects it would delete, bring back, update or replace, and which images are missing.
   * The file is checked whole as for a restore; missing images are reported, not refused.
   */
  async previewRestore(name: string): Promise<RestorePreview> {
    const snapshot = await this.openSaved(name);
    try {
      const objects = snapshot.objects();
      const missingImages = await this.missingImages(snapshot.manifest.images);
      const resourceVersion = this.options.store.currentRevision();
      const plan = planRestore(this.options.store.allObjects(), objects, clusterRestorePolicy);
      return { name, resourceVersion, ...changesOf(plan), missingImages };
    } finally {
      snapshot.close();
    }
  }

  private async missingImages(images: string[]): Promise<string[]> {
    const present = this.options.imagePresent;
    if (!present) return [];
    const answers = await Promise.all(images.map(async (image) => ((await present(image)) ? undefined : image)));
    return answers.filter((image): image is string => image !== undefined);
  }

  /** Directories of PersistentVolumes the restore deleted: the provisioner would remove them at its next start. */
  private removeUnusedVolumes(live: StoredObject[], snapshot: StoredObject[]): void {
    const kept = new Set(snapshot.filter((stored) => stored.resource === 'persistentvolumes').map((stored) => stored.name));
    for (const stored of live) {
      if (stored.resource !== 'persistentvolumes' || kept.has(stored.name) || !/^pvc-[A-Za-z0-9-]+$/.test(stored.name)) continue;
      rmSync(path.join(this.options.volumesDir, stored.name), { recursive: true, force: true });
    }
  }
}

/**
 * The objects of a plan by what happens to them: a key both deleted and created is replaced (its
 * uid changed); deleted only is removed, created only comes back.
 */
export function changesOf(plan: RestorePlan): Pick<RestorePreview, 'created' | 'updated' | 'replaced' | 'deleted'> {
  const id = (key: RestoreChange) => `${key.resource}\u0000${key.namespace}\u0000${key.name}`;
  const deletes = new Map<string, RestoreChange>();
  const creates = new Map<string, RestoreChange>();
  const updated: RestoreChange[] = [];
  for (const write of plan.writes) {
    const change = { resource: write.key.resource, namespace: write.key.namespace, name: write.key.name };
    if (write.type === 'delete') deletes.set(id(change), change);
    else if (write.type === 'create') creates.set(id(change), change);
    else updated.push(change);
  }
  const order = (a: RestoreChange, b: RestoreChange) => a.resource.localeCompare(b.resource) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
  return {
    created: [...creates].filter(([key]) => !deletes.has(key)).map(([, change]) => change).sort(order),
    updated: updated.sort(order),
    replaced: [...creates].filter(([key]) => deletes.has(key)).map(([, change]) => change).sort(order),
    deleted: [...deletes].filter(([key]) => !creates.has(key)).map(([, change]) => change).sort(order),
  };
}

/**
 * Every entry stays inside its volume: a relative path without `..`, a directory at the volume's
 * root, and nothing below a symbolic link (which could point anywhere).
 */
export function checkVolumeEntries(entries: Iterable<Pick<VolumeFile, 'volume' | 'path' | 'type'>>, volumes: ReadonlySet<string>): void {
  const links = new Set<string>();
  for (const entry of entries) {
    const where = `${entry.volume}/${entry.path}`;
    if (!volumes.has(entry.volume) || !safeEntryPath(entry.path)) throw new SnapshotError(`the snapshot's volume entry ${where} is outside its volume`, 'Corrupt');
    if (entry.path === '' && entry.type !== 'directory') throw new SnapshotError(`the snapshot's volume ${entry.volume} is not a directory`, 'Corrupt');
    const parts = entry.path.split('/');
    for (let length = 1; length < parts.length; length++) {
      if (links.has(`${entry.volume}/${parts.slice(0, length).join('/')}`)) throw new SnapshotError(`the snapshot's volume entry ${where} lies below a symbolic link`, 'Corrupt');
    }
    if (entry.type === 'symlink') links.add(where);
  }
}

/** Reads a directory tree (not following links) into entries, the directory before its contents. */
function walk(root: string, relative: string, visit: (entry: Omit<VolumeFile, 'volume'>) => void): void {
  const full = relative === '' ? root : path.join(root, relative);
  const stat = lstatSync(full);
  const base = { path: relative, mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid };
  if (stat.isSymbolicLink()) {
    visit({ ...base, type: 'symlink', data: Buffer.from(readlinkSync(full)) });
  } else if (stat.isDirectory()) {
    visit({ ...base, type: 'directory', data: null });
    for (const child of readdirSync(full).sort()) walk(root, relative === '' ? child : `${relative}/${child}`, visit);
  } else if (stat.isFile()) {
    visit({ ...base, type: 'file', data: readFileSync(full) });
  }
  // sockets, FIFOs and devices are not data: left out
}

function emptyDirectory(directory: string): void {
  if (!existsSync(directory)) return;
  if (!lstatSync(directory).isDirectory()) {
    rmSync(directory, { force: true });
    return;
  }
  for (const child of readdirSync(directory)) rmSync(path.join(directory, child), { recursive: true, force: true });
}

function writeEntry(root: string, entry: VolumeFile): void {
  const target = entry.path === '' ? root : path.join(root, entry.path);
  if (entry.type === 'directory') mkdirSync(target, { recursive: true });
  else if (entry.type === 'symlink') symlinkSync((entry.data ?? Buffer.alloc(0)).toString(), target);
  else writeFileSync(target, entry.data ?? Buffer.alloc(0));
  try {
    if (entry.type === 'symlink') {
      lchownSync(target, entry.uid, entry.gid);
      return;
    }
    chownSync(target, entry.uid, entry.gid);
  } catch {
    // not permitted for a user other than root: the files stay the restoring user's
  }
  chmodSync(target, entry.mode);
}
