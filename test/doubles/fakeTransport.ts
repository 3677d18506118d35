// FakeTransport: an in-memory API server behind the Transport interface, for unit tests of the client
// and of every component built on it (controllers, scheduler, kubelet). It keeps upstream's list/watch
// contract (k8s.io/apiserver storage + watch cache), which is what informers depend on:
// - one global resourceVersion counter; lists report it, watches resume after it;
// - watch without resourceVersion (or "0") starts with ADDED for the current state;
// - a watch from a compacted resourceVersion gets an ERROR event with a 410 Expired Status
//   (or an HTTP 410, by `expiredWatchMode`);
// - label/field selectors on lists and watches, with objects leaving a selector seen as DELETED;
// - limit/continue paging (not snapshot-consistent, unlike etcd); optimistic concurrency on update;
// - finalizers hold a deleted object (deletionTimestamp set) until an update removes the last one;
// - a write that changes nothing is no write (no new resourceVersion, no watch event);
// - POST pods/{name}/binding sets spec.nodeName.
// - JSON, merge and strategic merge patches and label/field selectors use the API server's own code
//   (main/apiserver/patch, main/apiserver/selectors), so a strategic patch merges lists by their
//   merge keys as the real server does; server-side apply is not supported (415).
// No defaulting, no validation.
import { isRecord, type KubeObject, type Status, type WatchEvent } from '../../shared/kubernetes/types';
import { formatTime } from '../../shared/kubernetes/time';
import { ApiError } from '../../main/apiserver/apiError';
import { jsonEqual } from '../../shared/kubernetes/json';
import { applyPatchDocument } from '../../main/apiserver/patch/patchDocument';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../main/apiserver/selectors';
import { ClientApiError } from '../../main/client/errors';
import type { GroupVersionResource } from '../../main/client/resources';
import type { Transport, TransportRequest, TransportResponse, WatchHandle } from '../../main/client/transport';

interface ParsedPath {
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface LoggedEvent {
  revision: number;
  resourceKey: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: KubeObject;
  previous?: KubeObject;
}

interface FakeWatch {
  resourceKey: string;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  bookmarks: boolean;
  closed: boolean;
  onEvent: (event: WatchEvent) => void;
  onDone: (error?: Error) => void;
}

interface InjectedFailure {
  status: number;
  reason: string;
  message: string;
  matches: (method: string, path: string) => boolean;
}

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function failure(code: number, reason: string, message: string, details?: Status['details']): TransportResponse {
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return { status: code, body: status };
}

function qualified(path: ParsedPath): string {
  return path.group ? `${path.resource}.${path.group}` : path.resource;
}

export function parseResourcePath(path: string): ParsedPath | undefined {
  const segments = path.split('?')[0].split('/').filter((s) => s !== '').map(decodeURIComponent);
  let group = '';
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1];
    version = segments[2];
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  // `/namespaces/x/status` is the namespace's own subresource, `/namespaces/x/pods` a namespaced collection.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    return { group, version, resource: rest[2], namespace: rest[1], name: rest[3], subresource: rest[4] };
  }
  return { group, version, resource: rest[0], name: rest[1], subresource: rest[2] };
}

export { applyMergePatch } from '../../main/apiserver/patch/mergePatch';

/** Label selector matching with the API server's own parser (upstream labels.Parse). */
export function matchesLabelSelector(selector: string | undefined, labels: Record<string, string> | undefined): boolean {
  return !selector || matchesLabels(parseLabelSelector(selector), labels);
}

function fieldValue(object: KubeObject, field: string): string {
  let value: unknown = object;
  for (const part of field.split('.')) value = isRecord(value) ? value[part] : undefined;
  return value === undefined || value === null ? '' : String(value);
}

/** Field selector matching with the API server's own parser (upstream fields.ParseSelector), on any field path. */
export function matchesFieldSelector(selector: string | undefined, object: KubeObject): boolean {
  if (!selector) return true;
  const requirements = parseFieldSelector(selector);
  return matchesFields(requirements, Object.fromEntries(requirements.map((requirement) => [requirement.field, fieldValue(object, requirement.field)])));
}

/** The response a real server gives for an error of its own. */
function errorResponse(error: unknown): TransportResponse {
  if (error instanceof ApiError) return { status: error.code, body: error.toStatus() };
  throw error;
}

export class FakeTransport implements Transport {
  /** Every request() call, in order (watches are in `watchRequests`). */
  readonly requests: TransportRequest[] = [];
  readonly watchRequests: { path: string; query: Record<string, string> }[] = [];
  /** How a watch from a compacted resourceVersion fails: an ERROR event (as the watch cache does) or HTTP 410. */
  expiredWatchMode: 'event' | 'http' = 'event';
  private revision = 0;
  private compactedRevision = 0;
  private uidCounter = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private log: LoggedEvent[] = [];
  private readonly watches = new Set<FakeWatch>();
  private readonly failures: InjectedFailure[] = [];

  async request(req: TransportRequest): Promise<TransportResponse> {
    this.requests.push(clone(req));
    const injected = this.takeFailure(req.method, req.path);
    if (injected) return failure(injected.status, injected.reason, injected.message);
    const path = parseResourcePath(req.path);
    if (!path) return failure(404, 'NotFound', `the server could not find the requested resource (${req.path})`);
    try {
      return clone(this.handle(req, path));
    } catch (error) {
      if (error instanceof ClientApiError) return { status: error.code, body: error.status };
      if (error instanceof ApiError) return errorResponse(error);
      return failure(400, 'BadRequest', error instanceof Error ? error.message : String(error));
    }
  }

  watch(rawPath: string, query: Record<string, string>, onEvent: (event: WatchEvent) => void, onDone: (error?: Error) => void): WatchHandle {
    this.watchRequests.push({ path: rawPath, query: { ...query } });
    const watch: FakeWatch = {
      resourceKey: '',
      namespace: undefined,
      labelSelector: query.labelSelector,
      fieldSelector: query.fieldSelector,
      bookmarks: query.allowWatchBookmarks === 'true',
      closed: false,
      onEvent,
      onDone,
    };
    const handle: WatchHandle = { close: () => this.closeWatch(watch) };
    const injected = this.takeFailure('WATCH', rawPath);
    const path = parseResourcePath(rawPath);
    if (injected || !path) {
      const error = injected
        ? new ClientApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: injected.status, reason: injected.reason, message: injected.message })
        : new Error(`cannot watch ${rawPath}`);
      this.finish(watch, error);
      return handle;
    }
    watch.resourceKey = `${path.group}/${path.resource}`;
    watch.namespace = path.namespace;
    const from = query.resourceVersion ?? '';
    if (from !== '' && from !== '0' && Number(from) < this.compactedRevision) {
      const message = `too old resource version: ${from} (${this.compactedRevision})`;
      const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Expired', code: 410 };
      if (this.expiredWatchMode === 'http') {
        this.finish(watch, new ClientApiError(status));
      } else {
        this.deliver(watch, { type: 'ERROR', object: status as unknown as KubeObject });
        this.finish(watch);
      }
      return handle;
    }
    if (from === '' || from === '0') {
      for (const object of this.select(watch.resourceKey, watch.namespace, watch.labelSelector, watch.fieldSelector)) this.deliver(watch, { type: 'ADDED', object });
    } else {
      for (const event of this.log) if (event.revision > Number(from)) this.send(watch, event);
    }
    this.watches.add(watch);
    return handle;
  }

  // ---- controls for tests ----

  /** Stores an object directly (as a create would, with a watch event). Returns the stored copy. */
  seed<T extends KubeObject>(gvr: GroupVersionResource, object: T): T {
    const path: ParsedPath = { group: gvr.group, version: gvr.version, resource: gvr.resource, namespace: gvr.namespaced ? (object.metadata.namespace ?? 'default') : undefined };
    const response = this.create(path, clone(object));
    return clone(response.body) as T;
  }

  /** Current stored objects of a resource (copies). */
  objectsOf(gvr: GroupVersionResource): KubeObject[] {
    return [...(this.objects.get(`${gvr.group}/${gvr.resource}`)?.values() ?? [])].map(clone);
  }

  currentResourceVersion(): string {
    return String(this.revision);
  }

  openWatchCount(): number {
    return this.watches.size;
  }

  /** Ends every open watch normally, as a server does when timeoutSeconds elapses. */
  endWatches(): void {
    for (const watch of [...this.watches]) this.finish(watch);
  }

  /** Sends a BOOKMARK with the current resourceVersion to watches that allowed bookmarks. */
  sendBookmarks(): void {
    for (const watch of this.watches) {
      if (watch.bookmarks) this.deliver(watch, { type: 'BOOKMARK', object: { kind: 'Bookmark', metadata: { resourceVersion: String(this.revision) } } });
    }
  }

  /** Forgets history up to now: watches from older resourceVersions (and old continue tokens) get 410. */
  compact(): void {
    this.compactedRevision = this.revision;
    this.log = [];
  }

  /** Compacts, then fails every open watch with 410 Expired (an ERROR event, then the stream ends). */
  expireWatches(): void {
    this.compact();
    for (const watch of [...this.watches]) {
      const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version', reason: 'Expired', code: 410 };
      this.deliver(watch, { type: 'ERROR', object: status as unknown as KubeObject });
      this.finish(watch);
    }
  }

  /** Removes an object with no watch event, as if the event was lost to compaction. */
  deleteSilently(gvr: GroupVersionResource, namespace: string | undefined, name: string): void {
    this.objects.get(`${gvr.group}/${gvr.resource}`)?.delete(namespace && gvr.namespaced ? `${namespace}/${name}` : name);
    this.revision++;
  }

  /** The next request (or watch, method 'WATCH') matching method and path prefix fails with this status. */
  failNext(method: string, pathPrefix: string, status: number, reason: string, message = `injected ${reason}`): void {
    this.failures.push({ status, reason, message, matches: (m, p) => (method === '*' || method === m) && p.startsWith(pathPrefix) });
  }

  // ---- the fake server ----

  private handle(req: TransportRequest, path: ParsedPath): TransportResponse {
    const resourceKey = `${path.group}/${path.resource}`;
    if (req.method === 'GET' && path.name === undefined) return this.list(path, req.query ?? {});
    if (path.name === undefined) {
      if (req.method === 'POST') return this.create(path, req.body);
      return failure(405, 'MethodNotAllowed', `the fake server does not support ${req.method} on collections`);
    }
    const key = path.namespace ? `${path.namespace}/${path.name}` : path.name;
    const current = this.objects.get(resourceKey)?.get(key);
    if (req.method === 'POST' && path.subresource === 'binding') return this.bind(path, key, current, req.body);
    if (!current) return failure(404, 'NotFound', `${qualified(path)} "${path.name}" not found`, { name: path.name, group: path.group, kind: path.resource });
    if (path.subresource && path.subresource !== 'status') return failure(404, 'NotFound', `the fake server does not support the ${path.subresource} subresource`);
    switch (req.method) {
      case 'GET':
        return { status: 200, body: current };
      case 'PUT':
        return this.update(path, key, current, req.body);
      case 'PATCH':
        return this.patch(path, key, current, req.body, req.contentType ?? '');
      case 'DELETE':
        return this.delete(path, key, current, req.body);
      default:
        return failure(405, 'MethodNotAllowed', `${req.method} is not allowed`);
    }
  }

  private list(path: ParsedPath, query: Record<string, string>): TransportResponse {
    const resourceKey = `${path.group}/${path.resource}`;
    let items = this.select(resourceKey, path.namespace, query.labelSelector, query.fieldSelector);
    let listRevision = this.revision;
    if (query.continue) {
      let token: unknown;
      try {
        token = JSON.parse(Buffer.from(query.continue, 'base64url').toString('utf8'));
      } catch {
        return failure(400, 'BadRequest', 'continue key is not valid');
      }
      if (!isRecord(token) || typeof token.revision !== 'number' || typeof token.after !== 'string') return failure(400, 'BadRequest', 'continue key is not valid');
      if (token.revision < this.compactedRevision) {
        return failure(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
      }
      const after = token.after;
      listRevision = token.revision;
      items = items.filter((item) => this.keyOf(item) > after);
    }
    const limit = Number(query.limit ?? 0);
    const metadata: Record<string, unknown> = { resourceVersion: String(listRevision) };
    if (limit > 0 && items.length > limit) {
      const remaining = items.length - limit;
      items = items.slice(0, limit);
      metadata.continue = Buffer.from(JSON.stringify({ revision: listRevision, after: this.keyOf(items[items.length - 1]) })).toString('base64url');
      metadata.remainingItemCount = remaining;
    }
    const apiVersion = path.group ? `${path.group}/${path.version}` : path.version;
    return { status: 200, body: { kind: 'List', apiVersion, metadata, items } };
  }

  private create(path: ParsedPath, body: unknown): TransportResponse {
    if (!isRecord(body) || !isRecord(body.metadata)) return failure(400, 'BadRequest', 'the body is not an object');
    const object = clone(body) as KubeObject;
    const metadata = object.metadata;
    if (path.namespace) {
      if (metadata.namespace && metadata.namespace !== path.namespace) return failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
      metadata.namespace = path.namespace;
    }
    if (!metadata.name && metadata.generateName) metadata.name = `${metadata.generateName}${(++this.uidCounter).toString(36).padStart(5, 'x')}`;
    if (!metadata.name) return failure(422, 'Invalid', 'metadata.name: Required value: name or generateName is required');
    const key = this.keyOf(object);
    const resourceKey = `${path.group}/${path.resource}`;
    let bucket = this.objects.get(resourceKey);
    if (!bucket) this.objects.set(resourceKey, (bucket = new Map()));
    if (bucket.has(key)) return failure(409, 'AlreadyExists', `${qualified(path)} "${metadata.name}" already exists`, { name: metadata.name, group: path.group, kind: path.resource });
    metadata.uid = `fake-uid-${++this.uidCounter}`;
    metadata.creationTimestamp = formatTime(new Date());
    metadata.generation = 1;
    delete metadata.deletionTimestamp;
    this.commit(resourceKey, key, 'ADDED', object, undefined);
    return { status: 201, body: object };
  }

  private update(path: ParsedPath, key: string, current: KubeObject, body: unknown): TransportResponse {
    if (!isRecord(body) || !isRecord(body.metadata)) return failure(400, 'BadRequest', 'the body is not an object');
    const incoming = clone(body) as KubeObject;
    const wanted = incoming.metadata.resourceVersion;
    if (wanted && wanted !== current.metadata.resourceVersion) return this.conflict(path);
    return this.replaceStored(path, key, current, incoming);
  }

  private patch(path: ParsedPath, key: string, current: KubeObject, body: unknown, contentType: string): TransportResponse {
    let patched: unknown;
    try {
      // The API server's own JSON, merge and strategic merge patch (strategic patches merge lists by their keys).
      patched = applyPatchDocument(contentType.split(';')[0].trim(), current, body, current.apiVersion ?? '', current.kind ?? '');
    } catch (error) {
      return errorResponse(error);
    }
    if (!isRecord(patched) || !isRecord(patched.metadata)) return failure(422, 'Invalid', 'the patched object is not an object');
    const incoming = patched as KubeObject;
    // A patch that names a resourceVersion is a precondition, as upstream.
    if (isRecord(body) && isRecord(body.metadata) && typeof body.metadata.resourceVersion === 'string' && body.metadata.resourceVersion !== current.metadata.resourceVersion) return this.conflict(path);
    return this.replaceStored(path, key, current, incoming);
  }

  private replaceStored(path: ParsedPath, key: string, current: KubeObject, incoming: KubeObject): TransportResponse {
    let next: KubeObject;
    if (path.subresource === 'status') {
      next = { ...clone(current), status: incoming.status };
    } else {
      next = { ...incoming, metadata: { ...incoming.metadata } };
      if ('status' in current) next.status = clone(current.status);
      else delete next.status;
      for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'generation', 'namespace', 'name'] as const) {
        if (current.metadata[field] === undefined) delete next.metadata[field];
        else (next.metadata as Record<string, unknown>)[field] = current.metadata[field];
      }
      if (JSON.stringify(incoming.spec) !== JSON.stringify(current.spec)) next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    const resourceKey = `${path.group}/${path.resource}`;
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      this.commit(resourceKey, key, 'DELETED', next, current);
      return { status: 200, body: next };
    }
    // A write that changes nothing is no write, as upstream's GuaranteedUpdate: no new resourceVersion, no event.
    if (jsonEqual({ ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } }, current)) return { status: 200, body: current };
    this.commit(resourceKey, key, 'MODIFIED', next, current);
    return { status: 200, body: next };
  }

  private delete(path: ParsedPath, key: string, current: KubeObject, body: unknown): TransportResponse {
    if (isRecord(body) && isRecord(body.preconditions)) {
      const { uid, resourceVersion } = body.preconditions;
      if (typeof uid === 'string' && uid !== current.metadata.uid) {
        return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(path)} "${path.name}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
      }
      if (typeof resourceVersion === 'string' && resourceVersion !== current.metadata.resourceVersion) return this.conflict(path);
    }
    const resourceKey = `${path.group}/${path.resource}`;
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp) return { status: 200, body: current };
      const next = clone(current);
      next.metadata.deletionTimestamp = formatTime(new Date());
      this.commit(resourceKey, key, 'MODIFIED', next, current);
      return { status: 200, body: next };
    }
    this.commit(resourceKey, key, 'DELETED', clone(current), current);
    const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: path.name, group: path.group, kind: path.resource, uid: current.metadata.uid } };
    return { status: 200, body: status };
  }

  private bind(path: ParsedPath, key: string, current: KubeObject | undefined, body: unknown): TransportResponse {
    if (!current) return failure(404, 'NotFound', `pods "${path.name}" not found`);
    const target = isRecord(body) && isRecord(body.target) && typeof body.target.name === 'string' ? body.target.name : undefined;
    if (!target) return failure(422, 'Invalid', 'target.name: Required value');
    const spec = isRecord(current.spec) ? current.spec : {};
    if (spec.nodeName) return failure(409, 'Conflict', `Operation cannot be fulfilled on pods/binding "${path.name}": pod ${path.name} is already assigned to node "${String(spec.nodeName)}"`);
    const next = clone(current);
    next.spec = { ...spec, nodeName: target };
    this.commit(`${path.group}/${path.resource}`, key, 'MODIFIED', next, current);
    return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
  }

  private conflict(path: ParsedPath): TransportResponse {
    return failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(path)} "${path.name}": the object has been modified; please apply your changes to the latest version and try again`, {
      name: path.name,
      group: path.group,
      kind: path.resource,
    });
  }

  private commit(resourceKey: string, key: string, type: LoggedEvent['type'], object: KubeObject, previous: KubeObject | undefined): void {
    object.metadata.resourceVersion = String(++this.revision);
    let bucket = this.objects.get(resourceKey);
    if (!bucket) this.objects.set(resourceKey, (bucket = new Map()));
    if (type === 'DELETED') bucket.delete(key);
    else bucket.set(key, object);
    const event: LoggedEvent = { revision: this.revision, resourceKey, type, object: clone(object), previous: previous && clone(previous) };
    this.log.push(event);
    for (const watch of this.watches) this.send(watch, event);
  }

  /** Delivers a logged event to one watch, turning selector entries/exits into ADDED/DELETED. */
  private send(watch: FakeWatch, event: LoggedEvent): void {
    if (event.resourceKey !== watch.resourceKey) return;
    const matches = (object: KubeObject | undefined): boolean =>
      object !== undefined &&
      (!watch.namespace || object.metadata.namespace === watch.namespace) &&
      matchesLabelSelector(watch.labelSelector, object.metadata.labels) &&
      matchesFieldSelector(watch.fieldSelector, object);
    const now = matches(event.object);
    const before = event.type !== 'ADDED' && matches(event.previous);
    if (event.type === 'DELETED') {
      if (before || now) this.deliver(watch, { type: 'DELETED', object: event.object });
    } else if (now) {
      this.deliver(watch, { type: before || event.type === 'ADDED' ? event.type : 'ADDED', object: event.object });
    } else if (before) {
      this.deliver(watch, { type: 'DELETED', object: event.object });
    }
  }

  /** Events arrive asynchronously and in order, as over a socket. */
  private deliver(watch: FakeWatch, event: WatchEvent): void {
    const copy = clone(event);
    queueMicrotask(() => {
      if (!watch.closed) watch.onEvent(copy);
    });
  }

  private finish(watch: FakeWatch, error?: Error): void {
    this.watches.delete(watch);
    queueMicrotask(() => {
      if (watch.closed) return;
      watch.closed = true;
      watch.onDone(error);
    });
  }

  private closeWatch(watch: FakeWatch): void {
    watch.closed = true;
    this.watches.delete(watch);
  }

  private select(resourceKey: string, namespace: string | undefined, labelSelector: string | undefined, fieldSelector: string | undefined): KubeObject[] {
    const bucket = this.objects.get(resourceKey);
    if (!bucket) return [];
    return [...bucket.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => object)
      .filter((object) => (!namespace || object.metadata.namespace === namespace) && matchesLabelSelector(labelSelector, object.metadata.labels) && matchesFieldSelector(fieldSelector, object));
  }

  private keyOf(object: KubeObject): string {
    return object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ''}` : (object.metadata.name ?? '');
  }

  private takeFailure(method: string, path: string): InjectedFailure | undefined {
    const index = this.failures.findIndex((f) => f.matches(method, path));
    return index < 0 ? undefined : this.failures.splice(index, 1)[0];
  }
}
