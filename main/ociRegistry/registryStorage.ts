// The image registry's content-addressed store on disk, laid out as distribution's filesystem
// driver lays out its own (docs/storage-drivers): blobs by digest, shared by every repository;
// per repository, links to the layers and manifests it holds and one file per tag; uploads in
// progress in a directory of their own until the digest the client names matches their bytes,
// when the upload's file is renamed into the blobs (so a blob file is complete or absent).
//
//   <root>/blobs/<algorithm>/<encoded>                     content
//   <root>/uploads/<id>/{data,info.json}                   an upload session
//   <root>/repositories/<name>/_layers/<algorithm>/<encoded>     a blob the repository may serve
//   <root>/repositories/<name>/_manifests/<algorithm>/<encoded>  a manifest (the file holds its media type)
//   <root>/repositories/<name>/_tags/<tag>                 the digest the tag names
//
// Garbage collection is distribution's mark and sweep (registry/storage/garbagecollect.go): every
// blob a manifest of any repository names is kept, the rest goes, except blobs younger than a
// grace period, which a push in progress may be about to reference (a client uploads the layers
// first and the manifest last). It runs synchronously, so no upload's rename interleaves with it.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { open } from 'node:fs/promises';
import { isRecord } from '../../shared/kubernetes/types';
import type { RepositorySummary, TagSummary } from '../../shared/imageRegistry';
import { imageSize, parseManifest, type ParsedManifest } from './manifests';
import { isRepositoryName, isTag, parseDigest, type Digest, type DigestAlgorithm } from './references';

/** How long a blob no manifest names is kept (a push uploads layers before its manifest). */
export const DEFAULT_GC_GRACE_MS = 10 * 60_000;
/** An upload untouched this long is abandoned; garbage collection removes it. */
export const STALE_UPLOAD_MS = 24 * 3_600_000;

export class UploadTooLarge extends Error {}
export class UploadBusy extends Error {}
export class DigestMismatch extends Error {}

export interface UploadInfo {
  id: string;
  name: string;
  /** bytes received so far */
  size: number;
}

export interface StoredManifest {
  digest: Digest;
  mediaType: string;
  size: number;
  path: string;
}

export interface ReferrerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
}

export interface GarbageCollectionResult {
  removedBlobs: number;
  freedBytes: number;
  removedUploads: number;
}

interface UploadSession {
  hash: Hash;
  hashedBytes: number;
  busy: boolean;
}

export class RegistryStorage {
  private readonly sessions = new Map<string, UploadSession>();

  constructor(readonly root: string) {
    // temporaries from a crash are of no use
    rmSync(join(root, 'tmp'), { recursive: true, force: true });
    for (const directory of ['blobs', 'uploads', 'repositories', 'tmp']) mkdirSync(join(root, directory), { recursive: true, mode: 0o700 });
  }

  // ---- blobs

  blobPath(digest: Digest): string {
    return join(this.root, 'blobs', digest.algorithm, digest.encoded);
  }

  /** The blob's size, or undefined when the store does not hold it. */
  blobSize(digest: Digest): number | undefined {
    try {
      return statSync(this.blobPath(digest)).size;
    } catch {
      return undefined;
    }
  }

  /** The blob's size when the repository may serve it (it was pushed or mounted there, or a manifest there names it). */
  repositoryBlobSize(name: string, digest: Digest): number | undefined {
    if (!existsSync(this.layerLink(name, digest)) && !existsSync(this.manifestLink(name, digest))) return undefined;
    return this.blobSize(digest);
  }

  /** Links an existing blob into a repository (a cross-repository mount); false when the store lacks it. */
  linkBlob(name: string, digest: Digest): boolean {
    const path = this.blobPath(digest);
    if (!existsSync(path)) return false;
    // a fresh link restarts the blob's grace period: a manifest naming it is probably on its way
    const now = new Date();
    utimesSync(path, now, now);
    this.writeAtomically(this.layerLink(name, digest), '');
    return true;
  }

  /** Removes a repository's link to a blob (the content goes at the next garbage collection). */
  unlinkBlob(name: string, digest: Digest): boolean {
    const link = this.layerLink(name, digest);
    if (!existsSync(link)) return false;
    rmSync(link, { force: true });
    return true;
  }

  // ---- uploads

  startUpload(name: string): UploadInfo {
    const id = randomUUID();
    const directory = this.uploadDirectory(id);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(join(directory, 'data'), '');
    writeFileSync(join(directory, 'info.json'), JSON.stringify({ name, startedAt: new Date().toISOString() }));
    this.sessions.set(id, { hash: createHash('sha256'), hashedBytes: 0, busy: false });
    return { id, name, size: 0 };
  }

  /** The upload session, when it exists and belongs to the repository. */
  upload(name: string, id: string): UploadInfo | undefined {
    if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const directory = this.uploadDirectory(id);
    let info: unknown;
    try {
      info = JSON.parse(readFileSync(join(directory, 'info.json'), 'utf8'));
    } catch {
      return undefined;
    }
    if (!isRecord(info) || info.name !== name) return undefined;
    try {
      return { id, name, size: statSync(join(directory, 'data')).size };
    } catch {
      return undefined;
    }
  }

  /**
   * Appends a request body to an upload, streaming (never more than a chunk in memory), and
   * returns the upload's new size. When the body fails part way (the client went away, the upload
   * would pass `maxBytes`), the upload is cut back to where it was, so it can be resumed.
   */
  async appendToUpload(upload: UploadInfo, source: Readable, maxBytes: number): Promise<number> {
    const session = this.session(upload);
    if (session.busy) throw new UploadBusy('another request is writing to this upload');
    session.busy = true;
    const dataPath = join(this.uploadDirectory(upload.id), 'data');
    const start = statSync(dataPath).size;
    const hashBefore = session.hashedBytes === start ? session.hash.copy() : undefined;
    let size = start;
    // every write is awaited, so none is in flight when a failure cuts the file back
    const file = await open(dataPath, 'a');
    try {
      for await (const chunk of source) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > maxBytes) throw new UploadTooLarge(`the upload would exceed the registry's limit of ${maxBytes} bytes`);
        await file.write(bytes);
        if (session.hashedBytes === size - bytes.length) {
          session.hash.update(bytes);
          session.hashedBytes = size;
        }
      }
      await file.close();
      return size;
    } catch (error) {
      await file.close().catch(() => undefined);
      truncateSync(dataPath, start);
      if (hashBefore) {
        session.hash = hashBefore;
        session.hashedBytes = start;
      } else {
        session.hashedBytes = -1;
      }
      // a source that failed is not read again: the client is gone or over the limit
      if (!source.destroyed) source.destroy();
      throw error;
    } finally {
      session.busy = false;
    }
  }

  /**
   * Ends an upload: when its bytes have the digest, they become the blob (renamed into place) and
   * the repository links it. On a mismatch the upload is removed and DigestMismatch thrown.
   */
  async completeUpload(upload: UploadInfo, digest: Digest): Promise<number> {
    const session = this.session(upload);
    if (session.busy) throw new UploadBusy('another request is writing to this upload');
    const directory = this.uploadDirectory(upload.id);
    const dataPath = join(directory, 'data');
    const size = statSync(dataPath).size;
    session.busy = true;
    let actual: string;
    try {
      actual = digest.algorithm === 'sha256' && session.hashedBytes === size ? session.hash.copy().digest('hex') : await hashFile(dataPath, digest.algorithm);
    } finally {
      session.busy = false;
    }
    if (actual !== digest.encoded) {
      this.cancelUpload(upload.id);
      throw new DigestMismatch(`the uploaded content has digest ${digest.algorithm}:${actual}, not ${digest.text}`);
    }
    const blobPath = this.blobPath(digest);
    if (existsSync(blobPath)) {
      const now = new Date();
      utimesSync(blobPath, now, now);
    } else {
      mkdirSync(dirname(blobPath), { recursive: true, mode: 0o700 });
      renameSync(dataPath, blobPath);
    }
    this.cancelUpload(upload.id);
    this.writeAtomically(this.layerLink(upload.name, digest), '');
    return size;
  }

  cancelUpload(id: string): void {
    this.sessions.delete(id);
    rmSync(this.uploadDirectory(id), { recursive: true, force: true });
  }

  /** Uploads written to within the grace period (or being written now). */
  activeUploads(graceMs = DEFAULT_GC_GRACE_MS, now = Date.now()): number {
    let active = 0;
    for (const id of listDirectory(join(this.root, 'uploads'))) {
      const session = this.sessions.get(id);
      if (session?.busy) active++;
      else if (withinGrace(modifiedAt(join(this.uploadDirectory(id), 'data')), graceMs, now)) active++;
    }
    return active;
  }

  // ---- manifests and tags

  /**
   * Stores a manifest the caller parsed and checked, and points the tag at it. Its blobs are linked
   * into the repository (they are in the store: the caller checked).
   */
  putManifest(name: string, digest: Digest, body: Buffer, manifest: ParsedManifest, tag?: string): void {
    const blobPath = this.blobPath(digest);
    if (!existsSync(blobPath)) this.writeAtomically(blobPath, body);
    for (const blob of manifest.blobs) this.writeAtomically(this.layerLink(name, blob.digest), '');
    this.writeAtomically(this.manifestLink(name, digest), manifest.mediaType);
    if (tag !== undefined) this.writeAtomically(this.tagPath(name, tag), digest.text);
  }

  /** The manifest a tag or digest names in the repository. */
  manifest(name: string, reference: string): StoredManifest | undefined {
    const digest = isTag(reference) ? this.tagDigest(name, reference) : parseDigest(reference);
    if (digest === undefined || digest === 'unsupported') return undefined;
    let mediaType: string;
    try {
      mediaType = readFileSync(this.manifestLink(name, digest), 'utf8');
    } catch {
      return undefined;
    }
    const size = this.blobSize(digest);
    if (size === undefined) return undefined;
    return { digest, mediaType, size, path: this.blobPath(digest) };
  }

  /** Whether the repository holds a manifest with this digest. */
  hasManifest(name: string, digest: Digest): boolean {
    return existsSync(this.manifestLink(name, digest)) && existsSync(this.blobPath(digest));
  }

  /** Removes a manifest from a repository, and every tag that names it. */
  deleteManifest(name: string, digest: Digest): boolean {
    const link = this.manifestLink(name, digest);
    if (!existsSync(link)) return false;
    for (const tag of this.tags(name) ?? []) {
      if (this.tagDigest(name, tag)?.text === digest.text) rmSync(this.tagPath(name, tag), { force: true });
    }
    rmSync(link, { force: true });
    return true;
  }

  deleteTag(name: string, tag: string): boolean {
    const path = this.tagPath(name, tag);
    if (!existsSync(path)) return false;
    rmSync(path, { force: true });
    return true;
  }

  /** The repository's tags in lexical order, or undefined when the repository does not exist. */
  tags(name: string): string[] | undefined {
    if (!this.repositoryExists(name)) return undefined;
    return listDirectory(join(this.repositoryDirectory(name), '_tags'))
      .filter((tag) => isTag(tag))
      .sort(compareCodeUnits);
  }

  /** Every repository holding at least one manifest, in lexical order. */
  repositories(): string[] {
    const found: string[] = [];
    const walk = (directory: string, prefix: string) => {
      for (const entry of listDirectory(directory)) {
        if (entry.startsWith('_')) continue;
        const name = prefix ? `${prefix}/${entry}` : entry;
        const path = join(directory, entry);
        if (listDirectory(join(path, '_manifests')).some((algorithm) => listDirectory(join(path, '_manifests', algorithm)).length > 0)) found.push(name);
        walk(path, name);
      }
    };
    walk(join(this.root, 'repositories'), '');
    return found.filter((name) => isRepositoryName(name)).sort(compareCodeUnits);
  }

  /** What the registry holds, per repository: tags with their digests and sizes (the Images page reads this). */
  summaries(): RepositorySummary[] {
    return this.repositories().map((name) => {
      const manifests = this.manifestDigests(name);
      const tags: TagSummary[] = [];
      for (const tag of this.tags(name) ?? []) {
        const stored = this.manifest(name, tag);
        if (!stored) continue;
        const summary: TagSummary = { tag, digest: stored.digest.text, mediaType: stored.mediaType, size: this.contentSize([stored.digest]) };
        const artifactType = this.readManifest(stored.digest)?.artifactType;
        if (artifactType !== undefined) summary.artifactType = artifactType;
        tags.push(summary);
      }
      const tagged = new Set(tags.map((tag) => tag.digest));
      return { name, tags, untaggedManifests: manifests.filter((digest) => !tagged.has(digest.text)).length, size: this.contentSize(manifests) };
    });
  }

  /**
   * OCI 1.1 referrers: the repository's manifests whose `subject` is the digest, as index
   * descriptors (with their artifactType and annotations), optionally of one artifact type.
   */
  referrers(name: string, subject: Digest, artifactType?: string): ReferrerDescriptor[] {
    const found: ReferrerDescriptor[] = [];
    for (const digest of this.manifestDigests(name)) {
      const manifest = this.readManifest(digest);
      if (manifest?.subject?.digest.text !== subject.text) continue;
      if (artifactType !== undefined && manifest.artifactType !== artifactType) continue;
      const mediaType = this.manifest(name, digest.text)?.mediaType ?? manifest.mediaType;
      const descriptor: ReferrerDescriptor = { mediaType, digest: digest.text, size: this.blobSize(digest) ?? 0 };
      if (manifest.artifactType !== undefined) descriptor.artifactType = manifest.artifactType;
      if (manifest.annotations !== undefined) descriptor.annotations = manifest.annotations;
      found.push(descriptor);
    }
    return found.sort((left, right) => compareCodeUnits(left.digest, right.digest));
  }

  // ---- garbage collection

  /**
   * Mark and sweep: removes blobs no manifest names (older than `graceMs`), repository links to
   * blobs that are gone or unreferenced, empty repositories and abandoned uploads.
   */
  collectGarbage(options: { graceMs?: number; now?: number } = {}): GarbageCollectionResult {
    const graceMs = options.graceMs ?? DEFAULT_GC_GRACE_MS;
    const now = options.now ?? Date.now();
    const marked = new Set<string>();
    const referencedByRepository = new Map<string, Set<string>>();
    for (const name of this.repositoryDirectories()) {
      const referenced = new Set<string>();
      for (const digest of this.manifestDigests(name)) this.mark(digest, referenced);
      referencedByRepository.set(name, referenced);
      for (const digest of referenced) marked.add(digest);
    }
    let removedBlobs = 0;
    let freedBytes = 0;
    for (const algorithm of listDirectory(join(this.root, 'blobs'))) {
      for (const encoded of listDirectory(join(this.root, 'blobs', algorithm))) {
        if (marked.has(`${algorithm}:${encoded}`)) continue;
        const path = join(this.root, 'blobs', algorithm, encoded);
        let stats;
        try {
          stats = statSync(path);
        } catch {
          continue;
        }
        if (withinGrace(stats.mtimeMs, graceMs, now)) continue;
        rmSync(path, { force: true });
        removedBlobs++;
        freedBytes += stats.size;
      }
    }
    for (const [name, referenced] of referencedByRepository) {
      const directory = this.repositoryDirectory(name);
      for (const algorithm of listDirectory(join(directory, '_layers'))) {
        for (const encoded of listDirectory(join(directory, '_layers', algorithm))) {
          const text = `${algorithm}:${encoded}`;
          const link = join(directory, '_layers', algorithm, encoded);
          const blob = join(this.root, 'blobs', algorithm, encoded);
          if (!existsSync(blob) || (!referenced.has(text) && !withinGrace(modifiedAt(link), graceMs, now))) rmSync(link, { force: true });
        }
      }
      this.removeIfEmpty(name);
    }
    let removedUploads = 0;
    for (const id of listDirectory(join(this.root, 'uploads'))) {
      if (this.sessions.get(id)?.busy) continue;
      if (now - modifiedAt(join(this.uploadDirectory(id), 'data')) >= STALE_UPLOAD_MS || !existsSync(join(this.uploadDirectory(id), 'info.json'))) {
        this.cancelUpload(id);
        removedUploads++;
      }
    }
    return { removedBlobs, freedBytes, removedUploads };
  }

  // ---- helpers

  private mark(digest: Digest, marked: Set<string>): void {
    if (marked.has(digest.text)) return;
    marked.add(digest.text);
    const manifest = this.readManifest(digest);
    if (!manifest) return;
    for (const blob of manifest.blobs) marked.add(blob.digest.text);
    for (const child of manifest.manifests) this.mark(child.digest, marked);
  }

  private readManifest(digest: Digest): ParsedManifest | undefined {
    try {
      return parseManifest(readFileSync(this.blobPath(digest)), undefined);
    } catch {
      return undefined;
    }
  }

  /** Bytes of the distinct manifests and blobs these manifests name, their children's included. */
  private contentSize(digests: Digest[]): number {
    const seen = new Set<string>();
    let size = 0;
    const visit = (digest: Digest) => {
      if (seen.has(digest.text)) return;
      seen.add(digest.text);
      size += this.blobSize(digest) ?? 0;
      const manifest = this.readManifest(digest);
      if (!manifest) return;
      for (const blob of manifest.blobs) {
        if (seen.has(blob.digest.text)) continue;
        seen.add(blob.digest.text);
        size += blob.size;
      }
      // non-distributable layers count too: a pull downloads them from elsewhere
      size += imageSize(manifest) - manifest.blobs.reduce((sum, blob) => sum + blob.size, 0);
      for (const child of manifest.manifests) visit(child.digest);
    };
    for (const digest of digests) visit(digest);
    return size;
  }

  private manifestDigests(name: string): Digest[] {
    const digests: Digest[] = [];
    const directory = join(this.repositoryDirectory(name), '_manifests');
    for (const algorithm of listDirectory(directory)) {
      for (const encoded of listDirectory(join(directory, algorithm))) {
        const digest = parseDigest(`${algorithm}:${encoded}`);
        if (digest && digest !== 'unsupported') digests.push(digest);
      }
    }
    return digests;
  }

  /** Every repository directory, with or without manifests. */
  private repositoryDirectories(): string[] {
    const found: string[] = [];
    const walk = (directory: string, prefix: string) => {
      for (const entry of listDirectory(directory)) {
        if (entry.startsWith('_')) continue;
        const name = prefix ? `${prefix}/${entry}` : entry;
        const path = join(directory, entry);
        if (['_manifests', '_layers', '_tags'].some((part) => existsSync(join(path, part)))) found.push(name);
        walk(path, name);
      }
    };
    walk(join(this.root, 'repositories'), '');
    return found;
  }

  private repositoryExists(name: string): boolean {
    const directory = this.repositoryDirectory(name);
    return existsSync(join(directory, '_manifests')) || existsSync(join(directory, '_tags'));
  }

  /** Removes a repository with no manifests, tags or layers left, and its empty parents. */
  private removeIfEmpty(name: string): void {
    const directory = this.repositoryDirectory(name);
    const parts = ['_manifests', '_layers'];
    for (const part of parts) {
      for (const algorithm of listDirectory(join(directory, part))) {
        if (listDirectory(join(directory, part, algorithm)).length === 0) rmSync(join(directory, part, algorithm), { recursive: true, force: true });
      }
      if (listDirectory(join(directory, part)).length === 0) rmSync(join(directory, part), { recursive: true, force: true });
    }
    if (listDirectory(join(directory, '_tags')).length === 0) rmSync(join(directory, '_tags'), { recursive: true, force: true });
    let current = directory;
    const top = join(this.root, 'repositories');
    while (current !== top && listDirectory(current).length === 0) {
      rmSync(current, { recursive: true, force: true });
      current = dirname(current);
    }
  }

  private tagDigest(name: string, tag: string): Digest | undefined {
    let text: string;
    try {
      text = readFileSync(this.tagPath(name, tag), 'utf8').trim();
    } catch {
      return undefined;
    }
    const digest = parseDigest(text);
    return digest === 'unsupported' ? undefined : digest;
  }

  /** Writes a file whole or not at all: a temporary file in <root>/tmp, then a rename. */
  private writeAtomically(path: string, content: string | Buffer): void {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = join(this.root, 'tmp', randomUUID());
    writeFileSync(temporary, content);
    renameSync(temporary, path);
  }

  private session(upload: UploadInfo): UploadSession {
    let session = this.sessions.get(upload.id);
    if (!session) {
      // an upload begun before a restart: its hash is recomputed from the file when it completes
      session = { hash: createHash('sha256'), hashedBytes: upload.size === 0 ? 0 : -1, busy: false };
      this.sessions.set(upload.id, session);
    }
    return session;
  }

  private uploadDirectory(id: string): string {
    return join(this.root, 'uploads', id);
  }

  private repositoryDirectory(name: string): string {
    return join(this.root, 'repositories', ...name.split('/'));
  }

  private layerLink(name: string, digest: Digest): string {
    return join(this.repositoryDirectory(name), '_layers', digest.algorithm, digest.encoded);
  }

  private manifestLink(name: string, digest: Digest): string {
    return join(this.repositoryDirectory(name), '_manifests', digest.algorithm, digest.encoded);
  }

  private tagPath(name: string, tag: string): string {
    return join(this.repositoryDirectory(name), '_tags', tag);
  }
}

function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

/** Whether a file modified at `modifiedMs` is younger than the grace period (none when it is 0: file times may run a little ahead of Date.now()). */
function withinGrace(modifiedMs: number, graceMs: number, now: number): boolean {
  return graceMs > 0 && now - modifiedMs < graceMs;
}

function modifiedAt(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}


async function hashFile(path: string, algorithm: DigestAlgorithm): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Lexical order by code units, as Go's sort.Strings orders tags and repositories. */
function compareCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
