// The actions on an object (scale, restart, rollback, delete, cordon/uncordon/drain,
// suspend/resume, trigger a Job, shell, logs), used by the detail page's header and the command
// palette. Each does what the matching kubectl command does, with the bodies from actionBodies.ts;
// results and errors become notices, long ones (drain) a task with progress.
import type { KubeObject } from '../../shared/kubernetes/types';
import { isRecord } from '../../shared/kubernetes/types';
import { KubeApiError } from '../api/kubeClient';
import type { AppServices } from '../context';
import { containersOf } from '../kinds/pods';
import { resourcePath, type KindConfig } from '../kinds/kindConfig';
import { deployments, pods, replicaSets } from '../kinds';
import { FIELD_MANAGER, cordonPatch, deleteOptions, drainSkipReason, evictionBody, jobFromCronJob, manualJobName, parseReplicas, podsToEvict, randomSuffix, restartPatch, rollbackPlan, scalePatch, suspendPatch } from './actionBodies';

export interface ActionContext extends AppServices {
  /** asks the user (native dialog in the desktop app, a modal in the browser) */
  confirm(message: string, detail?: string): Promise<boolean>;
  /** asks for a value (e.g. the replica count); undefined = cancelled */
  prompt(message: string, initial: string): Promise<string | undefined>;
}

export interface Action {
  id: string;
  title: string;
  danger?: boolean;
  run(context: ActionContext): Promise<void>;
}

/** Writes name the UI as their field manager, so managedFields (and apply conflicts) say who changed what. */
const WRITE_OPTIONS = { query: { fieldManager: FIELD_MANAGER } };

const SCALABLE = new Set(['deployments.apps', 'statefulsets.apps', 'replicasets.apps']);
const RESTARTABLE = new Set(['deployments.apps', 'statefulsets.apps', 'daemonsets.apps']);

/** `kind/name` (or `kind/namespace/name`) for messages. */
export function describeObject(config: KindConfig, object: KubeObject): string {
  const name = object.metadata.name ?? '';
  return `${config.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${name}`;
}

/** A readable message of a failed call, with the field causes upstream attaches to Invalid/Conflict. */
export function errorText(error: unknown): string {
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
  if (config.key === 'deployments.apps') ids.push('rollback');
  if (config.key === 'nodes') ids.push(spec.unschedulable === true ? 'uncordon' : 'cordon', 'drain');
  if (config.key === 'cronjobs.batch') ids.push(spec.suspend === true ? 'resume' : 'suspend', 'trigger');
  ids.push('delete');
  return ids;
}

export function actionsFor(config: KindConfig, object: KubeObject): Action[] {
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
    shell: () => ({
      id: 'shell',
      title: 'Shell',
      run: async ({ store }) => {
        const container = containersOf(object).find((candidate) => !candidate.init)?.name;
        store.getState().openDockTab({ id: `shell:${namespace}/${name}/${container ?? ''}`, type: 'shell', namespace: namespace ?? 'default', pod: name, container, title: `sh ${name}` });
      },
    }),
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
  }
}

/** `kubectl drain --ignore-daemonsets`: cordon, then evict each other pod on the node, with progress. */
async function drainNode(context: ActionContext, nodeName: string): Promise<void> {
  if (!(await context.confirm(`Drain node ${nodeName}?`, 'The node is cordoned and every pod on it except DaemonSet and mirror pods is evicted.'))) return;
  const state = context.store.getState();
  const task = state.startTask(`Draining ${nodeName}`);
  try {
    await context.client.patch(resourcePath({ group: '', version: 'v1', plural: 'nodes', namespaced: false }, undefined, nodeName), cordonPatch(true), 'merge', WRITE_OPTIONS);
    const list = await context.client.list(resourcePath(pods), { fieldSelector: `spec.nodeName=${nodeName}` });
    const victims = podsToEvict(list.items, nodeName);
    const skipped = list.items.filter((pod) => drainSkipReason(pod) === 'DaemonSet-managed').length;
    const failures: string[] = [];
    let done = 0;
    state.updateTask(task, victims.length === 0 ? 1 : 0);
    for (const pod of victims) {
      const podPath = resourcePath(pods, pod.metadata.namespace, pod.metadata.name);
      try {
        await context.client.create(`${podPath}/eviction`, evictionBody(pod));
      } catch (error) {
        // an already-gone pod is as good as evicted
        if (!(error instanceof KubeApiError && error.code === 404)) failures.push(`${pod.metadata.namespace}/${pod.metadata.name}: ${errorText(error)}`);
      }
      done++;
      context.store.getState().updateTask(task, done / victims.length);
    }
    if (failures.length > 0) context.store.getState().notify('error', `node/${nodeName}: ${failures.length} of ${victims.length} evictions failed\n${failures.join('\n')}`);
    else context.store.getState().notify('ok', `node/${nodeName} drained: ${victims.length} pod(s) evicted${skipped > 0 ? `, ${skipped} DaemonSet pod(s) ignored` : ''}`);
  } catch (error) {
    context.store.getState().notify('error', `node/${nodeName}: ${errorText(error)}`);
  } finally {
    context.store.getState().finishTask(task);
  }
}
