// Actions on several selected objects of a list at once: delete (any kind), restart and scale
// (workloads), cordon/uncordon (nodes), suspend/resume (CronJobs) — those that mean the same for
// each object and need no per-object choice. One confirmation (or one replica count) for all, then
// each object's own action from actions.ts runs with that answer, a few at a time, and the notices
// they would each have raised are collected into one summary (as `kubectl delete a b c` prints one
// line per object).
import type { KubeObject } from '../../shared/kubernetes/types';
import type { AppState, AppStore, Notice } from '../store/store';
import type { KindConfig } from '../kinds/kindConfig';
import { actionChecks, actionIdsFor, actionsFor, describeObject, type ActionContext } from './actions';
import { canAnything, refusal, type Can } from '../views/permissions/permissionsModel';
import { parseReplicas } from './actionBodies';

/** Actions that make sense for many objects at once, in the order they are offered. */
const BULK_ACTIONS: { id: string; title: string; danger?: boolean }[] = [
  { id: 'restart', title: 'Restart' },
  { id: 'scale', title: 'Scale…' },
  { id: 'cordon', title: 'Cordon' },
  { id: 'uncordon', title: 'Uncordon' },
  { id: 'suspend', title: 'Suspend' },
  { id: 'resume', title: 'Resume' },
  { id: 'delete', title: 'Delete', danger: true },
];

const PARALLEL = 6;

export interface BulkAction {
  id: string;
  title: string;
  danger?: boolean;
  /** why it cannot run: the user may not perform it on any of the objects */
  disabled?: string;
}

/**
 * The bulk actions every one of the objects offers (none for an empty selection); one the user's
 * permissions refuse for every object is disabled with the first object's reason (objects refused
 * among allowed ones are reported in the summary).
 */
export function bulkActionsFor(config: KindConfig, objects: KubeObject[], can: Can = canAnything): BulkAction[] {
  if (objects.length === 0) return [];
  const common = objects.map((object) => new Set(actionIdsFor(config, object)));
  return BULK_ACTIONS.filter((action) => common.every((ids) => ids.has(action.id))).map((action) => {
    const reasons = objects.map((object) => refusal(can, actionChecks(config, object, action.id)));
    return reasons.every((reason) => reason !== undefined) ? { ...action, disabled: reasons[0] } : action;
  });
}

/** `3 Deployments` / `1 Pod`. */
export function countLabel(config: KindConfig, count: number): string {
  return count === 1 ? `1 ${config.kind}` : `${count} ${config.title}`;
}

/** Names for the confirmation, at most `limit` of them. */
export function namesList(objects: KubeObject[], limit = 10): string {
  const names = objects.slice(0, limit).map((object) => (object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ''}` : (object.metadata.name ?? '')));
  return objects.length > limit ? `${names.join(', ')} and ${objects.length - limit} more` : names.join(', ');
}

/** The one notice summing up a bulk run: how many succeeded, and each failure. */
export function bulkSummary(title: string, what: string, outcomes: Pick<Notice, 'tone' | 'text'>[]): Pick<Notice, 'tone' | 'text'> {
  const failed = outcomes.filter((outcome) => outcome.tone === 'error');
  const done = outcomes.length - failed.length;
  if (failed.length === 0) return { tone: 'ok', text: `${title}: done for ${what}` };
  return { tone: 'error', text: [`${title}: ${done} of ${outcomes.length} done; failed:`, ...failed.map((outcome) => `  ${outcome.text}`)].join('\n') };
}

/** A view of the store whose notify() collects instead of showing (everything else is the store). */
function collectingStore(store: AppStore, collect: (tone: Notice['tone'], text: string) => void): AppStore {
  return { ...store, getState: (): AppState => ({ ...store.getState(), notify: collect }) };
}

/** Runs a bulk action on the objects: one question, each object's own action, one summary notice. */
export async function runBulkAction(context: ActionContext, config: KindConfig, objects: KubeObject[], id: string): Promise<void> {
  const action = BULK_ACTIONS.find((candidate) => candidate.id === id);
  if (!action || objects.length === 0) return;
  const what = countLabel(config, objects.length);
  let replicas: string | undefined;
  if (id === 'scale') {
    const current = objects.map((object) => (typeof (object.spec as { replicas?: unknown } | undefined)?.replicas === 'number' ? String((object.spec as { replicas: number }).replicas) : '1'));
    replicas = await context.prompt(`Replicas of ${what}`, current.every((value) => value === current[0]) ? current[0] : '');
    if (replicas === undefined) return;
    const parsed = parseReplicas(replicas);
    if (!parsed.ok) return context.store.getState().notify('error', parsed.message);
  } else {
    const detail = id === 'delete' ? `${namesList(objects)}\n\nObjects they own are deleted in the background.` : namesList(objects);
    if (!(await context.confirm(`${action.title} ${what}?`, detail))) return;
  }
  const outcomes: Pick<Notice, 'tone' | 'text'>[] = [];
  const task = context.store.getState().startTask(`${action.title.replace('…', '')} ${what}`);
  const queue = [...objects];
  const worker = async () => {
    for (let object = queue.shift(); object; object = queue.shift()) {
      const current = object;
      let reported = false;
      const store = collectingStore(context.store, (tone, text) => {
        reported = true;
        outcomes.push({ tone: tone === 'error' ? 'error' : 'ok', text });
      });
      const single = actionsFor(config, current, context.can).find((candidate) => candidate.id === id);
      if (!single || single.disabled !== undefined) {
        outcomes.push({ tone: 'error', text: `${describeObject(config, current)}: ${single?.disabled ?? `cannot ${id}`}` });
        continue;
      }
      await single.run({ ...context, store, confirm: async () => true, prompt: async () => replicas });
      if (!reported) outcomes.push({ tone: 'ok', text: describeObject(config, current) });
      context.store.getState().updateTask(task, outcomes.length / objects.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(PARALLEL, objects.length) }, worker));
  } finally {
    context.store.getState().finishTask(task);
  }
  const summary = bulkSummary(action.title.replace('…', ''), what, outcomes);
  context.store.getState().notify(summary.tone === 'ok' ? 'ok' : 'error', summary.text);
}
