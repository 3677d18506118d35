// ApiServer: the Kubernetes API behind one `handle(request)` (upstream's genericapiserver with its
// installed routes). Transport-agnostic: the HTTPS server and the in-process transport both call
// `handle`. It wires the generic store (ResourceStore) with the admission chain, and routes each
// request (handlers/routing.ts) to discovery, OpenAPI, the object handlers, the subresource
// machinery, versions served by conversion, or a plugin's virtual resource. It names no kind: what
// a kind does comes from its strategy (main/registry/kinds), and plugins provide what a strategy
// names (`provideSubresource`).
import type { SubresourceProvider } from '../registry/strategy';
import type { Store } from '../storage/store';
import type { WriteRecorder } from '../storage/history';
import { ApiError } from './apiError';
import { aggregatedContentType, aggregatedDiscovery, apiGroup, apiGroupList, apiResourceList, apiVersions, wantsAggregated } from './discovery';
import type { OpenApiService } from './openapi/openapiDocuments';
import { OPENAPI_V2_PROTOBUF, OPENAPI_V2_PROTOBUF_REPLY, openApiV2Protobuf } from './openapi/openapiV2';
import type { ResourceRegistry } from './resourceRegistry';
import { ResourceStore } from './resourceStore';
import { ServiceAllocator, type ServiceNetworkConfig } from './admission/serviceAllocation';
import { installAdmissionPlugins } from './admission/admissionPlugins';
import { namespaceLifecycle } from './admission/namespaceLifecycle';
import { AdmissionReads } from './admission/admissionReads';
import { DynamicAdmission } from './webhooks/dynamicAdmission';
import { StoreCache } from './storeCache';
import { ObjectHandlers } from './handlers/objectHandlers';
import { SubresourceHandlers } from './handlers/subresourceHandlers';
import { serveConverted } from './handlers/conversion';
import { errorReply, json, notFoundPath } from './handlers/replies';
import { routeOf } from './handlers/routing';
import type { ApiReply, ApiRequest, ApiResponse, SubresourceHandler, VirtualResourceHandler } from './handlers/request';
import { evictionHandler } from './subresources/eviction';

export type { ApiReply, ApiRequest, ApiResponse, ApiStreamReply, ApiWatchReply, SubresourceContext, SubresourceHandler, VirtualResourceHandler } from './handlers/request';
export { errorReply, json } from './handlers/replies';

export interface ApiServerOptions {
  store: Store;
  registry: ResourceRegistry;
  openapi: OpenApiService;
  serverAddress: () => string;
  version: Record<string, string>;
  /**
   * where Services get cluster IPs and node ports; without it Services get none (unit tests). A
   * function is asked at the first Service write (the cluster works its address plan out while the
   * API server is being set up).
   */
  serviceNetwork?: ServiceNetworkConfig | (() => ServiceNetworkConfig);
  /** told of every committed write (the object history); without it nothing is recorded */
  history?: WriteRecorder;
}

export class ApiServer {
  readonly objects: ResourceStore;
  /** admission webhooks and ValidatingAdmissionPolicies (main/apiserver/webhooks) */
  readonly dynamicAdmission: DynamicAdmission;
  private readonly providers = new Map<SubresourceProvider, SubresourceHandler>();
  private readonly virtualResources = new Map<string, VirtualResourceHandler>();
  private readonly objectHandlers: ObjectHandlers;
  private readonly subresourceHandlers: SubresourceHandlers;

  constructor(private readonly options: ApiServerOptions) {
    const { store, registry } = options;
    const { serviceNetwork } = options;
    let allocator: ServiceAllocator | undefined;
    const serviceAllocator = serviceNetwork ? () => (allocator ??= new ServiceAllocator(typeof serviceNetwork === 'function' ? serviceNetwork() : serviceNetwork)) : undefined;
    // what admission reads on every write, from memory until the store commits a change to it
    const cache = new StoreCache(store);
    const reads = new AdmissionReads(store, registry, cache);
    this.objects = new ResourceStore(store, {
      allocators: serviceAllocator ? { serviceAddresses: (def, obj, old, objects) => serviceAllocator().allocate(obj, old, objects.list(def, { labels: [], fields: [] }).items) } : {},
      namespaceLifecycle: namespaceLifecycle(reads, registry),
      history: options.history,
    });
    installAdmissionPlugins(this.objects, registry, reads);
    this.dynamicAdmission = new DynamicAdmission({ objects: this.objects, registry, cache });
    this.objectHandlers = new ObjectHandlers({ store, objects: this.objects, admission: this.dynamicAdmission });
    this.subresourceHandlers = new SubresourceHandlers({ objects: this.objects, admission: this.dynamicAdmission, objectHandlers: this.objectHandlers, providers: this.providers, clock: () => new Date() });
    this.provideSubresource('eviction', evictionHandler(this));
  }

  get registry(): ResourceRegistry {
    return this.options.registry;
  }

  /** Provides the handler kinds name in their strategies (e.g. provideSubresource('podLog', …)); replaces an earlier one. */
  provideSubresource(provider: SubresourceProvider, handler: SubresourceHandler): void {
    this.providers.set(provider, handler);
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
    const route = routeOf(request.path, this.registry);
    const accept = request.headers['accept'];
    switch (route.type) {
      case 'root':
        return json(200, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v3', '/readyz', '/version'] });
      case 'version':
        return json(200, this.options.version);
      case 'openapi':
        return this.openapi(route.segments, request);
      case 'legacyVersions': {
        const aggregated = wantsAggregated(accept);
        if (aggregated) return json(200, aggregatedDiscovery(this.registry, true, aggregated), aggregatedContentType(aggregated));
        return json(200, apiVersions(this.options.serverAddress()));
      }
      case 'groupList': {
        const aggregated = wantsAggregated(accept);
        if (aggregated) return json(200, aggregatedDiscovery(this.registry, false, aggregated), aggregatedContentType(aggregated));
        return json(200, apiGroupList(this.registry));
      }
      case 'group': {
        const group = apiGroup(this.registry, route.group);
        if (!group) throw notFoundPath();
        return json(200, group);
      }
      case 'resourceList': {
        const list = apiResourceList(this.registry, route.group, route.version);
        if (!list) throw notFoundPath();
        return json(200, list);
      }
      case 'resource': {
        const { def, namespace, name, subresource, rest } = route;
        const virtual = this.virtualResources.get(`${def.group}/${def.version}/${def.resource}`);
        if (virtual) return virtual(request, { def, namespace, name, rest: subresource === undefined ? [] : [subresource, ...rest] });
        if (def.conversion) return serveConverted(this, request, def, def.conversion, { namespace, name, rest: subresource === undefined ? [] : [subresource, ...rest] });
        if (name === undefined) return this.objectHandlers.collection(request, def, namespace);
        if (def.namespaced && !namespace) throw notFoundPath();
        if (subresource === undefined) return this.objectHandlers.item(request, def, namespace, name);
        return this.subresourceHandlers.handle(request, def, namespace, name, subresource, rest);
      }
    }
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
}
