// The actions on an object (scale, restart, rollback, delete, cordon/uncordon/drain,
// suspend/resume, trigger a Job, shell, logs), used by the detail page's header and the command
// palette. Each does what the matching kubectl command does, with the bodies from actionBodies.ts;
// results and errors become notices, long ones (drain) a task with progress. Drain follows
// kubectl/pkg/drain/drain.go: evictions run side by side, a PodDisruptionBudget's 429 is retried every
// 5 s until a deadline, then drain waits — on the pods watch cache, not by polling — until the evicted
// pods are gone (their grace period plus 30 s at most).
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { KubeApiError } from '../api/kubeClient';
import type { AppServices } from '../context';
import { containersOf } from '../kinds/pods';
import { execAvailability } from '../kinds/podExec';
import { resourcePath, type KindConfig } from '../kinds/kindConfig';
import { deployments, pods, replicaSets } from '../kinds';
import { canAnything, forbiddenText, refusal, requestTarget, type Can, type PermissionCheck } from '../views/permissions/permissionsModel';
import { currentIdentity, permissionsFor } from '../views/permissions/permissionsStore';
import { EVICTION_RETRY_MS, FIELD_MANAGER, TERMINATION_SLACK_MS, cordonPatch, deleteOptions, drainSkipReason, drainSummary, drainWaitTitle, evictionBody, evictionStep, jobFromCronJob, manualJobName, parseReplicas, podKey, podsRemaining, podsToEvict, randomSuffix, restartPatch, revisionRollbackPlan, rollbackPlan, scalePatch, suspendPatch, terminationWaitMs, type DrainOutcome } from './actionBodies';

export interface ActionContext extends AppServices {
  /** asks the user (native dialog in the desktop app, a modal in the browser) */
  confirm(message: string, detail?: string): Promise<boolean>;
  /** asks for a value (e.g. the replica count); undefined = cancelled */
  prompt(message: string, initial: string): Promise<string | undefined>;
  /** the user's permissions (bulk actions skip the objects it refuses); everything when left out */
  can?: Can;
}

export interface Action {
  id: string;
  title: string;
  danger?: boolean;
  /** why the action cannot run now (the button is disabled with this as its hint) */
  disabled?: string;
  run(context: ActionContext): Promise<void>;
}

/** Writes name the UI as their field manager, so managedFields (and apply conflicts) say who changed what. */
const WRITE_OPTIONS = { query: { fieldManager: FIELD_MANAGER } };

const SCALABLE = new Set(['deployments.apps', 'statefulsets.apps', 'replicasets.apps', 'replicationcontrollers']);
const RESTARTABLE = new Set(['deployments.apps', 'statefulsets.apps', 'daemonsets.apps']);
/** Kinds whose history is ControllerRevisions (kubectl's StatefulSetRollbacker / DaemonSetRollbacker). */
const REVISION_HISTORY = new Set(['statefulsets.apps', 'daemonsets.apps']);
const controllerRevisions = { group: 'apps', version: 'v1', plural: 'controllerrevisions', namespaced: true };

/** `kind/name` (or `kind/namespace/name`) for messages. */
export function describeObject(config: KindConfig, object: KubeObject): string {
  const name = object.metadata.name ?? '';
  return `${config.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${name}`;
}

/**
 * A readable message of a failed call, with the field causes upstream attaches to Invalid/Conflict;
 * a refused one (403) says who the user is and what was refused, then the server's message.
 */
export function errorText(error: unknown): string {
  if (error instanceof KubeApiError && error.code === 403) {
    return forbiddenText(currentIdentity(), error.request ? requestTarget(error.request.method, error.request.path, error.request.query) : undefined, error.message);
  }
  if (error instanceof KubeApiError) {
    const causes = error.causes.map((cause) => `  ${cause.field ? `${cause.field}: ` : ''}${cause.message ?? cause.reason ?? ''}`);
    return [error.message, ...causes].join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}

/** The ids of the actions a kind offers (before looking at the object's state). */
export function actionIdsFor(config: KindConfig, object: KubeObject): string[] {
  const ids: string[] = [];
  const spec = isRecord(object.spec) ? object.spec : {};
  if (config.key === 'pods') ids.push('shell', 'logs');
  if (SCALABLE.has(config.key)) ids.push('scale');
  if (RESTARTABLE.has(config.key)) ids.push('restart');
  if (config.key === 'deployments.apps' || REVISION_HISTORY.has(config.key)) ids.push('rollback');
  if (config.key === 'nodes') ids.push(spec.unschedulable === true ? 'uncordon' : 'cordon', 'drain');
  if (config.key === 'cronjobs.batch') ids.push(spec.suspend === true ? 'resume' : 'suspend', 'trigger');
  ids.push('delete');
  return ids;
}

/** What an action asks of the API server, for the permission checks that disable it beforehand. */
export function actionChecks(config: KindConfig, object: KubeObject, id: string): PermissionCheck[] {
  const namespace = object.metadata.namespace;
  const name = object.metadata.name ?? '';
  const on = (verb: string, subresource?: string): PermissionCheck => ({ verb, group: config.group, resource: config.plural, subresource, namespace, name });
  switch (id) {
    case 'shell':
      // an exec WebSocket is authorised as create on pods/exec (and get; create is the one roles omit)
      return [on('create', 'exec')];
    case 'logs':
      return [on('get', 'log')];
    case 'scale':
      return [on('patch', 'scale')];
    case 'restart':
    case 'rollback':
    case 'cordon':
    case 'uncordon':
    case 'suspend':
    case 'resume':
      return [on('patch')];
    case 'drain':
      return [on('patch'), { verb: 'create', group: '', resource: 'pods', subresource: 'eviction' }];
    case 'trigger':
      return [{ verb: 'create', group: 'batch', resource: 'jobs', namespace }];
    case 'delete':
      return [on('delete')];
    default:
      return [];
  }
}

/**
 * The kind's actions on the object; `can` (the user's permissions) disables those the user may not
 * perform, with the reason — an object's own reason (a pod without a running container) comes first.
 */
export function actionsFor(config: KindConfig, object: KubeObject, can: Can = canAnything): Action[] {
  return actionsOf(config, object).map((action) => {
    if (action.disabled !== undefined) return action;
    const refused = refusal(can, actionChecks(config, object, action.id));
    return refused === undefined ? action : { ...action, disabled: refused };
  });
}

function actionsOf(config: KindConfig, object: KubeObject): Action[] {
  const label = describeObject(config, object);
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  const path = resourcePath(config, namespace, name);
  // cordon/uncordon, suspend/resume: one merge patch of the object, then a notice
  const patchAction = (id: string, title: string, patch: unknown, done: string): Action => ({
    id,
    title,
    run: async (context) =>
      report(context, async () => {
        await context.client.patch(path, patch, 'merge', WRITE_OPTIONS);
        return done;
      }),
  });
  const makers: Record<string, () => Action> = {
    shell: () => {
      const target = execAvailability(object);
      return {
        id: 'shell',
        title: 'Shell',
        disabled: target.enabled ? undefined : target.reason,
        run: async ({ store }) => {
          if (!target.enabled) return store.getState().notify('error', `${label}: ${target.reason ?? 'no shell'}`);
          store.getState().openDockTab({ id: `shell:${namespace}/${name}/${target.container ?? ''}`, type: 'shell', namespace: namespace ?? 'default', pod: name, container: target.container, title: `sh ${name}` });
        },
      };
    },
    logs: () => ({
      id: 'logs',
      title: 'Logs',
      run: async ({ store }) => {
        const container = containersOf(object).find((candidate) => !candidate.init)?.name;
        store.getState().openDockTab({ id: `logs:${namespace}/${name}/${container ?? ''}`, type: 'logs', namespace: namespace ?? 'default', pods: [name], container, title: `logs ${name}` });
      },
    }),
    scale: () => ({
      id: 'scale',
      title: 'Scale…',
      run: async (context) => {
        const current = isRecord(object.spec) && typeof object.spec.replicas === 'number' ? object.spec.replicas : 1;
        const answer = await context.prompt(`Replicas of ${label}`, String(current));
        if (answer === undefined) return;
        const parsed = parseReplicas(answer);
        if (!parsed.ok) return context.store.getState().notify('error', parsed.message);
        await report(context, async () => {
          await context.client.patch(`${path}/scale`, scalePatch(parsed.replicas), 'merge', WRITE_OPTIONS);
          return `${label} scaled to ${parsed.replicas}`;
        });
      },
    }),
    restart: () => ({
      id: 'restart',
      title: 'Restart',
      run: async (context) => {
        if (!(await context.confirm(`Restart ${label}?`, 'Its pods are replaced one by one, as `kubectl rollout restart` does.'))) return;
        await report(context, async () => {
          await context.client.patch(path, restartPatch(new Date()), 'strategic', WRITE_OPTIONS);
          return `${label} restarted`;
        });
      },
    }),
    rollback: () => ({
      id: 'rollback',
      title: 'Roll back',
      run: async (context) => {
        if (!(await context.confirm(`Roll back ${label} to its previous revision?`))) return;
        await report(context, async () => {
          if (REVISION_HISTORY.has(config.key)) {
            const current = await context.client.get<KubeObject>(path);
            const revisionList = await context.client.list(resourcePath(controllerRevisions, namespace));
            const plan = revisionRollbackPlan(current, revisionList.items);
            if (!plan.ok) {
              if (plan.skipped) return `${label}: ${plan.message}`;
              throw new Error(`${label}: ${plan.message}`);
            }
            await context.client.patch(path, plan.patch, 'strategic', WRITE_OPTIONS);
            return `${label} rolled back to revision ${plan.revision}`;
          }
          const current = await context.client.get<KubeObject>(resourcePath(deployments, namespace, name));
          const replicaSetList = await context.client.list(resourcePath(replicaSets, namespace));
          const plan = rollbackPlan(current, replicaSetList.items);
          if (!plan.ok) {
            if (plan.skipped) return `${label}: ${plan.message}`;
            throw new Error(plan.message);
          }
          await context.client.patch(path, plan.patch, 'json', WRITE_OPTIONS);
          return `${label} rolled back to revision ${plan.revision}`;
        });
      },
    }),
    cordon: () => patchAction('cordon', 'Cordon', cordonPatch(true), `node/${name} cordoned`),
    uncordon: () => patchAction('uncordon', 'Uncordon', cordonPatch(false), `node/${name} uncordoned`),
    drain: () => ({ id: 'drain', title: 'Drain', danger: true, run: async (context) => drainNode(context, name) }),
    suspend: () => patchAction('suspend', 'Suspend', suspendPatch(true), `${label} suspended`),
    resume: () => patchAction('resume', 'Resume', suspendPatch(false), `${label} resumed`),
    trigger: () => ({
      id: 'trigger',
      title: 'Trigger now',
      run: async (context) =>
        report(context, async () => {
          const job = jobFromCronJob(object, manualJobName(name, randomSuffix()));
          await context.client.create(`/apis/batch/v1/namespaces/${encodeURIComponent(namespace ?? 'default')}/jobs`, job, WRITE_OPTIONS);
          return `job.batch/${job.metadata.name ?? ''} created`;
        }),
    }),
    delete: () => ({
      id: 'delete',
      title: 'Delete',
      danger: true,
      run: async (context) => {
        if (!(await context.confirm(`Delete ${label}?`, config.key === 'namespaces' ? 'Everything in the namespace is deleted with it.' : 'Objects it owns are deleted in the background.'))) return;
        await report(context, async () => {
          await context.client.delete(path, deleteOptions());
          return `${label} deleted`;
        });
      },
    }),
  };
  return actionIdsFor(config, object).map((id) => makers[id]());
}

async function report(context: ActionContext, work: () => Promise<string>): Promise<void> {
  try {
    context.store.getState().notify('ok', await work());
  } catch (error) {
    context.store.getState().notify('error', errorText(error));
    // permissions may have changed since they were read: read them again
    if (error instanceof KubeApiError && error.code === 403) permissionsFor(context.client).invalidate();
  }
}

/** Drain's waits, shortened by tests. */
export interface DrainTiming {
  /** between evictions a PodDisruptionBudget refused */
  retryMs: number;
  /** beyond the longest grace period, for evicting and for waiting */
  slackMs: number;
}

const DRAIN_TIMING: DrainTiming = { retryMs: EVICTION_RETRY_MS, slackMs: TERMINATION_SLACK_MS };

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}


type EvictionResult = { pod: KubeObject; action: 'evicted' } | { pod: KubeObject; action: 'gone' } | { pod: KubeObject; action: 'blocked' } | { pod: KubeObject; action: 'failed'; message: string };

/** One pod's eviction loop (evictPods' goroutine body). */
async function evictPod(context: ActionContext, pod: KubeObject, deadline: number, timing: DrainTiming): Promise<EvictionResult> {
  const podPath = resourcePath(pods, pod.metadata.namespace, pod.metadata.name);
  for (;;) {
    let status: number | undefined;
    let message = '';
    try {
      await context.client.create(`${podPath}/eviction`, evictionBody(pod));
    } catch (error) {
      status = error instanceof KubeApiError ? error.code : 0;
      message = errorText(error);
    }
    const step = evictionStep(status, Date.now(), deadline, timing.retryMs);
    if (step.action === 'retry') {
      await delay(step.afterMs);
      continue;
    }
    switch (step.action) {
      case 'evicted':
        return { pod, action: 'evicted' };
      case 'gone':
        return { pod, action: 'gone' };
      case 'blocked':
        return { pod, action: 'blocked' };
      case 'failed':
        return { pod, action: 'failed', message };
    }
  }
}

/**
 * Resolves with the evicted pods still present at the deadline. Waits on the pods watch cache (the
 * caller holds the watch); at the deadline each pod the cache still shows is checked with one GET,
 * in case the watch was down.
 */
async function waitForTermination(context: ActionContext, evicted: KubeObject[], deadline: number, onCount: (remaining: number) => void): Promise<KubeObject[]> {
  let lastCount = -1;
  const cachedRemaining = (): KubeObject[] | undefined => {
    const collection = context.store.getState().collections[pods.key];
    if (!collection || collection.phase === 'loading') return undefined;
    return podsRemaining(evicted, collection.items);
  };
  const stillCached = await new Promise<KubeObject[]>((resolve) => {
    let unsubscribe: () => void = () => undefined;
    let done = false;
    const finish = (remaining: KubeObject[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      resolve(remaining);
    };
    const check = () => {
      const remaining = cachedRemaining();
      if (remaining === undefined) return;
      if (remaining.length !== lastCount) {
        lastCount = remaining.length;
        onCount(remaining.length);
      }
      if (remaining.length === 0) finish([]);
    };
    unsubscribe = context.store.subscribe((state, previous) => {
      if (state.collections[pods.key] !== previous.collections[pods.key]) check();
    });
    const timer = setTimeout(() => finish(cachedRemaining() ?? evicted), Math.max(0, deadline - Date.now()));
    check();
  });
  const stuck: KubeObject[] = [];
  for (const pod of stillCached) {
    try {
      const live = await context.client.get<KubeObject>(resourcePath(pods, pod.metadata.namespace, pod.metadata.name));
      if (pod.metadata.uid === undefined || live.metadata.uid === pod.metadata.uid) stuck.push(pod);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.code === 404)) stuck.push(pod);
    }
  }
  return stuck;
}

/**
 * `kubectl drain --ignore-daemonsets`: cordon, evict every other pod on the node (retrying
 * PodDisruptionBudget refusals every 5 s until the deadline), then wait for the evicted pods to
 * terminate, with progress, ending in one notice.
 */
export async function drainNode(context: ActionContext, nodeName: string, timing: DrainTiming = DRAIN_TIMING): Promise<void> {
  if (!(await context.confirm(`Drain node ${nodeName}?`, 'The node is cordoned and every pod on it except DaemonSet and mirror pods is evicted.'))) return;
  const { store } = context;
  const task = store.getState().startTask(`Draining ${nodeName}`);
  // watch pods from the start, so deletions during the evictions are not missed
  const releaseWatch = context.watches.acquire(pods);
  try {
    await context.client.patch(resourcePath({ group: '', version: 'v1', plural: 'nodes', namespaced: false }, undefined, nodeName), cordonPatch(true), 'merge', WRITE_OPTIONS);
    const list = await context.client.list(resourcePath(pods), { fieldSelector: `spec.nodeName=${nodeName}` });
    const victims = podsToEvict(list.items, nodeName);
    const outcome: DrainOutcome = { nodeName, evicted: [], blocked: [], failed: [], stuck: [], ignoredDaemonSetPods: list.items.filter((pod) => drainSkipReason(pod) === 'DaemonSet-managed').length };
    store.getState().updateTask(task, victims.length === 0 ? 1 : 0);
    const evictionDeadline = Date.now() + terminationWaitMs(victims, timing.slackMs);
    let settled = 0;
    const results = await Promise.all(
      victims.map(async (pod) => {
        const result = await evictPod(context, pod, evictionDeadline, timing);
        settled++;
        store.getState().updateTask(task, settled / victims.length);
        return result;
      }),
    );
    const evicted: KubeObject[] = [];
    for (const result of results) {
      if (result.action === 'evicted') evicted.push(result.pod);
      else if (result.action === 'gone') outcome.evicted.push(podKey(result.pod));
      else if (result.action === 'blocked') outcome.blocked.push(podKey(result.pod));
      else outcome.failed.push({ pod: podKey(result.pod), message: result.message });
    }
    if (evicted.length > 0) {
      const stuck = await waitForTermination(context, evicted, Date.now() + terminationWaitMs(evicted, timing.slackMs), (remaining) => {
        store.getState().updateTask(task, (evicted.length - remaining) / evicted.length, drainWaitTitle(nodeName, remaining));
      });
      const stuckKeys = new Set(stuck.map(podKey));
      for (const pod of evicted) (stuckKeys.has(podKey(pod)) ? outcome.stuck : outcome.evicted).push(podKey(pod));
    }
    const summary = drainSummary(outcome);
    store.getState().notify(summary.tone, summary.text);
  } catch (error) {
    store.getState().notify('error', `node/${nodeName}: ${errorText(error)}`);
  } finally {
    releaseWatch();
    store.getState().finishTask(task);
  }
}
