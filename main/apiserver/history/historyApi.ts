// The object history API (history.kubedesk.dev/v1), kubedesk's own, served like an aggregated API
// (virtual resources of the one API server, as metrics.k8s.io is here) from the History the store
// keeps (main/storage/history.ts). Read-only, get and list:
//
//   GET /apis/history.kubedesk.dev/v1/namespaces/NS/revisions?type=TYPE&name=NAME
//       every retained revision of one object, oldest first; TYPE is a kubectl resource word
//       (deploy, deployments, deployments.apps, Deployment). Cluster-scoped objects: without the
//       namespace. Needs `get` on the object itself (RBAC, as for reading the object).
//   GET /apis/history.kubedesk.dev/v1/[namespaces/NS/]revisions[?since=&user=&type=&limit=]
//       the change feed, newest first: only writes of objects the requester may `get`; a Secret it
//       may not get shows which data keys changed, never values (to requesters that may list
//       ConfigMaps there, i.e. read the namespace's configuration).
//   GET /apis/history.kubedesk.dev/v1/[namespaces/NS/]deletedobjects[?type=]
//       objects whose newest revision removed them, with their last state, under the same rules.
//   GET /apis/history.kubedesk.dev/v1/[namespaces/NS/]pastobjects?type=TYPE&time=T[&labelSelector=]
//       the list of TYPE as it was at T (RFC 3339, or a duration back from now: 10m, 2h): a
//       `<Kind>List`, or the kind's own Table (kubectl's columns) when asked as kubectl asks. Needs
//       `list` on TYPE there, as listing it now does. Each key's newest revision at or before T;
//       objects not written since the history starts are as they are now. T before the oldest
//       retained revision: 410 Expired (the state then is pruned; a HistoryStart cause names the
//       start). Objects whose state at T is
//       pruned though they existed (their older revisions dropped) show their oldest retained
//       revision, annotated PAST_STATE_ANNOTATION and named in a Warning header.
//
// Items are Revision objects: { target, revision, resourceVersion, time, operation, removed,
// subresource, user, impersonator, fieldManager, userAgent, object }.
import type { KubeObject } from '../../../shared/kubernetes/types';
import { isRecord } from '../../../shared/kubernetes/types';
import { parseHistoryTime } from '../../../shared/history/historyFormat';
import { defineKind, type KindStrategy } from '../../registry/strategy';
import { qualifiedResource } from '../../registry/resources';
import type { History, HistoryEntry } from '../../storage/history';
import type { ObjectKey } from '../../storage/store';
import { ApiError } from '../apiError';
import type { Attributes, Authorizer, UserIdentity } from '../auth/rbacAuthorizer';
import { forbidden } from '../auth/forbidden';
import { LOOPBACK_USER } from '../auth/reviews';
import { json, withWarnings } from '../handlers/replies';
import type { ApiReply, ApiRequest, ApiServerContext } from '../handlers/request';
import type { ResourceRegistry } from '../resourceRegistry';
import type { TableDef } from '../../../shared/printers/table';
import { column, cellText } from '../../../shared/printers/columns';
import { negotiate } from '../content';
import { parseIncludeObject, toTable } from '../tables';
import { withTypeMeta } from '../resourceStore';
import { matchesLabels, parseLabelSelector } from '../selectors';

export const HISTORY_GROUP = 'history.kubedesk.dev';
export const HISTORY_VERSION = 'v1';
const API_VERSION = `${HISTORY_GROUP}/${HISTORY_VERSION}`;
const MAX_LIMIT = 5_000;
/** set on an as-of object whose state at the time is pruned: it shows its oldest retained revision instead */
export const PAST_STATE_ANNOTATION = 'history.kubedesk.dev/oldest-retained-revision';
/** the Status cause of a 410 from pastobjects whose message is the time the history starts (RFC 3339) */
export const HISTORY_START_CAUSE = 'HistoryStart';
/** the value a redacted Secret data key shows */
export const REDACTED = '<redacted>';

export function registerHistoryApi(api: ApiServerContext, registry: ResourceRegistry, options: { history: History; authorizer: Authorizer }): void {
  const [revisions, deleted, past] = historyResourceDefs();
  const { history, authorizer } = options;
  api.registerVirtualResource(HISTORY_GROUP, HISTORY_VERSION, revisions.resource, (request, context) => {
    requireList(request, context.name, context.rest);
    const user = request.user ?? LOOPBACK_USER;
    const query = request.query;
    const name = query.get('name');
    const typeWord = query.get('type');
    if (name !== null) {
      if (typeWord === null) throw ApiError.badRequest('type is required with name');
      const def = resolveType(registry, typeWord);
      const namespace = def.namespaced ? context.namespace : '';
      if (def.namespaced && !namespace) throw ApiError.badRequest(`${def.resource}.${def.group || 'core'} is namespaced: ask under namespaces/NAMESPACE/revisions`);
      const check = attributesFor(user, def, namespace, name, 'get');
      const decision = authorizer.authorize(check);
      if (!decision.allowed) throw forbidden(check, decision.reason);
      const key: ObjectKey = { resource: qualifiedResource(def), namespace, name };
      return list(request, revisions, history.revisions(key).map((entry) => revisionObject(entry, def)));
    }
    const def = typeWord === null ? undefined : resolveType(registry, typeWord);
    const entries = history.changes({
      since: sinceOf(query.get('since')),
      namespace: context.namespace || undefined,
      resource: def ? qualifiedResource(def) : undefined,
      user: query.get('user') ?? undefined,
      limit: limitOf(query.get('limit')),
    });
    return list(request, revisions, visible(entries, user, registry, authorizer, history));
  });
  api.registerVirtualResource(HISTORY_GROUP, HISTORY_VERSION, deleted.resource, (request, context) => {
    requireList(request, context.name, context.rest);
    const user = request.user ?? LOOPBACK_USER;
    const typeWord = request.query.get('type');
    const def = typeWord === null ? undefined : resolveType(registry, typeWord);
    const entries = history.deleted({ namespace: context.namespace || undefined, resource: def ? qualifiedResource(def) : undefined });
    return list(request, deleted, visible(entries, user, registry, authorizer, history));
  });
  api.registerVirtualResource(HISTORY_GROUP, HISTORY_VERSION, past.resource, (request, context) => {
    requireList(request, context.name, context.rest);
    const user = request.user ?? LOOPBACK_USER;
    const typeWord = request.query.get('type');
    if (typeWord === null || typeWord === '') throw ApiError.badRequest('type is required: the kind of objects to list, as kubectl names it (deploy, configmaps…)');
    const def = resolveType(registry, typeWord);
    const namespace = def.namespaced ? context.namespace : '';
    const check = attributesFor(user, def, namespace, '', 'list');
    const decision = authorizer.authorize(check);
    if (!decision.allowed) throw forbidden(check, decision.reason);
    const timeText = request.query.get('time');
    if (timeText === null || timeText === '') throw ApiError.badRequest('time is required: an RFC 3339 time or a duration back from now (10m, 2h)');
    const now = Date.now();
    const time = sinceOf(timeText, 'time') ?? now;
    if (time > now) throw ApiError.badRequest(`time: invalid value "${timeText}": it is in the future`);
    const start = history.startTime();
    if (start === undefined || time < start) {
      // the start to the millisecond: a time in its first second is answerable
      const kept = start === undefined ? 'no revisions are kept yet' : `the history starts at ${new Date(start).toISOString()}`;
      // the start as a cause too, so a client (the UI's time slider) can offer the range that answers
      const causes = start === undefined ? [] : [{ reason: HISTORY_START_CAUSE, field: 'time', message: new Date(start).toISOString() }];
      throw new ApiError(410, 'Expired', `${def.resource} as of ${rfc3339(time)} cannot be reconstructed: ${kept} (older revisions are past the retention window)`, { group: HISTORY_GROUP, kind: past.resource, causes });
    }
    if (request.query.get('fieldSelector')) throw ApiError.badRequest('fieldSelector: not supported for a past list; use labelSelector');
    const labels = parseLabelSelector(request.query.get('labelSelector') ?? '');
    const result = pastObjects(api, history, def, namespace || undefined, time);
    const items = result.items.filter((object) => labels.length === 0 || matchesLabels(labels, object.metadata.labels));
    const warnings = result.pruned.length === 0 ? [] : [`the state as of ${rfc3339(time)} is pruned for ${result.pruned.join(', ')}: shown as of the oldest retained revision`];
    const negotiated = negotiate(request.headers['accept']);
    const listMeta = { resourceVersion: '' };
    if (negotiated.shape === 'table') return withWarnings(json(200, toTable(def, items, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta, tableVersion: negotiated.tableVersion })), warnings);
    return withWarnings(json(200, { kind: `${def.kind}List`, apiVersion: def.group ? `${def.group}/${def.version}` : def.version, metadata: listMeta, items }), warnings);
  });
  registry.add(revisions);
  registry.add(deleted);
  registry.add(past);
}

/**
 * The objects of one kind as they were at `time` (sorted by namespace and name, as a list is), and
 * the names of those shown from a later revision because their state at `time` is pruned.
 */
export function pastObjects(api: Pick<ApiServerContext, 'objects'>, history: History, def: KindStrategy, namespace: string | undefined, time: number): { items: KubeObject[]; pruned: string[] } {
  const resource = qualifiedResource(def);
  const byKey = new Map<string, KubeObject>();
  const id = (objectNamespace: string, name: string) => `${objectNamespace}\u0000${name}`;
  const written = new Set<string>();
  const pruned: string[] = [];
  for (const past of history.asOf(resource, namespace, time)) {
    const key = id(past.key.namespace, past.key.name);
    written.add(key);
    if (past.state === 'created-after' || past.entry.removed) continue;
    const object = withTypeMeta(def, structuredClone(past.entry.object));
    if (past.state === 'unknown') {
      object.metadata.annotations = { ...object.metadata.annotations, [PAST_STATE_ANNOTATION]: String(past.entry.revision) };
      pruned.push(past.key.namespace ? `${past.key.namespace}/${past.key.name}` : past.key.name);
    }
    byKey.set(key, object);
  }
  // never written since the history starts: unchanged since, so as it is now if it existed then
  for (const object of api.objects.list(def, { namespace, labels: [], fields: [] }).items) {
    const key = id(object.metadata.namespace ?? '', object.metadata.name ?? '');
    if (written.has(key)) continue;
    const created = Date.parse(object.metadata.creationTimestamp ?? '');
    if (Number.isNaN(created) || created <= time) byKey.set(key, object);
  }
  const items = [...byKey.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, object]) => object);
  return { items, pruned };
}

function rfc3339(time: number): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Discovery and OpenAPI metadata only: the virtual handlers answer every request. */
export function historyResourceDefs(): [KindStrategy, KindStrategy, KindStrategy] {
  const describe = (resource: string, kind: string) =>
    defineKind({ group: HISTORY_GROUP, version: HISTORY_VERSION, resource, singular: resource.slice(0, -1), kind, namespaced: true, verbs: ['get', 'list'], printer: REVISION_TABLE });
  return [describe('revisions', 'Revision'), describe('deletedobjects', 'DeletedObject'), describe('pastobjects', 'PastObject')];
}

/** Columns of `kubectl get revisions.history.kubedesk.dev`. */
const REVISION_TABLE: TableDef = {
  columns: [
    column('Name', 'string', 'the object name and its revision', { format: 'name' }),
    column('Kind', 'string', 'the kind of the object'),
    column('Operation', 'string', 'CREATE, UPDATE, PATCH, APPLY or DELETE'),
    column('User', 'string', 'who wrote'),
    column('Manager', 'string', 'the field manager'),
    column('Time', 'string', 'when', { format: 'date-time' }),
  ],
  row(object) {
    const target = isRecord(object.target) ? object.target : {};
    return [object.metadata.name ?? '', cellText(target.kind), cellText(object.operation), cellText(object.user), cellText(object.fieldManager), cellText(object.time)];
  },
};

function requireList(request: ApiRequest, name: string | undefined, rest: string[]): void {
  if (request.method !== 'GET') throw ApiError.methodNotAllowed();
  if (name !== undefined || rest.length > 0) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  const watch = request.query.get('watch');
  if (watch === 'true' || watch === '1') throw ApiError.methodNotAllowed('history cannot be watched');
}

function list(request: ApiRequest, def: KindStrategy, items: KubeObject[]): ApiReply {
  const negotiated = negotiate(request.headers['accept']);
  if (negotiated.shape === 'table') return json(200, toTable(def, items, { includeObject: parseIncludeObject(request.query.get('includeObject')), listMeta: {}, tableVersion: negotiated.tableVersion }));
  return json(200, { kind: 'RevisionList', apiVersion: API_VERSION, metadata: {}, items });
}

/**
 * A kubectl resource word → the stored kind: plural, singular, short name or kind (any case),
 * optionally `.group` or `.version.group`; the core group and then the first group win, as
 * kubectl's RESTMapper prefers.
 */
export function resolveType(registry: ResourceRegistry, word: string): KindStrategy {
  const lower = word.toLowerCase();
  const matches: KindStrategy[] = [];
  for (const def of registry.all()) {
    if (def.conversion || def.group === HISTORY_GROUP) continue;
    const names = [def.resource, def.singular, def.kind.toLowerCase(), ...def.shortNames];
    for (const name of names) {
      if (lower === name || lower === `${name}.${def.group}` || lower === `${name}.${def.version}.${def.group}` || (def.group === '' && lower === `${name}.${def.version}`)) {
        matches.push(def);
        break;
      }
    }
  }
  if (matches.length === 0) throw ApiError.badRequest(`the server doesn't have a resource type "${word}"`);
  return matches.find((def) => def.group === '') ?? matches[0];
}

function attributesFor(user: UserIdentity, def: Pick<KindStrategy, 'group' | 'version' | 'resource'>, namespace: string, name: string, verb: string): Attributes {
  return { user, verb, isResourceRequest: true, path: '', apiGroup: def.group, apiVersion: def.version, namespace, resource: def.resource, subresource: '', name };
}

/** The entries the requester may see: whole where it may `get` the object, redacted Secrets as the file header says. */
function visible(entries: HistoryEntry[], user: UserIdentity, registry: ResourceRegistry, authorizer: Authorizer, history: History): KubeObject[] {
  const out: KubeObject[] = [];
  const decisions = new Map<string, boolean>();
  const allowed = (attributes: Attributes): boolean => {
    const id = `${attributes.verb}\u0000${attributes.apiGroup}\u0000${attributes.resource}\u0000${attributes.namespace}\u0000${attributes.name}`;
    let answer = decisions.get(id);
    if (answer === undefined) {
      answer = authorizer.authorize(attributes).allowed;
      decisions.set(id, answer);
    }
    return answer;
  };
  for (const entry of entries) {
    const def = defOfKey(registry, entry.key.resource);
    if (!def) continue;
    if (allowed(attributesFor(user, def, entry.key.namespace, entry.key.name, 'get'))) {
      out.push(revisionObject(entry, def));
      continue;
    }
    if (def.group !== '' || def.resource !== 'secrets') continue;
    if (!allowed(attributesFor(user, { group: '', version: 'v1', resource: 'configmaps' }, entry.key.namespace, '', 'list'))) continue;
    const previous = entry.revision > 1 ? history.revision(entry.key, entry.revision - 1) : undefined;
    out.push(revisionObject(entry, def, changedKeys(previous?.object, entry.object)));
  }
  return out;
}

function defOfKey(registry: ResourceRegistry, resource: string): KindStrategy | undefined {
  return registry.all().find((def) => !def.conversion && qualifiedResource(def) === resource);
}

function dataOf(object: KubeObject | undefined): Record<string, unknown> {
  if (object === undefined) return {};
  const data = isRecord(object.data) ? object.data : {};
  const stringData = isRecord(object.stringData) ? object.stringData : {};
  return { ...data, ...stringData };
}

/** Keys added, removed or changed between two Secret states. */
export function changedKeys(before: KubeObject | undefined, after: KubeObject): string[] {
  const old = dataOf(before);
  const next = dataOf(after);
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  return [...keys].filter((key) => old[key] !== next[key]).sort();
}

/** A Secret without its values: every data key maps to REDACTED, and the last-applied annotation (which holds them) is dropped. */
function redactSecret(object: KubeObject): KubeObject {
  const redacted: KubeObject = { ...object, metadata: { ...object.metadata } };
  for (const field of ['data', 'stringData'] as const) {
    const data = object[field];
    if (isRecord(data)) redacted[field] = Object.fromEntries(Object.keys(data).map((key) => [key, REDACTED]));
  }
  const annotations = object.metadata.annotations;
  if (annotations) {
    const { 'kubectl.kubernetes.io/last-applied-configuration': _lastApplied, ...rest } = annotations;
    redacted.metadata.annotations = rest;
  }
  delete redacted.metadata.managedFields;
  return redacted;
}

function revisionObject(entry: HistoryEntry, def: KindStrategy, redactedChanges?: string[]): KubeObject {
  const { key } = entry;
  const time = new Date(entry.time).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const revision: KubeObject = {
    apiVersion: API_VERSION,
    kind: 'Revision',
    metadata: { name: `${key.name}.${entry.revision}`, ...(key.namespace ? { namespace: key.namespace } : {}), creationTimestamp: time },
    target: { group: def.group, version: def.version, resource: def.resource, kind: def.kind, namespace: key.namespace, name: key.name, uid: entry.object.metadata.uid },
    revision: entry.revision,
    resourceVersion: String(entry.resourceVersion),
    time,
    operation: entry.operation,
    removed: entry.removed,
    object: redactedChanges ? redactSecret(entry.object) : entry.object,
  };
  if (entry.subresource !== undefined) revision.subresource = entry.subresource;
  if (entry.user !== undefined) revision.user = entry.user;
  if (entry.impersonator !== undefined) revision.impersonator = entry.impersonator;
  if (entry.fieldManager !== undefined) revision.fieldManager = entry.fieldManager;
  if (entry.userAgent !== undefined) revision.userAgent = entry.userAgent;
  if (redactedChanges) {
    revision.redacted = true;
    revision.changedKeys = redactedChanges;
  }
  return revision;
}

/** `since` (or `time`): RFC 3339, or a duration back from now (30s, 10m, 2h, 7d). */
function sinceOf(text: string | null, parameter = 'since'): number | undefined {
  if (text === null || text === '') return undefined;
  const time = parseHistoryTime(text, Date.now());
  if (time === undefined) throw ApiError.badRequest(`${parameter}: invalid value "${text}": a duration such as 10m or 2h, or an RFC 3339 time`);
  return time;
}

function limitOf(text: string | null): number | undefined {
  if (text === null) return undefined;
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1) throw ApiError.badRequest(`limit: invalid value "${text}": a positive number`);
  return Math.min(limit, MAX_LIMIT);
}
