// The snapshot API (snapshots.kubedesk.dev/v1), kubedesk's own, served as virtual resources of the
// one API server (as history.kubedesk.dev is) from Snapshots (./snapshots.ts). Cluster-scoped
// resource `snapshots`, kind Snapshot:
//
//   GET    /apis/snapshots.kubedesk.dev/v1/snapshots                 list (Table for kubectl get)
//   GET    /apis/snapshots.kubedesk.dev/v1/snapshots/NAME            one snapshot
//   POST   /apis/snapshots.kubedesk.dev/v1/snapshots                 save: body {"metadata":{"name":NAME}} → 201
//   DELETE /apis/snapshots.kubedesk.dev/v1/snapshots/NAME            delete → Status Success
//   POST   /apis/snapshots.kubedesk.dev/v1/snapshots/NAME/restore    restore (?ignoreMissingImages=true to
//                                                                    restore although images are missing)
//                                                                    → SnapshotRestore {created, updated,
//                                                                    replaced, deleted, resourceVersion}
//                                                                    (?dryRun=All: the plan only, changing
//                                                                    nothing → SnapshotRestore whose status
//                                                                    lists the objects of each change and
//                                                                    the missing images)
//   GET    /apis/snapshots.kubedesk.dev/v1/snapshots/NAME/export     the snapshot file (application/octet-stream)
//   POST   /apis/snapshots.kubedesk.dev/v1/snapshots/NAME/import     body: a snapshot file → 201 Snapshot
//
// Authorisation: RBAC on the request as for any resource (verbs list/get/create/delete on
// `snapshots`, create on `snapshots/restore` and `snapshots/import`, get on `snapshots/export`),
// and, because a snapshot holds every Secret and a restore rewrites every object, saving,
// restoring, deleting, exporting and importing also need cluster-admin's power: `*` verbs on `*`
// resources in `*` groups (asked of the authorizer as such). Listing and reading a snapshot's
// manifest need only RBAC on `snapshots`.
import { createWriteStream, rmSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { TableDef } from '../../../shared/printers/table';
import { column, cellText } from '../../../shared/printers/columns';
import { formatBytes } from '../../../shared/printers/bytes';
import { translateTimestampSince } from '../../../shared/printers/duration';
import { defineKind, type KindStrategy } from '../../registry/strategy';
import { ApiError } from '../apiError';
import type { Attributes, Authorizer, UserIdentity } from '../auth/rbacAuthorizer';
import { forbidden } from '../auth/forbidden';
import { LOOPBACK_USER } from '../auth/reviews';
import { decodeBody, negotiate } from '../content';
import { errorReply, json } from '../handlers/replies';
import type { ApiRequest, ApiResponse, ApiServerContext } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import { parseIncludeObject, toTable } from '../tables';
import { SNAPSHOT_NAME_MESSAGE, SnapshotError, validSnapshotName, type RestorePreview, type RestoreResult, type SnapshotInfo, type Snapshots } from './snapshots';

export const SNAPSHOT_GROUP = 'snapshots.kubedesk.dev';
export const SNAPSHOT_VERSION = 'v1';
const API_VERSION = `${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}`;
const COLLECTION_PATH = `/apis/${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}/snapshots`;

/** Columns of `kubectl get snapshots.snapshots.kubedesk.dev`. */
const SNAPSHOT_TABLE: TableDef = {
  columns: [
    column('Name', 'string', 'the snapshot name', { format: 'name' }),
    column('ResourceVersion', 'string', 'the store revision the snapshot is consistent at'),
    column('Objects', 'integer', 'objects in the snapshot'),
    column('Volumes', 'integer', 'PersistentVolumes whose data the snapshot holds'),
    column('Size', 'string', 'the snapshot file size'),
    column('Age', 'string', 'when it was saved'),
  ],
  row(object) {
    const status = isRecord(object.status) ? object.status : {};
    const volumes = Array.isArray(status.volumes) ? status.volumes.length : 0;
    return [object.metadata.name ?? '', cellText(status.resourceVersion), typeof status.objects === 'number' ? status.objects : 0, volumes, formatBytes(typeof status.sizeBytes === 'number' ? status.sizeBytes : 0), translateTimestampSince(object.metadata.creationTimestamp, new Date())];
  },
};

/** Discovery and OpenAPI metadata only: the virtual handler answers every request. */
export function snapshotResourceDef(): KindStrategy {
  return defineKind({
    group: SNAPSHOT_GROUP,
    version: SNAPSHOT_VERSION,
    resource: 'snapshots',
    singular: 'snapshot',
    kind: 'Snapshot',
    namespaced: false,
    verbs: ['get', 'list', 'create', 'delete'],
    printer: SNAPSHOT_TABLE,
  });
}

/** A snapshot as the API shows it. */
export function snapshotObject(info: SnapshotInfo): KubeObject {
  const { manifest } = info;
  return {
    apiVersion: API_VERSION,
    kind: 'Snapshot',
    metadata: { name: manifest.name, creationTimestamp: manifest.created },
    status: {
      formatVersion: manifest.formatVersion,
      resourceVersion: String(manifest.resourceVersion),
      objects: manifest.objects,
      sizeBytes: info.sizeBytes,
      images: manifest.images,
      volumes: manifest.volumes,
    },
  };
}

function restoreObject(result: RestoreResult): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'SnapshotRestore',
    metadata: { name: result.name },
    status: { resourceVersion: String(result.resourceVersion), created: result.created, updated: result.updated, replaced: result.replaced, deleted: result.deleted, missingImages: result.missingImages },
  };
}

function previewObject(preview: RestorePreview): KubeObject {
  const { created, updated, replaced, deleted } = preview;
  return {
    apiVersion: API_VERSION,
    kind: 'SnapshotRestore',
    metadata: { name: preview.name },
    status: {
      dryRun: true,
      resourceVersion: String(preview.resourceVersion),
      created: created.length,
      updated: updated.length,
      replaced: replaced.length,
      deleted: deleted.length,
      missingImages: preview.missingImages,
      changes: { created, updated, replaced, deleted },
    },
  };
}

/** `dryRun` as every write takes it: absent, or `All`. */
function isDryRun(request: ApiRequest, name: string): boolean {
  const values = request.query.getAll('dryRun');
  for (const value of values) {
    if (value !== 'All') throw ApiError.invalid('SnapshotRestore', SNAPSHOT_GROUP, name, [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${value}": supported values: "All"` }]);
  }
  return values.length > 0;
}

/** A SnapshotError as the Status a client sees. */
export function snapshotApiError(error: unknown, name: string): unknown {
  if (!(error instanceof SnapshotError)) return error;
  const details = { name, group: SNAPSHOT_GROUP, kind: 'snapshots' };
  switch (error.reason) {
    case 'NotFound':
      return new ApiError(404, 'NotFound', `snapshots.${SNAPSHOT_GROUP} "${name}" not found`, details);
    case 'AlreadyExists':
      return new ApiError(409, 'AlreadyExists', `snapshots.${SNAPSHOT_GROUP} "${name}" already exists`, details);
    case 'Invalid':
      return new ApiError(422, 'Invalid', `Snapshot.${SNAPSHOT_GROUP} "${name}" is invalid: metadata.name: Invalid value: "${name}": ${error.message}`, { ...details, causes: [{ reason: 'FieldValueInvalid', message: error.message, field: 'metadata.name' }] });
    case 'MissingImages':
      return new ApiError(409, 'Conflict', error.message, details);
    case 'Corrupt':
    case 'NewerFormat':
      return new ApiError(400, 'BadRequest', `snapshot "${name}": ${error.message}`, details);
  }
}

/** Everything the cluster holds: asked as `*` on `*` in `*`, which only cluster-admin-like roles grant. */
export function requireClusterAdmin(authorizer: Authorizer, user: UserIdentity, verb: string, name: string, subresource = ''): void {
  const all: Attributes = { user, verb: '*', isResourceRequest: true, path: '', apiGroup: '*', apiVersion: '*', namespace: '', resource: '*', subresource: '', name: '' };
  const decision = authorizer.authorize(all);
  if (decision.allowed) return;
  const asked: Attributes = { user, verb, isResourceRequest: true, path: '', apiGroup: SNAPSHOT_GROUP, apiVersion: SNAPSHOT_VERSION, namespace: '', resource: 'snapshots', subresource, name };
  throw forbidden(asked, 'snapshots hold and replace every object of the cluster: this needs every verb on every resource (cluster-admin)');
}

function nameOfBody(request: ApiRequest): string {
  const body = request.parsedBody ?? (request.body && request.body.length > 0 ? decodeBody(request.body, request.headers['content-type'], ['application/json', 'application/yaml']) : undefined);
  const metadata = isRecord(body) && isRecord(body.metadata) ? body.metadata : undefined;
  const name = metadata && typeof metadata.name === 'string' ? metadata.name : '';
  if (name === '') throw ApiError.invalid('Snapshot', SNAPSHOT_GROUP, '', [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' }]);
  return name;
}

export function registerSnapshotApi(api: ApiServerContext, registry: ResourceRegistry, options: { snapshots: Snapshots; authorizer: Authorizer }): void {
  const def = snapshotResourceDef();
  const { snapshots, authorizer } = options;
  api.registerVirtualResource(SNAPSHOT_GROUP, SNAPSHOT_VERSION, def.resource, async (request, context): Promise<ApiResponse> => {
    const user = request.user ?? LOOPBACK_USER;
    const name = context.name;
    const [subresource, ...rest] = context.rest;
    if (rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    try {
      if (name === undefined) {
        if (request.method === 'GET') {
          if (request.query.get('watch') === 'true' || request.query.get('watch') === '1') throw ApiError.methodNotAllowed('snapshots cannot be watched');
          const items = snapshots.list().map(snapshotObject);
          const negotiated = negotiate(request.headers['accept']);
          if (negotiated.shape === 'table') return json(200, toTable(def, items, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
          return json(200, { kind: 'SnapshotList', apiVersion: API_VERSION, metadata: {}, items });
        }
        if (request.method === 'POST') {
          const wanted = nameOfBody(request);
          requireClusterAdmin(authorizer, user, 'create', wanted);
          try {
            return json(201, snapshotObject(await snapshots.save(wanted)));
          } catch (error) {
            throw snapshotApiError(error, wanted);
          }
        }
        throw ApiError.methodNotAllowed();
      }
      if (subresource === undefined) {
        if (request.method === 'GET') return json(200, snapshotObject(snapshots.get(name)));
        if (request.method === 'DELETE') {
          requireClusterAdmin(authorizer, user, 'delete', name);
          snapshots.delete(name);
          return json(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: SNAPSHOT_GROUP, kind: 'snapshots' } });
        }
        throw ApiError.methodNotAllowed();
      }
      if (subresource === 'restore') {
        if (request.method !== 'POST') throw ApiError.methodNotAllowed();
        requireClusterAdmin(authorizer, user, 'create', name, 'restore');
        if (isDryRun(request, name)) return json(200, previewObject(await snapshots.previewRestore(name)));
        const ignore = request.query.get('ignoreMissingImages');
        const restored = await snapshots.restore(name, { ignoreMissingImages: ignore === 'true' || ignore === '1', user: request.user?.name, userAgent: request.headers['user-agent'] });
        return json(200, restoreObject(restored));
      }
      if (subresource === 'export') {
        if (request.method !== 'GET') throw ApiError.methodNotAllowed();
        requireClusterAdmin(authorizer, user, 'get', name, 'export');
        // streamed chunked, as every stream reply: the size is in its own header
        const { stream, size } = await snapshots.exportStream(name);
        return { status: 200, headers: { 'Content-Type': 'application/octet-stream', 'X-Snapshot-Size': String(size), 'Content-Disposition': `attachment; filename="${name}.kdsnap"` }, body: '', stream };
      }
      if (subresource === 'import') {
        if (request.method !== 'POST') throw ApiError.methodNotAllowed();
        requireClusterAdmin(authorizer, user, 'create', name, 'import');
        const partial = snapshots.partialPath(name);
        await pipeline(async function* () {
          yield request.body ?? Buffer.alloc(0);
        }, createWriteStream(partial, { mode: 0o600 }));
        return json(201, snapshotObject(await snapshots.importFile(partial, name)));
      }
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    } catch (error) {
      throw snapshotApiError(error, name ?? '');
    }
  });
  registry.add(def);
}

/**
 * The HTTPS server's handler for imports, which streams the uploaded file to disk instead of
 * reading it whole (the API's body limit is for objects, not snapshots). RBAC on the request ran
 * before it; the cluster-admin check is done here.
 */
export function snapshotImportHandler(options: { snapshots: Snapshots; authorizer: Authorizer }) {
  const pattern = new RegExp(`^${COLLECTION_PATH.replace(/\./g, '\\.')}/([^/]+)/import$`);
  return (request: IncomingMessage, response: ServerResponse, user?: UserIdentity): boolean => {
    if (request.method !== 'POST') return false;
    const match = pattern.exec(new URL(request.url ?? '/', 'https://localhost').pathname);
    if (!match || user === undefined) return false;
    const name = decodeURIComponent(match[1]);
    void (async () => {
      try {
        if (!validSnapshotName(name)) throw new SnapshotError(SNAPSHOT_NAME_MESSAGE, 'Invalid');
        requireClusterAdmin(options.authorizer, user, 'create', name, 'import');
        const partial = options.snapshots.partialPath(name);
        try {
          await pipeline(request, createWriteStream(partial, { mode: 0o600 }));
        } catch (error) {
          rmSync(partial, { force: true });
          throw error;
        }
        const info = await options.snapshots.importFile(partial, name);
        const body = JSON.stringify(snapshotObject(info));
        response.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
        response.end(body);
      } catch (error) {
        request.resume();
        const reply = errorReply(snapshotApiError(error, name));
        const body = typeof reply.body === 'string' ? Buffer.from(reply.body) : reply.body;
        response.writeHead(reply.status, { ...reply.headers, 'Content-Length': String(body.length) });
        response.end(body);
      }
    })();
    return true;
  };
}
