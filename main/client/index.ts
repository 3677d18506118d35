// The client layer's public surface (what client-go is to upstream components). Its test doubles
// (FakeTransport, FakeClock) live in test/doubles/, outside production code.
export { ApiClient, ResourceClient, patchContentTypes } from './apiClient';
export type { DeleteOptions, ListOptions, PatchOptions, PatchType, Preconditions, WatchOptions, WriteOptions } from './apiClient';
export { realClock } from './clock';
export type { Clock, Timer } from './clock';
export { runWorkers } from './controllerLoop';
export type { RunWorkersOptions } from './controllerLoop';
export { ClientApiError, isAlreadyExists, isConflict, isForbidden, isInvalid, isNotFound, isResourceExpired, isTooManyRequests, statusFromResponse } from './errors';
export { Informer, SharedInformerFactory, namespaceIndex, objectKey, splitKey } from './informer';
export type { Disposable, IndexFunction, InformerOptions, InformerScope, ResourceEventHandler } from './informer';
export { apiVersionOf, groupResourceString, resourcePath, resources } from './resources';
export type { GroupVersionResource } from './resources';
export { HttpsTransport, LineSplitter, parseWatchEvent } from './transport';
export type { HttpsTransportOptions, RequestTarget, TargetTransportOptions, Transport, TransportRequest, TransportResponse, WatchHandle } from './transport';
export { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, WorkQueue, defaultControllerRateLimiter } from './workQueue';
export type { RateLimiter, WorkQueueOptions } from './workQueue';
