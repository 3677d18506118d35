// The image registry's HTTP API: the OCI distribution spec's push, pull, content discovery and
// content management endpoints (opencontainers/distribution-spec spec.md, "Endpoints" table), with
// the headers and error bodies Docker's registry (distribution/distribution docs/spec/api.md)
// sends, which docker, containerd, helm, ko, crane and skopeo rely on:
//
//   GET    /v2/                                         200, API version check (and login)
//   GET    /v2/_catalog?n=&last=                        repositories, paginated with a Link header
//   GET    /v2/<name>/tags/list?n=&last=                tags, paginated with a Link header
//   GET    /v2/<name>/manifests/<reference>             HEAD too; by tag or digest
//   PUT    /v2/<name>/manifests/<reference>             201; every blob it names must be present
//   DELETE /v2/<name>/manifests/<reference>             202; a digest removes it and its tags, a tag just the tag
//   GET    /v2/<name>/blobs/<digest>                    HEAD too; Range → 206
//   DELETE /v2/<name>/blobs/<digest>                    202
//   POST   /v2/<name>/blobs/uploads/[?digest=|?mount=&from=]   202 session, 201 monolithic or mounted
//   GET    /v2/<name>/blobs/uploads/<id>                204 with the Range received
//   PATCH  /v2/<name>/blobs/uploads/<id>                202; a chunk (Content-Range start must follow on)
//   PUT    /v2/<name>/blobs/uploads/<id>?digest=        201; last chunk optional; the digest is checked
//   DELETE /v2/<name>/blobs/uploads/<id>                204; cancels
//   GET    /v2/<name>/referrers/<digest>[?artifactType=]   OCI 1.1: an index of the manifests whose subject it is
//
// kubedesk's own, under a name no repository can have (components never start with `_`):
//   GET    /v2/_kubedesk/repositories                   every repository's tags, digests and sizes
//   POST   /v2/_kubedesk/garbage-collection             collects unreferenced blobs now
//
// Bodies stream to disk; nothing is allocated from a Content-Length. Errors are
// {"errors":[{"code","message","detail"}]} with the spec's codes. With a token, every request
// needs it (HTTP Basic with any user name and the token as password, as `docker login` sends, or
// Bearer), else 401 with a Basic challenge.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { isRecord } from '../../shared/kubernetes/types';
import { ManifestError, OCI_INDEX, parseManifest } from './manifests';
import { isRepositoryName, isTag, looksLikeDigest, parseDigest, type Digest } from './references';
import { DigestMismatch, RegistryStorage, UploadBusy, UploadTooLarge, type UploadInfo } from './registryStorage';

/** The largest blob upload accepted: far above any real layer, far below a bogus Content-Length. */
export const DEFAULT_MAX_BLOB_BYTES = 64 * 1024 ** 3;
/** distribution-spec: registries SHOULD accept manifests of at least 4 MiB. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
const MAX_PAGE = 10_000;
const API_VERSION_HEADER = { 'Docker-Distribution-API-Version': 'registry/2.0' };

export type ErrorCode =
  | 'BLOB_UNKNOWN'
  | 'BLOB_UPLOAD_INVALID'
  | 'BLOB_UPLOAD_UNKNOWN'
  | 'DIGEST_INVALID'
  | 'MANIFEST_BLOB_UNKNOWN'
  | 'MANIFEST_INVALID'
  | 'MANIFEST_UNKNOWN'
  | 'NAME_INVALID'
  | 'NAME_UNKNOWN'
  | 'SIZE_INVALID'
  | 'TAG_INVALID'
  | 'UNAUTHORIZED'
  | 'DENIED'
  | 'UNSUPPORTED'
  | 'RANGE_INVALID'
  | 'PAGINATION_NUMBER_INVALID';

export class RegistryError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly detail?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface RegistryServerOptions {
  storage: RegistryStorage;
  /** when set, every request must carry it (Basic password or Bearer token) */
  token?: string;
  maxBlobBytes?: number;
  /** how soon after a delete unreferenced blobs are collected (default 2 s); tests pass 0 */
  garbageCollectionDelayMs?: number;
  /** blobs younger than this survive collection (default DEFAULT_GC_GRACE_MS) */
  garbageCollectionGraceMs?: number;
  onError?: (error: unknown) => void;
}

type Reply = { status: number; headers?: Record<string, string>; body?: Buffer | Readable | string };

interface Route {
  kind: 'base' | 'catalog' | 'tags' | 'manifest' | 'blob' | 'uploads' | 'upload' | 'referrers' | 'summaries' | 'gc';
  name: string;
  /** manifest reference, blob digest or upload id */
  reference: string;
}

export class RegistryServer {
  private readonly server: Server;
  private readonly storage: RegistryStorage;
  private readonly maxBlobBytes: number;
  private readonly extraServers: Server[] = [];
  private gcTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: RegistryServerOptions) {
    this.storage = options.storage;
    this.maxBlobBytes = options.maxBlobBytes ?? DEFAULT_MAX_BLOB_BYTES;
    this.server = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 65_000 }, (request, response) => this.serve(request, response, true));
    this.server.on('clientError', answerClientError);
  }

  /**
   * Listens on 127.0.0.1 and, when the machine has it, on ::1 at the same port, so `localhost`
   * reaches this registry whichever address a client tries first. Rejects (EADDRINUSE) when either
   * address has the port taken; port 0 picks one free on both.
   */
  async listen(port: number): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const bound = await listenOn(this.server, port, '127.0.0.1');
      const v6 = createServer({ requestTimeout: 0, headersTimeout: 60_000, keepAliveTimeout: 65_000 }, (request, response) => this.serve(request, response, true));
      v6.on('clientError', answerClientError);
      try {
        await listenOn(v6, bound, '::1');
        this.extraServers.push(v6);
        return bound;
      } catch (error) {
        const code = isRecord(error) ? error.code : undefined;
        // no IPv6 loopback on this machine: 127.0.0.1 alone
        if (code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT') return bound;
        await new Promise<void>((resolve) => this.server.close(() => resolve()));
        if (port !== 0 || attempt >= 5) throw error;
      }
    }
  }

  port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * The registry's API served inside another server (the API server's `/registry/v2/…`), for the
   * web UI: the caller has authenticated and authorized the request, so no token is asked.
   */
  serveMounted(prefix: string, request: IncomingMessage, response: ServerResponse): boolean {
    const url = request.url ?? '/';
    if (!url.startsWith(`${prefix}/v2/`) && url !== `${prefix}/v2`) return false;
    request.url = url.slice(prefix.length);
    this.serve(request, response, false);
    return true;
  }

  /** Collects unreferenced blobs now (on demand), unless an upload is in progress. */
  collectGarbage(): ReturnType<RegistryStorage['collectGarbage']> | 'uploads-in-progress' {
    if (this.storage.activeUploads(this.options.garbageCollectionGraceMs) > 0) return 'uploads-in-progress';
    return this.storage.collectGarbage({ graceMs: this.options.garbageCollectionGraceMs });
  }

  /** Collects garbage soon (after deletes), waiting while uploads are in progress. */
  scheduleGarbageCollection(delayMs = this.options.garbageCollectionDelayMs ?? 2_000): void {
    if (this.closed || this.gcTimer) return;
    this.gcTimer = setTimeout(() => {
      this.gcTimer = undefined;
      try {
        if (this.collectGarbage() === 'uploads-in-progress') this.scheduleGarbageCollection(30_000);
      } catch (error) {
        this.options.onError?.(error);
      }
    }, delayMs);
    this.gcTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.gcTimer) clearTimeout(this.gcTimer);
    for (const server of [this.server, ...this.extraServers]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private serve(request: IncomingMessage, response: ServerResponse, checkToken: boolean): void {
    this.handle(request, checkToken).then(
      (reply) => send(request, response, reply),
      (error: unknown) => {
        if (!(error instanceof RegistryError)) this.options.onError?.(error);
        send(request, response, errorReply(error));
      },
    );
  }

  private async handle(request: IncomingMessage, direct: boolean): Promise<Reply> {
    // A web page must not reach the registry through the user's browser: not by a name that
    // resolves to loopback (DNS rebinding: the Host is then the page's), nor by a form post
    // (the Origin is the page's). Docker, helm and the other clients send neither.
    if (direct && (!isLoopbackHost(headerValue(request.headers.host)) || (request.headers.origin !== undefined && !isLoopbackOrigin(headerValue(request.headers.origin))))) {
      throw new RegistryError(403, 'DENIED', 'requests must name a loopback host and come from no web page', { host: request.headers.host ?? '', origin: request.headers.origin ?? '' });
    }
    if (direct && this.options.token !== undefined && !authorized(request.headers.authorization, this.options.token)) {
      throw new RegistryError(401, 'UNAUTHORIZED', 'authentication required', undefined, { 'WWW-Authenticate': 'Basic realm="kubedesk registry"' });
    }
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = request.method ?? 'GET';
    const route = routeOf(url.pathname);
    if (!route) throw new RegistryError(404, 'NAME_UNKNOWN', 'no such endpoint');
    if (route.name !== '' && !isRepositoryName(route.name)) throw new RegistryError(400, 'NAME_INVALID', 'invalid repository name', { name: route.name });
    const query = url.searchParams;
    switch (route.kind) {
      case 'base':
        return only(method, ['GET', 'HEAD'], () => json(200, {}));
      case 'catalog':
        return only(method, ['GET'], () => {
          const page = paginate(this.storage.repositories(), query);
          return withLink(json(200, { repositories: page.items }), page.next && `/v2/_catalog?n=${page.n}&last=${encodeURIComponent(page.next)}`);
        });
      case 'tags':
        return only(method, ['GET'], () => {
          const tags = this.storage.tags(route.name);
          if (!tags) throw new RegistryError(404, 'NAME_UNKNOWN', 'repository name not known to registry', { name: route.name });
          const page = paginate(tags, query);
          return withLink(json(200, { name: route.name, tags: page.items }), page.next && `/v2/${route.name}/tags/list?n=${page.n}&last=${encodeURIComponent(page.next)}`);
        });
      case 'summaries':
        return only(method, ['GET'], () => json(200, { repositories: this.storage.summaries() }));
      case 'gc':
        return only(method, ['POST'], () => {
          const result = this.collectGarbage();
          if (result === 'uploads-in-progress') return json(409, { status: 'uploads-in-progress' });
          return json(200, result);
        });
      case 'manifest':
        if (method === 'GET' || method === 'HEAD') return this.getManifest(route, method === 'HEAD');
        if (method === 'PUT') return this.putManifest(route, request);
        if (method === 'DELETE') return this.deleteManifest(route);
        return unsupported(method);
      case 'blob':
        if (method === 'GET' || method === 'HEAD') return this.getBlob(route, request, method === 'HEAD');
        if (method === 'DELETE') return this.deleteBlob(route);
        return unsupported(method);
      case 'uploads':
        return only(method, ['POST'], () => this.startUpload(route, request, query));
      case 'referrers':
        return only(method, ['GET'], () => {
          const subject = digestParameter(route.reference);
          const artifactType = query.get('artifactType') ?? undefined;
          const reply: Reply = { status: 200, headers: { 'Content-Type': OCI_INDEX }, body: JSON.stringify({ schemaVersion: 2, mediaType: OCI_INDEX, manifests: this.storage.referrers(route.name, subject, artifactType) }) };
          if (artifactType !== undefined) reply.headers = { ...reply.headers, 'OCI-Filters-Applied': 'artifactType' };
          return reply;
        });
      case 'upload':
        return this.upload(route, request, method, query);
    }
  }

  // ---- manifests

  private getManifest(route: Route, head: boolean): Reply {
    const manifest = this.storage.manifest(route.name, route.reference);
    if (!manifest) throw new RegistryError(404, 'MANIFEST_UNKNOWN', 'manifest unknown', { name: route.name, reference: route.reference });
    return {
      status: 200,
      headers: { 'Content-Type': manifest.mediaType, 'Content-Length': String(manifest.size), 'Docker-Content-Digest': manifest.digest.text, ETag: `"${manifest.digest.text}"` },
      body: head ? undefined : createReadStream(manifest.path),
    };
  }

  private async putManifest(route: Route, request: IncomingMessage): Promise<Reply> {
    const { name, reference } = route;
    let tag: string | undefined;
    let named: Digest | undefined;
    if (looksLikeDigest(reference)) {
      const digest = parseDigest(reference);
      if (digest === undefined || digest === 'unsupported') throw new RegistryError(400, 'DIGEST_INVALID', 'invalid or unsupported digest', { digest: reference });
      named = digest;
    } else if (isTag(reference)) {
      tag = reference;
    } else {
      throw new RegistryError(400, 'TAG_INVALID', 'invalid tag', { tag: reference });
    }
    if (declaredLength(request) > MAX_MANIFEST_BYTES) throw new RegistryError(413, 'SIZE_INVALID', `manifests are limited to ${MAX_MANIFEST_BYTES} bytes`);
    const body = await readLimited(request, MAX_MANIFEST_BYTES);
    let manifest;
    try {
      manifest = parseManifest(body, headerValue(request.headers['content-type']));
    } catch (error) {
      if (error instanceof ManifestError) throw new RegistryError(400, 'MANIFEST_INVALID', 'manifest invalid', { reason: error.message });
      throw error;
    }
    const algorithm = named?.algorithm ?? 'sha256';
    const encoded = createHash(algorithm).update(body).digest('hex');
    const digest: Digest = { algorithm, encoded, text: `${algorithm}:${encoded}` };
    if (named && named.encoded !== encoded) throw new RegistryError(400, 'DIGEST_INVALID', 'the manifest does not have the digest in the URL', { digest: named.text, actual: digest.text });
    for (const blob of manifest.blobs) {
      const size = this.storage.blobSize(blob.digest);
      if (size === undefined) throw new RegistryError(400, 'MANIFEST_BLOB_UNKNOWN', 'blob unknown to registry', { digest: blob.digest.text });
      if (size !== blob.size) throw new RegistryError(400, 'MANIFEST_INVALID', 'manifest invalid', { reason: `${blob.digest.text} has ${size} bytes, not the ${blob.size} the manifest says` });
    }
    for (const child of manifest.manifests) {
      if (!this.storage.hasManifest(name, child.digest)) throw new RegistryError(400, 'MANIFEST_BLOB_UNKNOWN', 'manifest unknown to the repository', { digest: child.digest.text });
    }
    this.storage.putManifest(name, digest, body, manifest, tag);
    const headers: Record<string, string> = { Location: `/v2/${name}/manifests/${digest.text}`, 'Docker-Content-Digest': digest.text, 'Content-Length': '0' };
    // the referrers API is served, so clients need not keep a referrers tag themselves
    if (manifest.subject) headers['OCI-Subject'] = manifest.subject.digest.text;
    return { status: 201, headers };
  }

  private deleteManifest(route: Route): Reply {
    const { name, reference } = route;
    let removed: boolean;
    if (looksLikeDigest(reference)) {
      const digest = parseDigest(reference);
      if (digest === undefined || digest === 'unsupported') throw new RegistryError(400, 'DIGEST_INVALID', 'invalid or unsupported digest', { digest: reference });
      removed = this.storage.deleteManifest(name, digest);
    } else {
      removed = isTag(reference) && this.storage.deleteTag(name, reference);
    }
    if (!removed) throw new RegistryError(404, 'MANIFEST_UNKNOWN', 'manifest unknown', { name, reference });
    this.scheduleGarbageCollection();
    return { status: 202, headers: { 'Content-Length': '0' } };
  }

  // ---- blobs

  private getBlob(route: Route, request: IncomingMessage, head: boolean): Reply {
    const digest = digestParameter(route.reference);
    const size = this.storage.repositoryBlobSize(route.name, digest);
    if (size === undefined) throw new RegistryError(404, 'BLOB_UNKNOWN', 'blob unknown to registry', { digest: digest.text });
    const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream', 'Docker-Content-Digest': digest.text, ETag: `"${digest.text}"`, 'Accept-Ranges': 'bytes', 'Cache-Control': 'max-age=31536000' };
    const range = byteRange(headerValue(request.headers.range), size);
    if (range === 'unsatisfiable') throw new RegistryError(416, 'RANGE_INVALID', 'requested range not satisfiable', undefined, { 'Content-Range': `bytes */${size}` });
    if (range) {
      headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
      headers['Content-Length'] = String(range.end - range.start + 1);
      return { status: 206, headers, body: head ? undefined : createReadStream(this.storage.blobPath(digest), { start: range.start, end: range.end }) };
    }
    headers['Content-Length'] = String(size);
    return { status: 200, headers, body: head || size === 0 ? undefined : createReadStream(this.storage.blobPath(digest)) };
  }

  private deleteBlob(route: Route): Reply {
    const digest = digestParameter(route.reference);
    if (!this.storage.unlinkBlob(route.name, digest)) throw new RegistryError(404, 'BLOB_UNKNOWN', 'blob unknown to registry', { digest: digest.text });
    this.scheduleGarbageCollection();
    return { status: 202, headers: { 'Content-Length': '0', 'Docker-Content-Digest': digest.text } };
  }

  // ---- uploads

  private async startUpload(route: Route, request: IncomingMessage, query: URLSearchParams): Promise<Reply> {
    const { name } = route;
    const mount = query.get('mount');
    if (mount !== null) {
      const digest = digestParameter(mount);
      const from = query.get('from');
      if (from !== null && !isRepositoryName(from)) throw new RegistryError(400, 'NAME_INVALID', 'invalid repository name', { name: from });
      const mountable = from === null ? this.storage.blobSize(digest) !== undefined : this.storage.repositoryBlobSize(from, digest) !== undefined;
      if (mountable && this.storage.linkBlob(name, digest)) {
        request.resume();
        return { status: 201, headers: { Location: `/v2/${name}/blobs/${digest.text}`, 'Docker-Content-Digest': digest.text, 'Content-Length': '0' } };
      }
      // not mountable: an ordinary upload session, as the spec lets a registry answer
    }
    const digestText = query.get('digest');
    if (digestText !== null) {
      const digest = digestParameter(digestText);
      this.checkLength(request);
      const upload = this.storage.startUpload(name);
      try {
        await this.storage.appendToUpload(upload, request, this.maxBlobBytes);
        await this.storage.completeUpload(upload, digest);
      } catch (error) {
        this.storage.cancelUpload(upload.id);
        throw uploadError(error);
      }
      return { status: 201, headers: { Location: `/v2/${name}/blobs/${digest.text}`, 'Docker-Content-Digest': digest.text, 'Content-Length': '0' } };
    }
    request.resume();
    return uploadReply(202, this.storage.startUpload(name));
  }

  private async upload(route: Route, request: IncomingMessage, method: string, query: URLSearchParams): Promise<Reply> {
    const upload = this.storage.upload(route.name, route.reference);
    if (!upload) throw new RegistryError(404, 'BLOB_UPLOAD_UNKNOWN', 'blob upload unknown to registry', { uuid: route.reference });
    switch (method) {
      case 'GET':
        return uploadReply(204, upload);
      case 'DELETE':
        this.storage.cancelUpload(upload.id);
        return { status: 204 };
      case 'PATCH': {
        this.checkChunk(request, upload);
        const size = await this.append(upload, request);
        return uploadReply(202, { ...upload, size });
      }
      case 'PUT': {
        const digestText = query.get('digest');
        if (digestText === null) throw new RegistryError(400, 'DIGEST_INVALID', 'the digest query parameter is required');
        const digest = digestParameter(digestText);
        if (hasBody(request)) {
          this.checkChunk(request, upload);
          await this.append(upload, request);
        } else {
          request.resume();
        }
        try {
          await this.storage.completeUpload(upload, digest);
        } catch (error) {
          throw uploadError(error);
        }
        return { status: 201, headers: { Location: `/v2/${route.name}/blobs/${digest.text}`, 'Docker-Content-Digest': digest.text, 'Content-Length': '0' } };
      }
      default:
        return unsupported(method);
    }
  }

  private async append(upload: UploadInfo, request: IncomingMessage): Promise<number> {
    try {
      return await this.storage.appendToUpload(upload, request, this.maxBlobBytes);
    } catch (error) {
      throw uploadError(error);
    }
  }

  private checkLength(request: IncomingMessage): void {
    if (declaredLength(request) > this.maxBlobBytes) throw new RegistryError(413, 'SIZE_INVALID', `blobs are limited to ${this.maxBlobBytes} bytes`, { limit: this.maxBlobBytes });
  }

  /** A chunk's Content-Range (`start-end`) must begin where the upload ends, and agree with Content-Length. */
  private checkChunk(request: IncomingMessage, upload: UploadInfo): void {
    this.checkLength(request);
    const contentRange = headerValue(request.headers['content-range']);
    if (contentRange === undefined) return;
    const match = /^(?:bytes )?(\d+)-(\d+)$/.exec(contentRange.trim());
    if (!match) throw new RegistryError(416, 'RANGE_INVALID', 'invalid Content-Range', { contentRange }, uploadHeaders(upload));
    const start = Number(match[1]);
    const end = Number(match[2]);
    if (start !== upload.size || end < start) throw new RegistryError(416, 'RANGE_INVALID', `the chunk must start at byte ${upload.size}`, { contentRange }, uploadHeaders(upload));
    const length = request.headers['content-length'];
    if (length !== undefined && Number(length) !== end - start + 1) throw new RegistryError(400, 'SIZE_INVALID', 'Content-Length does not match Content-Range', { contentRange, contentLength: length });
  }
}

// ---- routing

function routeOf(path: string): Route | undefined {
  if (path === '/v2/' || path === '/v2') return { kind: 'base', name: '', reference: '' };
  if (path === '/v2/_catalog') return { kind: 'catalog', name: '', reference: '' };
  if (path === '/v2/_kubedesk/repositories') return { kind: 'summaries', name: '', reference: '' };
  if (path === '/v2/_kubedesk/garbage-collection') return { kind: 'gc', name: '', reference: '' };
  if (!path.startsWith('/v2/')) return undefined;
  const rest = path.slice(4);
  let match = /^(.+)\/tags\/list$/.exec(rest);
  if (match) return { kind: 'tags', name: match[1], reference: '' };
  match = /^(.+)\/manifests\/([^/]+)$/.exec(rest);
  if (match) return { kind: 'manifest', name: match[1], reference: decoded(match[2]) };
  match = /^(.+)\/referrers\/([^/]+)$/.exec(rest);
  if (match) return { kind: 'referrers', name: match[1], reference: decoded(match[2]) };
  match = /^(.+)\/blobs\/uploads\/?$/.exec(rest);
  if (match) return { kind: 'uploads', name: match[1], reference: '' };
  match = /^(.+)\/blobs\/uploads\/([^/]+)$/.exec(rest);
  if (match) return { kind: 'upload', name: match[1], reference: match[2] };
  match = /^(.+)\/blobs\/([^/]+)$/.exec(rest);
  if (match) return { kind: 'blob', name: match[1], reference: decoded(match[2]) };
  return undefined;
}

// ---- helpers

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function only(method: string, allowed: string[], handler: () => Reply | Promise<Reply>): Reply | Promise<Reply> {
  if (!allowed.includes(method)) return unsupported(method);
  return handler();
}

function unsupported(method: string): never {
  throw new RegistryError(405, 'UNSUPPORTED', `the operation is unsupported: ${method}`);
}

function json(status: number, value: unknown): Reply {
  return { status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) };
}

function withLink(reply: Reply, next: string | undefined): Reply {
  if (next) reply.headers = { ...reply.headers, Link: `<${next}>; rel="next"` };
  return reply;
}

/** distribution's pagination: entries after `last`, at most `n` of them; `next` when more remain. */
function paginate(all: string[], query: URLSearchParams): { items: string[]; next?: string; n: number } {
  const nText = query.get('n');
  const last = query.get('last');
  let n = all.length;
  if (nText !== null) {
    if (!/^\d+$/.test(nText)) throw new RegistryError(400, 'PAGINATION_NUMBER_INVALID', 'invalid number of results requested', { n: nText });
    n = Math.min(Number(nText), MAX_PAGE);
  }
  const after = last === null ? all : all.filter((entry) => entry > last);
  const items = after.slice(0, n);
  const next = nText !== null && after.length > items.length && items.length > 0 ? items[items.length - 1] : undefined;
  return { items, next, n };
}

function digestParameter(text: string): Digest {
  const digest = parseDigest(text);
  if (digest === undefined || digest === 'unsupported') throw new RegistryError(400, 'DIGEST_INVALID', 'invalid or unsupported digest (sha256 or sha512)', { digest: text });
  return digest;
}

function uploadHeaders(upload: UploadInfo): Record<string, string> {
  return {
    Location: `/v2/${upload.name}/blobs/uploads/${upload.id}`,
    Range: `0-${upload.size > 0 ? upload.size - 1 : 0}`,
    'Docker-Upload-UUID': upload.id,
  };
}

function uploadReply(status: number, upload: UploadInfo): Reply {
  return { status, headers: { ...uploadHeaders(upload), 'Content-Length': '0' } };
}

function uploadError(error: unknown): unknown {
  if (error instanceof DigestMismatch) return new RegistryError(400, 'DIGEST_INVALID', 'provided digest did not match uploaded content', { reason: error.message });
  if (error instanceof UploadTooLarge) return new RegistryError(413, 'SIZE_INVALID', error.message);
  if (error instanceof UploadBusy) return new RegistryError(400, 'BLOB_UPLOAD_INVALID', error.message);
  return error;
}

function errorReply(error: unknown): Reply {
  const registryError = error instanceof RegistryError ? error : new RegistryError(500, 'BLOB_UPLOAD_INVALID', 'internal error');
  const body = { errors: [{ code: registryError.code, message: registryError.message, detail: registryError.detail ?? {} }] };
  return { status: registryError.status, headers: { ...registryError.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

function send(request: IncomingMessage, response: ServerResponse, reply: Reply): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const headers: Record<string, string> = { ...API_VERSION_HEADER, ...reply.headers };
  // a body the handler did not read (an error before it, a bogus length) is not waited for
  if (!request.complete) headers.Connection = 'close';
  const body = reply.body;
  if (typeof body === 'string') headers['Content-Length'] = String(Buffer.byteLength(body));
  else if (body === undefined && headers['Content-Length'] === undefined) headers['Content-Length'] = '0';
  response.writeHead(reply.status, headers);
  if (request.method === 'HEAD' || body === undefined) {
    if (body instanceof Readable) body.destroy();
    response.end();
  } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
    response.end(body);
  } else {
    body.on('error', () => response.destroy());
    body.pipe(response);
  }
  if (!request.complete) {
    response.on('finish', () => request.destroy());
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The declared Content-Length (0 when absent or chunked). */
function declaredLength(request: IncomingMessage): number {
  const text = request.headers['content-length'];
  if (text === undefined) return 0;
  const length = Number(text);
  return Number.isFinite(length) ? length : Number.POSITIVE_INFINITY;
}

function hasBody(request: IncomingMessage): boolean {
  return request.headers['transfer-encoding'] !== undefined || declaredLength(request) > 0;
}

async function readLimited(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RegistryError(413, 'SIZE_INVALID', `manifests are limited to ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a Host header names this machine's loopback (any port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  const lower = name.toLowerCase();
  return LOOPBACK_NAMES.has(lower) || /^127(?:\.\d{1,3}){3}$/.test(lower) || lower.endsWith('.localhost');
}

function isLoopbackOrigin(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    return isLoopbackHost(new URL(origin).host);
  } catch {
    return false;
  }
}

/** A single `bytes=` range within the size; undefined for none (or several, served whole). */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function authorized(header: string | undefined, token: string): boolean {
  if (!header) return false;
  const [scheme, credentials = ''] = header.split(' ', 2);
  let secret: string;
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    secret = decoded.slice(colon + 1);
  } else if (scheme.toLowerCase() === 'bearer') {
    secret = credentials;
  } else {
    return false;
  }
  const expected = Buffer.from(token);
  const given = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A request Node's parser refuses (a Content-Length past 2^53, malformed headers): 400 and close. */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (socket.writable && error.code !== 'ECONNRESET') {
    const code = error.code === 'HPE_INVALID_CONTENT_LENGTH' ? 'SIZE_INVALID' : 'UNSUPPORTED';
    const body = JSON.stringify({ errors: [{ code, message: 'malformed request', detail: { reason: error.code ?? error.message } }] });
    socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

async function listenOn(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
