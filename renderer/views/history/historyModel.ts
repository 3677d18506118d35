// The UI's side of the object history (history.kubedesk.dev/v1): reading an object's revisions,
// the change feed and the deleted objects; the rows the History tab, the Changes page and
// Recently deleted show; restore and undelete through the same plan as `kubedesk history restore`
// (shared/history); and the time slider's choices, whose past list is the API's `pastobjects`.
import { errorText } from '../../actions/actions';
import { changeSummary, diffObject, HISTORY_API, planRestore, restoreUpdate, RESTORE_FIELD_MANAGER, asRevision, revisionChanges, targetName, writtenBy, type RestorePlan, type Revision } from '../../../shared/history/historyFormat';
import { isRecord, type KubeObject } from '../../../shared/kubernetes/types';
import { KubeApiError, type KubeClient } from '../../api/kubeClient';
import type { KindConfig } from '../../kinds/kindConfig';

export type { Revision };

/** The kubectl resource word the history API resolves for a kind: `deployments.apps`, `pods`. */
export function typeWord(config: Pick<KindConfig, 'plural' | 'group'>): string {
  return config.group ? `${config.plural}.${config.group}` : config.plural;
}

export function historyPath(resource: 'revisions' | 'deletedobjects' | 'pastobjects', namespace?: string): string {
  return namespace ? `${HISTORY_API}/namespaces/${encodeURIComponent(namespace)}/${resource}` : `${HISTORY_API}/${resource}`;
}

/** The items of a RevisionList, checked. */
export function revisionsOf(body: unknown): Revision[] {
  if (!isRecord(body) || !Array.isArray(body.items)) throw new Error('the history API answered with something that is not a RevisionList');
  return body.items.map(asRevision);
}

export async function readRevisions(client: KubeClient, path: string, query: Record<string, string | undefined>, signal?: AbortSignal): Promise<Revision[]> {
  return revisionsOf(await client.get<unknown>(path, { query, signal }));
}

/** One object's revisions, oldest first (cluster-scoped objects: no namespace). */
export function objectRevisions(client: KubeClient, config: KindConfig, namespace: string | undefined, name: string, signal?: AbortSignal): Promise<Revision[]> {
  return readRevisions(client, historyPath('revisions', config.namespaced ? namespace : undefined), { type: typeWord(config), name }, signal);
}

export interface TimelineRow {
  revision: Revision;
  operation: string;
  by: string;
  changes: string;
}

/** The History tab's rows, newest first. */
export function timelineRows(revisions: Revision[]): TimelineRow[] {
  const changes = revisionChanges(revisions, 160);
  return revisions
    .map((revision, index) => ({ revision, operation: operationText(revision), by: writtenBy(revision), changes: changes[index] }))
    .reverse();
}

export function operationText(revision: Pick<Revision, 'operation' | 'subresource'>): string {
  return revision.subresource ? `${revision.operation} (${revision.subresource})` : revision.operation;
}

/** The object of a revision as the diff shows it (no managedFields, no resourceVersion). */
export function diffable(revision: Revision): KubeObject {
  return diffObject(revision.object);
}

/** What changed from one revision to another, in one line (`image: a→b`). */
export function changeBetween(from: Revision, to: Revision): string {
  if (to.removed) return 'deleted';
  return changeSummary(from.object, to.object, false, 400);
}

/** The route key of a revision's kind (the UI's kind keys are `plural.group` or `plural`). */
export function kindKeyOf(target: Revision['target']): string {
  return target.group ? `${target.resource}.${target.group}` : target.resource;
}

export interface FeedRow {
  id: string;
  revision: Revision;
  object: string;
  operation: string;
  by: string;
  changes: string;
}

/**
 * The Changes page's rows (the feed is newest first): each write summarised against the object's
 * previous revision when the feed holds it, else by what it did.
 */
export function feedRows(feed: Revision[]): FeedRow[] {
  const byRevision = new Map<string, Revision>();
  const id = (revision: Revision, number = revision.revision) => `${kindKeyOf(revision.target)}/${revision.target.namespace}/${revision.target.name}#${number}`;
  for (const revision of feed) byRevision.set(id(revision), revision);
  return feed.map((revision) => {
    const previous = byRevision.get(id(revision, revision.revision - 1));
    let changes: string;
    if (revision.redacted) changes = `data keys changed: ${(revision.changedKeys ?? []).join(', ') || '(none)'}`;
    else if (revision.removed) changes = 'deleted';
    else if (revision.operation === 'CREATE' && !revision.subresource) changes = 'created';
    else if (previous && !previous.redacted) changes = changeSummary(previous.object, revision.object, false, 160);
    else changes = revision.operation === 'DELETE' ? 'deletion started' : '';
    return { id: id(revision), revision, object: targetName(revision), operation: operationText(revision), by: writtenBy(revision), changes };
  });
}

export interface FeedFilter {
  namespace: string;
  kind: string;
  user: string;
  since: string;
}

/** The feed request for a filter: namespace in the path, the rest as the API's query. */
export function feedRequest(filter: FeedFilter): { path: string; query: Record<string, string | undefined> } {
  return {
    path: historyPath('revisions', filter.namespace.trim() || undefined),
    query: { type: filter.kind.trim() || undefined, user: filter.user.trim() || undefined, since: filter.since || undefined, limit: '500' },
  };
}

/** The object restore would write, and the live object it starts from (read now: its resourceVersion guards the write). */
export interface RestorePreview {
  plan: RestorePlan;
  /** for an update: the live object and what the restore changes in it */
  live?: KubeObject;
  body: KubeObject;
  changes: string;
}

/** Reads what restoring `chosen` (undefined: a deleted object's last state) would write; refusals throw RestoreRefusal. */
export async function previewRestore(client: KubeClient, revisions: Revision[], chosen: Revision | undefined): Promise<RestorePreview> {
  const plan = planRestore(revisions, chosen);
  if (plan.kind === 'undelete') return { plan, body: plan.body, changes: `recreates ${plan.display} from revision ${plan.revision.revision}` };
  const live = await client.get<unknown>(plan.path);
  if (!isRecord(live) || !isRecord(live.metadata)) throw new Error(`the server answered ${plan.display} with something that is not an object`);
  const liveObject = live as unknown as KubeObject;
  const body = restoreUpdate(liveObject, plan.revision.object);
  return { plan, live: liveObject, body, changes: changeSummary(liveObject, body, false, 400) };
}

/**
 * Writes a previewed restore: the update carries the resourceVersion read for the preview, so a
 * write since then is a 409 Conflict (shown, never overwritten); the undelete is a create.
 */
export async function applyRestore(client: KubeClient, preview: RestorePreview): Promise<string> {
  const { plan } = preview;
  if (plan.kind === 'update') {
    await client.replace(plan.path, preview.body, { query: { fieldManager: RESTORE_FIELD_MANAGER } });
    return `${plan.display} restored to revision ${plan.revision.revision}`;
  }
  await client.create(plan.path, preview.body, { query: { fieldManager: RESTORE_FIELD_MANAGER } });
  return `${plan.display} undeleted from revision ${plan.revision.revision}`;
}

/** The words for a failed restore: a conflict says nothing was overwritten. */
export function restoreFailure(error: unknown): string {
  if (error instanceof KubeApiError && error.code === 409) {
    return error.reason === 'AlreadyExists'
      ? `Not undeleted: ${error.message} — an object of that name exists again.`
      : `Conflict: the object changed since it was read (${error.message}). Nothing was overwritten; look at the newest revision and restore again.`;
  }
  return errorText(error);
}

/** Spans the time slider covers back from now; `all` = since the history starts. */
export const SLIDER_SPANS = [
  { id: 'all', label: 'all history', ms: undefined },
  { id: '1h', label: 'last hour', ms: 3_600_000 },
  { id: '1d', label: 'last day', ms: 86_400_000 },
  { id: '7d', label: 'last 7 days', ms: 7 * 86_400_000 },
] as const;

export const SLIDER_STEPS = 1000;

/** The time a slider position stands for: 0 = the span's start, SLIDER_STEPS = now. */
export function sliderTime(position: number, start: number, now: number): number {
  const clamped = Math.min(SLIDER_STEPS, Math.max(0, position));
  return Math.round(start + ((now - start) * clamped) / SLIDER_STEPS);
}

/** The slider position of a time within [start, now]. */
export function sliderPosition(time: number, start: number, now: number): number {
  if (now <= start) return SLIDER_STEPS;
  return Math.round(((Math.min(now, Math.max(start, time)) - start) / (now - start)) * SLIDER_STEPS);
}

/** The history's start from a pastobjects 410 (its HistoryStart cause), else undefined. */
export function historyStartOf(error: unknown): number | undefined {
  if (!(error instanceof KubeApiError) || error.code !== 410) return undefined;
  const cause = error.causes.find((candidate) => candidate.reason === 'HistoryStart');
  const time = Date.parse(cause?.message ?? '');
  return Number.isNaN(time) ? undefined : time;
}

/** Reads the time the history starts: a request for the epoch answers 410 naming it. */
export async function readHistoryStart(client: KubeClient, config: KindConfig, signal?: AbortSignal): Promise<number | undefined> {
  try {
    await client.get<unknown>(historyPath('pastobjects'), { query: { type: typeWord(config), time: '1970-01-01T00:00:00Z' }, signal });
    return 0;
  } catch (error) {
    return historyStartOf(error);
  }
}

/** The list of a kind as it was at `time` (every namespace, or one). */
export async function readPastList(client: KubeClient, config: KindConfig, namespace: string | undefined, time: number, signal?: AbortSignal): Promise<KubeObject[]> {
  const body = await client.get<unknown>(historyPath('pastobjects', config.namespaced ? namespace : undefined), { query: { type: typeWord(config), time: new Date(time).toISOString() }, signal });
  if (!isRecord(body) || !Array.isArray(body.items)) throw new Error('the history API answered with something that is not a list');
  return body.items.filter((item): item is KubeObject => isRecord(item) && isRecord(item.metadata));
}
