// The handlers of stored objects (upstream staging/src/k8s.io/apiserver/pkg/endpoints/handlers:
// get.go, create.go, update.go, patch.go, delete.go, watch.go): list and watch a collection,
// create, get, replace, patch (JSON, merge, strategic, server-side apply) and delete an object,
// each write wrapped in dynamic admission exactly once. Kind-independent: what differs between
// kinds comes from their strategies.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import type { KindStrategy } from '../../registry/strategy';
import { apiVersionOf } from '../../registry/resources';
import type { Store } from '../../storage/store';
import { ApiError } from '../apiError';
import { mediaType, negotiate, type Negotiated } from '../content';
import { applyConfiguration, type ApplyContext } from '../fieldManager/apply';
import { nowTimestamp } from '../objectMeta';
import type { ResourceStore } from '../resourceStore';
import { parseIncludeObject, partialObjectMetadata, toTable } from '../tables';
import { startWatch } from '../watch';
import type { DynamicAdmission } from '../webhooks/dynamicAdmission';
import { APPLY_PATCH, applyPatch } from './patching';
import { json, objectReply } from './replies';
import type { ApiReply, ApiRequest, ApiResponse, ApiWatchReply } from './request';
import { deleteOptions, nameOf, readBody, readPatchBody, requireVerb, selectors, writeOptions } from './requestOptions';

export interface ObjectHandlersOptions {
  store: Store;
  objects: ResourceStore;
  admission: DynamicAdmission;
}

export class ObjectHandlers {
  constructor(private readonly options: ObjectHandlersOptions) {}

  private get objects(): ResourceStore {
    return this.options.objects;
  }

  private get admission(): DynamicAdmission {
    return this.options.admission;
  }

  /** GET (list or watch), POST (create) and DELETE (deletecollection) of a collection. */
  async collection(request: ApiRequest, def: KindStrategy, namespace: string): Promise<ApiResponse> {
    const query = request.query;
    switch (request.method) {
      case 'GET': {
        const watch = query.get('watch');
        if (watch === 'true' || watch === '1') return this.watch(request, def, namespace);
        return this.list(request, def, namespace);
      }
      case 'POST': {
        requireVerb(def, 'create');
        if (def.namespaced && !namespace) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
        const options = writeOptions(request);
        const body = readBody(request);
        const { object: created } = await this.admission.admitWrite(
          { operation: 'CREATE', def, namespace, name: nameOf(body), user: request.user, options, requestDef: request.convertedFrom },
          (writeOptions, replacement) => ({ object: this.objects.create(def, namespace, replacement ?? body, writeOptions) }),
        );
        return objectReply(201, created, request, def, options.warnings);
      }
      case 'DELETE': {
        requireVerb(def, 'deletecollection');
        const options = deleteOptions(request);
        const page = this.objects.list(def, { namespace, ...selectors(def, query) });
        const deleted: KubeObject[] = [];
        for (const item of page.items) {
          try {
            await this.admission.admitDelete({ operation: 'DELETE', def, namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '', oldObject: item, user: request.user, dryRun: options.dryRun, requestDef: request.convertedFrom });
            deleted.push(this.objects.delete(def, item.metadata.namespace ?? '', item.metadata.name ?? '', options).object);
          } catch (error) {
            if (!(error instanceof ApiError && error.code === 404)) throw error;
          }
        }
        return json(200, { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: { resourceVersion: String(this.objects.currentRevision()) }, items: deleted });
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  /** GET, PUT, PATCH and DELETE of one object. */
  async item(request: ApiRequest, def: KindStrategy, namespace: string, name: string): Promise<ApiResponse> {
    switch (request.method) {
      case 'GET': {
        requireVerb(def, 'get');
        return objectReply(200, this.objects.get(def, namespace, name), request, def, []);
      }
      case 'PUT': {
        requireVerb(def, 'update');
        return this.update(request, def, namespace, name);
      }
      case 'PATCH': {
        requireVerb(def, 'patch');
        return this.patch(request, def, namespace, name);
      }
      case 'DELETE': {
        requireVerb(def, 'delete');
        const options = deleteOptions(request);
        const existing = this.objects.tryGet(def, namespace, name);
        if (existing) await this.admission.admitDelete({ operation: 'DELETE', def, namespace, name, oldObject: existing, user: request.user, dryRun: options.dryRun, requestDef: request.convertedFrom });
        const { object, deleted } = this.objects.delete(def, namespace, name, options);
        if (!deleted || def.returnDeletedObject) return objectReply(200, object, request, def, []);
        return json(200, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, group: def.group, kind: def.resource, uid: object.metadata.uid },
        });
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  /** PUT of the object or of a subresource that writes it (`subresource`: status, finalize…). */
  async update(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresource?: string): Promise<ApiReply> {
    const options = writeOptions(request);
    const body = readBody(request);
    const old = this.objects.tryGet(def, namespace, name);
    const operation = old || subresource ? 'UPDATE' : 'CREATE';
    const result = await this.admission.admitWrite(
      { operation, def, namespace, name, subresource, oldObject: old, reload: () => this.objects.tryGet(def, namespace, name), user: request.user, options, requestDef: request.convertedFrom },
      (writeOptions, replacement) => this.objects.update(def, namespace, name, replacement ?? body, { ...writeOptions, subresource }),
    );
    return objectReply(result.created ? 201 : 200, result.object, request, def, options.warnings);
  }

  /** PATCH of the object or of a subresource that writes it; server-side apply creates a missing object. */
  async patch(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresource?: string): Promise<ApiReply> {
    const contentType = mediaType(request.headers['content-type']);
    const patchBody = readPatchBody(request, contentType);
    const options = writeOptions(request);
    const apiVersion = apiVersionOf(def);
    let createIfMissing: (() => unknown) | undefined;
    let apply: ApplyContext | undefined;
    if (contentType === APPLY_PATCH) {
      if (!options.fieldManager) throw ApiError.badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
      const force = request.query.get('force') === 'true';
      options.apply = { force };
      apply = { manager: options.fieldManager, force, apiVersion, kind: def.kind, subresource, hasStatus: def.hasStatus, now: nowTimestamp() };
      const context = apply;
      createIfMissing = () => {
        const obj = structuredClone(patchBody);
        if (isRecord(obj) && isRecord(obj.metadata)) obj.metadata.name = name;
        applyPatch(contentType, { apiVersion, kind: def.kind, metadata: {} }, obj, apiVersion, def.kind);
        return applyConfiguration(undefined, obj, context);
      };
    }
    const old = this.objects.tryGet(def, namespace, name);
    const { object, created } = await this.admission.admitWrite(
      { operation: old || subresource ? 'UPDATE' : 'CREATE', def, namespace, name, subresource, oldObject: old, reload: () => this.objects.tryGet(def, namespace, name), user: request.user, options, requestDef: request.convertedFrom },
      (writeOptions, replacement) =>
        replacement && old
          ? this.objects.patch(def, namespace, name, () => structuredClone(replacement), { ...writeOptions, subresource })
          : this.objects.patch(def, namespace, name, (current) => applyPatch(contentType, current, patchBody, apiVersion, def.kind, apply), {
              ...writeOptions,
              subresource,
              createIfMissing: replacement ? () => structuredClone(replacement) : createIfMissing,
            }),
    );
    return objectReply(created ? 201 : 200, object, request, def, options.warnings);
  }

  private list(request: ApiRequest, def: KindStrategy, namespace: string): ApiReply {
    requireVerb(def, 'list');
    const query = request.query;
    if (query.get('sendInitialEvents') !== null) throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'Forbidden: sendInitialEvents is forbidden for list' }]);
    const limitText = query.get('limit');
    const limit = limitText ? Number(limitText) : undefined;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw ApiError.badRequest(`limit: Invalid value: "${limitText}"`);
    const page = this.objects.list(def, { namespace, ...selectors(def, query), limit: limit || undefined, continueToken: query.get('continue') || undefined });
    const listMeta: Record<string, unknown> = { resourceVersion: page.resourceVersion };
    if (page.continueToken) listMeta.continue = page.continueToken;
    if (page.remainingItemCount !== undefined) listMeta.remainingItemCount = page.remainingItemCount;
    const negotiated = negotiate(request.headers['accept']);
    if (negotiated.shape === 'table') {
      return json(200, toTable(def, page.items, { includeObject: parseIncludeObject(query.get('includeObject')), listMeta, tableVersion: negotiated.tableVersion }));
    }
    if (negotiated.shape === 'partialMetadataList' || negotiated.shape === 'partialMetadata') {
      return json(200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: page.items.map(partialObjectMetadata) });
    }
    return json(200, { kind: def.listKind, apiVersion: apiVersionOf(def), metadata: listMeta, items: page.items });
  }

  private watch(request: ApiRequest, def: KindStrategy, namespace: string): ApiWatchReply {
    requireVerb(def, 'watch');
    const query = request.query;
    const sendInitialEventsText = query.get('sendInitialEvents');
    const sendInitialEvents = sendInitialEventsText === 'true';
    const resourceVersion = query.get('resourceVersion') ?? '';
    if (sendInitialEvents) {
      const match = query.get('resourceVersionMatch');
      if (match !== 'NotOlderThan') {
        throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' }]);
      }
      if (query.get('allowWatchBookmarks') !== 'true') {
        throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'allowWatchBookmarks', detail: 'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true' }]);
      }
    }
    const timeoutText = query.get('timeoutSeconds');
    const timeoutSeconds = timeoutText && Number(timeoutText) > 0 ? Number(timeoutText) : 1800 + Math.floor(Math.random() * 1800);
    const requirements = selectors(def, query);
    const negotiated = negotiate(request.headers['accept']);
    const includeObject = parseIncludeObject(query.get('includeObject'));
    const transform = watchTransform(def, negotiated, includeObject);
    if (resourceVersion !== '' && resourceVersion !== '0' && !/^\d+$/.test(resourceVersion)) {
      throw ApiError.badRequest(`invalid resource version: strconv.ParseUint: parsing "${resourceVersion}": invalid syntax`);
    }
    return {
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      transform,
      watch: (sink) =>
        startWatch(this.options.store, this.objects, {
          def,
          namespace,
          ...requirements,
          resourceVersion: sendInitialEvents && sendInitialEventsText !== null ? '' : resourceVersion,
          sendInitialEvents: sendInitialEvents || (sendInitialEventsText === null && (resourceVersion === '' || resourceVersion === '0')),
          allowBookmarks: query.get('allowWatchBookmarks') === 'true',
          timeoutSeconds,
        }, sink),
    };
  }
}

function watchTransform(def: KindStrategy, negotiated: Negotiated, includeObject: ReturnType<typeof parseIncludeObject>): (object: KubeObject, type: string) => unknown {
  if (negotiated.shape === 'table') {
    return (object, type) => {
      if (type === 'ERROR') return object;
      if (type === 'BOOKMARK') return object;
      return toTable(def, [object], { includeObject, listMeta: { resourceVersion: object.metadata.resourceVersion }, tableVersion: negotiated.tableVersion });
    };
  }
  if (negotiated.shape === 'partialMetadata' || negotiated.shape === 'partialMetadataList') {
    return (object, type) => (type === 'ERROR' ? object : partialObjectMetadata(object));
  }
  return (object) => object;
}
