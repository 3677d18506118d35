// ApiClient: a typed REST client for any resource, built on a Transport, in the manner of upstream
// k8s.io/client-go/dynamic and the generated typed clients: verbs get/list/create/update/patch/delete/
// watch plus status and other subresources, query options as client-go encodes them, and every
// non-2xx reply thrown as a ClientApiError carrying the server's Status.
import { isRecord, type KubeList, type KubeObject, type WatchEvent } from '../../shared/kubernetes/types';
import { ClientApiError, statusFromResponse } from './errors';
import { apiVersionOf, groupResourceString, resourcePath, type GroupVersionResource } from './resources';
import type { Transport, TransportRequest, WatchHandle } from './transport';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Empty/absent: the server first sends the current state as ADDED events. */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  dryRun?: boolean;
}

export type PatchType = 'merge' | 'strategic' | 'json' | 'apply';

export const patchContentTypes: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

function writeQuery(options: WriteOptions | undefined): Record<string, string> {
  const query: Record<string, string> = {};
  if (options?.dryRun) query.dryRun = 'All';
  if (options?.fieldManager) query.fieldManager = options.fieldManager;
  if (options?.fieldValidation) query.fieldValidation = options.fieldValidation;
  return query;
}

function listQuery(options: ListOptions | WatchOptions | undefined): Record<string, string> {
  const query: Record<string, string> = {};
  if (!options) return query;
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || value === '') continue;
    query[key] = String(value);
  }
  return query;
}

function asObject<T extends KubeObject>(body: unknown, what: string): T {
  if (!isRecord(body) || !isRecord(body.metadata)) throw new Error(`${what}: the server replied with something that is not an object`);
  return body as T;
}

function asList<T extends KubeObject>(body: unknown, what: string): KubeList<T> {
  if (!isRecord(body) || !Array.isArray(body.items)) throw new Error(`${what}: the server replied with something that is not a list`);
  if (!isRecord(body.metadata)) body.metadata = {};
  for (const item of body.items) asObject(item, what);
  return body as unknown as KubeList<T>;
}

export class ApiClient {
  constructor(readonly transport: Transport) {}

  resource<T extends KubeObject = KubeObject>(gvr: GroupVersionResource): ResourceClient<T> {
    return new ResourceClient<T>(this, gvr);
  }

  /** Sends any request; returns the parsed body of a 2xx reply, throws ClientApiError otherwise. */
  async request(req: TransportRequest): Promise<unknown> {
    const response = await this.transport.request(req);
    if (response.status < 200 || response.status > 299) throw new ClientApiError(statusFromResponse(response.status, response.body));
    return response.body;
  }
}

export class ResourceClient<T extends KubeObject = KubeObject> {
  constructor(
    private readonly client: ApiClient,
    readonly gvr: GroupVersionResource,
  ) {}

  /** Path of the collection, an object or a subresource; namespace is ignored for cluster-scoped resources. */
  path(namespace?: string, name?: string, subresource?: string): string {
    return resourcePath(this.gvr, namespace, name, subresource);
  }

  async get(namespace: string | undefined, name: string, options?: { resourceVersion?: string }): Promise<T> {
    const query = options?.resourceVersion ? { resourceVersion: options.resourceVersion } : undefined;
    return asObject<T>(await this.client.request({ method: 'GET', path: this.objectPath(namespace, name), query }), this.describe('get', name));
  }

  /** One page; pass `limit`/`continue` to page. Without a namespace a namespaced resource is listed across all namespaces. */
  async list(namespace?: string, options?: ListOptions): Promise<KubeList<T>> {
    const body = await this.client.request({ method: 'GET', path: this.path(namespace), query: listQuery(options) });
    return asList<T>(body, this.describe('list'));
  }

  /** Follows `continue` tokens until the end; the result carries the first page's resourceVersion. */
  async listAll(namespace?: string, options?: Omit<ListOptions, 'continue'>): Promise<KubeList<T>> {
    const first = await this.list(namespace, options);
    let token = first.metadata.continue;
    while (token) {
      const page = await this.list(namespace, { ...options, continue: token, resourceVersion: undefined, resourceVersionMatch: undefined });
      first.items.push(...page.items);
      token = page.metadata.continue;
    }
    first.metadata = { resourceVersion: first.metadata.resourceVersion };
    return first;
  }

  async create(object: T, options?: WriteOptions): Promise<T> {
    const namespace = this.namespaceOf(object, 'create');
    const body = await this.client.request({ method: 'POST', path: this.path(namespace), query: writeQuery(options), body: this.withTypeMeta(object) });
    return asObject<T>(body, this.describe('create', object.metadata.name));
  }

  async update(object: T, options?: WriteOptions): Promise<T> {
    return this.put(object, undefined, options);
  }

  async updateStatus(object: T, options?: WriteOptions): Promise<T> {
    return this.put(object, 'status', options);
  }

  async patch(namespace: string | undefined, name: string, patch: unknown, type: PatchType, options?: PatchOptions & { subresource?: string }): Promise<T> {
    const query = writeQuery(options);
    if (options?.force !== undefined) query.force = String(options.force);
    const body = await this.client.request({
      method: 'PATCH',
      path: this.objectPath(namespace, name, options?.subresource),
      query,
      body: patch,
      contentType: patchContentTypes[type],
    });
    return asObject<T>(body, this.describe('patch', name));
  }

  async patchStatus(namespace: string | undefined, name: string, patch: unknown, type: PatchType, options?: PatchOptions): Promise<T> {
    return this.patch(namespace, name, patch, type, { ...options, subresource: 'status' });
  }

  /**
   * Returns the object when it still exists afterwards (finalizers or a grace period pending: it now
   * carries deletionTimestamp), or undefined when the server replied with a Success Status.
   */
  async delete(namespace: string | undefined, name: string, options?: DeleteOptions): Promise<T | undefined> {
    const body = await this.client.request({ method: 'DELETE', path: this.objectPath(namespace, name), body: this.deleteBody(options) });
    if (isRecord(body) && body.kind !== 'Status' && isRecord(body.metadata)) return body as T;
    return undefined;
  }

  async deleteCollection(namespace: string | undefined, listOptions?: ListOptions, options?: DeleteOptions): Promise<unknown> {
    return this.client.request({ method: 'DELETE', path: this.path(namespace), query: listQuery(listOptions), body: this.deleteBody(options) });
  }

  watch(namespace: string | undefined, options: WatchOptions, onEvent: (event: WatchEvent<T>) => void, onDone: (error?: Error) => void): WatchHandle {
    const query = listQuery(options);
    query.watch = 'true';
    // ERROR events carry a Status, not a T; consumers check `type` before reading `object`.
    return this.client.transport.watch(this.path(namespace), query, (event) => onEvent(event as WatchEvent<T>), onDone);
  }

  /** GET a subresource such as `scale` or `log`; the body is returned as parsed. */
  async getSubresource(namespace: string | undefined, name: string, subresource: string, query?: Record<string, string>): Promise<unknown> {
    return this.client.request({ method: 'GET', path: this.objectPath(namespace, name, subresource), query });
  }

  /** POST to a subresource: `binding`, `eviction`, `token`. */
  async createSubresource(namespace: string | undefined, name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<unknown> {
    return this.client.request({ method: 'POST', path: this.objectPath(namespace, name, subresource), query: writeQuery(options), body });
  }

  /** PUT to a subresource other than status, e.g. `scale`. */
  async updateSubresource(namespace: string | undefined, name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<unknown> {
    return this.client.request({ method: 'PUT', path: this.objectPath(namespace, name, subresource), query: writeQuery(options), body });
  }

  private async put(object: T, subresource: string | undefined, options: WriteOptions | undefined): Promise<T> {
    const name = object.metadata.name;
    if (!name) throw new Error(`${this.describe('update')}: the object has no metadata.name`);
    const namespace = this.namespaceOf(object, 'update');
    const body = await this.client.request({
      method: 'PUT',
      path: this.path(namespace, name, subresource),
      query: writeQuery(options),
      body: this.withTypeMeta(object),
    });
    return asObject<T>(body, this.describe('update', name));
  }

  private objectPath(namespace: string | undefined, name: string, subresource?: string): string {
    if (this.gvr.namespaced && !namespace) throw new Error(`${this.describe('access', name)}: a namespace is required`);
    return this.path(namespace, name, subresource);
  }

  private namespaceOf(object: T, verb: string): string | undefined {
    if (!this.gvr.namespaced) return undefined;
    const namespace = object.metadata.namespace;
    if (!namespace) throw new Error(`${this.describe(verb, object.metadata.name)}: the object has no metadata.namespace`);
    return namespace;
  }

  /** The API server needs apiVersion and kind in bodies; fill them from the resource when absent. */
  private withTypeMeta(object: T): T {
    if (object.apiVersion && object.kind) return object;
    return { ...object, apiVersion: object.apiVersion ?? apiVersionOf(this.gvr), kind: object.kind ?? this.gvr.kind };
  }

  private deleteBody(options: DeleteOptions | undefined): Record<string, unknown> | undefined {
    if (!options) return undefined;
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.preconditions) body.preconditions = options.preconditions;
    if (options.dryRun) body.dryRun = ['All'];
    return body;
  }

  private describe(verb: string, name?: string): string {
    return `${verb} ${groupResourceString(this.gvr)}${name ? ` "${name}"` : ''}`;
  }
}
