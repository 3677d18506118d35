// metadata.managedFields: decoding and encoding the entries, and recording the fields a
// non-apply write (create, update, patch) changed, after k8s.io/apimachinery/pkg/util/managedfields
// (internal/managedfields.go, fieldmanager.go decodeLiveOrNew, managedfieldsupdater.go,
// buildmanagerinfo.go, stripmeta.go, capmanagers.go) and structured-merge-diff merge.Updater.Update:
// the writer's Update entry gains every field the write added or modified, those fields are taken
// from every other manager, removed fields leave every set, and the entry's time is bumped only
// when the write took something.
import type { KubeObject, ManagedFieldsEntry } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { decodeFieldsV1, encodeFieldsV1, FieldSet, fieldElement } from './fieldSet';
import { compareValues, type Comparison } from './typed';
import { typeFor } from './typeSchema';

export interface ManagerEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  subresource?: string;
  set: FieldSet;
}

/** Entries keyed by upstream's manager identifier (BuildManagerIdentifier). */
export type Managed = Map<string, ManagerEntry>;

const maxUpdateManagers = 10;
const ancientChangesManager = 'ancient-changes';

/** Fields no manager ever owns (stripmeta.go). */
const strippedPaths = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((field) => ['f:metadata', fieldElement(field)]),
);

/**
 * The manager identity: manager, operation, subresource and, for Update entries, the API version
 * (an applier keeps one entry whatever version it applies with). The JSON form is what conflict
 * messages decode.
 */
export function managerIdentifier(entry: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  const identity: Record<string, string> = { manager: entry.manager, operation: entry.operation };
  if (entry.operation !== 'Apply' && entry.apiVersion) identity.apiVersion = entry.apiVersion;
  if (entry.subresource) identity.subresource = entry.subresource;
  return JSON.stringify(identity);
}

/** Parses metadata.managedFields; throws on a malformed entry (upstream DecodeManagedFields). */
export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  for (const raw of entries) {
    if (!isRecord(raw)) throw new Error('managedFields entries must be objects');
    const fieldsType = raw.fieldsType;
    if (fieldsType !== 'FieldsV1') throw new Error(`unable to decode managed fields: invalid fieldsType "${String(fieldsType ?? '')}"`);
    const entry: ManagerEntry = {
      manager: typeof raw.manager === 'string' ? raw.manager : '',
      operation: typeof raw.operation === 'string' ? raw.operation : '',
      apiVersion: typeof raw.apiVersion === 'string' ? raw.apiVersion : '',
      set: decodeFieldsV1(raw.fieldsV1 ?? {}),
    };
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new Error(`unable to decode managed fields: invalid operation "${entry.operation}"`);
    if (typeof raw.time === 'string') entry.time = raw.time;
    if (typeof raw.subresource === 'string' && raw.subresource !== '') entry.subresource = raw.subresource;
    const id = managerIdentifier(entry);
    const previous = managed.get(id);
    if (previous) previous.set = previous.set.union(entry.set);
    else managed.set(id, entry);
  }
  return managed;
}

/** The managedFields list, sorted as upstream sorts it (operation, time, manager, version, subresource). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const entries = [...managed.values()].filter((entry) => !entry.set.isEmpty());
  entries.sort((left, right) => {
    if (left.operation !== right.operation) return left.operation < right.operation ? -1 : 1;
    const leftSeconds = left.time ? Date.parse(left.time) : 0;
    const rightSeconds = right.time ? Date.parse(right.time) : 0;
    if (leftSeconds !== rightSeconds) return leftSeconds - rightSeconds;
    for (const key of ['manager', 'apiVersion', 'subresource'] as const) {
      const a = left[key] ?? '';
      const b = right[key] ?? '';
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  });
  return entries.map((entry) => {
    const out: ManagedFieldsEntry = { manager: entry.manager, operation: entry.operation, apiVersion: entry.apiVersion };
    if (entry.time) out.time = entry.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = encodeFieldsV1(entry.set);
    if (entry.subresource) out.subresource = entry.subresource;
    return out;
  });
}

/** Whether two objects carry the same ownership (same entries and sets, order aside). */
export function sameManagedFields(left: KubeObject, right: KubeObject): boolean {
  let a: Managed;
  let b: Managed;
  try {
    a = decodeManagedFields(left.metadata.managedFields);
    b = decodeManagedFields(right.metadata.managedFields);
  } catch {
    return JSON.stringify(left.metadata.managedFields) === JSON.stringify(right.metadata.managedFields);
  }
  if (a.size !== b.size) return false;
  for (const [id, entry] of a) {
    const other = b.get(id);
    if (!other || other.time !== entry.time || !other.set.equals(entry.set)) return false;
  }
  return true;
}

/**
 * The manager name for a request: the fieldManager parameter, else the User-Agent up to its first
 * `/` (printable characters, at most 128 bytes), else `unknown` (handlers/rest.go managerOrUserAgent
 * and buildmanagerinfo.go).
 */
export function managerName(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const agent = userAgent ?? '';
  // a few clients send nearly every request: a small memo of their User-Agents, emptied when full
  if (agent.length > 512) return managerNameOf(agent);
  let name = managerNames.get(agent);
  if (name === undefined) {
    name = managerNameOf(agent);
    if (managerNames.size >= MANAGER_NAMES_KEPT) managerNames.clear();
    managerNames.set(agent, name);
  }
  return name;
}

const MANAGER_NAMES_KEPT = 256;
const managerNames = new Map<string, string>();

function managerNameOf(userAgent: string): string {
  let prefix = '';
  for (const character of userAgent.split('/')[0]) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(character)) continue;
    if (Buffer.byteLength(prefix + character) > 128) break;
    prefix += character;
  }
  return prefix || 'unknown';
}

export interface WriteContext {
  manager: string;
  apiVersion: string;
  kind: string;
  /** `status`, or undefined for the main resource */
  subresource?: string;
  /** whether the kind has a status subresource (the main resource then never owns status) */
  hasStatus: boolean;
  now: string;
}

/**
 * Fields a write through this endpoint may not own (upstream strategies' GetResetFields): status
 * through the main resource of a kind with a status subresource; everything but status (and
 * metadata) through the status subresource.
 */
export function resetFields(context: Pick<WriteContext, 'subresource' | 'hasStatus'>, ...objects: unknown[]): FieldSet {
  const set = new FieldSet();
  if (context.subresource === 'status') {
    for (const object of objects) {
      if (!isRecord(object)) continue;
      for (const key of Object.keys(object)) if (key !== 'status' && key !== 'metadata' && key !== 'apiVersion' && key !== 'kind') set.insert([fieldElement(key)]);
    }
  } else if (context.hasStatus) {
    set.insert(['f:status']);
  }
  return set;
}

/** The object as field management compares it: without the server-managed metadata. */
export function comparable(obj: KubeObject | Record<string, unknown> | undefined): Record<string, unknown> {
  if (!obj) return {};
  const copy: Record<string, unknown> = { ...obj };
  if (isRecord(copy.metadata)) {
    const { managedFields: _managedFields, resourceVersion: _resourceVersion, generation: _generation, creationTimestamp: _creationTimestamp, uid: _uid, selfLink: _selfLink, ...metadata } = copy.metadata;
    copy.metadata = metadata;
  }
  return copy;
}

export function filterComparison(comparison: Comparison, ignored: FieldSet): Comparison {
  return {
    added: comparison.added.recursiveDifference(ignored),
    modified: comparison.modified.recursiveDifference(ignored),
    removed: comparison.removed.recursiveDifference(ignored),
  };
}

export function stripSet(set: FieldSet): FieldSet {
  return set.difference(strippedPaths);
}

/** managedFields a client sent: a non-nil empty list (or one empty entry) resets them (isResetManagedFields). */
function isReset(entries: unknown): boolean {
  if (!Array.isArray(entries)) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isRecord(entries[0]) && Object.keys(entries[0]).length === 0;
}

/**
 * decodeLiveOrNew: a client may replace managedFields on an update of the main resource (kubectl's
 * client-side to server-side apply upgrade does); otherwise, or when they do not decode, the live
 * object's entries are kept.
 */
function startingManaged(live: KubeObject | undefined, next: KubeObject, subresource: string | undefined): Managed {
  const liveManaged = (): Managed => {
    try {
      return decodeManagedFields(live?.metadata.managedFields);
    } catch {
      return new Map();
    }
  };
  if (subresource) return liveManaged();
  const sent = next.metadata.managedFields;
  if (isReset(sent)) return new Map();
  try {
    const managed = decodeManagedFields(sent);
    if (managed.size > 0) return managed;
  } catch {
    // fall back to the live entries, as upstream does for clients that mangle them
  }
  return liveManaged();
}

/**
 * Records a non-apply write on `next` (sets next.metadata.managedFields): `live` is the stored
 * object (undefined on create), `next` the object about to be stored.
 */
export function recordUpdate(live: KubeObject | undefined, next: KubeObject, context: WriteContext): void {
  const managed = startingManaged(live, next, context.subresource);
  const type = typeFor(context.apiVersion, context.kind);
  const before = comparable(live);
  const after = comparable(next);
  const ignored = resetFields(context, before, after);
  let comparison: Comparison;
  try {
    comparison = filterComparison(compareValues(before, after, type), ignored);
  } catch {
    // As UpdateNoErrors: ownership is best effort and never fails a write.
    writeManaged(next, managed);
    return;
  }
  const changed = comparison.added.union(comparison.modified);
  for (const entry of managed.values()) entry.set = entry.set.difference(changed).difference(comparison.removed);
  const taken = stripSet(changed);
  if (!taken.isEmpty()) {
    const id = managerIdentifier({ manager: context.manager, operation: 'Update', apiVersion: context.apiVersion, subresource: context.subresource });
    const previous = managed.get(id);
    managed.set(id, {
      manager: context.manager,
      operation: 'Update',
      apiVersion: context.apiVersion,
      time: context.now,
      subresource: context.subresource,
      set: previous ? previous.set.union(taken) : taken,
    });
  }
  capManagers(managed);
  writeManaged(next, managed);
}

export function writeManaged(obj: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  if (entries.length > 0) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

/** At most ten Update entries: the oldest merge into `ancient-changes` per API version (capmanagers.go). */
function capManagers(managed: Managed): void {
  const updaters = [...managed.entries()].filter(([, entry]) => entry.operation === 'Update' && !entry.set.isEmpty());
  if (updaters.length <= maxUpdateManagers) return;
  updaters.sort(([, left], [, right]) => (left.time ? Date.parse(left.time) : 0) - (right.time ? Date.parse(right.time) : 0));
  let count = updaters.length;
  for (const [id, entry] of updaters) {
    if (count <= maxUpdateManagers) break;
    const bucketId = managerIdentifier({ manager: ancientChangesManager, operation: 'Update', apiVersion: entry.apiVersion });
    if (id === bucketId) continue;
    const bucket = managed.get(bucketId);
    managed.delete(id);
    if (bucket) {
      bucket.set = bucket.set.union(entry.set);
      bucket.time = entry.time;
      count--;
    } else {
      managed.set(bucketId, { ...entry, manager: ancientChangesManager, subresource: undefined });
    }
  }
}
