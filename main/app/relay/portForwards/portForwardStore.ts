// The emulated PortForward objects of one context, in memory (the app forgets them when it quits):
// create, get, delete and status writes with a resourceVersion counter, and an event log that a
// watch resumes from, as the API server's watch cache does (staging/src/k8s.io/apiserver/pkg/
// storage/cacher): a watch from "" or "0" starts with an ADDED event per object, a watch from N
// replays the events after N, and one from a version the log no longer holds (or never held: a
// version of an earlier run) ends with a 410 Expired ERROR event, so the client relists. Creation
// follows the real kind's strategy (main/network/portForwards/portForwardResource.ts): the same
// validation with field paths, status reset, generateName, system fields set by the server.
import { randomUUID } from 'node:crypto';
import type { KubeObject, WatchEventType } from '../../../../shared/kubernetes/types';
import { isRecord } from '../../../../shared/kubernetes/types';
import { ApiError } from '../../../apiserver/apiError';
import { PORT_FORWARD_GROUP, PORT_FORWARD_KIND, PORT_FORWARD_RESOURCE, PORT_FORWARD_VERSION, validatePortForward, type PortForwardStatus } from '../../../network/portForwards/portForwardResource';

export const PORT_FORWARD_API_VERSION = `${PORT_FORWARD_GROUP}/${PORT_FORWARD_VERSION}`;
const groupResource = { group: PORT_FORWARD_GROUP, resource: PORT_FORWARD_RESOURCE };

export interface StoredEvent {
  type: Exclude<WatchEventType, 'BOOKMARK' | 'ERROR'>;
  object: KubeObject;
  /** the object before a MODIFIED event (to tell a watch with selectors that it left them) */
  previous?: KubeObject;
  resourceVersion: number;
}

export interface PortForwardStoreOptions {
  now?: () => Date;
  /** events kept for watches to resume from; default 1000 */
  historySize?: number;
}

export type WatchStart = { events: StoredEvent[] } | { expired: string };

/** upstream's generateName suffix: 5 characters without vowels or look-alikes */
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

function timestamp(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export class PortForwardStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly log: StoredEvent[] = [];
  private readonly listeners = new Set<(event: StoredEvent) => void>();
  private revision = 0;
  private readonly now: () => Date;
  private readonly historySize: number;

  constructor(options: PortForwardStoreOptions = {}) {
    this.now = options.now ?? (() => new Date());
    this.historySize = options.historySize ?? 1000;
  }

  resourceVersion(): string {
    return String(this.revision);
  }

  /** Objects of one namespace (or all), sorted by namespace and name, as copies. */
  list(namespace?: string): KubeObject[] {
    return [...this.objects.entries()]
      .filter(([, object]) => namespace === undefined || object.metadata.namespace === namespace)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
      .map(([, object]) => structuredClone(object));
  }

  /** The stored object itself (read-only) or undefined. */
  peek(namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(key(namespace, name));
  }

  get(namespace: string, name: string): KubeObject {
    const object = this.objects.get(key(namespace, name));
    if (!object) throw ApiError.notFound(groupResource, name);
    return structuredClone(object);
  }

  /** Validates and stores a new PortForward; with dryRun nothing is stored. Throws ApiError. */
  create(namespace: string, body: Record<string, unknown>, options: { dryRun?: boolean } = {}): KubeObject {
    if (body.apiVersion !== undefined && body.apiVersion !== PORT_FORWARD_API_VERSION) {
      throw ApiError.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${PORT_FORWARD_API_VERSION})`);
    }
    if (body.kind !== undefined && body.kind !== PORT_FORWARD_KIND) throw ApiError.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${PORT_FORWARD_KIND})`);
    if (body.metadata !== undefined && !isRecord(body.metadata)) throw ApiError.badRequest('metadata: must be an object');
    const metadata: Record<string, unknown> = isRecord(body.metadata) ? structuredClone(body.metadata) : {};
    if (metadata.namespace !== undefined && metadata.namespace !== '' && metadata.namespace !== namespace) {
      throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    if (typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '') throw ApiError.badRequest('resourceVersion should not be set on objects to be created');
    metadata.namespace = namespace;
    if ((metadata.name === undefined || metadata.name === '') && typeof metadata.generateName === 'string' && metadata.generateName !== '') {
      metadata.name = this.generatedName(namespace, metadata.generateName);
    }
    const object = { ...structuredClone(body), apiVersion: PORT_FORWARD_API_VERSION, kind: PORT_FORWARD_KIND, metadata } as KubeObject;
    delete object.status;
    for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields', 'selfLink'] as const) delete object.metadata[field];
    const name = typeof object.metadata.name === 'string' ? object.metadata.name : '';
    const errors = validatePortForward(object);
    if (errors.length > 0) throw ApiError.invalid(PORT_FORWARD_KIND, PORT_FORWARD_GROUP, name, errors);
    if (this.objects.has(key(namespace, name))) throw ApiError.alreadyExists(groupResource, name);
    object.metadata.uid = randomUUID();
    object.metadata.creationTimestamp = timestamp(this.now());
    object.metadata.generation = 1;
    object.status = {};
    if (options.dryRun) {
      object.metadata.resourceVersion = this.resourceVersion();
      return object;
    }
    this.objects.set(key(namespace, name), object);
    this.record('ADDED', object);
    return structuredClone(object);
  }

  /** Deletes at once (the kind has no finalizers); preconditions as upstream's DeleteOptions. */
  delete(namespace: string, name: string, options: { uid?: string; resourceVersion?: string; dryRun?: boolean } = {}): KubeObject {
    const object = this.objects.get(key(namespace, name));
    if (!object) throw ApiError.notFound(groupResource, name);
    if (options.uid !== undefined && options.uid !== object.metadata.uid) {
      throw ApiError.conflict(groupResource, name, `Precondition failed: UID in precondition: ${options.uid}, UID in object meta: ${object.metadata.uid ?? ''}`);
    }
    if (options.resourceVersion !== undefined && options.resourceVersion !== object.metadata.resourceVersion) {
      throw ApiError.conflict(groupResource, name, `Precondition failed: ResourceVersion in precondition: ${options.resourceVersion}, ResourceVersion in object meta: ${object.metadata.resourceVersion ?? ''}`);
    }
    if (options.dryRun) return structuredClone(object);
    this.objects.delete(key(namespace, name));
    const deleted = structuredClone(object);
    this.record('DELETED', deleted);
    return structuredClone(deleted);
  }

  /** Writes status (the emulation's controller side); false when the object is gone or nothing changed. */
  setStatus(namespace: string, name: string, uid: string, status: PortForwardStatus): boolean {
    const current = this.objects.get(key(namespace, name));
    if (!current || current.metadata.uid !== uid) return false;
    if (JSON.stringify(current.status ?? {}) === JSON.stringify(status)) return false;
    const updated = { ...structuredClone(current), status: structuredClone(status) } as KubeObject;
    this.objects.set(key(namespace, name), updated);
    this.record('MODIFIED', updated, current);
    return true;
  }

  /** Every change from now on (the emulation reconciles on them; watches follow them). */
  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Where a watch from `resourceVersion` starts: the current objects as ADDED ('' or '0'), the
   * events after it, or expired when the log does not reach back that far (or the version is
   * from the future, e.g. from before the app restarted).
   */
  watchStart(resourceVersion: string): WatchStart {
    if (resourceVersion === '' || resourceVersion === '0') {
      return { events: this.list().map((object) => ({ type: 'ADDED' as const, object, resourceVersion: Number(object.metadata.resourceVersion) })) };
    }
    const from = /^\d+$/.test(resourceVersion) ? Number(resourceVersion) : NaN;
    if (Number.isNaN(from)) throw ApiError.badRequest(`invalid resource version: ${resourceVersion}`);
    const oldest = this.log.length > 0 ? this.log[0].resourceVersion - 1 : this.revision;
    if (from < oldest) return { expired: `too old resource version: ${from} (${oldest})` };
    if (from > this.revision) return { expired: `resource version ${from} is from an earlier run of kubedesk (now at ${this.revision}): list again` };
    return { events: this.log.filter((event) => event.resourceVersion > from) };
  }

  private record(type: StoredEvent['type'], object: KubeObject, previous?: KubeObject): void {
    this.revision += 1;
    object.metadata.resourceVersion = String(this.revision);
    const event: StoredEvent = { type, object: structuredClone(object), resourceVersion: this.revision, ...(previous ? { previous: structuredClone(previous) } : {}) };
    this.log.push(event);
    if (this.log.length > this.historySize) this.log.splice(0, this.log.length - this.historySize);
    for (const listener of [...this.listeners]) listener(event);
  }

  private generatedName(namespace: string, prefix: string): string {
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    for (;;) {
      let suffix = '';
      for (let index = 0; index < 5; index += 1) suffix += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
      if (!this.objects.has(key(namespace, base + suffix))) return base + suffix;
    }
  }
}
