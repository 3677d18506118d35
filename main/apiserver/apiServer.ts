// ApiServer: routes a Kubernetes API request (already authenticated) to discovery, OpenAPI or the
// resource handlers, and shapes the reply (object, list, Table, Status). Transport-agnostic: the
// HTTPS server and the in-process transport both call `handle`. Paths and query parameters follow
// staging/src/k8s.io/apiserver/pkg/endpoints (installer.go, handlers/*).
import type { Readable } from 'node:stream';
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import type { ResourceDef } from '../registry/types';
import { apiVersionOf } from '../registry/resources';
import type { Store } from '../storage/store';
import { ApiError } from './apiError';
import { decodeBody, mediaType, MAX_BODY_BYTES, negotiate, type Negotiated } from './content';
import { aggregatedContentType, aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, wantsAggregated } from './discovery';
import type { OpenApiService } from './openapi/openapiDocuments';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY, openApiV2Protobuf } from './openapi/openapiV2';
import type { ResourceRegistry } from './resourceRegistry';
import { ResourceStore, type DeleteOptions, type FieldValidation, type WriteOptions } from './resourceStore';
import { parseFieldSelector, parseLabelSelector, validateFieldSelector } from './selectors';
import { parseIncludeObject, partialObjectMetadata, toTable } from './tables';
import { startWatch, type WatchSink } from './watch';
import { admitPodServiceAccount } from './admission/serviceAccountAdmission';
import { admitPersistentVolumeClaimStorageClass } from './admission/defaultStorageClassAdmission';
import { priorityAdmissionHooks } from './admission/priorityAdmission';
import { ServiceAllocator, type ServiceNetworkConfig } from './admission/serviceAllocation';
import { installAdmissionPlugins } from './admission/admissionPlugins';
import type { WriteAllocator } from './resourceStore';
import { applyPatchDocument, asClientError } from './patch/patchDocument';
import { applyStrategicMergePatch } from './patch/strategicMergePatch';
import { patchSchemaFor } from './patch/patchSchema';
import { applyConfiguration, type ApplyContext } from './fieldManager/apply';
import { nowTimestamp } from './objectMeta';
import { DynamicAdmission } from './webhooks/dynamicAdmission';
import { StoreCache } from './storeCache';

export interface ApiRequest {
  method: string;
  /** path without query string */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  body?: Buffer;
  /** in-process callers may pass an already-parsed JSON body */
  parsedBody?: unknown;
  /** who asks (after impersonation); absent for in-process callers, which act as the API server itself */
  user?: { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

export interface ApiWatchReply {
  status: 200;
  headers: Record<string, string>;
  /** Start streaming; the returned dispose stops it (client went away). */
  watch(sink: WatchSink): { dispose(): void };
  /** How each event's object is shaped for this request (Table rows etc.). */
  transform(object: KubeObject, type: string): unknown;
}

/**
 * A reply whose body is produced over time (pod logs under follow): the HTTP server pipes `stream`
 * and destroys it when the client goes away. `body` is empty so transports that cannot stream
 * (in-process) still see an ApiReply.
 */
export interface ApiStreamReply {
  status: number;
  headers: Record<string, string>;
  body: '';
  stream: Readable;
}

export type ApiResponse = ApiReply | ApiWatchReply | ApiStreamReply;

/** A handler for a subresource the core does not implement itself (log, exec, binding…). */
export type SubresourceHandler = (request: ApiRequest, context: { def: ResourceDef; namespace: string; name: string; subresource: string; rest: string[] }) => Promise<ApiResponse> | ApiResponse;

/**
 * A handler for a resource computed on request rather than stored (metrics.k8s.io, as an aggregated
 * API server would serve it). It gets every request under the resource's path; `name` is absent for
 * the collection and `rest` holds any path segments after the name.
 */
export type VirtualResourceHandler = (request: ApiRequest, context: { def: ResourceDef; namespace: string; name?: string; rest: string[] }) => Promise<ApiResponse> | ApiResponse;

export interface ApiServerOptions {
  store: Store;
  registry: ResourceRegistry;
  openapi: OpenApiService;
  serverAddress: () => string;
  version: Record<string, string>;
  /** where Services get cluster IPs and node ports; without it Services get none (unit tests) */
  serviceNetwork?: ServiceNetworkConfig;
}


export class ApiServer {
  readonly objects: ResourceStore;
  /** admission webhooks and ValidatingAdmissionPolicies (main/apiserver/webhooks) */
  readonly dynamicAdmission: DynamicAdmission;
  private readonly subresourceHandlers = new Map<string, SubresourceHandler>();
  private readonly virtualResources = new Map<string, VirtualResourceHandler>();

  constructor(private readonly options: ApiServerOptions) {
    this.objects = new ResourceStore(options.store, undefined, [
      (def, obj, objects) => {
        if (def.group !== '' || def.resource !== 'pods') return;
        const serviceAccounts = options.registry.lookup('', 'v1', 'serviceaccounts');
        admitPodServiceAccount(obj, (namespace, name) => (serviceAccounts ? objects.tryGet(serviceAccounts, namespace, name) : undefined));
      },
      (def, obj, objects) => {
        if (def.group !== '' || def.resource !== 'persistentvolumeclaims') return;
        const storageClasses = options.registry.lookup('storage.k8s.io', 'v1', 'storageclasses');
        admitPersistentVolumeClaimStorageClass(obj, () => (storageClasses ? objects.list(storageClasses, { labels: [], fields: [] }).items : []));
      },
      ...priorityAdmissionHooks(options.registry),
    ], options.serviceNetwork ? [serviceAllocator(new ServiceAllocator(options.serviceNetwork))] : []);
    installAdmissionPlugins(this.objects, options.registry);
    this.dynamicAdmission = new DynamicAdmission({ objects: this.objects, registry: options.registry, cache: new StoreCache(options.store) });
  }

  get registry(): ResourceRegistry {
    return this.options.registry;
  }

  /** e.g. registerSubresource('pods', 'log', handler) */
  registerSubresource(qualifiedResource: string, subresource: string, handler: SubresourceHandler): void {
    this.subresourceHandlers.set(`${qualifiedResource}/${subresource}`, handler);
  }

  /**
   * Routes /apis/<group>/<version>/[namespaces/<ns>/]<resource>[/…] to the handler instead of the store.
   * The resource must also be in the registry (discovery, OpenAPI, scope).
   */
  registerVirtualResource(group: string, version: string, resource: string, handler: VirtualResourceHandler): void {
    this.virtualResources.set(`${group}/${version}/${resource}`, handler);
  }

  async handle(request: ApiRequest): Promise<ApiResponse> {
    try {
      return await this.route(request);
    } catch (error) {
      return errorReply(error);
    }
  }

  private async route(request: ApiRequest): Promise<ApiResponse> {
    const segments = request.path.split('/').filter((segment) => segment !== '').map(decodeSegment);
    const accept = request.headers['accept'];
    if (segments.length === 0) return json(200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v3', '/readyz', '/version'] });
    if (segments[0] === 'version' && segments.length === 1) return json(200, this.options.version);
    if (segments[0] === 'openapi') return this.openapi(segments, request);
    if (segments[0] === 'api') {
      if (segments.length === 1) {
        const aggregated = wantsAggregated(accept);
        if (aggregated) return json(200, aggregatedDiscovery(this.registry, true, aggregated), aggregatedContentType(aggregated));
        return json(200, apiVersions(this.options.serverAddress()));
      }
      if (segments[1] !== 'v1') throw notFoundPath();
      if (segments.length === 2) return json(200, apiResourceList(this.registry, '', 'v1'));
      return this.resourceRequest(request, '', 'v1', segments.slice(2));
    }
    if (segments[0] === 'apis') {
      if (segments.length === 1) {
        const aggregated = wantsAggregated(accept);
        if (aggregated) return json(200, aggregatedDiscovery(this.registry, false, aggregated), aggregatedContentType(aggregated));
        return json(200, apiGroupList(this.registry));
      }
      if (segments.length === 2) {
        const group = apiGroup(this.registry, segments[1]);
        if (!group) throw notFoundPath();
        return json(200, group);
      }
      if (segments.length === 3) {
        const list = apiResourceList(this.registry, segments[1], segments[2]);
        if (!list) throw notFoundPath();
        return json(200, list);
      }
      return this.resourceRequest(request, segments[1], segments[2], segments.slice(3));
    }
    throw notFoundPath();
  }

  private openapi(segments: string[], request: ApiRequest): ApiReply {
    if (segments[1] === 'v2' && segments.length === 2) {
      if (request.method !== 'GET') throw ApiError.methodNotAllowed();
      const accept = request.headers['accept'] ?? '';
      if (accept.includes(OPENAPI_V2_PROTOBUF) || accept.includes(OPENAPI_V2_PROTOBUF_REPLY)) return { status: 200, headers: { 'Content-Type': OPENAPI_V2_PROTOBUF_REPLY }, body: openApiV2Protobuf() };
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: this.options.openapi.swaggerV2() };
    }
    if (segments[1] !== 'v3') throw notFoundPath();
    if (request.method !== 'GET') throw ApiError.methodNotAllowed();
    if (segments.length === 2) return json(200, this.options.openapi.index());
    const document = this.options.openapi.document(segments.slice(2).join('/'));
    if (!document) throw notFoundPath();
    return { status: 200, headers: { 'Content-Type': 'application/json', ETag: `"${document.hash}"`, 'Cache-Control': 'public, immutable' }, body: document.body };
  }

  private async resourceRequest(request: ApiRequest, group: string, version: string, rest: string[]): Promise<ApiResponse> {
    let namespace = '';
    let parts = rest;
    // /namespaces/{ns}/{resource}... — but /namespaces and /namespaces/{name}[/status|finalize] address namespaces themselves.
    if (parts[0] === 'namespaces' && parts.length >= 3 && !(group === '' && parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize'))) {
      namespace = parts[1];
      parts = parts.slice(2);
    }
    const [resource, name, subresource, ...subrest] = parts;
    const def = this.registry.lookup(group, version, resource);
    if (!def) throw notFoundPath();
    if (namespace && !def.namespaced) throw notFoundPath();
    const virtual = this.virtualResources.get(`${group}/${version}/${resource}`);
    if (virtual) return virtual(request, { def, namespace, name, rest: subresource === undefined ? [] : [subresource, ...subrest] });
    if (name === undefined) return this.collection(request, def, namespace);
    if (def.namespaced && !namespace) throw notFoundPath();
    if (subresource === undefined) return this.item(request, def, namespace, name);
    const handler = this.subresourceHandlers.get(`${qualified(def)}/${subresource}`);
    if (handler) return handler(request, { def, namespace, name, subresource, rest: subrest });
    if (subrest.length === 0 && subresource === 'status' && def.hasStatus) return this.status(request, def, namespace, name);
    if (subrest.length === 0 && subresource === 'scale' && def.subresources.some((sub) => sub.name === 'scale')) return this.scale(request, def, namespace, name);
    if (subrest.length === 0 && subresource === 'finalize' && qualified(def) === 'namespaces') return this.finalize(request, def, name);
    if (subrest.length === 0 && subresource === 'binding' && qualified(def) === 'pods') return this.bind(request, def, namespace, name);
    if (def.subresources.some((sub) => sub.name === subresource)) {
      throw new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${def.resource}/${subresource} is not available in this cluster yet)`);
    }
    throw notFoundPath();
  }

  private async collection(request: ApiRequest, def: ResourceDef, namespace: string): Promise<ApiResponse> {
    const query = request.query;
    switch (request.method) {
      case 'GET': {
        const watch = query.get('watch');
        if (watch === 'true' || watch === '1') return this.watch(request, def, namespace);
        return this.list(request, def, namespace);
      }
      case 'POST': {
        this.requireVerb(def, 'create');
        if (def.namespaced && !namespace) throw notFoundPath();
        const options = this.writeOptions(query, request.headers['user-agent'], request.user);
        const body = this.body(request);
        const { object: created } = await this.dynamicAdmission.admitWrite({ operation: 'CREATE', def, namespace, name: nameOf(body), user: request.user, options }, (writeOptions, replacement) => ({ object: this.objects.create(def, namespace, replacement ?? body, writeOptions) }));
        return objectReply(201, created, request, def, options.warnings);
      }
      case 'DELETE': {
        this.requireVerb(def, 'deletecollection');
        const options = this.deleteOptions(request);
        const page = this.objects.list(def, { namespace, ...this.selectors(def, query) });
        const deleted: KubeObject[] = [];
        for (const item of page.items) {
          try {
            await this.dynamicAdmission.admitDelete({ operation: 'DELETE', def, namespace: item.metadata.namespace ?? '', name: item.metadata.name ?? '', oldObject: item, user: request.user, dryRun: options.dryRun });
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

  private async item(request: ApiRequest, def: ResourceDef, namespace: string, name: string): Promise<ApiResponse> {
    const query = request.query;
    switch (request.method) {
      case 'GET': {
        this.requireVerb(def, 'get');
        const obj = this.objects.get(def, namespace, name);
        return objectReply(200, obj, request, def, []);
      }
      case 'PUT': {
        this.requireVerb(def, 'update');
        const options = this.writeOptions(query, request.headers['user-agent'], request.user);
        const body = this.body(request);
        const old = this.objects.tryGet(def, namespace, name);
        const result = await this.dynamicAdmission.admitWrite({ operation: old ? 'UPDATE' : 'CREATE', def, namespace, name, oldObject: old, user: request.user, options }, (writeOptions, replacement) => this.objects.update(def, namespace, name, replacement ?? body, writeOptions));
        return objectReply(result.created ? 201 : 200, result.object, request, def, options.warnings);
      }
      case 'PATCH': {
        this.requireVerb(def, 'patch');
        return this.patch(request, def, namespace, name);
      }
      case 'DELETE': {
        this.requireVerb(def, 'delete');
        const options = this.deleteOptions(request);
        const existing = this.objects.tryGet(def, namespace, name);
        if (existing) await this.dynamicAdmission.admitDelete({ operation: 'DELETE', def, namespace, name, oldObject: existing, user: request.user, dryRun: options.dryRun });
        const { object, deleted } = this.objects.delete(def, namespace, name, options);
        if (!deleted || qualified(def) === 'pods') return objectReply(200, object, request, def, []);
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

  private async status(request: ApiRequest, def: ResourceDef, namespace: string, name: string): Promise<ApiResponse> {
    switch (request.method) {
      case 'GET':
        return objectReply(200, this.objects.get(def, namespace, name), request, def, []);
      case 'PUT': {
        const options = this.writeOptions(request.query, request.headers['user-agent'], request.user);
        const body = this.body(request);
        const result = await this.dynamicAdmission.admitWrite({ operation: 'UPDATE', def, namespace, name, subresource: 'status', oldObject: this.objects.tryGet(def, namespace, name), user: request.user, options }, (writeOptions, replacement) => this.objects.update(def, namespace, name, replacement ?? body, writeOptions, 'status'));
        return objectReply(200, result.object, request, def, options.warnings);
      }
      case 'PATCH':
        return this.patch(request, def, namespace, name, 'status');
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  private finalize(request: ApiRequest, def: ResourceDef, name: string): ApiResponse {
    if (request.method !== 'PUT') throw ApiError.methodNotAllowed();
    const options = this.writeOptions(request.query);
    const body = this.body(request);
    const finalizers = isRecord(body) && isRecord(body.spec) ? body.spec.finalizers : undefined;
    const { object } = this.objects.patch(def, '', name, (current) => ({ ...current, spec: { ...(isRecord(current.spec) ? current.spec : {}), finalizers: Array.isArray(finalizers) ? finalizers : [] } }), options);
    return objectReply(200, object, request, def, options.warnings);
  }

  /** pods/binding, as upstream pkg/registry/core/pod/storage BindingREST: sets spec.nodeName once. */
  private bind(request: ApiRequest, def: ResourceDef, namespace: string, name: string): ApiResponse {
    if (request.method !== 'POST') throw ApiError.methodNotAllowed();
    // BindingREST writes the pod through the store directly: no managedFields entry (as upstream)
    const options = { ...this.writeOptions(request.query), untracked: true };
    const body = this.body(request);
    if (!isRecord(body) || !isRecord(body.target) || typeof body.target.name !== 'string' || body.target.name === '') {
      throw ApiError.invalid('Binding', '', name, [{ type: 'FieldValueRequired', field: 'target.name', detail: 'Required value' }]);
    }
    if (body.target.kind !== undefined && body.target.kind !== '' && body.target.kind !== 'Node') {
      throw ApiError.invalid('Binding', '', name, [{ type: 'FieldValueNotSupported', field: 'target.kind', detail: `Unsupported value: "${String(body.target.kind)}": supported values: "Node", ""` }]);
    }
    const nodeName = body.target.name;
    this.objects.patch(def, namespace, name, (current) => {
      const spec = isRecord(current.spec) ? current.spec : {};
      if (current.metadata.deletionTimestamp) throw ApiError.conflict(def, name, 'pod is being deleted, cannot be assigned to a host');
      if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw ApiError.conflict(def, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
      const status = isRecord(current.status) ? current.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter((condition) => !(isRecord(condition) && condition.type === 'PodScheduled')) : [];
      conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') });
      return { ...current, spec: { ...spec, nodeName }, status: { ...status, conditions } };
    }, options, undefined, undefined, true);
    return json(201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  }

  private scale(request: ApiRequest, def: ResourceDef, namespace: string, name: string): ApiResponse {
    const toScale = (obj: KubeObject): KubeObject => {
      const spec = isRecord(obj.spec) ? obj.spec : {};
      const status = isRecord(obj.status) ? obj.status : {};
      const selector = isRecord(spec.selector) ? selectorString(spec.selector) : '';
      return {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
        spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 0 },
        status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, selector },
      };
    };
    const applyScale = (current: KubeObject, scale: unknown): KubeObject => {
      if (!isRecord(scale) || !isRecord(scale.spec)) throw ApiError.badRequest('the body of the request is not a valid autoscaling/v1 Scale');
      const replicas = scale.spec.replicas;
      if (replicas !== undefined && (typeof replicas !== 'number' || !Number.isInteger(replicas))) {
        throw ApiError.badRequest(`json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
      }
      if (typeof replicas === 'number' && replicas < 0) {
        throw ApiError.invalid('Scale', 'autoscaling', name, [{ type: 'FieldValueInvalid', field: 'spec.replicas', detail: `Invalid value: ${replicas}: must be greater than or equal to 0` }]);
      }
      const scaleMeta = isRecord(scale.metadata) ? scale.metadata : {};
      if (typeof scaleMeta.resourceVersion === 'string' && scaleMeta.resourceVersion !== current.metadata.resourceVersion) throw ApiError.conflict(def, name);
      return { ...current, spec: { ...(isRecord(current.spec) ? current.spec : {}), replicas: replicas ?? 0 } };
    };
    switch (request.method) {
      case 'GET':
        return json(200, toScale(this.objects.get(def, namespace, name)));
      case 'PUT': {
        const options = this.writeOptions(request.query);
        const body = this.body(request);
        const { object } = this.objects.patch(def, namespace, name, (current) => applyScale(current, body), options);
        return json(200, toScale(object));
      }
      case 'PATCH': {
        const options = this.writeOptions(request.query);
        const contentType = mediaType(request.headers['content-type']);
        const patchBody = this.patchBody(request, contentType);
        const { object } = this.objects.patch(def, namespace, name, (current) => applyScale(current, this.applyPatch(contentType, toScale(current), patchBody, 'autoscaling/v1', 'Scale')), options);
        return json(200, toScale(object));
      }
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  private async patch(request: ApiRequest, def: ResourceDef, namespace: string, name: string, subresource?: 'status'): Promise<ApiResponse> {
    const contentType = mediaType(request.headers['content-type']);
    const patchBody = this.patchBody(request, contentType);
    const options = this.writeOptions(request.query, request.headers['user-agent'], request.user);
    const apiVersion = apiVersionOf(def);
    let createIfMissing: (() => unknown) | undefined;
    let apply: ApplyContext | undefined;
    if (contentType === 'application/apply-patch+yaml') {
      if (!options.fieldManager) throw ApiError.badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
      const force = request.query.get('force') === 'true';
      options.apply = { force };
      apply = { manager: options.fieldManager, force, apiVersion, kind: def.kind, subresource, hasStatus: def.hasStatus, now: nowTimestamp() };
      const context = apply;
      createIfMissing = () => {
        const obj = structuredClone(patchBody);
        if (isRecord(obj) && isRecord(obj.metadata)) obj.metadata.name = name;
        this.applyPatch(contentType, { apiVersion, kind: def.kind, metadata: {} }, obj, apiVersion, def.kind);
        return applyConfiguration(undefined, obj, context);
      };
    }
    const old = this.objects.tryGet(def, namespace, name);
    const { object, created } = await this.dynamicAdmission.admitWrite(
      { operation: old ? 'UPDATE' : 'CREATE', def, namespace, name, subresource, oldObject: old, user: request.user, options },
      (writeOptions, replacement) =>
        replacement && old
          ? this.objects.patch(def, namespace, name, () => structuredClone(replacement), writeOptions, subresource)
          : this.objects.patch(def, namespace, name, (current) => this.applyPatch(contentType, current, patchBody, apiVersion, def.kind, apply), writeOptions, subresource, replacement ? () => structuredClone(replacement) : createIfMissing),
    );
    return objectReply(created ? 201 : 200, object, request, def, options.warnings);
  }

  private patchBody(request: ApiRequest, contentType: string): unknown {
    const allowed = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];
    if (!allowed.includes(contentType)) {
      throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${allowed.join(', ')}`);
    }
    if (request.parsedBody !== undefined) return request.parsedBody;
    const body = request.body ?? Buffer.alloc(0);
    if (body.length > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    return decodeBody(body, contentType === 'application/apply-patch+yaml' ? 'application/yaml' : 'application/json');
  }

  private applyPatch(contentType: string, current: KubeObject, patch: unknown, apiVersion: string, kind: string, apply?: ApplyContext): unknown {
    if (contentType !== 'application/apply-patch+yaml') return applyPatchDocument(contentType, current, patch, apiVersion, kind);
    if (!isRecord(patch)) throw ApiError.badRequest('error decoding YAML: the applied configuration must be an object');
    if (patch.apiVersion !== undefined && patch.apiVersion !== apiVersion) throw ApiError.badRequest(`the API version in the data (${String(patch.apiVersion)}) does not match the expected API version (${apiVersion})`);
    if (patch.kind !== undefined && patch.kind !== kind) throw ApiError.badRequest(`the kind in the data (${String(patch.kind)}) does not match the expected kind (${kind})`);
    return asClientError(() => {
      if (apply) return applyConfiguration(current, patch, apply);
      // Apply through /scale has no field ownership here; it merges like a strategic patch.
      return applyStrategicMergePatch(current, patch, patchSchemaFor(apiVersion, kind));
    });
  }

  private list(request: ApiRequest, def: ResourceDef, namespace: string): ApiReply {
    this.requireVerb(def, 'list');
    const query = request.query;
    if (query.get('sendInitialEvents') !== null) throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'sendInitialEvents', detail: 'Forbidden: sendInitialEvents is forbidden for list' }]);
    const limitText = query.get('limit');
    const limit = limitText ? Number(limitText) : undefined;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) throw ApiError.badRequest(`limit: Invalid value: "${limitText}"`);
    const page = this.objects.list(def, { namespace, ...this.selectors(def, query), limit: limit || undefined, continueToken: query.get('continue') || undefined });
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

  private watch(request: ApiRequest, def: ResourceDef, namespace: string): ApiWatchReply {
    this.requireVerb(def, 'watch');
    const query = request.query;
    const sendInitialEventsText = query.get('sendInitialEvents');
    const sendInitialEvents = sendInitialEventsText === 'true';
    const resourceVersion = query.get('resourceVersion') ?? '';
    if (sendInitialEvents) {
      const match = query.get('resourceVersionMatch');
      if (match !== 'NotOlderThan') {
        throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan" }]);
      }
      if (query.get('allowWatchBookmarks') !== 'true') {
        throw ApiError.invalid('ListOptions', 'meta.k8s.io', '', [{ type: 'FieldValueForbidden', field: 'allowWatchBookmarks', detail: 'Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true' }]);
      }
    }
    const timeoutText = query.get('timeoutSeconds');
    const timeoutSeconds = timeoutText && Number(timeoutText) > 0 ? Number(timeoutText) : 1800 + Math.floor(Math.random() * 1800);
    const selectors = this.selectors(def, query);
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
          ...selectors,
          resourceVersion: sendInitialEvents && sendInitialEventsText !== null ? '' : resourceVersion,
          sendInitialEvents: sendInitialEvents || (sendInitialEventsText === null && (resourceVersion === '' || resourceVersion === '0')),
          allowBookmarks: query.get('allowWatchBookmarks') === 'true',
          timeoutSeconds,
        }, sink),
    };
  }

  private selectors(def: ResourceDef, query: URLSearchParams) {
    const labels = parseLabelSelector(query.get('labelSelector') ?? '');
    const fields = parseFieldSelector(query.get('fieldSelector') ?? '');
    if (fields.length) {
      const allowed = new Set(['metadata.name', 'metadata.namespace']);
      const sample = safeSelectable(def);
      for (const key of sample) allowed.add(key);
      validateFieldSelector(fields, allowed, def.kind);
    }
    return { labels, fields };
  }

  private writeOptions(query: URLSearchParams, userAgent?: string, user?: ApiRequest['user']): WriteOptions {
    const dryRun = query.getAll('dryRun');
    for (const value of dryRun) if (value !== 'All') throw ApiError.invalid('CreateOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${value}": supported values: "All"` }]);
    const validation = query.get('fieldValidation') ?? 'Warn';
    if (validation !== 'Ignore' && validation !== 'Warn' && validation !== 'Strict') {
      throw ApiError.badRequest(`fieldValidation parameter ${validation} is not a valid option: must be one of Ignore, Warn, or Strict`);
    }
    const fieldManager = query.get('fieldManager') ?? undefined;
    if (fieldManager !== undefined && fieldManager.length > 128) throw ApiError.invalid('CreateOptions', 'meta.k8s.io', '', [{ type: 'FieldValueTooLong', field: 'fieldManager', detail: 'Too long: may not be more than 128 bytes' }]);
    return { dryRun: dryRun.length > 0, fieldValidation: validation as FieldValidation, fieldManager, userAgent, ...(user ? { user } : {}), warnings: [] };
  }

  private deleteOptions(request: ApiRequest): DeleteOptions {
    let body: Record<string, unknown> = {};
    const hasBody = request.parsedBody !== undefined || (request.body !== undefined && request.body.length > 0);
    if (hasBody) {
      const decoded = request.parsedBody ?? decodeBody(request.body ?? Buffer.alloc(0), request.headers['content-type']);
      if (!isRecord(decoded)) throw ApiError.badRequest('the body of a delete request must be a DeleteOptions object');
      body = decoded;
    }
    const query = request.query;
    const options: DeleteOptions = { dryRun: false };
    const grace = query.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
    if (grace !== undefined && grace !== null) {
      const value = Number(grace);
      if (!Number.isInteger(value)) throw ApiError.badRequest(`gracePeriodSeconds: Invalid value: "${String(grace)}"`);
      options.gracePeriodSeconds = Math.max(0, value);
    }
    const propagation = query.get('propagationPolicy') ?? body.propagationPolicy;
    if (propagation !== undefined && propagation !== null) {
      if (propagation !== 'Orphan' && propagation !== 'Background' && propagation !== 'Foreground') {
        throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'propagationPolicy', detail: `Unsupported value: "${String(propagation)}": supported values: "Foreground", "Background", "Orphan", "nil"` }]);
      }
      options.propagationPolicy = propagation;
    }
    const orphan = query.get('orphanDependents') ?? body.orphanDependents;
    if (orphan !== undefined && orphan !== null) {
      if (orphan !== true && orphan !== false && orphan !== 'true' && orphan !== 'false') throw ApiError.badRequest(`orphanDependents: Invalid value: "${String(orphan)}"`);
      if (options.propagationPolicy) {
        throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueInvalid', field: 'propagationPolicy', detail: `Invalid value: "${options.propagationPolicy}": orphanDependents and deletionPropagation cannot be both set` }]);
      }
      options.orphanDependents = orphan === true || orphan === 'true';
    }
    if (isRecord(body.preconditions)) {
      const { uid, resourceVersion } = body.preconditions;
      options.preconditions = { uid: typeof uid === 'string' ? uid : undefined, resourceVersion: typeof resourceVersion === 'string' ? resourceVersion : undefined };
    }
    const dryRun = [...query.getAll('dryRun'), ...(Array.isArray(body.dryRun) ? body.dryRun : [])];
    for (const value of dryRun) if (value !== 'All') throw ApiError.invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', detail: `Unsupported value: "${String(value)}": supported values: "All"` }]);
    options.dryRun = dryRun.length > 0;
    return options;
  }

  private body(request: ApiRequest): unknown {
    if (request.parsedBody !== undefined) return request.parsedBody;
    const body = request.body ?? Buffer.alloc(0);
    if (body.length > MAX_BODY_BYTES) throw new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    return decodeBody(body, request.headers['content-type']);
  }

  private requireVerb(def: ResourceDef, verb: string): void {
    if (!def.verbs.includes(verb)) throw ApiError.methodNotAllowed();
  }
}

function nameOf(body: unknown): string {
  return isRecord(body) && isRecord(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : '';
}

function qualified(def: ResourceDef): string {
  return def.group ? `${def.resource}.${def.group}` : def.resource;
}

function safeSelectable(def: ResourceDef): string[] {
  try {
    return Object.keys(def.selectableFields({ metadata: {} }));
  } catch {
    return [];
  }
}

function watchTransform(def: ResourceDef, negotiated: Negotiated, includeObject: ReturnType<typeof parseIncludeObject>): (object: KubeObject, type: string) => unknown {
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

function objectReply(status: number, obj: KubeObject, request: ApiRequest, def: ResourceDef, warnings: string[]): ApiReply {
  const negotiated = negotiate(request.headers['accept']);
  let body: unknown = obj;
  if (negotiated.shape === 'table') {
    body = toTable(def, [obj], { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: { resourceVersion: obj.metadata.resourceVersion }, tableVersion: negotiated.tableVersion });
  } else if (negotiated.shape === 'partialMetadata') {
    body = partialObjectMetadata(obj);
  }
  const reply = json(status, body);
  if (warnings.length) reply.headers['Warning'] = warnings.map((warning) => `299 - ${JSON.stringify(warning)}`).join(', ');
  return reply;
}

function selectorString(selector: Record<string, unknown>): string {
  const parts: string[] = [];
  if (isRecord(selector.matchLabels)) for (const [key, value] of Object.entries(selector.matchLabels)) parts.push(`${key}=${String(value)}`);
  if (Array.isArray(selector.matchExpressions)) {
    for (const expression of selector.matchExpressions) {
      if (!isRecord(expression)) continue;
      const values = Array.isArray(expression.values) ? expression.values.map(String) : [];
      switch (expression.operator) {
        case 'In':
          parts.push(`${String(expression.key)} in (${values.join(',')})`);
          break;
        case 'NotIn':
          parts.push(`${String(expression.key)} notin (${values.join(',')})`);
          break;
        case 'Exists':
          parts.push(String(expression.key));
          break;
        case 'DoesNotExist':
          parts.push(`!${String(expression.key)}`);
          break;
      }
    }
  }
  return parts.join(',');
}

export function json(status: number, body: unknown, contentType = 'application/json'): ApiReply {
  return { status, headers: { 'Content-Type': contentType }, body: JSON.stringify(body) };
}

export function errorReply(error: unknown): ApiReply {
  if (error instanceof ApiError) return json(error.code, error.toStatus());
  const message = error instanceof Error ? error.message : String(error);
  console.error('kubedesk: internal error:', error);
  return json(500, ApiError.internal(message).toStatus());
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw ApiError.badRequest(`invalid path segment: ${segment}`);
  }
}

function serviceAllocator(allocator: ServiceAllocator): WriteAllocator {
  return (def, obj, old, objects) => {
    if (def.group !== '' || def.resource !== 'services') return [];
    return allocator.allocate(obj, old, objects.list(def, { labels: [], fields: [] }).items);
  };
}
