// Generic subresource machinery (upstream: the REST storages each kind's storage.go wires next to
// it — StatusREST, ScaleREST, BindingREST, EvictionREST, TokenREST…): a kind's strategy declares
// its subresources and their type, and this file serves each type the same way for every kind.
// `update` subresources (status, finalize, approval) write the object through their own strategy;
// `scale` serves the autoscaling/v1 Scale view; `create` subresources take a posted object that
// is not stored (Binding, Eviction, TokenRequest) and either apply it to the parent or hand it to
// the provided handler; `connect` subresources (log, exec, proxy…) are provided handlers. Every
// write is admitted exactly once, with the subresource's name and the kind its clients send.
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import type { CreateSubresource, KindStrategy, ScaleSubresource, Subresource, SubresourceProvider } from '../../registry/strategy';
import { subresourceKind, subresourceOf } from '../../registry/strategy';
import { apiVersionOf } from '../../registry/resources';
import { ApiError } from '../apiError';
import { mediaType } from '../content';
import type { ResourceStore } from '../resourceStore';
import type { DynamicAdmission } from '../webhooks/dynamicAdmission';
import type { ObjectHandlers } from './objectHandlers';
import { applyPatch } from './patching';
import { json, notFoundPath, objectReply, successStatus, withWarnings } from './replies';
import type { ApiRequest, ApiResponse, SubresourceHandler } from './request';
import { readBody, readPatchBody, writeOptions } from './requestOptions';
import { applyScale, toScale } from './scale';

export interface SubresourceHandlersOptions {
  objects: ResourceStore;
  admission: DynamicAdmission;
  objectHandlers: ObjectHandlers;
  /** the handlers plugins provide, by the name kinds give them */
  providers: ReadonlyMap<SubresourceProvider, SubresourceHandler>;
  clock: () => Date;
}

export class SubresourceHandlers {
  constructor(private readonly options: SubresourceHandlersOptions) {}

  async handle(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresourceName: string, rest: string[]): Promise<ApiResponse> {
    const subresource = subresourceOf(def, subresourceName);
    if (!subresource) throw notFoundPath();
    switch (subresource.type) {
      case 'update':
        if (rest.length > 0) throw notFoundPath();
        return this.update(request, def, namespace, name, subresource);
      case 'scale':
        if (rest.length > 0) throw notFoundPath();
        return this.scale(request, def, namespace, name, subresource);
      case 'create':
        if (rest.length > 0) throw notFoundPath();
        return this.create(request, def, namespace, name, subresource, rest);
      case 'connect': {
        const handler = this.options.providers.get(subresource.provider);
        if (!handler) throw notAvailable(def, subresource);
        return handler(request, { def, namespace, name, subresource: subresource.name, rest, warnings: [] });
      }
      case 'unserved':
        throw notAvailable(def, subresource);
    }
  }

  /** GET, PUT and PATCH through the subresource's update strategy. */
  private update(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresource: Subresource): Promise<ApiResponse> | ApiResponse {
    switch (request.method) {
      case 'GET':
        requireSubresourceVerb(subresource, 'get');
        return objectReply(200, this.options.objects.get(def, namespace, name), request, def, []);
      case 'PUT':
        requireSubresourceVerb(subresource, 'update');
        return this.options.objectHandlers.update(request, def, namespace, name, subresource.name);
      case 'PATCH':
        requireSubresourceVerb(subresource, 'patch');
        return this.options.objectHandlers.patch(request, def, namespace, name, subresource.name);
      default:
        throw ApiError.methodNotAllowed();
    }
  }

  /** The Scale view: GET; PUT and PATCH write the parent's replicas, admitted as the Scale clients send. */
  private async scale(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresource: ScaleSubresource): Promise<ApiResponse> {
    const { objects, admission } = this.options;
    const view = { kind: subresourceKind(subresource), of: (obj: KubeObject) => toScale(obj, subresource) };
    if (request.method === 'GET') return json(200, view.of(objects.get(def, namespace, name)));
    let scaled: (current: KubeObject, replacement: KubeObject | undefined) => KubeObject;
    if (request.method === 'PUT') {
      const body = readBody(request);
      scaled = (current, replacement) => applyScale(def, current, replacement ?? body, subresource, 'body');
    } else if (request.method === 'PATCH') {
      const contentType = mediaType(request.headers['content-type']);
      const patch = readPatchBody(request, contentType);
      const scaleVersion = apiVersionOf(subresource);
      // Apply through /scale has no field ownership of its own; it merges like a strategic patch.
      scaled = (current, replacement) => applyScale(def, current, replacement ?? applyPatch(contentType, view.of(current), patch, scaleVersion, subresource.kind), subresource, 'patch');
    } else {
      throw ApiError.methodNotAllowed();
    }
    const options = writeOptions(request);
    const old = objects.tryGet(def, namespace, name);
    const { object } = await admission.admitWrite(
      {
        operation: 'UPDATE',
        def,
        namespace,
        name,
        subresource: subresource.name,
        oldObject: old && view.of(old),
        reload: () => {
          const current = objects.tryGet(def, namespace, name);
          return current && view.of(current);
        },
        user: request.user,
        options,
        view,
      },
      (writeOptions, replacement) => objects.patch(def, namespace, name, (current) => scaled(current, replacement), { ...writeOptions, subresource: subresource.name }),
    );
    return withWarnings(json(200, view.of(object)), options.warnings);
  }

  /** POST of a Binding, Eviction, TokenRequest…: admitted as that object, then applied or handed to the provider. */
  private async create(request: ApiRequest, def: KindStrategy, namespace: string, name: string, subresource: CreateSubresource, rest: string[]): Promise<ApiResponse> {
    if (request.method !== 'POST') throw ApiError.methodNotAllowed();
    const handler = subresource.provider && this.options.providers.get(subresource.provider);
    if (!subresource.apply && !handler) throw notAvailable(def, subresource);
    const options = writeOptions(request);
    const body = readBody(request);
    const admit = (posted: Record<string, unknown>): Promise<KubeObject> => {
      const object = { apiVersion: apiVersionOf(subresource), kind: subresource.kind, ...posted, metadata: isRecord(posted.metadata) ? posted.metadata : {} } as KubeObject;
      return this.options.admission.admitObject({ def, namespace, name, subresource: subresource.name, kind: subresourceKind(subresource), object, user: request.user, options });
    };
    if (subresource.apply) {
      const posted = isRecord(body) ? body : {};
      const errors = subresource.validate?.(posted, name) ?? [];
      if (errors.length) throw ApiError.invalid(subresource.kind, subresource.group, name, errors);
      const admitted = await admit(posted);
      const apply = subresource.apply;
      this.options.objects.patch(def, namespace, name, (current) => apply(current, admitted, this.options.clock()), { ...options, subresource: subresource.name });
      return withWarnings(successStatus(), options.warnings);
    }
    // The provided handler reads the body itself and refuses one that is not an object.
    const admitted = isRecord(body) ? await admit(body) : body;
    return (handler as SubresourceHandler)(request, { def, namespace, name, subresource: subresource.name, rest, body: admitted, warnings: options.warnings });
  }
}

function requireSubresourceVerb(subresource: Subresource, verb: string): void {
  if (!subresource.verbs.includes(verb)) throw ApiError.methodNotAllowed();
}

/** A subresource listed in discovery that this cluster does not serve (yet). */
function notAvailable(def: KindStrategy, subresource: Subresource): ApiError {
  return new ApiError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource (${def.resource}/${subresource.name} is not available in this cluster yet)`);
}
