// What the object history shows and writes, as pure functions shared by `kubedesk history` and the
// UI's History tab: the one-line summary of what a revision changed (`spec.replicas: 1→3`,
// `image: nginx:1→nginx:2`), a unified diff of two revisions' texts (the format of `diff -u`, as
// `kubectl diff` shows it), and what a restore writes: the revision's desired state on top of the
// live object (upstream's rollback of a Deployment, kubectl rollout undo, copies the template the
// same way) or, for an undelete, the last state without what the server owns; `planRestore`
// decides which, with the same refusals for both.
import { isRecord, type KubeObject } from '../kubernetes/types';

/** Metadata the server sets on every write: never a change worth naming. */
const SERVER_METADATA = ['resourceVersion', 'managedFields', 'generation', 'uid', 'creationTimestamp', 'selfLink'];

function comparable(object: KubeObject): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...object.metadata };
  for (const field of SERVER_METADATA) delete metadata[field];
  return { ...object, metadata };
}

function short(value: unknown): string {
  if (value === undefined) return '∅';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function isLeaf(value: unknown): boolean {
  return !isRecord(value) && !Array.isArray(value);
}

/** Leaf paths whose values differ, in document order: `[path, before, after]`. */
export function changedPaths(before: unknown, after: unknown, path = ''): [string, unknown, unknown][] {
  if (isLeaf(before) || isLeaf(after) || Array.isArray(before) !== Array.isArray(after)) {
    return JSON.stringify(before) === JSON.stringify(after) ? [] : [[path, before, after]];
  }
  const out: [string, unknown, unknown][] = [];
  if (Array.isArray(before) && Array.isArray(after)) {
    for (let index = 0; index < Math.max(before.length, after.length); index++) out.push(...changedPaths(before[index], after[index], `${path}[${index}]`));
    return out;
  }
  const left = before as Record<string, unknown>;
  const right = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  for (const key of keys) out.push(...changedPaths(left[key], right[key], path === '' ? key : `${path}.${key}`));
  return out;
}

/** The CHANGES cell: `created`, `deleted`, or the changed fields (container images by their last name), cut to `width`. */
export function changeSummary(previous: KubeObject | undefined, current: KubeObject, removed: boolean, width = 100): string {
  if (removed) return 'deleted';
  if (previous === undefined) return 'created';
  // the desired state first, then metadata, then status: what a person changed before what the server reports
  const rank = (path: string): number => (path.startsWith('status') ? 2 : path.startsWith('metadata') ? 1 : 0);
  const paths = changedPaths(comparable(previous), comparable(current)).sort((left, right) => rank(left[0]) - rank(right[0]));
  const parts = paths.map(([path, before, after]) => {
    const label = /\.image$/.test(path) ? 'image' : path;
    return `${label}: ${short(before)}→${short(after)}`;
  });
  if (parts.length === 0) return '(no change)';
  let text = '';
  for (let index = 0; index < parts.length; index++) {
    const next = text === '' ? parts[index] : `${text}, ${parts[index]}`;
    const rest = parts.length - index - 1;
    if (next.length > width && text !== '') return `${text}, +${parts.length - index} more`;
    text = next;
    if (text.length > width && rest > 0) return `${text}, +${rest} more`;
  }
  return text;
}

/** The object as a revision shows it: without managedFields, which only the server reads. */
export function displayObject(object: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** The object as a diff shows it: without managedFields and resourceVersion, which every write changes. */
export function diffObject(object: KubeObject): KubeObject {
  const { managedFields: _managedFields, resourceVersion: _resourceVersion, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** A unified diff (`diff -u`) of two texts with 3 lines of context; empty when they are equal. */
export function unifiedDiff(beforeText: string, afterText: string, beforeName: string, afterName: string): string {
  const a = beforeText.split('\n');
  const b = afterText.split('\n');
  if (a[a.length - 1] === '') a.pop();
  if (b[b.length - 1] === '') b.pop();
  // longest common subsequence table, from the end
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  type Op = { type: ' ' | '-' | '+'; line: string; aLine: number; bLine: number };
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) ops.push({ type: ' ', line: a[i], aLine: i++, bLine: j++ });
    // removals before additions, as diff -u prints a changed line
    else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ type: '-', line: a[i], aLine: i++, bLine: j });
    else ops.push({ type: '+', line: b[j], aLine: i, bLine: j++ });
  }
  if (ops.every((op) => op.type === ' ')) return '';
  const CONTEXT = 3;
  const out = [`--- ${beforeName}`, `+++ ${afterName}`];
  let index = 0;
  while (index < ops.length) {
    if (ops[index].type === ' ') {
      index++;
      continue;
    }
    const start = Math.max(0, index - CONTEXT);
    let end = index;
    // extend the hunk while changes are closer than 2×CONTEXT lines apart
    for (let k = index; k < ops.length; k++) {
      if (ops[k].type !== ' ') end = k;
      else if (k - end > 2 * CONTEXT) break;
    }
    const stop = Math.min(ops.length, end + CONTEXT + 1);
    const hunk = ops.slice(start, stop);
    const aCount = hunk.filter((op) => op.type !== '+').length;
    const bCount = hunk.filter((op) => op.type !== '-').length;
    const aStart = hunk[0].aLine + (aCount === 0 ? 0 : 1);
    const bStart = hunk[0].bLine + (bCount === 0 ? 0 : 1);
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const op of hunk) out.push(`${op.type}${op.line}`);
    index = stop;
  }
  return `${out.join('\n')}\n`;
}

/** Finalizers the deletion itself added (propagation policy): an undeleted object starts without them. */
const DELETION_FINALIZERS = new Set(['orphan', 'foregroundDeletion']);

/**
 * The update a restore sends: the live object with the revision's desired state — every top-level
 * field but metadata and status, and metadata's labels and annotations — and the live
 * resourceVersion, so a write in between is reported as a conflict rather than overwritten.
 */
export function restoreUpdate(live: KubeObject, revision: KubeObject): KubeObject {
  const next: KubeObject = { apiVersion: live.apiVersion, kind: live.kind, metadata: { ...live.metadata } };
  for (const [field, value] of Object.entries(revision)) {
    if (field === 'metadata' || field === 'status' || field === 'apiVersion' || field === 'kind') continue;
    next[field] = value;
  }
  if (live.status !== undefined) next.status = live.status;
  if (revision.metadata.labels === undefined) delete next.metadata.labels;
  else next.metadata.labels = revision.metadata.labels;
  if (revision.metadata.annotations === undefined) delete next.metadata.annotations;
  else next.metadata.annotations = revision.metadata.annotations;
  delete next.metadata.managedFields;
  return next;
}

/** The create an undelete sends: the last state without what the server owns (uid, versions, status, deletion marks). */
export function undeleteObject(last: KubeObject): KubeObject {
  const metadata = { ...last.metadata };
  for (const field of [...SERVER_METADATA, 'deletionTimestamp', 'deletionGracePeriodSeconds']) delete (metadata as Record<string, unknown>)[field];
  const finalizers = (metadata.finalizers ?? []).filter((finalizer) => !DELETION_FINALIZERS.has(finalizer));
  if (finalizers.length > 0) metadata.finalizers = finalizers;
  else delete metadata.finalizers;
  const { status: _status, ...rest } = last;
  return { ...rest, metadata };
}

/** One revision as the history API (history.kubedesk.dev/v1) serves it. */
export interface Revision {
  target: { group: string; version: string; resource: string; kind: string; namespace: string; name: string; uid?: string };
  revision: number;
  time: string;
  operation: string;
  removed: boolean;
  subresource?: string;
  user?: string;
  impersonator?: string;
  fieldManager?: string;
  userAgent?: string;
  redacted?: boolean;
  changedKeys?: string[];
  object: KubeObject;
}

export const HISTORY_API = '/apis/history.kubedesk.dev/v1';

const DURATION_UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A time as the history takes it (`since`, `--as-of`, the time slider): a duration back from `now`
 * (30s, 10m, 2h, 7d) or an RFC 3339 time; undefined when it is neither.
 */
export function parseHistoryTime(text: string, now: number): number | undefined {
  const trimmed = text.trim();
  const duration = /^(\d+)(s|m|h|d)$/.exec(trimmed);
  if (duration) return now - Number(duration[1]) * DURATION_UNITS[duration[2] as keyof typeof DURATION_UNITS];
  if (!/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) return undefined;
  const time = Date.parse(trimmed);
  return Number.isNaN(time) ? undefined : time;
}
/** the field manager restores and undeletes write as */
export const RESTORE_FIELD_MANAGER = 'kubedesk-history';

/** A history API list item, checked: throws when it is not a Revision. */
export function asRevision(value: unknown): Revision {
  if (!isRecord(value) || !isRecord(value.target) || !isRecord(value.object) || !isRecord(value.object.metadata) || typeof value.revision !== 'number') {
    throw new Error('the history API answered with an item that is not a Revision');
  }
  return value as unknown as Revision;
}

/** `kind.group/name`, as kubectl names an object in its messages (`deployment.apps/web`). */
export function targetName(revision: Pick<Revision, 'target'>): string {
  const { group, kind, name } = revision.target;
  return `${kind.toLowerCase()}${group ? `.${group}` : ''}/${name}`;
}

/** The REST path of the revision's object (with a name) or of its collection. */
export function targetPath(target: Revision['target'], name?: string): string {
  const base = target.group === '' ? `/api/${target.version}` : `/apis/${target.group}/${target.version}`;
  const namespaced = target.namespace !== '' ? `/namespaces/${encodeURIComponent(target.namespace)}` : '';
  return `${base}${namespaced}/${target.resource}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
}

/** Who wrote a revision: `user (manager)`, `admin as alice (kubectl)`; `(kubedesk)` for the cluster's own writes. */
export function writtenBy(revision: Pick<Revision, 'user' | 'impersonator' | 'fieldManager'>): string {
  const who = revision.user ?? '(kubedesk)';
  const as = revision.impersonator ? `${revision.impersonator} as ${who}` : who;
  return revision.fieldManager ? `${as} (${revision.fieldManager})` : as;
}

/** The CHANGES of each revision in a list of one object's revisions (oldest first). */
export function revisionChanges(revisions: Revision[], width?: number): string[] {
  return revisions.map((revision, index) => {
    if (revision.redacted) return `data keys changed: ${(revision.changedKeys ?? []).join(', ') || '(none)'}`;
    const previous = index > 0 && revisions[index - 1].revision === revision.revision - 1 ? revisions[index - 1].object : undefined;
    if (index === 0 && revision.operation !== 'CREATE' && !revision.removed) return '(earlier revisions pruned)';
    return changeSummary(previous, revision.object, revision.removed, width);
  });
}

/** A restore the history cannot make (the caller's choice is wrong): its reason. */
export class RestoreRefusal extends Error {}

/**
 * What restoring `chosen` (or, for a deleted object, by default its last state) writes:
 * - `update`: the object exists; PUT restoreUpdate(live, revision.object) to `path` after a GET
 *   of it, so the live resourceVersion guards against a write in between (a 409, never overwritten)
 * - `undelete`: the object is deleted; POST `body` to `path` (its collection)
 */
export type RestorePlan = { kind: 'update'; path: string; revision: Revision; display: string } | { kind: 'undelete'; path: string; body: KubeObject; revision: Revision; display: string };

export function planRestore(revisions: Revision[], chosen: Revision | undefined): RestorePlan {
  const last = revisions[revisions.length - 1];
  if (last === undefined) throw new RestoreRefusal('there is no revision to restore');
  const target = last.target;
  const display = targetName(last);
  if (!last.removed) {
    if (!chosen) throw new RestoreRefusal(`${display} exists: name the revision to restore with --revision N`);
    if (chosen.removed) throw new RestoreRefusal(`revision ${chosen.revision} is the deletion of ${display}: choose an earlier one`);
    return { kind: 'update', path: targetPath(target, target.name), revision: chosen, display };
  }
  const source = chosen ?? last;
  return { kind: 'undelete', path: targetPath(target), body: undeleteObject(source.object), revision: source, display };
}
