// The shapes every handler shares (upstream staging/src/k8s.io/apiserver/pkg/endpoints/request and
// handlers): the request as the transport hands it over (HTTPS or in-process), the replies, and
// the signatures of the handlers plugins provide. A leaf: plugins import it, never the ApiServer hub.
import type { Readable } from 'node:stream';
import type { KubeObject } from '../../../shared/kubernetes/types';
import type { KindStrategy, SubresourceProvider } from '../../registry/strategy';
import type { ResourceRegistry } from '../resourceRegistry';
import type { ResourceStore } from '../resourceStore';
import type { WatchSink } from '../watch';

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
  /** the authenticated user's name when the request impersonates `user` */
  impersonator?: string;
  /**
   * Set when a version served by conversion forwards a request to the stored version: the kind the
   * client addressed, which admission reports as requestKind/requestResource.
   */
  convertedFrom?: KindStrategy;
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

export interface SubresourceContext {
  def: KindStrategy;
  namespace: string;
  name: string;
  subresource: string;
  /** path segments after the subresource (proxy paths) */
  rest: string[];
  /** for create subresources (Eviction, TokenRequest…): the posted body, as admission let it through when it is an object */
  body?: unknown;
  /** `Warning` texts admission collected, for the reply */
  warnings: string[];
}

/** A handler a plugin provides for a subresource kinds name in their strategy (log, eviction, token…). */
export type SubresourceHandler = (request: ApiRequest, context: SubresourceContext) => Promise<ApiResponse> | ApiResponse;

/**
 * A handler for a resource computed on request rather than stored (metrics.k8s.io, as an aggregated
 * API server would serve it). It gets every request under the resource's path; `name` is absent for
 * the collection and `rest` holds any path segments after the name.
 */
export type VirtualResourceHandler = (request: ApiRequest, context: { def: KindStrategy; namespace: string; name?: string; rest: string[] }) => Promise<ApiResponse> | ApiResponse;

/**
 * What plugins see of the API server (auth, crd, metrics, proxy, subresource providers): its
 * generic store and registry, and the places they plug in. ApiServer implements it.
 */
export interface ApiServerContext {
  readonly objects: ResourceStore;
  readonly registry: ResourceRegistry;
  /** Routes a resource's requests to `handler` instead of the store (reviews, metrics). */
  registerVirtualResource(group: string, version: string, resource: string, handler: VirtualResourceHandler): void;
  /** Provides the handler kinds name in their strategies. */
  provideSubresource(provider: SubresourceProvider, handler: SubresourceHandler): void;
}
